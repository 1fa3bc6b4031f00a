package app_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"nodedesk/app"
	"nodedesk/store/storetest"
)

// otherRunner is a runner of some other emulator: it runs no VPCS.
type otherRunner struct{ fakeRunner }

func (r *otherRunner) Runs(app.NodeType) bool { return false }

// TestService_NodeAction_RunnerByType: with one runner per emulator, a
// node's lifecycle goes to the runner of its type, and to no other.
func TestService_NodeAction_RunnerByType(t *testing.T) {
	ctx := context.Background()
	other, vpcs := &otherRunner{}, &fakeRunner{}
	svc := app.NewService(app.Config{Store: storetest.Open(t), DataDir: t.TempDir(), HostInterfaces: hostInterfaces,
		Runners: []app.Runner{other, vpcs}})
	n := mustCreateVPCS(t, svc, mustCreateProject(t, svc, "lab").ID)
	for _, a := range []app.Action{app.Start, app.Suspend, app.Start, app.Stop} {
		if _, err := svc.NodeAction(ctx, ref(n), a); err != nil {
			t.Fatalf("%s: %v", a, err)
		}
	}
	if got, want := vpcs.take(), []string{"start", "suspend", "resume", "stop"}; !slices.Equal(got, want) {
		t.Errorf("the VPCS runner was asked %v; want %v", got, want)
	}
	if got := other.take(); len(got) != 0 {
		t.Errorf("the other emulator's runner was asked %v; want nothing", got)
	}
}

// qemuRecorder runs QEMU nodes and keeps what it was given.
type qemuRecorder struct {
	fakeRunner
	got []app.Process
}

func (r *qemuRecorder) Runs(t app.NodeType) bool { return t == app.QEMU }
func (r *qemuRecorder) Start(p app.Process) (string, error) {
	r.got = append(r.got, p)
	return "qemu-system-x86_64", nil
}

// TestService_StartQEMU_Resources: a QEMU node gets one UDP pair per
// adapter, a new set when its adapters change, its properties with every
// default, and no MAC offset (VPCS's, which caps a project at 255 nodes).
func TestService_StartQEMU_Resources(t *testing.T) {
	ctx := context.Background()
	q := &qemuRecorder{}
	svc := app.NewService(app.Config{Store: storetest.Open(t), DataDir: t.TempDir(), HostInterfaces: hostInterfaces,
		Runners: []app.Runner{q}})
	pid := mustCreateProject(t, svc, "lab").ID
	upd, err := app.DecodeProperties(app.QEMU, []byte(`{"adapters": 3}`))
	if err != nil {
		t.Fatal(err)
	}
	n := mustCreateNode(t, svc, pid, app.NodeCreate{Type: app.QEMU, NodeUpdate: app.NodeUpdate{Properties: upd}})
	if _, err := svc.NodeAction(ctx, ref(n), app.Start); err != nil {
		t.Fatal(err)
	}
	p := q.got[0]
	if len(p.Ports) != 3 || p.Ports[0].Remote != p.Ports[0].Local+1 || p.Ports[1].Local == p.Ports[0].Local {
		t.Errorf("ports %+v; want three distinct pairs", p.Ports)
	}
	if string(p.Properties["adapter_type"]) != `"e1000"` || string(p.Properties["on_close"]) != `"power_off"` {
		t.Errorf("properties without GNS3's defaults: %s %s", p.Properties["adapter_type"], p.Properties["on_close"])
	}
	if got := mustFindNode(t, svc, n); got.Properties.MACOffset != nil || len(got.UDPPorts) != 6 {
		t.Errorf("stored MAC offset %v, UDP ports %v; want none and six", got.Properties.MACOffset, got.UDPPorts)
	}
	if _, err := svc.NodeAction(ctx, ref(n), app.Stop); err != nil {
		t.Fatal(err)
	}
	upd, _ = app.DecodeProperties(app.QEMU, []byte(`{"adapters": 1}`))
	if _, err := svc.UpdateNode(ctx, ref(n), app.NodeUpdate{Properties: upd}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.NodeAction(ctx, ref(n), app.Start); err != nil {
		t.Fatal(err)
	}
	if p := q.got[1]; len(p.Ports) != 1 {
		t.Errorf("after adapters 3 → 1, ports %+v; want one pair", p.Ports)
	}
}

// TestService_StartQEMU_PortsTakenSince: a node whose stored UDP port
// another program took since its last start gets fresh ones, rather than
// starting with a port that carries nothing.
func TestService_StartQEMU_PortsTakenSince(t *testing.T) {
	ctx := context.Background()
	q := &qemuRecorder{}
	taken := map[int]bool{}
	svc := app.NewService(app.Config{Store: storetest.Open(t), DataDir: t.TempDir(), HostInterfaces: hostInterfaces,
		Runners: []app.Runner{q}, PortFree: func(_ string, p int) bool { return !taken[p] }})
	n := mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, app.NodeCreate{Type: app.QEMU})
	for _, a := range []app.Action{app.Start, app.Stop} {
		if _, err := svc.NodeAction(ctx, ref(n), a); err != nil {
			t.Fatal(err)
		}
	}
	first := q.got[0].Ports[0]
	if _, err := svc.NodeAction(ctx, ref(n), app.Start); err != nil {
		t.Fatal(err)
	}
	if again := q.got[1].Ports[0]; again != first {
		t.Errorf("a restart moved free ports %+v to %+v", first, again)
	}
	if _, err := svc.NodeAction(ctx, ref(n), app.Stop); err != nil {
		t.Fatal(err)
	}
	taken[first.Remote] = true // another program binds it meanwhile
	if _, err := svc.NodeAction(ctx, ref(n), app.Start); err != nil {
		t.Fatal(err)
	}
	if p := q.got[2].Ports[0]; p == first || taken[p.Local] || taken[p.Remote] {
		t.Errorf("started with %+v; want a pair away from the taken port %d", p, first.Remote)
	}
}

// failingRunner refuses to start the nodes it runs.
type failingRunner struct{ fakeRunner }

func (r *failingRunner) Runs(t app.NodeType) bool { return t == app.VPCS }
func (r *failingRunner) Start(p app.Process) (string, error) {
	return "", app.Errorf(app.ECONFLICT, "%s cannot start: its console port is taken", p.Name)
}

// TestService_ProjectAction_TellsEveryFailure: a start of all answers the
// first node's failure and tells the project each of the others'.
func TestService_ProjectAction_TellsEveryFailure(t *testing.T) {
	ctx := context.Background()
	events := app.NewBroker()
	svc := app.NewService(app.Config{Store: storetest.Open(t), DataDir: t.TempDir(), HostInterfaces: hostInterfaces,
		Runners: []app.Runner{&failingRunner{}}, Events: events})
	p := mustCreateProject(t, svc, "lab")
	pcs := []*app.Node{mustCreateVPCS(t, svc, p.ID), mustCreateVPCS(t, svc, p.ID), mustCreateVPCS(t, svc, p.ID)}
	var mu sync.Mutex
	var told []string
	events.OnPublish(func(e app.Event) {
		if m, ok := e.Payload.(*app.LogMessage); ok && e.Action == app.EventLogError {
			mu.Lock()
			told = append(told, m.Message)
			mu.Unlock()
		}
	})
	err := svc.ProjectAction(ctx, p.ID, app.Start)
	if !strings.Contains(app.ErrorMessage(err), pcs[0].Name+" cannot start") {
		t.Errorf("start all answered %v; want the first node's failure", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(told) != 2 || !strings.Contains(strings.Join(told, "|"), pcs[1].Name) || !strings.Contains(strings.Join(told, "|"), pcs[2].Name) {
		t.Errorf("the project was told %q; want the other two failures", told)
	}
}

// TestService_ProjectAction_TellsSkipped: start all starts what nodedesk
// runs and tells the project, in one warning, which nodes it left out
// because their emulator is not one nodedesk runs (GNS3 reports each
// node it cannot start).
func TestService_ProjectAction_TellsSkipped(t *testing.T) {
	events := app.NewBroker()
	svc := app.NewService(app.Config{Store: storetest.Open(t), DataDir: t.TempDir(), HostInterfaces: hostInterfaces, Events: events})
	p := mustCreateProject(t, svc, "lab")
	pc := mustCreateVPCS(t, svc, p.ID)
	r1 := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.VirtualBox})
	tng := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.TraceNG})
	var mu sync.Mutex
	var told []string
	events.OnPublish(func(e app.Event) {
		if m, ok := e.Payload.(*app.LogMessage); ok && e.Action == app.EventLogWarning {
			mu.Lock()
			told = append(told, m.Message)
			mu.Unlock()
		}
	})
	if err := svc.ProjectAction(context.Background(), p.ID, app.Start); err != nil {
		t.Fatal(err)
	}
	if got := mustFindNode(t, svc, pc).Status; got != app.Started {
		t.Errorf("the VPCS is %s after start all", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(told) != 1 || !strings.Contains(told[0], r1.Name) || !strings.Contains(told[0], tng.Name) || strings.Contains(told[0], pc.Name) {
		t.Errorf("the project was told %q; want one warning naming %s and %s", told, r1.Name, tng.Name)
	}
}

// TestService_VPCSRelayPortIsClaimed: VPCS before 0.8 binds its -s port
// + 9 too (its relay, which it cannot turn off), and UDP pairs are handed
// out two by two, so that port would be the end of another node's pair.
// The allocation claims it with the VPCS node's pair: over eight VPCS
// nodes and a QEMU node started in turn, no port is held twice, the
// relay included.
func TestService_VPCSRelayPortIsClaimed(t *testing.T) {
	ctx := context.Background()
	q := &qemuRecorder{}
	svc := app.NewService(app.Config{Store: storetest.Open(t), DataDir: t.TempDir(), HostInterfaces: hostInterfaces,
		Runners: []app.Runner{q, &fakeRunner{}}})
	pid := mustCreateProject(t, svc, "lab").ID
	var nodes []*app.Node
	for range 8 {
		nodes = append(nodes, mustCreateVPCS(t, svc, pid))
	}
	upd, _ := app.DecodeProperties(app.QEMU, []byte(`{"adapters": 4}`))
	nodes = append(nodes, mustCreateNode(t, svc, pid, app.NodeCreate{Type: app.QEMU, NodeUpdate: app.NodeUpdate{Properties: upd}}))
	holder := map[int]string{}
	for _, n := range nodes {
		got, err := svc.NodeAction(ctx, ref(n), app.Start)
		if err != nil {
			t.Fatal(err)
		}
		binds := got.UDPPorts
		if got.Type == app.VPCS {
			pairs := got.UDPPairs()
			if len(pairs) != 1 || len(binds) != 3 || binds[2] != pairs[0].Local+9 {
				t.Fatalf("%s: UDP ports %v; want its pair, then its relay port (-s port + 9)", got.Name, binds)
			}
		}
		for _, p := range binds {
			if h, ok := holder[p]; ok {
				t.Errorf("UDP port %d is both %s's and %s's", p, h, got.Name)
			}
			holder[p] = got.Name
		}
	}
	if len(holder) != 8*3+4*2 {
		t.Errorf("%d ports handed out; want %d", len(holder), 8*3+4*2)
	}
}

// TestService_OnProcessNote_Detail: a runner's note reaches the project
// as a plain sentence with its technical detail apart (the page shows it
// behind Details), on the project's stream and the compute's.
func TestService_OnProcessNote_Detail(t *testing.T) {
	events := app.NewBroker()
	svc := app.NewService(app.Config{Store: storetest.Open(t), DataDir: t.TempDir(), HostInterfaces: hostInterfaces, Events: events})
	var mu sync.Mutex
	var got []app.LogMessage
	var compute []string
	events.OnPublish(func(e app.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch m := e.Payload.(type) {
		case *app.LogMessage:
			if e.Action == app.EventLogWarning && e.ProjectID == "p" {
				got = append(got, *m)
			}
		case *app.ComputeMessage:
			compute = append(compute, string(m.Event))
		}
	})
	svc.OnProcessNote("p", "n", app.Note{Message: `"VM1" runs slowly`, Detail: "no /dev/kvm"})
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0].Message != `"VM1" runs slowly` || got[0].Detail != "no /dev/kvm" {
		t.Errorf("the project was told %+v; want the sentence and its detail apart", got)
	}
	if len(compute) != 1 || !strings.Contains(compute[0], `"detail":"no /dev/kvm"`) {
		t.Errorf("the compute stream carried %q", compute)
	}
}
