package app_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"nodedesk/app"
	"nodedesk/store/storetest"
)

func TestDialHost(t *testing.T) {
	tests := []struct {
		give, want string
	}{
		{"", "127.0.0.1"},
		{"0.0.0.0", "127.0.0.1"},
		{"::", "127.0.0.1"},
		{"127.0.0.1", "127.0.0.1"},
		{"192.168.1.10", "192.168.1.10"},
		{"::1", "::1"},
		{"lab.example", "lab.example"},
	}
	for _, tt := range tests {
		if got := app.DialHost(tt.give); got != tt.want {
			t.Errorf("DialHost(%q) = %q; want %q", tt.give, got, tt.want)
		}
	}
}

func TestService_ConsoleAddress(t *testing.T) {
	ctx := context.Background()
	newSvc := func(t *testing.T, consoleHost string) *app.Service {
		return app.NewService(app.Config{Store: storetest.Open(t), DataDir: t.TempDir(), HostInterfaces: hostInterfaces,
			PortFree: everyPortFree, ConsoleHost: consoleHost})
	}

	tests := []struct {
		name        string
		consoleHost string
		want        string
	}{
		{"Loopback", "127.0.0.1", "127.0.0.1:5000"},
		{"EveryInterface", "0.0.0.0", "127.0.0.1:5000"},
		{"Address", "192.0.2.7", "192.0.2.7:5000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := newSvc(t, tt.consoleHost)
			pc := mustCreateVPCS(t, svc, mustCreateProject(t, svc, "lab").ID)
			if _, err := svc.NodeAction(ctx, ref(pc), app.Start); err != nil {
				t.Fatal(err)
			}
			n, addr, err := svc.ConsoleAddress(ctx, ref(pc))
			if err != nil {
				t.Fatal(err)
			}
			if addr != tt.want || n.ID != pc.ID {
				t.Errorf("ConsoleAddress = %s, %s; want %s of %s", n.ID, addr, tt.want, pc.ID)
			}
		})
	}

	t.Run("ErrConflictStopped", func(t *testing.T) {
		svc := newSvc(t, "")
		pc := mustCreateVPCS(t, svc, mustCreateProject(t, svc, "lab").ID)
		_, _, err := svc.ConsoleAddress(ctx, ref(pc))
		wantCode(t, err, app.ECONFLICT)
		if msg := app.ErrorMessage(err); !strings.Contains(msg, "start") || !strings.Contains(msg, pc.Name) {
			t.Errorf("message %q; want it to name the node and say to start it", msg)
		}
	})

	t.Run("ErrConflictNoTelnetConsole", func(t *testing.T) {
		svc := newSvc(t, "")
		sw := mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, app.NodeCreate{Type: app.EthernetSwitch})
		_, _, err := svc.ConsoleAddress(ctx, ref(sw))
		wantCode(t, err, app.ECONFLICT)
		if !strings.Contains(app.ErrorMessage(err), "telnet") {
			t.Errorf("message %q; want it to say how to get a telnet console", app.ErrorMessage(err))
		}
		// Given one, the switch (always started) answers on its port.
		got, err := svc.UpdateNode(ctx, ref(sw), app.NodeUpdate{ConsoleType: app.Some(app.ConsoleTelnet)})
		if err != nil {
			t.Fatal(err)
		}
		if _, addr, err := svc.ConsoleAddress(ctx, ref(sw)); err != nil || !strings.HasSuffix(addr, ":"+strconv.Itoa(got.Console)) {
			t.Errorf("switch console address = %q, %v; want port %d", addr, err, got.Console)
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		svc := newSvc(t, "")
		p := mustCreateProject(t, svc, "lab")
		_, _, err := svc.ConsoleAddress(ctx, app.NodeRef{ProjectID: p.ID, NodeID: uuid.NewString()})
		wantCode(t, err, app.ENOTFOUND)
	})
}

// TestService_VNCAddress: a VNC console is reached only on a started node
// whose console type is vnc; a telnet console is not one.
func TestService_VNCAddress(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	pid := mustCreateProject(t, svc, "lab").ID
	vm := mustCreateNode(t, svc, pid, app.NodeCreate{Type: app.QEMU, NodeUpdate: app.NodeUpdate{ConsoleType: app.Some(app.ConsoleVNC)}})
	pc := mustCreateVPCS(t, svc, pid)

	t.Run("ErrConflictStopped", func(t *testing.T) {
		_, _, err := svc.VNCAddress(ctx, ref(vm))
		wantCode(t, err, app.ECONFLICT)
		if msg := app.ErrorMessage(err); !strings.Contains(msg, "start") || !strings.Contains(msg, vm.Name) {
			t.Errorf("message %q; want it to name the node and say to start it", msg)
		}
	})
	t.Run("ErrConflictTelnet", func(t *testing.T) {
		_, _, err := svc.VNCAddress(ctx, ref(pc))
		wantCode(t, err, app.ECONFLICT)
		if msg := app.ErrorMessage(err); !strings.Contains(msg, "no VNC console") || !strings.Contains(msg, "console type vnc") {
			t.Errorf("message %q; want it to say the node has no VNC console and how to get one", msg)
		}
	})
	t.Run("ErrConflictNotTelnet", func(t *testing.T) {
		_, _, err := svc.ConsoleAddress(ctx, ref(vm))
		wantCode(t, err, app.ECONFLICT)
		if msg := app.ErrorMessage(err); !strings.Contains(msg, "no telnet console") {
			t.Errorf("message %q; want it to say the node has no telnet console", msg)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		_, _, err := svc.VNCAddress(ctx, app.NodeRef{ProjectID: pid, NodeID: uuid.NewString()})
		wantCode(t, err, app.ENOTFOUND)
	})
}

func TestService_ConsolePorts(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	p := mustCreateProject(t, svc, "lab")
	if got, err := svc.ConsolePorts(ctx); err != nil || len(got) != 0 {
		t.Fatalf("console ports of a new store = %v, %v; want none", got, err)
	}
	mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.VPCS, NodeUpdate: app.NodeUpdate{Console: app.Some(6001)}})
	mustCreateVPCS(t, svc, p.ID)
	mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.EthernetSwitch}) // no console
	mustCreateVPCS(t, svc, mustCreateProject(t, svc, "other").ID)
	got, err := svc.ConsolePorts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{5000, 5001, 6001}; !slices.Equal(got, want) {
		t.Errorf("ConsolePorts = %v; want %v, ascending, across projects", got, want)
	}
}

// TestService_CreateNode_ConsoleExhausted: with no console port free in the
// range, a node that needs one is refused, and one that needs none is not.
func TestService_CreateNode_ConsoleExhausted(t *testing.T) {
	ctx := context.Background()
	svc := app.NewService(app.Config{Store: storetest.Open(t), DataDir: t.TempDir(), HostInterfaces: hostInterfaces,
		PortFree: func(network string, port int) bool { return network != "tcp" }})
	p := mustCreateProject(t, svc, "lab")
	_, err := svc.CreateNode(ctx, p.ID, app.NodeCreate{Type: app.VPCS})
	wantCode(t, err, app.ECONFLICT)
	if msg := app.ErrorMessage(err); !strings.Contains(msg, "No console port is free") {
		t.Errorf("message %q; want it to say no console port is free", msg)
	}
	if ns, _ := svc.FindNodes(ctx, p.ID); len(ns) != 0 {
		t.Errorf("a refused create left %d nodes", len(ns))
	}
	mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.EthernetSwitch})
	// A port the client gives, outside the range, is the client's choice.
	n := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.VPCS, NodeUpdate: app.NodeUpdate{Console: app.Some(20000)}})
	if n.Console != 20000 {
		t.Errorf("console %d; want the given 20000", n.Console)
	}
}

// TestService_CreateNode_ConsoleTaken: a port another node owns is refused
// to a new node, unless the caller asks for a free one instead (as a GNS3
// compute's port manager does).
func TestService_CreateNode_ConsoleTaken(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	p := mustCreateProject(t, svc, "lab")
	owner := mustCreateVPCS(t, svc, p.ID)
	_, err := svc.CreateNode(ctx, p.ID, app.NodeCreate{Type: app.VPCS, NodeUpdate: app.NodeUpdate{Console: app.Some(owner.Console)}})
	wantCode(t, err, app.ECONFLICT)
	if app.ErrorField(err) != "console" || !strings.Contains(app.ErrorMessage(err), owner.Name) {
		t.Errorf("error %v; want a console conflict naming %s", err, owner.Name)
	}
	n, err := svc.CreateNode(ctx, p.ID, app.NodeCreate{Type: app.VPCS, ReplaceTakenConsole: true,
		NodeUpdate: app.NodeUpdate{Console: app.Some(owner.Console)}})
	if err != nil {
		t.Fatal(err)
	}
	if n.Console == owner.Console || n.Console != 5001 {
		t.Errorf("console %d; want the lowest free port, 5001", n.Console)
	}
}

// resetRecorder is a ConsoleServer that records the nodes it resets.
type resetRecorder struct {
	mu  sync.Mutex
	ids []string
}

func (r *resetRecorder) ResetConsole(nodeID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ids = append(r.ids, nodeID)
}

func (r *resetRecorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := r.ids
	r.ids = nil
	return ids
}

func TestService_ResetConsole(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	a, b := &resetRecorder{}, &resetRecorder{}
	svc.AddConsoleServer(a)
	svc.AddConsoleServer(b)
	p := mustCreateProject(t, svc, "lab")
	pc1 := mustCreateVPCS(t, svc, p.ID)
	pc2 := mustCreateVPCS(t, svc, p.ID)
	mustCreateVPCS(t, svc, mustCreateProject(t, svc, "other").ID)

	if err := svc.ResetConsole(ctx, ref(pc1)); err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]*resetRecorder{"first": a, "second": b} {
		if got := r.take(); !slices.Equal(got, []string{pc1.ID}) {
			t.Errorf("%s console server reset %v; want %s", name, got, pc1.ID)
		}
	}
	if err := svc.ResetConsoles(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if got := a.take(); !slices.Equal(got, []string{pc1.ID, pc2.ID}) {
		t.Errorf("ResetConsoles reset %v; want the project's nodes %s, %s", got, pc1.ID, pc2.ID)
	}
	b.take()

	wantCode(t, svc.ResetConsole(ctx, app.NodeRef{ProjectID: p.ID, NodeID: uuid.NewString()}), app.ENOTFOUND)
	wantCode(t, svc.ResetConsoles(ctx, uuid.NewString()), app.ENOTFOUND)
	if got := a.take(); len(got) != 0 {
		t.Errorf("failed resets reached the console server: %v", got)
	}
}

// consoleRunner is a Runner that also serves its nodes' consoles.
type consoleRunner struct {
	fakeRunner
	resetRecorder
}

// TestService_ResetConsole_Runner: a Runner that serves consoles is reset
// without being added.
func TestService_ResetConsole_Runner(t *testing.T) {
	ctx := context.Background()
	r := &consoleRunner{}
	svc := app.NewService(app.Config{Store: storetest.Open(t), DataDir: t.TempDir(), HostInterfaces: hostInterfaces,
		PortFree: everyPortFree, Runners: []app.Runner{r}})
	pc := mustCreateVPCS(t, svc, mustCreateProject(t, svc, "lab").ID)
	if err := svc.ResetConsole(ctx, ref(pc)); err != nil {
		t.Fatal(err)
	}
	if got := r.resetRecorder.take(); !slices.Equal(got, []string{pc.ID}) {
		t.Errorf("runner's consoles reset %v; want %s", got, pc.ID)
	}
}
