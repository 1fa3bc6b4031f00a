package app_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"nodedesk/app"
	"nodedesk/app/kit"
	"nodedesk/store/storetest"
)

// bootRunner is a fakeRunner that watches its nodes' boots: each start
// makes a channel the test closes to say the node booted.
type bootRunner struct {
	fakeRunner
	bmu    sync.Mutex
	boots  map[string]chan struct{}
	starts []string // node ids, in the order they started
}

func (r *bootRunner) Start(p app.Process) (string, error) {
	cmd, err := r.fakeRunner.Start(p)
	if err == nil {
		r.bmu.Lock()
		r.boots[p.NodeID] = make(chan struct{})
		r.starts = append(r.starts, p.NodeID)
		r.bmu.Unlock()
	}
	return cmd, err
}

func (r *bootRunner) Booted(nodeID string) <-chan struct{} {
	r.bmu.Lock()
	defer r.bmu.Unlock()
	return r.boots[nodeID]
}

// boot says that node id has booted.
func (r *bootRunner) boot(id string) {
	r.bmu.Lock()
	defer r.bmu.Unlock()
	close(r.boots[id])
}

func (r *bootRunner) started() []string {
	r.bmu.Lock()
	defer r.bmu.Unlock()
	return append([]string(nil), r.starts...)
}

func newBootService(t *testing.T) (*app.Service, *app.Broker, *bootRunner) {
	r := &bootRunner{boots: map[string]chan struct{}{}}
	b := app.NewBroker()
	svc := app.NewService(app.Config{Store: storetest.Open(t), Events: b, DataDir: t.TempDir(), HostInterfaces: hostInterfaces,
		PortFree: everyPortFree, Runners: []app.Runner{r}})
	return svc, b, r
}

// TestService_Booting: a started node whose runner has not seen it boot
// is booting, with status started; when it boots, one node.updated says
// so; a stop ends it.
func TestService_Booting(t *testing.T) {
	ctx := context.Background()
	svc, b, r := newBootService(t)
	n := mustCreateVPCS(t, svc, mustCreateProject(t, svc, "lab").ID)
	if svc.Booting(n.ID) {
		t.Fatal("a stopped node is booting")
	}
	events, stop := b.Subscribe(16)
	defer stop()
	got, err := svc.NodeAction(ctx, ref(n), app.Start)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != app.Started || !svc.Booting(n.ID) {
		t.Fatalf("just started: status %s booting %v, want started and booting", got.Status, svc.Booting(n.ID))
	}
	<-events // the start's node.updated
	r.boot(n.ID)
	select {
	case e := <-events:
		if e.Action != app.EventNodeUpdated || e.Payload.(*app.Node).ID != n.ID || svc.Booting(n.ID) {
			t.Errorf("after its boot: %s booting %v, want node.updated and not booting", e.Action, svc.Booting(n.ID))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no node.updated when the node booted")
	}

	// A second start, stopped before it boots: not booting, and its
	// boot's end (the process gone) announces nothing more.
	if _, err := svc.NodeAction(ctx, ref(n), app.Stop); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.NodeAction(ctx, ref(n), app.Start); err != nil {
		t.Fatal(err)
	}
	if !svc.Booting(n.ID) {
		t.Fatal("started again: not booting")
	}
	if _, err := svc.NodeAction(ctx, ref(n), app.Stop); err != nil {
		t.Fatal(err)
	}
	if svc.Booting(n.ID) {
		t.Error("stopped while booting: still booting")
	}
}

// TestService_StartAllPaced: Start all runs at most the pace's width of
// booting nodes at once; the next starts when one of them has booted.
func TestService_StartAllPaced(t *testing.T) {
	ctx := context.Background()
	svc, _, r := newBootService(t)
	pid := mustCreateProject(t, svc, "lab").ID
	width := app.StartPaceWidth()
	for range width + 2 {
		mustCreateVPCS(t, svc, pid)
	}
	done := make(chan error, 1)
	go func() { done <- svc.ProjectAction(ctx, pid, app.Start) }()
	if !kit.WaitFor(10*time.Second, func() bool { return len(r.started()) >= width }) {
		t.Fatalf("%d nodes started, want %d", len(r.started()), width)
	}
	for i := width; i < width+2; i++ {
		first := r.started()
		if len(first) != i {
			t.Fatalf("%d nodes started before one of %d booted, want %d: they are not paced", len(first), i, i)
		}
		select {
		case err := <-done:
			t.Fatalf("Start all answered (%v) before every node started", err)
		default:
		}
		r.boot(first[i-width])
		if !kit.WaitFor(10*time.Second, func() bool { return len(r.started()) > i }) {
			t.Fatalf("a node booted and the next did not start (%d started)", len(r.started()))
		}
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Start all did not answer once every node had started")
	}
	for _, id := range r.started() {
		if n, err := svc.FindNode(ctx, app.NodeRef{ProjectID: pid, NodeID: id}); err != nil || n.Status != app.Started {
			t.Errorf("node %s: %v %v, want started", id, n, err)
		}
	}
}
