package app_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
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
}

var _ app.Provisioner = (*provisioner)(nil)

func (r *provisioner) Provision(_ context.Context, p app.Process) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.provisions++
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
