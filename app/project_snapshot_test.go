package app_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"nodedesk/app"
	"nodedesk/store/storetest"
)

func mustCreateSnapshot(tb testing.TB, svc *app.Service, projectID, name string) *app.Snapshot {
	tb.Helper()
	s, err := svc.CreateSnapshot(context.Background(), projectID, name)
	if err != nil {
		tb.Fatalf("CreateSnapshot(%q): %v", name, err)
	}
	return s
}

// projectRecords is what a project holds, as the Service lists it.
type projectRecords struct {
	project  *app.Project
	nodes    []*app.Node
	links    []*app.Link
	drawings []*app.Drawing
}

func mustReadProject(tb testing.TB, svc *app.Service, projectID string) projectRecords {
	tb.Helper()
	ctx := context.Background()
	var r projectRecords
	var err error
	if r.project, err = svc.FindProjectByID(ctx, projectID); err != nil {
		tb.Fatal(err)
	}
	if r.nodes, err = svc.FindNodes(ctx, projectID); err != nil {
		tb.Fatal(err)
	}
	if r.links, err = svc.FindLinks(ctx, projectID); err != nil {
		tb.Fatal(err)
	}
	if r.drawings, err = svc.FindDrawings(ctx, projectID); err != nil {
		tb.Fatal(err)
	}
	return r
}

func TestService_CreateSnapshot(t *testing.T) {
	ctx := context.Background()

	t.Run("OK", func(t *testing.T) {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		mustCreateVPCS(t, svc, p.ID)
		before := time.Now().Unix()
		s := mustCreateSnapshot(t, svc, p.ID, "first")
		if s.Name != "first" || s.ProjectID != p.ID || s.Filename() != "first.gns3snapshot" || len(s.Nodes) != 1 {
			t.Errorf("snapshot %+v", s)
		}
		if s.CreatedAt < before || s.CreatedAt > time.Now().Unix() {
			t.Errorf("created_at %d; want now, in seconds", s.CreatedAt)
		}
		if d := s.Description(); !strings.HasPrefix(d, "Snapshot 'first' taken on ") {
			t.Errorf("description %q; want GNS3's sentence", d)
		}
		got, err := svc.FindSnapshots(ctx, p.ID)
		if err != nil || len(got) != 1 || got[0].ID != s.ID {
			t.Errorf("FindSnapshots = %v, %v; want the snapshot", got, err)
		}
	})

	// As GNS3, no snapshot while a node runs: its emulator writes the
	// files a snapshot would copy. The message says what to do.
	t.Run("RefusedWhileNodesRun", func(t *testing.T) {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		n := mustCreateVPCS(t, svc, p.ID)
		if _, err := svc.NodeAction(ctx, ref(n), app.Start); err != nil {
			t.Fatal(err)
		}
		_, err := svc.CreateSnapshot(ctx, p.ID, "running")
		if app.ErrorCode(err) != app.ECONFLICT || !strings.Contains(app.ErrorMessage(err), "stop") || !strings.Contains(app.ErrorMessage(err), n.Name) {
			t.Errorf("CreateSnapshot while %s runs = %v; want a conflict naming it and saying to stop it", n.Name, err)
		}
		if got, _ := svc.FindSnapshots(ctx, p.ID); len(got) != 0 {
			t.Errorf("a refused snapshot was kept: %v", got)
		}
		if got := mustFindNode(t, svc, n); got.Status != app.Started {
			t.Errorf("the node itself is %s after the refusal; want started", got.Status)
		}
		if _, err := svc.NodeAction(ctx, ref(n), app.Stop); err != nil {
			t.Fatal(err)
		}
		if s := mustCreateSnapshot(t, svc, p.ID, "stopped"); s.Nodes[0].Status != app.Stopped {
			t.Errorf("snapshot keeps the node as %s; want stopped", s.Nodes[0].Status)
		}
	})

	tests := []struct {
		name      string
		give      string
		wantCode  string
		wantField string
	}{
		{"ErrInvalidEmpty", "", app.EINVALID, "name"},
		{"ErrInvalidSpaces", "  ", app.EINVALID, "name"},
		{"ErrConflictNameTaken", "first", app.ECONFLICT, "name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := newService(t)
			p := mustCreateProject(t, svc, "lab")
			mustCreateSnapshot(t, svc, p.ID, "first")
			_, err := svc.CreateSnapshot(ctx, p.ID, tt.give)
			wantCode(t, err, tt.wantCode)
			if got := app.ErrorField(err); got != tt.wantField {
				t.Errorf("error field %q; want %q", got, tt.wantField)
			}
			if tt.wantCode == app.ECONFLICT && !strings.Contains(app.ErrorMessage(err), "first") {
				t.Errorf("message %q does not name the snapshot", app.ErrorMessage(err))
			}
			if got, _ := svc.FindSnapshots(ctx, p.ID); len(got) != 1 {
				t.Errorf("%d snapshots after a refused one; want 1", len(got))
			}
		})
	}

	t.Run("SameNameInAnotherProject", func(t *testing.T) {
		svc, _ := newService(t)
		mustCreateSnapshot(t, svc, mustCreateProject(t, svc, "A").ID, "first")
		mustCreateSnapshot(t, svc, mustCreateProject(t, svc, "B").ID, "first")
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		svc, _ := newService(t)
		_, err := svc.CreateSnapshot(ctx, uuid.NewString(), "first")
		wantCode(t, err, app.ENOTFOUND)
		_, err = svc.FindSnapshots(ctx, uuid.NewString())
		wantCode(t, err, app.ENOTFOUND)
	})
}

func TestService_RestoreSnapshot(t *testing.T) {
	ctx := context.Background()

	t.Run("OK", func(t *testing.T) {
		svc, b := newService(t)
		l := mustCreateLinkLab(t, svc)
		pid := l.p.ID
		if _, err := svc.UpdateNode(ctx, ref(l.pc1), app.NodeUpdate{Properties: &app.VPCSUpdate{StartupScript: app.Some("ip 10.0.0.1/24\n")}}); err != nil {
			t.Fatal(err)
		}
		mustLink(t, svc, pid, portEnd(l.pc1, 0, 0), portEnd(l.sw, 0, 1))
		d := mustCreateDrawing(t, svc, pid, app.DrawingUpdate{SVG: app.Some("<svg/>"), X: app.Some(5)})
		if _, err := svc.UpdateProject(ctx, pid, app.ProjectUpdate{GridSize: app.Some(50)}); err != nil {
			t.Fatal(err)
		}
		before := mustReadProject(t, svc, pid)
		s := mustCreateSnapshot(t, svc, pid, "first")

		// Change everything: the link and a node go, a node comes, a
		// drawing moves, settings change, the project is renamed.
		links, _ := svc.FindLinks(ctx, pid)
		for _, lk := range links {
			if err := svc.DeleteLink(ctx, pid, lk.ID); err != nil {
				t.Fatal(err)
			}
		}
		if err := svc.DeleteNode(ctx, ref(l.pc2)); err != nil {
			t.Fatal(err)
		}
		mustCreateNode(t, svc, pid, app.NodeCreate{Type: app.VPCS, NodeUpdate: app.NodeUpdate{Name: app.Some("newcomer")}})
		if _, err := svc.UpdateNode(ctx, ref(l.pc1), app.NodeUpdate{X: app.Some(300), Name: app.Some("renamed"),
			Properties: &app.VPCSUpdate{StartupScript: app.Some("ip 10.9.9.9/24\n")}}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.UpdateDrawing(ctx, pid, d.ID, app.DrawingUpdate{X: app.Some(99)}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.UpdateProject(ctx, pid, app.ProjectUpdate{GridSize: app.Some(10), Name: app.Some("lab renamed")}); err != nil {
			t.Fatal(err)
		}
		changed := mustReadProject(t, svc, pid)

		events, stop := b.Subscribe(256)
		defer stop()
		p, err := svc.RestoreSnapshot(ctx, pid, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		if p.ID != pid || p.Name != "lab renamed" || p.Filename != before.project.Filename || p.GridSize != 50 {
			t.Errorf("restored project %+v; want its name kept and the snapshot's settings", p)
		}
		after := mustReadProject(t, svc, pid)
		if !reflect.DeepEqual(after.nodes, before.nodes) {
			t.Errorf("nodes after restore:\n%+v\nwant\n%+v", after.nodes, before.nodes)
		}
		if !reflect.DeepEqual(after.links, before.links) || !reflect.DeepEqual(after.drawings, before.drawings) {
			t.Errorf("links, drawings after restore:\n%+v %+v\nwant\n%+v %+v", after.links, after.drawings, before.links, before.drawings)
		}

		count := map[app.EventAction]int{}
		evs := drain(events)
		for _, e := range evs {
			count[e.Action]++
		}
		// Only what changes is announced: the newcomer goes, pc2 and the
		// link come back, pc1 and the drawing change back; no record is
		// deleted and created again (the GNS3 GUI then cannot draw links).
		want := map[app.EventAction]int{
			app.EventNodeDeleted: 1, app.EventNodeCreated: 1, app.EventNodeUpdated: 1,
			app.EventLinkDeleted: 0, app.EventLinkCreated: len(before.links),
			app.EventDrawingDeleted: 0, app.EventDrawingCreated: 0, app.EventDrawingUpdated: 1,
			app.EventProjectUpdated: 1, app.EventSnapshotRestored: 1,
		}
		if len(changed.nodes) != 7 || len(before.links) != 1 {
			t.Fatalf("the lab has %d nodes, %d links; the counts above assume 7 and 1", len(changed.nodes), len(before.links))
		}
		for a, n := range want {
			if count[a] != n {
				t.Errorf("%d %s events; want %d (all: %v)", count[a], a, n, count)
			}
		}
		var restoredAt int
		for i, e := range evs {
			if e.Action == app.EventSnapshotRestored {
				restoredAt = i
			}
		}
		for _, e := range evs[restoredAt+1:] {
			if e.Action != app.EventHistoryUpdated {
				t.Errorf("%s after snapshot.restored; want it last of the restore's changes", e.Action)
			}
		}

		// A new node's name is allocated against the restored names.
		fresh := mustCreateVPCS(t, svc, pid)
		for _, n := range after.nodes {
			if n.Name == fresh.Name {
				t.Errorf("a new node is named %s, as a restored one is", fresh.Name)
			}
		}
	})

	t.Run("ConsoleTakenSinceIsReplaced", func(t *testing.T) {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		pc := mustCreateVPCS(t, svc, p.ID)
		s := mustCreateSnapshot(t, svc, p.ID, "first")
		if err := svc.DeleteNode(ctx, ref(pc)); err != nil {
			t.Fatal(err)
		}
		thief := mustCreateNode(t, svc, mustCreateProject(t, svc, "other").ID,
			app.NodeCreate{Type: app.VPCS, NodeUpdate: app.NodeUpdate{Console: app.Some(pc.Console)}})
		if _, err := svc.RestoreSnapshot(ctx, p.ID, s.ID); err != nil {
			t.Fatal(err)
		}
		got := mustFindNode(t, svc, pc)
		if got.Console == 0 || got.Console == thief.Console {
			t.Errorf("restored node's console %d; want a free port, not %d which %s owns", got.Console, thief.Console, thief.Name)
		}
		if owners := consolesInUse(t, svc); owners[thief.Console] != thief.ID || owners[got.Console] != got.ID {
			t.Errorf("console owners %v", owners)
		}
	})

	t.Run("RunningNodesStopped", func(t *testing.T) {
		// GNS3 closes the project, stopping its nodes, then restores
		// (controller/snapshot.py:133-135).
		runner := &fakeRunner{}
		svc := app.NewService(app.Config{Store: storetest.Open(t), DataDir: t.TempDir(), HostInterfaces: hostInterfaces,
			PortFree: everyPortFree, Runners: []app.Runner{runner}})
		p := mustCreateProject(t, svc, "lab")
		pc := mustCreateVPCS(t, svc, p.ID)
		s := mustCreateSnapshot(t, svc, p.ID, "first")
		mustCreateVPCS(t, svc, p.ID)
		if _, err := svc.NodeAction(ctx, ref(pc), app.Start); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.RestoreSnapshot(ctx, p.ID, s.ID); err != nil {
			t.Fatalf("restore while %s runs: %v", pc.Name, err)
		}
		if got := mustFindNode(t, svc, pc); got.Status != app.Stopped {
			t.Errorf("%s after the restore is %s; want stopped", got.Name, got.Status)
		}
		if got := strings.Join(runner.calls, ","); got != "start,stop" {
			t.Errorf("runner calls %s; want start,stop (the restore stops the running node)", got)
		}
		if nodes, _ := svc.FindNodes(ctx, p.ID); len(nodes) != 1 {
			t.Errorf("%d nodes after the restore; want the snapshot's one", len(nodes))
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		s := mustCreateSnapshot(t, svc, p.ID, "first")
		for _, tt := range []struct{ name, pid, sid string }{
			{"UnknownSnapshot", p.ID, uuid.NewString()},
			{"NotAUUID", p.ID, "not-a-uuid"},
			{"UnknownProject", uuid.NewString(), s.ID},
			{"SnapshotOfAnotherProject", mustCreateProject(t, svc, "other").ID, s.ID},
		} {
			t.Run(tt.name, func(t *testing.T) {
				_, err := svc.RestoreSnapshot(ctx, tt.pid, tt.sid)
				wantCode(t, err, app.ENOTFOUND)
			})
		}
	})
}

func TestService_DeleteSnapshot(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	p := mustCreateProject(t, svc, "lab")
	first := mustCreateSnapshot(t, svc, p.ID, "first")
	second := mustCreateSnapshot(t, svc, p.ID, "second")
	if err := svc.DeleteSnapshot(ctx, p.ID, second.ID); err != nil {
		t.Fatal(err)
	}
	wantCode(t, svc.DeleteSnapshot(ctx, p.ID, second.ID), app.ENOTFOUND)
	_, err := svc.RestoreSnapshot(ctx, p.ID, second.ID)
	wantCode(t, err, app.ENOTFOUND)
	if got, _ := svc.FindSnapshots(ctx, p.ID); len(got) != 1 || got[0].ID != first.ID {
		t.Errorf("snapshots after delete: %v; want first only", got)
	}
	// Its name may be used again.
	mustCreateSnapshot(t, svc, p.ID, "second")

	// Snapshots go with their project.
	if err := svc.DeleteProject(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateProject(ctx, app.ProjectCreate{ID: p.ID, ProjectUpdate: app.ProjectUpdate{Name: app.Some("again")}}); err != nil {
		t.Fatal(err)
	}
	if got, err := svc.FindSnapshots(ctx, p.ID); err != nil || len(got) != 0 {
		t.Errorf("a deleted project's snapshots came back: %v, %v", got, err)
	}
}
