package app_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"nodedesk/app"
	"nodedesk/store/storetest"
)

func TestService_DuplicateProject(t *testing.T) {
	ctx := context.Background()

	t.Run("OK", func(t *testing.T) {
		svc, b := newService(t)
		l := mustCreateLinkLab(t, svc)
		pid := l.p.ID
		mustLink(t, svc, pid, portEnd(l.pc1, 0, 0), portEnd(l.sw, 0, 1))
		mustLink(t, svc, pid, portEnd(l.pc2, 0, 0), portEnd(l.sw, 0, 2))
		mustCreateDrawing(t, svc, pid, app.DrawingUpdate{SVG: app.Some("<svg/>"), X: app.Some(5)})
		if _, err := svc.UpdateProject(ctx, pid, app.ProjectUpdate{GridSize: app.Some(50), AutoOpen: app.Some(true), AutoStart: app.Some(true)}); err != nil {
			t.Fatal(err)
		}
		origSnap := mustCreateSnapshot(t, svc, pid, "s1")
		if _, err := svc.NodeAction(ctx, ref(l.pc1), app.Start); err != nil {
			t.Fatal(err)
		}
		orig := mustReadProject(t, svc, pid)
		events, stop := b.Subscribe(64)
		defer stop()

		// The name is taken (by the original), so the copy gets "-1".
		dup, err := svc.DuplicateProject(ctx, pid, app.ProjectDuplicate{Name: app.Some("lab")})
		if err != nil {
			t.Fatal(err)
		}
		if dup.ID == pid || dup.Name != "lab-1" || dup.Filename != "lab-1.gns3" || dup.Status != app.ProjectClosed ||
			dup.GridSize != 50 || dup.AutoOpen || dup.AutoStart || dup.AutoClose {
			t.Errorf("copy %+v; want lab-1, closed, the settings, auto_* off", dup)
		}
		if evs := drain(events); len(evs) == 0 || evs[0].Action != app.EventProjectCreated || evs[0].ProjectID != dup.ID {
			t.Errorf("events %+v; want project.created of the copy first", evs)
		}

		cp := mustReadProject(t, svc, dup.ID)
		if len(cp.nodes) != len(orig.nodes) {
			t.Fatalf("%d nodes in the copy; want %d", len(cp.nodes), len(orig.nodes))
		}
		consoles := map[int]bool{}
		for _, n := range orig.nodes {
			if n.Console != 0 {
				consoles[n.Console] = true
			}
		}
		newOf := map[string]string{} // original node id -> the copy's
		for i, n := range cp.nodes {
			o := orig.nodes[i]
			newOf[o.ID] = n.ID
			if n.ID == o.ID || n.ProjectID != dup.ID || n.Name != o.Name || n.Type != o.Type || n.X != o.X {
				t.Errorf("copy's node %d = %+v; want a copy of %+v under a new id", i, n, o)
			}
			if n.Console != 0 {
				if consoles[n.Console] {
					t.Errorf("copy's %s has console %d, which another node owns", n.Name, n.Console)
				}
				consoles[n.Console] = true
			}
			if n.Type == app.VPCS && n.Status != app.Stopped {
				t.Errorf("copy's %s is %s; want stopped", n.Name, n.Status)
			}
		}
		if len(cp.links) != len(orig.links) {
			t.Fatalf("%d links in the copy; want %d", len(cp.links), len(orig.links))
		}
		for i, lk := range cp.links {
			o := orig.links[i]
			if lk.ID == o.ID || lk.ProjectID != dup.ID {
				t.Errorf("copy's link %+v", lk)
			}
			for j, e := range lk.Nodes {
				oe := o.Nodes[j]
				if e.NodeID != newOf[oe.NodeID] || e.AdapterNumber != oe.AdapterNumber || e.PortNumber != oe.PortNumber {
					t.Errorf("copy's link end %+v; want the copy of %+v", e, oe)
				}
			}
		}
		if len(cp.drawings) != 1 || cp.drawings[0].ID == orig.drawings[0].ID || cp.drawings[0].X != 5 || cp.drawings[0].ProjectID != dup.ID {
			t.Errorf("copy's drawings %+v", cp.drawings)
		}
		snaps, err := svc.FindSnapshots(ctx, dup.ID)
		if err != nil || len(snaps) != 1 || snaps[0].Name != "s1" || snaps[0].ID == origSnap.ID || snaps[0].ProjectID != dup.ID {
			t.Fatalf("copy's snapshots %+v, %v", snaps, err)
		}

		// The copy lives on its own: its ports are its own, its snapshot
		// restores there, and the original can go.
		_, err = svc.CreateLink(ctx, dup.ID, linkOf(app.LinkEnd{NodeID: newOf[l.pc1.ID]}, app.LinkEnd{NodeID: newOf[l.sw.ID], PortNumber: 5}))
		wantCode(t, err, app.ECONFLICT)
		if _, err := svc.RestoreSnapshot(ctx, dup.ID, snaps[0].ID); err != nil {
			t.Errorf("restoring the copy's snapshot: %v", err)
		}
		if after := mustReadProject(t, svc, dup.ID); len(after.nodes) != len(orig.nodes) || len(after.links) != 2 {
			t.Errorf("copy after restoring its snapshot: %d nodes, %d links", len(after.nodes), len(after.links))
		}
		if now := mustReadProject(t, svc, pid); len(now.nodes) != len(orig.nodes) || now.nodes[0].ID != orig.nodes[0].ID {
			t.Error("the original changed")
		}
		if err := svc.DeleteProject(ctx, pid); err != nil {
			t.Fatal(err)
		}
		if got, _ := svc.FindLinks(ctx, dup.ID); len(got) != 2 {
			t.Errorf("the copy's links after the original went: %d", len(got))
		}
	})

	t.Run("Names", func(t *testing.T) {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		tests := []struct {
			name string
			give app.Field[string]
			want string
		}{
			{"Default", app.Field[string]{}, "lab-1"},
			{"Null", app.Null[string](), "lab-2"},
			{"Own", app.Some("mine"), "mine"},
			{"OwnTaken", app.Some("mine"), "mine-1"},
		}
		for _, tt := range tests {
			got, err := svc.DuplicateProject(ctx, p.ID, app.ProjectDuplicate{Name: tt.give})
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			if got.Name != tt.want {
				t.Errorf("%s: copy named %q; want %q", tt.name, got.Name, tt.want)
			}
		}
		// A copy of "lab-1" is "lab-1-1": GNS3 appends to the name taken.
		ps, _ := svc.FindProjects(ctx)
		got, err := svc.DuplicateProject(ctx, ps[1].ID, app.ProjectDuplicate{})
		if err != nil || got.Name != "lab-1-1" {
			t.Errorf("copy of %s = %v, %v; want lab-1-1", ps[1].Name, got, err)
		}
	})

	t.Run("ResetMACAddresses", func(t *testing.T) {
		// A MAC offset is given at a process's first start: run the node.
		svc := app.NewService(app.Config{Store: storetest.Open(t), DataDir: t.TempDir(), HostInterfaces: hostInterfaces,
			PortFree: everyPortFree, Runners: []app.Runner{&fakeRunner{}}})
		p := mustCreateProject(t, svc, "lab")
		pc := mustCreateVPCS(t, svc, p.ID)
		if _, err := svc.NodeAction(ctx, ref(pc), app.Start); err != nil {
			t.Fatal(err)
		}
		started := mustFindNode(t, svc, pc)
		if started.Properties.MACOffset == nil {
			t.Fatal("a started VPCS has no MAC offset")
		}
		for _, reset := range []bool{false, true} {
			dup, err := svc.DuplicateProject(ctx, p.ID, app.ProjectDuplicate{ResetMACAddresses: reset})
			if err != nil {
				t.Fatal(err)
			}
			ns, _ := svc.FindNodes(ctx, dup.ID)
			kept := ns[0].Properties.MACOffset != nil && *ns[0].Properties.MACOffset == *started.Properties.MACOffset
			if reset == kept {
				t.Errorf("reset_mac_addresses %v: copy's MAC offset %v, original's %v", reset, ns[0].Properties.MACOffset, started.Properties.MACOffset)
			}
		}
	})

	t.Run("ErrInvalidEmptyName", func(t *testing.T) {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		_, err := svc.DuplicateProject(ctx, p.ID, app.ProjectDuplicate{Name: app.Some("")})
		wantCode(t, err, app.EINVALID)
		if ps, _ := svc.FindProjects(ctx); len(ps) != 1 {
			t.Errorf("%d projects after a refused copy; want 1", len(ps))
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		svc, _ := newService(t)
		_, err := svc.DuplicateProject(ctx, uuid.NewString(), app.ProjectDuplicate{Name: app.Some("x")})
		wantCode(t, err, app.ENOTFOUND)
	})
}
