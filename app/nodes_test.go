package app_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"nodedesk/app"
)

func TestService_CreateNode_Errors(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		projectID func(p *app.Project) string
		give      app.NodeCreate
		wantCode  string
	}{
		{"ErrInvalidNoType", nil, app.NodeCreate{}, app.EINVALID},
		{"ErrInvalidUnknownType", nil, app.NodeCreate{Type: "router"}, app.EINVALID},
		{"ErrInvalidNodeID", nil, app.NodeCreate{Type: app.VPCS, ID: "zz"}, app.EINVALID},
		{"ErrInvalidHubConsole", nil, app.NodeCreate{Type: app.EthernetHub, NodeUpdate: app.NodeUpdate{Console: app.Some(5000)}}, app.EINVALID},
		{"ErrInvalidPrivilegedConsole", nil, app.NodeCreate{Type: app.VPCS, NodeUpdate: app.NodeUpdate{Console: app.Some(80)}}, app.EINVALID},
		{"ErrConflictConsoleTaken", nil, app.NodeCreate{Type: app.VPCS, NodeUpdate: app.NodeUpdate{Console: app.Some(5000)}}, app.ECONFLICT},
		{"ErrNotFoundCompute", nil, app.NodeCreate{Type: app.VPCS, ComputeID: "vm"}, app.ENOTFOUND},
		{"ErrNotFoundProject", func(*app.Project) string { return uuid.NewString() }, app.NodeCreate{Type: app.VPCS}, app.ENOTFOUND},
		{"ErrNotFoundProjectNone", func(*app.Project) string { return "None" }, app.NodeCreate{Type: app.VPCS}, app.ENOTFOUND},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := newService(t)
			p := mustCreateProject(t, svc, "lab")
			mustCreateVPCS(t, svc, p.ID) // owns 5000
			pid := p.ID
			if tt.projectID != nil {
				pid = tt.projectID(p)
			}
			_, err := svc.CreateNode(ctx, pid, tt.give)
			wantCode(t, err, tt.wantCode)
			if ns, _ := svc.FindNodes(ctx, p.ID); len(ns) != 1 {
				t.Errorf("a refused create left %d nodes; want 1", len(ns))
			}
		})
	}
}

// TestService_CreateNode_SameID: a node id the project has, with the same
// type, returns that node unchanged; with another type it is a conflict.
func TestService_CreateNode_SameID(t *testing.T) {
	ctx := context.Background()
	svc, b := newService(t)
	p := mustCreateProject(t, svc, "lab")
	id := "11111111-2222-4333-8444-555555555555"
	a := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.EthernetHub, ID: id})
	events, stop := b.Subscribe(16)
	defer stop()
	again := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.EthernetHub, ID: strings.ToUpper(id), NodeUpdate: app.NodeUpdate{X: app.Some(50)}})
	if again.ID != id || again.Name != a.Name || again.X != a.X {
		t.Errorf("second create = %+v; want %+v unchanged", again, a)
	}
	if evs := drain(events); len(evs) != 0 {
		t.Errorf("second create published %+v", evs)
	}
	_, err := svc.CreateNode(ctx, p.ID, app.NodeCreate{Type: app.VPCS, ID: id})
	wantCode(t, err, app.ECONFLICT)
	if ns, _ := svc.FindNodes(ctx, p.ID); len(ns) != 1 {
		t.Errorf("%d nodes; want 1", len(ns))
	}
}

func TestService_FindNodes(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	p := mustCreateProject(t, svc, "lab")
	var want []string
	for i := range 20 {
		want = append(want, mustCreateNode(t, svc, p.ID, namedNode(app.VPCS, fmt.Sprintf("n%02d", 19-i))).ID)
	}
	ns, err := svc.FindNodes(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range ns {
		got = append(got, n.ID)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("nodes listed %v; want creation order %v", got, want)
	}
	if ns, err := svc.FindNodes(ctx, mustCreateProject(t, svc, "empty").ID); err != nil || len(ns) != 0 {
		t.Errorf("nodes of an empty project = %v, %v; want none", ns, err)
	}
	_, err = svc.FindNodes(ctx, uuid.NewString())
	wantCode(t, err, app.ENOTFOUND)
}

func TestService_DuplicateNode(t *testing.T) {
	ctx := context.Background()

	t.Run("OK", func(t *testing.T) {
		svc, _ := newService(t)
		l := mustCreateLinkLab(t, svc)
		mustLink(t, svc, l.p.ID, portEnd(l.pc1, 0, 0), portEnd(l.sw, 0, 0))
		if _, err := svc.UpdateNode(ctx, ref(l.pc1), app.NodeUpdate{Locked: app.Some(true),
			Properties: &app.VPCSUpdate{StartupScript: app.Some("ip 10.0.0.1/24")}}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.NodeAction(ctx, ref(l.pc1), app.Start); err != nil {
			t.Fatal(err)
		}
		orig := mustFindNode(t, svc, l.pc1)
		d, err := svc.DuplicateNode(ctx, ref(l.pc1), 100, 50, app.Some(2))
		if err != nil {
			t.Fatal(err)
		}
		if d.ID == orig.ID || d.Name != "PC3" || d.Label.Text != "PC3" || d.Console == orig.Console || d.Console == 0 ||
			d.Status != app.Stopped || d.Locked {
			t.Errorf("duplicate %+v of %+v; want PC3, its own console, stopped, unlocked", d, orig)
		}
		if d.X != 100 || d.Y != 50 || d.Z != 2 {
			t.Errorf("duplicate at %d, %d, %d; want 100, 50, 2", d.X, d.Y, d.Z)
		}
		if d.Properties.StartupScript == nil || *d.Properties.StartupScript != "ip 10.0.0.1/24" {
			t.Errorf("duplicate script %v; want the original's", d.Properties.StartupScript)
		}
		if links, _ := svc.FindNodeLinks(ctx, ref(d)); len(links) != 0 {
			t.Errorf("links were copied: %v", links)
		}
		if got := mustFindNode(t, svc, l.pc1); got.Console != orig.Console || got.Status != app.Started {
			t.Errorf("the original changed: %+v", got)
		}
	})

	t.Run("ZKeptWhenNotGiven", func(t *testing.T) {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		sw := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.EthernetSwitch, NodeUpdate: app.NodeUpdate{Z: app.Some(7)}})
		d, err := svc.DuplicateNode(ctx, ref(sw), 1, 2, app.Field[int]{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Z != 7 || d.Name != "Switch2" || d.Console != 0 || d.Status != app.Started {
			t.Errorf("duplicate switch %+v; want z 7, Switch2, no console, started", d)
		}
	})

	t.Run("CustomLabelKept", func(t *testing.T) {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		n := mustCreateVPCS(t, svc, p.ID)
		lbl := n.Label
		lbl.Text = "my label"
		if _, err := svc.UpdateNode(ctx, ref(n), app.NodeUpdate{Label: app.Some(lbl)}); err != nil {
			t.Fatal(err)
		}
		d, err := svc.DuplicateNode(ctx, ref(n), 0, 0, app.Field[int]{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Name != "PC2" || d.Label.Text != "my label" {
			t.Errorf("duplicate name, label = %q, %q; want PC2, my label", d.Name, d.Label.Text)
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		n := mustCreateVPCS(t, svc, p.ID)
		if err := svc.DeleteNode(ctx, ref(n)); err != nil {
			t.Fatal(err)
		}
		_, err := svc.DuplicateNode(ctx, ref(n), 1, 2, app.Field[int]{})
		wantCode(t, err, app.ENOTFOUND)
	})
}
