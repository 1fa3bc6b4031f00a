package app_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"nodedesk/app"
	"nodedesk/app/kit"
	"nodedesk/store/storetest"
)

// provisioner runs Docker nodes and makes each a "container" from its
// creation, as app/docker does, counting its calls.
type provisioner struct {
	dockerRecorder
	mu         sync.Mutex
	made       map[string]string // node id → container id
	next       int
	provisions int
	released   []string
	log        []string // "provision <id>", "release <id>", in order
	stall      bool     // Provision waits until its context ends (a pull)
}

var _ app.Provisioner = (*provisioner)(nil)

func (r *provisioner) Provision(ctx context.Context, p app.Process) (string, error) {
	r.mu.Lock()
	stall := r.stall
	r.mu.Unlock()
	if stall {
		<-ctx.Done()
		return "", ctx.Err()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.provisions++
	r.log = append(r.log, "provision "+p.NodeID)
	if r.made == nil {
		r.made = map[string]string{}
	}
	if id, ok := r.made[p.NodeID]; ok {
		return id, nil
	}
	r.next++
	r.made[p.NodeID] = fmt.Sprintf("c%d", r.next)
	return r.made[p.NodeID], nil
}

func (r *provisioner) Provisioned(nodeID string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.made[nodeID]
}

func (r *provisioner) Release(nodeID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.made[nodeID]; ok {
		r.released = append(r.released, nodeID)
	}
	r.log = append(r.log, "release "+nodeID)
	delete(r.made, nodeID)
	return nil
}

func (r *provisioner) count() (provisions int, made int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.provisions, len(r.made)
}

// containerOf is a node's container_id as its view shows it ("" for null).
func containerOf(t *testing.T, svc *app.Service, pid, id string) string {
	t.Helper()
	n, err := svc.FindNode(context.Background(), app.NodeRef{ProjectID: pid, NodeID: id})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := n.PropertiesView()["container_id"].(string)
	return s
}

// TestService_Provision: a Provisioner's node owns its container from
// its creation (the create's answer shows it), whatever brings the node
// back (an undo of its delete, its project's open); a move asks nothing
// of the runner; a delete (before it answers), a project's close and
// delete release it; a
// copy gets its own; after StopRunners nothing more is made.
func TestService_Provision(t *testing.T) {
	ctx := context.Background()
	r := &provisioner{}
	svc := app.NewService(app.Config{Store: storetest.Open(t), DataDir: t.TempDir(), HostInterfaces: hostInterfaces,
		Runners: []app.Runner{r}, PortFree: everyPortFree})
	pid := mustCreateProject(t, svc, "lab").ID
	n := mustCreateNode(t, svc, pid, app.NodeCreate{Type: app.Docker, NodeUpdate: app.NodeUpdate{
		Properties: dockerProps(t, `{"image": "alpine"}`)}})
	if got := n.PropertiesView()["container_id"]; got != "c1" {
		t.Fatalf("the create's container_id = %v, want c1 (made with the node)", got)
	}
	ref := app.NodeRef{ProjectID: pid, NodeID: n.ID}
	before, _ := r.count()
	if _, err := svc.UpdateNode(ctx, ref, app.NodeUpdate{X: app.Some(40)}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.UpdateNode(ctx, ref, app.NodeUpdate{Properties: dockerProps(t, `{"environment": "A=1"}`)}); err != nil {
		t.Fatal(err)
	}
	if !kit.WaitFor(5*time.Second, func() bool { p, _ := r.count(); return p == before+1 }) {
		p, _ := r.count()
		t.Errorf("%d provisions after a move and a change of settings, want %d (the change only)", p-before, 1)
	}

	dup, err := svc.DuplicateNode(ctx, ref, 100, 100, app.Field[int]{})
	if err != nil {
		t.Fatal(err)
	}
	if !kit.WaitFor(5*time.Second, func() bool { return containerOf(t, svc, pid, dup.ID) == "c2" }) {
		t.Errorf("the copy's container_id = %q, want its own c2", containerOf(t, svc, pid, dup.ID))
	}

	if err := svc.DeleteNode(ctx, ref); err != nil {
		t.Fatal(err)
	}
	if id := r.Provisioned(n.ID); id != "" {
		t.Errorf("the delete answered before its container %s was released", id)
	}
	if _, err := svc.Undo(ctx, pid); err != nil {
		t.Fatal(err)
	}
	if !kit.WaitFor(5*time.Second, func() bool { return containerOf(t, svc, pid, n.ID) == "c3" }) {
		t.Errorf("after the undo of its delete container_id = %q, want a new one, c3", containerOf(t, svc, pid, n.ID))
	}

	if err := svc.CloseProject(ctx, pid); err != nil {
		t.Fatal(err)
	}
	if _, made := r.count(); made != 0 || containerOf(t, svc, pid, n.ID) != "" {
		t.Errorf("after the close %d containers are left, container_id %q; want none", made, containerOf(t, svc, pid, n.ID))
	}
	if _, err := svc.OpenProject(ctx, pid); err != nil {
		t.Fatal(err)
	}
	if !kit.WaitFor(5*time.Second, func() bool { _, made := r.count(); return made == 2 && containerOf(t, svc, pid, n.ID) != "" }) {
		t.Error("the reopened project's nodes have no containers")
	}
	if err := svc.DeleteProject(ctx, pid); err != nil {
		t.Fatal(err)
	}
	if _, made := r.count(); made != 0 {
		t.Errorf("%d containers are left after the project's delete", made)
	}

	svc.StopRunners()
	other := mustCreateProject(t, svc, "after")
	late := mustCreateNode(t, svc, other.ID, app.NodeCreate{Type: app.Docker, NodeUpdate: app.NodeUpdate{
		Properties: dockerProps(t, `{"image": "alpine"}`)}})
	if id := r.Provisioned(late.ID); id != "" || slices.Contains(r.released, late.ID) {
		t.Errorf("a node made after StopRunners got container %q", id)
	}
}

// last is the last call the runner had for node id ("" if none).
func (r *provisioner) last(id string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.log) - 1; i >= 0; i-- {
		if strings.HasSuffix(r.log[i], " "+id) {
			return r.log[i]
		}
	}
	return ""
}

// settled reports whether node id shows the container its runner has for
// it, and has one, the runner's last call for it being a provision.
func (r *provisioner) settled(t *testing.T, svc *app.Service, pid, id string) bool {
	got := containerOf(t, svc, pid, id)
	return got != "" && got == r.Provisioned(id) && strings.HasPrefix(r.last(id), "provision ")
}

// TestService_ProvisionFollowsLastEvent: a node's events are handled in
// their order, the last deciding: snapshot restores, a write that deletes
// and makes the node again, a quick undo/redo of its delete leave the
// node with a container it shows, never one released after.
func TestService_ProvisionFollowsLastEvent(t *testing.T) {
	ctx := context.Background()
	r := &provisioner{}
	svc := app.NewService(app.Config{Store: storetest.Open(t), DataDir: t.TempDir(), HostInterfaces: hostInterfaces,
		Runners: []app.Runner{r}, PortFree: everyPortFree})
	defer svc.StopRunners()
	docker := app.NodeCreate{Type: app.Docker, NodeUpdate: app.NodeUpdate{Properties: dockerProps(t, `{"image": "alpine"}`)}}

	pid := mustCreateProject(t, svc, "restored").ID
	n := mustCreateNode(t, svc, pid, docker)
	snap, err := svc.CreateSnapshot(ctx, pid, "one")
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if _, err := svc.RestoreSnapshot(ctx, pid, snap.ID); err != nil {
			t.Fatal(err)
		}
	}
	if !kit.WaitFor(5*time.Second, func() bool { return r.settled(t, svc, pid, n.ID) }) {
		t.Errorf("after restores container_id = %q, the runner's = %q, its last call %q; want the same id, made last",
			containerOf(t, svc, pid, n.ID), r.Provisioned(n.ID), r.last(n.ID))
	}

	for i := range 20 { // one write deleting and making it again: the last decides
		n, err := svc.FindNode(ctx, app.NodeRef{ProjectID: pid, NodeID: n.ID})
		if err != nil {
			t.Fatal(err)
		}
		svc.SettleAfter([]app.Event{{Action: app.EventNodeDeleted, ProjectID: pid, Payload: n},
			{Action: app.EventNodeCreated, ProjectID: pid, Payload: n}})
		if !r.settled(t, svc, pid, n.ID) {
			t.Fatalf("after a delete and a create in one write (#%d) container_id = %q, the runner's = %q, its last call %q; want the same id, made last",
				i, containerOf(t, svc, pid, n.ID), r.Provisioned(n.ID), r.last(n.ID))
		}
	}

	pid2 := mustCreateProject(t, svc, "undone").ID
	m := mustCreateNode(t, svc, pid2, docker)
	if err := svc.DeleteNode(ctx, app.NodeRef{ProjectID: pid2, NodeID: m.ID}); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if _, err := svc.Undo(ctx, pid2); err != nil { // m back
			t.Fatal(err)
		}
		if _, err := svc.Redo(ctx, pid2); err != nil { // m deleted again
			t.Fatal(err)
		}
	}
	if _, err := svc.Undo(ctx, pid2); err != nil {
		t.Fatal(err)
	}
	if !kit.WaitFor(5*time.Second, func() bool { return r.settled(t, svc, pid2, m.ID) }) {
		t.Errorf("after undo/redo container_id = %q, the runner's = %q, its last call %q; want the same id, made last",
			containerOf(t, svc, pid2, m.ID), r.Provisioned(m.ID), r.last(m.ID))
	}
}

// hookStore runs hook (once at a time) after each read that lists the
// nodes of project pid.
type hookStore struct {
	app.Store
	pid     string
	hook    atomic.Pointer[func()]
	running atomic.Bool
}

type listTx struct {
	app.Tx
	listed *bool
	pid    string
}

func (tx listTx) Nodes(projectID string) ([]*app.Node, error) {
	if projectID == tx.pid {
		*tx.listed = true
	}
	return tx.Tx.Nodes(projectID)
}

func (s *hookStore) View(fn func(app.Tx) error) error {
	listed := false
	err := s.Store.View(func(tx app.Tx) error { return fn(listTx{tx, &listed, s.pid}) })
	if h := s.hook.Load(); listed && h != nil && s.running.CompareAndSwap(false, true) {
		(*h)()
		s.running.Store(false)
	}
	return err
}

// TestService_ProvisionDeleteProjectReleasesAll: a project's delete
// removes the container of a node made while it was being deleted (after
// its nodes were first read), as well as the others'.
func TestService_ProvisionDeleteProjectReleasesAll(t *testing.T) {
	ctx := context.Background()
	r := &provisioner{}
	st := &hookStore{Store: storetest.Open(t)}
	svc := app.NewService(app.Config{Store: st, DataDir: t.TempDir(), HostInterfaces: hostInterfaces,
		Runners: []app.Runner{r}, PortFree: everyPortFree})
	defer svc.StopRunners()
	docker := app.NodeCreate{Type: app.Docker, NodeUpdate: app.NodeUpdate{Properties: dockerProps(t, `{"image": "alpine"}`)}}
	pid := mustCreateProject(t, svc, "lab").ID
	mustCreateNode(t, svc, pid, docker)
	st.pid = pid
	var made []string
	hook := func() { // each time the delete reads the nodes, one more is made
		if n, err := svc.CreateNode(ctx, pid, docker); err == nil {
			made = append(made, n.ID)
		}
	}
	st.hook.Store(&hook)
	if err := svc.DeleteProject(ctx, pid); err != nil {
		t.Fatal(err)
	}
	st.hook.Store(nil)
	if len(made) == 0 {
		t.Fatal("no node was made during the delete: the test proves nothing")
	}
	if !kit.WaitFor(5*time.Second, func() bool { _, n := r.count(); return n == 0 }) {
		r.mu.Lock()
		t.Errorf("containers left after the project's delete: %v (nodes made during it: %v)", r.made, made)
		r.mu.Unlock()
	}
}

// TestService_ProvisionCancelled: a node whose container waits for an
// image's pull is deleted at once (its provision cancelled, not waited
// for), and nodedesk quits at once while others wait.
func TestService_ProvisionCancelled(t *testing.T) {
	ctx := context.Background()
	r := &provisioner{stall: true}
	svc := app.NewService(app.Config{Store: storetest.Open(t), DataDir: t.TempDir(), HostInterfaces: hostInterfaces,
		Runners: []app.Runner{r}, PortFree: everyPortFree})
	pid := mustCreateProject(t, svc, "lab").ID
	if err := svc.CloseProject(ctx, pid); err != nil { // its nodes made without waiting
		t.Fatal(err)
	}
	docker := app.NodeCreate{Type: app.Docker, NodeUpdate: app.NodeUpdate{Properties: dockerProps(t, `{"image": "alpine"}`)}}
	a := mustCreateNode(t, svc, pid, docker)
	mustCreateNode(t, svc, pid, docker)
	if _, err := svc.OpenProject(ctx, pid); err != nil { // their provisions stall
		t.Fatal(err)
	}
	within := func(what string, fn func()) {
		t.Helper()
		done := make(chan struct{})
		go func() { defer close(done); fn() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second): // a stalled provision lasts 3 min
			t.Fatalf("%s waited for a stalled provision", what)
		}
	}
	within("the delete of a node", func() {
		if err := svc.DeleteNode(ctx, app.NodeRef{ProjectID: pid, NodeID: a.ID}); err != nil {
			t.Error(err)
		}
	})
	within("StopRunners", svc.StopRunners)
}
