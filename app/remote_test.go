package app_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"nodedesk/app"
	"nodedesk/app/kit"
	"nodedesk/store/storetest"
)

// fakeCall is one call the fake compute received, as values.
type fakeCall struct {
	Op      string       // the port's method: "CreateNode", "NodeAction", …
	Project string       // the project it is about
	Node    string       // the node it names ("" for a project's call)
	Type    app.NodeType // that node's type
	Adapter int          // a NIO's or a capture's port: adapter
	Port    int          // and port number
	Action  app.Action   // NodeAction: the action
	Sent    *app.Node    // CreateNode, UpdateNode: the node sent (a copy)
	Spec    app.NIOSpec  // AddNIO, UpdateNIO: the NIO sent
	DupTo   string       // DuplicateNode: the copy's id
}

// fakeRemote is an in-process ComputeClient: it reports itself connected
// on Start, records every call, and answers by handle (nil: a plain
// success, with a node's status and console or a UDP port).
type fakeRemote struct {
	mu      sync.Mutex
	calls   []fakeCall
	handle  func(c fakeCall) error
	onState func(app.ComputeState)
	onEvent func(app.ComputeEvent)
	port    int
	dials   int
	closes  int
	offline bool // Start reports nothing: the compute is not reached
	// block, when set, holds the calls it accepts until it is closed or
	// their context ends; unblocked is then set.
	block     func(c fakeCall) bool
	gate      chan struct{}
	blocking  bool
	unblocked bool
}

func (f *fakeRemote) dial(c app.Compute, onState func(app.ComputeState), onEvent func(app.ComputeEvent)) app.ComputeClient {
	f.mu.Lock()
	f.onState, f.onEvent = onState, onEvent
	f.dials++
	f.mu.Unlock()
	return f
}

func (f *fakeRemote) Start() {
	f.mu.Lock()
	offline := f.offline
	f.mu.Unlock()
	if !offline {
		f.onState(app.ComputeState{Connected: true})
	}
}
func (f *fakeRemote) Close() {
	f.mu.Lock()
	f.closes++
	f.mu.Unlock()
}

func (f *fakeRemote) counts() (dials, closes int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.dials, f.closes
}

// call records c, holds it if block says so, and returns what handle
// says of it; n is the number of the call, from 1.
func (f *fakeRemote) call(ctx context.Context, c fakeCall) (n int, err error) {
	f.mu.Lock()
	f.calls = append(f.calls, c)
	h := f.handle
	f.port++
	n = f.port
	blocked := f.block != nil && f.block(c)
	gate := f.gate
	f.blocking = f.blocking || blocked
	f.mu.Unlock()
	if blocked {
		select {
		case <-gate:
		case <-ctx.Done():
		}
		f.mu.Lock()
		f.unblocked = true
		f.mu.Unlock()
		if ctx.Err() != nil {
			return n, app.Unreachable("Compute R: %v", ctx.Err())
		}
	}
	if h != nil {
		return n, h(c)
	}
	return n, nil
}

func nodeCall(op string, ref app.NodeRef) fakeCall {
	return fakeCall{Op: op, Project: ref.ProjectID, Node: ref.NodeID, Type: ref.Type}
}

func portCall(op string, p app.PortRef) fakeCall {
	c := nodeCall(op, p.NodeRef)
	c.Adapter, c.Port = p.Adapter, p.Port
	return c
}

func sent(op string, n *app.Node) fakeCall {
	c := nodeCall(op, app.NodeRef{ProjectID: n.ProjectID, NodeID: n.ID, Type: n.Type})
	cp := *n
	c.Sent = &cp
	return c
}

func (f *fakeRemote) CreateProject(ctx context.Context, id, name string) error {
	_, err := f.call(ctx, fakeCall{Op: "CreateProject", Project: id})
	return err
}
func (f *fakeRemote) CloseProject(ctx context.Context, id string) error {
	_, err := f.call(ctx, fakeCall{Op: "CloseProject", Project: id})
	return err
}
func (f *fakeRemote) DeleteProject(ctx context.Context, id string) error {
	_, err := f.call(ctx, fakeCall{Op: "DeleteProject", Project: id})
	return err
}

// CreateNode answers the node stopped, on console 5000.
func (f *fakeRemote) CreateNode(ctx context.Context, n *app.Node) (app.NodeAnswer, error) {
	if _, err := f.call(ctx, sent("CreateNode", n)); err != nil {
		return app.NodeAnswer{}, err
	}
	console := 5000
	return app.NodeAnswer{Status: app.Stopped, Console: &console}, nil
}

// UpdateNode answers the console asked for, as a compute does.
func (f *fakeRemote) UpdateNode(ctx context.Context, n *app.Node) (app.NodeAnswer, error) {
	if _, err := f.call(ctx, sent("UpdateNode", n)); err != nil {
		return app.NodeAnswer{}, err
	}
	var ans app.NodeAnswer
	if n.Console != 0 {
		console := n.Console
		ans.Console = &console
	}
	return ans, nil
}
func (f *fakeRemote) DeleteNode(ctx context.Context, ref app.NodeRef) error {
	_, err := f.call(ctx, nodeCall("DeleteNode", ref))
	return err
}
func (f *fakeRemote) DuplicateNode(ctx context.Context, src app.NodeRef, dstID string) error {
	c := nodeCall("DuplicateNode", src)
	c.DupTo = dstID
	_, err := f.call(ctx, c)
	return err
}
func (f *fakeRemote) NodeAction(ctx context.Context, ref app.NodeRef, a app.Action, _ map[string]json.RawMessage) error {
	c := nodeCall("NodeAction", ref)
	c.Action = a
	_, err := f.call(ctx, c)
	return err
}

// ReserveUDPPort answers 30000 plus the number of the call.
func (f *fakeRemote) ReserveUDPPort(ctx context.Context, projectID string) (int, error) {
	n, err := f.call(ctx, fakeCall{Op: "ReserveUDPPort", Project: projectID})
	if err != nil {
		return 0, err
	}
	return 30000 + n, nil
}
func (f *fakeRemote) AddNIO(ctx context.Context, p app.PortRef, spec app.NIOSpec) error {
	c := portCall("AddNIO", p)
	c.Spec = spec
	_, err := f.call(ctx, c)
	return err
}
func (f *fakeRemote) UpdateNIO(ctx context.Context, p app.PortRef, spec app.NIOSpec) error {
	c := portCall("UpdateNIO", p)
	c.Spec = spec
	_, err := f.call(ctx, c)
	return err
}
func (f *fakeRemote) RemoveNIO(ctx context.Context, p app.PortRef) error {
	_, err := f.call(ctx, portCall("RemoveNIO", p))
	return err
}
func (f *fakeRemote) StartCapture(ctx context.Context, p app.PortRef, fileName, dataLinkType string) error {
	_, err := f.call(ctx, portCall("StartCapture", p))
	return err
}
func (f *fakeRemote) StopCapture(ctx context.Context, p app.PortRef) error {
	_, err := f.call(ctx, portCall("StopCapture", p))
	return err
}

// StreamPcap is not used by these tests: the fake compute has no captures.
func (f *fakeRemote) StreamPcap(ctx context.Context, p app.PortRef, w io.Writer) error {
	return app.Errorf(app.ENOTFOUND, "no capture on the fake compute")
}
func (f *fakeRemote) Query(ctx context.Context, q app.ComputeQuery) (json.RawMessage, error) {
	_, err := f.call(ctx, fakeCall{Op: "Query"})
	return json.RawMessage(`{}`), err
}

func (f *fakeRemote) setHandle(h func(c fakeCall) error) {
	f.mu.Lock()
	f.handle = h
	f.mu.Unlock()
}

// called returns the calls made so far that match accepts.
func (f *fakeRemote) called(match func(c fakeCall) bool) []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []fakeCall
	for _, c := range f.calls {
		if match(c) {
			out = append(out, c)
		}
	}
	return out
}

// op matches the calls of one method of the port on one node ("": any
// node).
func op(name, node string) func(fakeCall) bool {
	return func(c fakeCall) bool { return c.Op == name && (node == "" || c.Node == node) }
}

// newRemoteService is a Service with one remote compute, driven by a
// fakeRemote, connected and healed.
func newRemoteService(t *testing.T) (*app.Service, *app.Broker, *fakeRemote, string) {
	t.Helper()
	f := &fakeRemote{}
	b := app.NewBroker()
	svc := app.NewService(app.Config{
		Store: storetest.Open(t), Events: b, DataDir: t.TempDir(), HostInterfaces: hostInterfaces,
		PortFree: everyPortFree, Computes: f.dial,
	})
	t.Cleanup(svc.CloseComputes)
	c, err := svc.CreateCompute(context.Background(), app.ComputeCreate{Protocol: "http", Host: "192.0.2.1", Port: 3080})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "compute ready", func() bool { return svc.ComputeConnected(c.ID) })
	return svc, b, f, c.ID
}

// waitFor waits (bounded) until cond holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !kit.WaitFor(10*time.Second, cond) {
		t.Fatalf("timed out waiting for %s", what)
	}
}

func mustCreateRemoteVPCS(t *testing.T, svc *app.Service, projectID, computeID, name string) *app.Node {
	t.Helper()
	return mustCreateNode(t, svc, projectID, app.NodeCreate{Type: app.VPCS, ComputeID: computeID, NodeUpdate: app.NodeUpdate{Name: app.Some(name)}})
}

// TestRemote_StopRefusedKeepsNode: a compute that refuses to stop a node
// (409) still runs it, so its delete is refused and the record kept; a
// compute that cannot be reached stops nothing, and the delete goes on.
func TestRemote_StopRefusedKeepsNode(t *testing.T) {
	ctx := context.Background()
	svc, _, f, cid := newRemoteService(t)
	p := mustCreateProject(t, svc, "p")
	n := mustCreateRemoteVPCS(t, svc, p.ID, cid, "PC1")
	f.setHandle(func(c fakeCall) error {
		if c.Op == "NodeAction" && c.Action == app.Stop {
			return app.Errorf(app.ECONFLICT, "Compute R: the node is busy")
		}
		return nil
	})
	if err := svc.DeleteNode(ctx, ref(n)); app.ErrorCode(err) != app.ECONFLICT {
		t.Fatalf("delete with a refused stop: %v, want the refusal", err)
	}
	mustFindNode(t, svc, n)
	f.setHandle(func(c fakeCall) error {
		if c.Op == "NodeAction" && c.Action == app.Stop {
			return app.Unreachable("Compute R is unreachable")
		}
		return nil
	})
	if err := svc.DeleteNode(ctx, ref(n)); err != nil {
		t.Fatalf("delete with an unreachable compute: %v", err)
	}
}

// TestRemote_OneClientPerCompute: StartComputes leaves a compute a request
// dialled already alone, and nothing is dialled after CloseComputes.
func TestRemote_OneClientPerCompute(t *testing.T) {
	ctx := context.Background()
	svc, _, f, _ := newRemoteService(t)
	if err := svc.StartComputes(ctx); err != nil {
		t.Fatal(err)
	}
	if d, _ := f.counts(); d != 1 {
		t.Errorf("%d clients dialled for one compute, want 1", d)
	}
	svc.CloseComputes()
	if _, c := f.counts(); c != 1 {
		t.Errorf("%d clients closed, want 1", c)
	}
	if _, err := svc.CreateCompute(ctx, app.ComputeCreate{Protocol: "http", Host: "192.0.2.2", Port: 3080}); err != nil {
		t.Fatal(err)
	}
	if d, _ := f.counts(); d != 1 {
		t.Errorf("a client was dialled after CloseComputes (%d dials)", d)
	}
}

// TestRemote_AddressChangeShowsNodes: a compute moved to another address
// is not connected until it is reached there: its nodes are published
// again, showing so.
func TestRemote_AddressChangeShowsNodes(t *testing.T) {
	ctx := context.Background()
	svc, b, f, cid := newRemoteService(t)
	p := mustCreateProject(t, svc, "p")
	n := mustCreateRemoteVPCS(t, svc, p.ID, cid, "PC1")
	ch, cancel := b.Subscribe(100)
	defer cancel()
	f.mu.Lock()
	f.offline = true
	f.mu.Unlock()
	if _, err := svc.UpdateCompute(ctx, cid, app.ComputeUpdate{Host: app.Some("192.0.2.9")}); err != nil {
		t.Fatal(err)
	}
	shown := false
	for _, e := range drain(ch) {
		if m, ok := e.Payload.(*app.Node); ok && e.Action == app.EventNodeUpdated && m.ID == n.ID {
			shown = true
		}
	}
	if !shown || svc.ShowNode(n).Connected {
		t.Errorf("after the address change: node.updated published %v, connected %v; want published, not connected", shown, svc.ShowNode(n).Connected)
	}
}

// TestRemote_LinkUpdateRefusedIsNotStored: a filter change the compute
// refuses is refused, and the link keeps what it had.
func TestRemote_LinkUpdateRefusedIsNotStored(t *testing.T) {
	ctx := context.Background()
	svc, _, f, cid := newRemoteService(t)
	p := mustCreateProject(t, svc, "p")
	a, b := mustCreateRemoteVPCS(t, svc, p.ID, cid, "PC1"), mustCreateRemoteVPCS(t, svc, p.ID, cid, "PC2")
	l, err := svc.CreateLink(ctx, p.ID, app.LinkUpdate{Nodes: app.Some([]app.LinkEnd{{NodeID: a.ID}, {NodeID: b.ID}})})
	if err != nil || l.Tunnel == nil {
		t.Fatalf("tunnel link: %+v, %v", l, err)
	}
	f.setHandle(func(c fakeCall) error {
		if c.Op == "UpdateNIO" {
			return app.Errorf(app.ECONFLICT, "Compute R: no")
		}
		return nil
	})
	_, err = svc.UpdateLink(ctx, p.ID, l.ID, app.LinkUpdate{Suspend: app.Some(true)})
	if app.ErrorCode(err) != app.ECONFLICT {
		t.Fatalf("refused update: %v, want the compute's refusal", err)
	}
	if got, _ := svc.FindLink(ctx, p.ID, l.ID); got == nil || got.Suspend {
		t.Errorf("stored link %+v: the refused suspension was kept", got)
	}
}

// TestRemote_NodeUpdateRefusedIsUndone: a rename sent to the compute whose
// commit fails (the name is taken) is undone there: the compute is sent
// the node as stored.
func TestRemote_NodeUpdateRefusedIsUndone(t *testing.T) {
	ctx := context.Background()
	svc, _, f, cid := newRemoteService(t)
	p := mustCreateProject(t, svc, "p")
	mustCreateRemoteVPCS(t, svc, p.ID, cid, "PC1")
	b := mustCreateRemoteVPCS(t, svc, p.ID, cid, "PC2")
	_, err := svc.UpdateNode(ctx, ref(b), app.NodeUpdate{Name: app.Some("PC1")})
	wantCode(t, err, app.ECONFLICT)
	var last *app.Node
	for _, c := range f.called(op("UpdateNode", b.ID)) {
		last = c.Sent
	}
	if last == nil || last.Name != "PC2" {
		t.Errorf("the compute was last sent %+v; want the stored node, named PC2", last)
	}
}

// TestRemote_ConsoleChangeReachesCompute: a remote node's new console
// port is sent to its compute (the GNS3 GUI's Configure dialog), and the
// port the compute answers is the node's console from then on.
func TestRemote_ConsoleChangeReachesCompute(t *testing.T) {
	ctx := context.Background()
	svc, _, f, cid := newRemoteService(t)
	p := mustCreateProject(t, svc, "p")
	n := mustCreateRemoteVPCS(t, svc, p.ID, cid, "PC1")
	got, err := svc.UpdateNode(ctx, ref(n), app.NodeUpdate{Console: app.Some(5791)})
	if err != nil {
		t.Fatal(err)
	}
	puts := f.called(op("UpdateNode", n.ID))
	if len(puts) != 1 {
		t.Fatalf("the compute got %d updates of the node, want 1: %+v", len(puts), f.called(op("UpdateNode", "")))
	}
	if shown := svc.ShowNode(got); shown.Console != 5791 {
		t.Errorf("the node shows console %d after the compute answered 5791", shown.Console)
	}
}

// TestRemote_FailedCreateLeavesNoOrphan: a create whose call fails (the
// compute may have made the node before the answer was lost) deletes the
// node on the compute.
func TestRemote_FailedCreateLeavesNoOrphan(t *testing.T) {
	ctx := context.Background()
	svc, _, f, cid := newRemoteService(t)
	p := mustCreateProject(t, svc, "p")
	f.setHandle(func(c fakeCall) error {
		if c.Op == "CreateNode" && c.Type == app.VPCS {
			return context.DeadlineExceeded
		}
		return nil
	})
	_, err := svc.CreateNode(ctx, p.ID, app.NodeCreate{Type: app.VPCS, ComputeID: cid})
	if err == nil {
		t.Fatal("create with a failed call succeeded")
	}
	if got := f.called(vpcsDeleteIn(p.ID)); len(got) != 1 {
		t.Errorf("deletes sent %+v, want one for the node", got)
	}
}

// vpcsDeleteIn matches the deletes of a VPCS node of a project.
func vpcsDeleteIn(projectID string) func(fakeCall) bool {
	return func(c fakeCall) bool { return c.Op == "DeleteNode" && c.Project == projectID && c.Type == app.VPCS }
}

// TestRemote_CreateConsoleClaimedAtCommit: the console port a node on a
// compute on this machine was given is claimed again when it is stored:
// a node that took it meanwhile makes the create fail (and the compute's
// node deleted), not two owners.
func TestRemote_CreateConsoleClaimedAtCommit(t *testing.T) {
	ctx := context.Background()
	svc, _, f, _ := newRemoteService(t)
	c, err := svc.CreateCompute(ctx, app.ComputeCreate{Protocol: "http", Host: "127.0.0.1", Port: 3080})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "compute on loopback ready", func() bool { return svc.ComputeConnected(c.ID) })
	p := mustCreateProject(t, svc, "p")
	f.setHandle(func(c fakeCall) error {
		if c.Op != "CreateNode" || c.Type != app.VPCS {
			return nil
		}
		port := c.Sent.Console
		if port == 0 {
			t.Errorf("no console port sent to a compute on this machine: %+v", c.Sent)
			return nil
		}
		_, err := svc.CreateNode(ctx, p.ID, app.NodeCreate{Type: app.VPCS, NodeUpdate: app.NodeUpdate{Console: app.Some(port)}})
		if err != nil {
			t.Errorf("local node on port %d: %v", port, err)
		}
		return nil
	})
	_, err = svc.CreateNode(ctx, p.ID, app.NodeCreate{Type: app.VPCS, ComputeID: c.ID, NodeUpdate: app.NodeUpdate{Name: app.Some("R1")}})
	wantCode(t, err, app.ECONFLICT)
	if !strings.Contains(app.ErrorMessage(err), "Console port") {
		t.Errorf("refusal %v, want the console port's", err)
	}
	if got := f.called(vpcsDeleteIn(p.ID)); len(got) != 1 {
		t.Errorf("deletes sent %+v, want one for the node", got)
	}
}

// TestRemote_FailedTunnelReleasesPorts: a tunnel that cannot be made (the
// compute refuses its UDP port, or its NIO) leaves no UDP port of this
// nodedesk reserved.
func TestRemote_FailedTunnelReleasesPorts(t *testing.T) {
	ctx := context.Background()
	svc, _, f, cid := newRemoteService(t)
	p := mustCreateProject(t, svc, "p")
	a := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.VPCS, NodeUpdate: app.NodeUpdate{Name: app.Some("L1")}})
	b := mustCreateRemoteVPCS(t, svc, p.ID, cid, "R1")
	for _, refused := range []string{"ReserveUDPPort", "AddNIO"} {
		first, err := svc.ReserveUDPPort(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		f.setHandle(func(c fakeCall) error {
			if c.Op == refused {
				return app.Errorf(app.ECONFLICT, "Compute R: no")
			}
			return nil
		})
		ends := []app.LinkEnd{{NodeID: a.ID}, {NodeID: b.ID}}
		if refused == "AddNIO" {
			ends[0], ends[1] = ends[1], ends[0] // the remote side's NIO, made first, fails
		}
		if _, err := svc.CreateLink(ctx, p.ID, app.LinkUpdate{Nodes: app.Some(ends)}); err == nil {
			t.Fatalf("%s refused: the link was made", refused)
		}
		if next, _ := svc.ReserveUDPPort(ctx, p.ID); next != first+1 {
			t.Errorf("%s refused: next reservation %d after %d; the failed tunnel kept a port", refused, next, first)
		}
		f.setHandle(nil)
	}
}

// TestRemote_EventDuringActionDoesNotBlock: a compute that tells a node's
// new status before it answers the action (as GNS3 does) is not kept
// waiting for the node's lock, which the action holds; the status it told
// is recorded once the action is done.
func TestRemote_EventDuringActionDoesNotBlock(t *testing.T) {
	ctx := context.Background()
	svc, _, f, cid := newRemoteService(t)
	p := mustCreateProject(t, svc, "p")
	n := mustCreateRemoteVPCS(t, svc, p.ID, cid, "PC1")
	f.setHandle(func(c fakeCall) error {
		if c.Op != "NodeAction" || c.Action != app.Start {
			return nil
		}
		told := make(chan struct{})
		go func() {
			f.onEvent(nodeUpdated(n, app.Started))
			close(told)
		}()
		select {
		case <-told:
			return nil
		case <-time.After(5 * time.Second): // bound: the old reader waited here for ever
			return app.Errorf(app.ECONFLICT, "the compute's event reader is blocked by the action")
		}
	})
	if _, err := svc.NodeAction(ctx, ref(n), app.Start); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "status started", func() bool { return mustFindNode(t, svc, n).Status == app.Started })
}

// reconnect makes the fake compute lost, then back: a heal starts.
func (f *fakeRemote) reconnect() {
	f.onState(app.ComputeState{})
	f.onState(app.ComputeState{Connected: true})
}

// nodeUpdated is a compute's node.updated telling n's status.
func nodeUpdated(n *app.Node, st app.Status) app.ComputeEvent {
	return app.ComputeEvent{Action: app.EventNodeUpdated, Node: app.NodeRef{ProjectID: n.ProjectID, NodeID: n.ID}, Status: st}
}

// blockOnce holds the first call that match accepts.
func (f *fakeRemote) blockOnce(match func(c fakeCall) bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	done := false
	f.gate, f.unblocked = make(chan struct{}), false
	f.block = func(c fakeCall) bool {
		if done || !match(c) {
			return false
		}
		done = true
		return true
	}
}

// isBlocked reports whether blockOnce holds a call.
func (f *fakeRemote) isBlocked() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.blocking
}

// TestRemote_CloseComputesEndsHeals: a heal under way stops when the
// connections are closed, and CloseComputes returns after it.
func TestRemote_CloseComputesEndsHeals(t *testing.T) {
	svc, _, f, cid := newRemoteService(t)
	p := mustCreateProject(t, svc, "p")
	mustCreateRemoteVPCS(t, svc, p.ID, cid, "PC1")
	f.blockOnce(op("CreateProject", ""))
	f.reconnect()
	waitFor(t, "the heal to call", f.isBlocked)
	svc.CloseComputes()
	f.mu.Lock()
	unblocked := f.unblocked
	f.mu.Unlock()
	close(f.gate)
	if !unblocked {
		t.Error("CloseComputes returned while a heal still waited for its compute")
	}
}

// TestRemote_HealSkipsDeletedNode: a node deleted while its compute's heal
// runs is not left on the compute: the heal's create of it is followed by
// its delete.
func TestRemote_HealSkipsDeletedNode(t *testing.T) {
	ctx := context.Background()
	svc, _, f, cid := newRemoteService(t)
	p := mustCreateProject(t, svc, "p")
	n := mustCreateRemoteVPCS(t, svc, p.ID, cid, "PC1")
	f.blockOnce(op("CreateProject", ""))
	f.reconnect()
	waitFor(t, "the heal to call", f.isBlocked)
	if err := svc.DeleteNode(ctx, ref(n)); err != nil {
		t.Fatal(err)
	}
	close(f.gate)
	waitFor(t, "the heal to end", func() bool { return svc.ComputeConnected(cid) })
	lastCreate, lastDelete := -1, -1
	calls := f.called(func(fakeCall) bool { return true })
	for i, c := range calls {
		switch {
		case c.Op == "CreateNode" && c.Project == p.ID && c.Type == app.VPCS:
			lastCreate = i
		case c.Op == "DeleteNode" && c.Node == n.ID:
			lastDelete = i
		}
	}
	if lastDelete < lastCreate {
		t.Errorf("the deleted node was left on its compute: %+v", calls)
	}
}

// TestRemote_BoundsComputeReports: a node status the spec does not know is
// not recorded, and a usage that moved by less than a point publishes no
// compute.updated (one that moved more does).
func TestRemote_BoundsComputeReports(t *testing.T) {
	svc, b, f, cid := newRemoteService(t)
	p := mustCreateProject(t, svc, "p")
	n := mustCreateRemoteVPCS(t, svc, p.ID, cid, "PC1")
	ch, cancel := b.Subscribe(100)
	defer cancel()
	f.onEvent(nodeUpdated(n, "exploded"))
	f.onEvent(nodeUpdated(n, app.Started))
	waitFor(t, "status started", func() bool { return mustFindNode(t, svc, n).Status == app.Started })
	for _, e := range drain(ch) {
		if m, ok := e.Payload.(*app.Node); ok && m.ID == n.ID && m.Status != app.Started {
			t.Errorf("status %q recorded", m.Status)
		}
	}
	usage := func(cpu float64) app.ComputeState {
		mem := 50.0
		return app.ComputeState{Connected: true, CPU: &cpu, Memory: &mem}
	}
	updates := func() (n int) {
		for _, e := range drain(ch) {
			if e.Action == app.EventComputeUpdated {
				n++
			}
		}
		return n
	}
	f.onState(usage(10))
	f.onState(usage(10.4))
	f.onState(usage(10.8))
	if got := updates(); got != 1 {
		t.Errorf("%d compute.updated for usage 10, 10.4, 10.8; want 1", got)
	}
	f.onState(usage(11.2))
	if got := updates(); got != 1 {
		t.Errorf("%d compute.updated for usage 11.2 after 10; want 1", got)
	}
}

// TestRemote_DeleteWhileLostIsMadeOnHeal: a node and a tunnel deleted
// while their compute cannot be reached are deleted there when it comes
// back.
func TestRemote_DeleteWhileLostIsMadeOnHeal(t *testing.T) {
	ctx := context.Background()
	svc, _, f, cid := newRemoteService(t)
	p := mustCreateProject(t, svc, "p")
	a := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.VPCS, NodeUpdate: app.NodeUpdate{Name: app.Some("L1")}})
	b := mustCreateRemoteVPCS(t, svc, p.ID, cid, "R1")
	c := mustCreateRemoteVPCS(t, svc, p.ID, cid, "R2")
	l, err := svc.CreateLink(ctx, p.ID, app.LinkUpdate{Nodes: app.Some([]app.LinkEnd{{NodeID: a.ID}, {NodeID: c.ID}})})
	if err != nil {
		t.Fatal(err)
	}
	f.onState(app.ComputeState{}) // lost
	if err := svc.DeleteNode(ctx, ref(b)); err != nil {
		t.Fatal(err)
	}
	if err := svc.DeleteLink(ctx, p.ID, l.ID); err != nil {
		t.Fatal(err)
	}
	nodeDel := func(x fakeCall) bool {
		return x.Op == "DeleteNode" && x.Project == p.ID && x.Node == b.ID && x.Type == app.VPCS
	}
	nioDel := func(x fakeCall) bool {
		return x.Op == "RemoveNIO" && x.Project == p.ID && x.Node == c.ID && x.Type == app.VPCS && x.Adapter == 0 && x.Port == 0
	}
	if len(f.called(nodeDel))+len(f.called(nioDel)) != 0 {
		t.Fatal("a lost compute was called")
	}
	f.onState(app.ComputeState{Connected: true})
	waitFor(t, "the heal to end", func() bool { return svc.ComputeConnected(cid) })
	if len(f.called(nodeDel)) != 1 || len(f.called(nioDel)) != 1 {
		t.Errorf("after the heal: %+v; want the node's and the NIO's delete", f.called(func(x fakeCall) bool { return strings.HasPrefix(x.Op, "Delete") || x.Op == "RemoveNIO" }))
	}
}

// TestRemote_TunnelCommitFailsBreaksTunnel: a tunnel made for a link whose
// commit then fails (a node of it deleted meanwhile) is removed from the
// compute again, and the create is refused.
func TestRemote_TunnelCommitFailsBreaksTunnel(t *testing.T) {
	ctx := context.Background()
	svc, _, f, cid := newRemoteService(t)
	p := mustCreateProject(t, svc, "p")
	a := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.VPCS, NodeUpdate: app.NodeUpdate{Name: app.Some("L1")}})
	b := mustCreateRemoteVPCS(t, svc, p.ID, cid, "R1")
	f.setHandle(func(c fakeCall) error {
		if c.Op == "AddNIO" {
			if err := svc.DeleteNode(ctx, ref(a)); err != nil {
				t.Errorf("delete of L1: %v", err)
			}
		}
		return nil
	})
	_, err := svc.CreateLink(ctx, p.ID, app.LinkUpdate{Nodes: app.Some([]app.LinkEnd{{NodeID: a.ID}, {NodeID: b.ID}})})
	wantCode(t, err, app.ENOTFOUND)
	if got := f.called(op("RemoveNIO", b.ID)); len(got) != 1 {
		t.Errorf("NIO removals on the compute: %+v; want the remote side's", got)
	}
}
