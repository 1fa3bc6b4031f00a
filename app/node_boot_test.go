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

// boot says that node id has booted (once is enough).
func (r *bootRunner) boot(id string) {
	r.bmu.Lock()
	defer r.bmu.Unlock()
	select {
	case <-r.boots[id]:
	default:
		close(r.boots[id])
	}
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

// TestService_StartAllPaced: the page's Start all runs at most the pace's width of
// booting nodes at once and answers once they started; the next starts
// when one of them has booted; a Stop all ends the queue, and the nodes
// still waiting never start.
func TestService_StartAllPaced(t *testing.T) {
	ctx := context.Background()
	svc, _, r := newBootService(t)
	pid := mustCreateProject(t, svc, "lab").ID
	width := app.StartPaceWidth()
	for range width + 3 {
		mustCreateVPCS(t, svc, pid)
	}
	page := app.WithSource(ctx, app.Source{Origin: app.OriginBrowser})
	if err := svc.ProjectAction(page, pid, app.Start); err != nil {
		t.Fatal(err)
	}
	if got := len(r.started()); got != width {
		t.Fatalf("Start all answered with %d nodes started, want the first %d: they are not paced", got, width)
	}
	first := r.started()
	r.boot(first[0])
	if !kit.WaitFor(10*time.Second, func() bool { return len(r.started()) == width+1 }) {
		t.Fatalf("a node booted and the next did not start (%d started)", len(r.started()))
	}
	if got := len(r.started()); got != width+1 {
		t.Fatalf("one node booted and %d started, want %d", got, width+1)
	}
	if err := svc.ProjectAction(ctx, pid, app.Stop); err != nil {
		t.Fatal(err)
	}
	for _, id := range r.started() {
		r.boot(id) // were the queue alive, the last two would start now
	}
	nodes, err := svc.FindNodes(ctx, pid)
	if err != nil {
		t.Fatal(err)
	}
	if kit.WaitFor(200*time.Millisecond, func() bool { return len(r.started()) > width+1 }) {
		t.Errorf("%d nodes started after Stop all, want %d: the queue went on", len(r.started()), width+1)
	}
	for _, n := range nodes {
		if n := mustFindNode(t, svc, n); n.Status != app.Stopped {
			t.Errorf("%s is %s after Stop all", n.Name, n.Status)
		}
	}

	// A REST client's Start all is GNS3's: every node started when it
	// answers.
	if err := svc.ProjectAction(ctx, pid, app.Start); err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if n := mustFindNode(t, svc, n); n.Status != app.Started {
			t.Errorf("%s is %s when a REST client's Start all answered", n.Name, n.Status)
		}
	}
}
