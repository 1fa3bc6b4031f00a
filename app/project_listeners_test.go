package app_test

import (
	"context"
	"testing"
	"time"

	"nodedesk/app"
	"nodedesk/store/storetest"
)

// TestService_ListenProject_AutoClose: a project with auto_close is
// closed, its nodes stopped, once its last listener has left (GNS3's
// project_handler.py:243-249); not while another still listens, and never
// one whose auto_close is off.
func TestService_ListenProject_AutoClose(t *testing.T) {
	ctx := context.Background()
	b := app.NewBroker()
	runner := &fakeRunner{}
	svc := app.NewService(app.Config{Store: storetest.Open(t), Events: b, DataDir: t.TempDir(), HostInterfaces: hostInterfaces,
		PortFree: everyPortFree, Runners: []app.Runner{runner}, AutoCloseAfter: time.Millisecond})
	kept := mustCreateProject(t, svc, "kept")
	if _, err := svc.UpdateProject(ctx, kept.ID, app.ProjectUpdate{AutoClose: app.Some(false)}); err != nil {
		t.Fatal(err)
	}
	lab := mustCreateProject(t, svc, "lab")
	pc := mustCreateVPCS(t, svc, lab.ID)
	if _, err := svc.NodeAction(ctx, ref(pc), app.Start); err != nil {
		t.Fatal(err)
	}
	events, stop := b.Subscribe(64)
	defer stop()

	svc.ListenProject(kept.ID)()
	first, second := svc.ListenProject(lab.ID), svc.ListenProject(lab.ID)
	first()
	first() // a second call of one leave counts once
	if p := mustReadProject(t, svc, lab.ID).project; p.Status != app.ProjectOpened {
		t.Fatalf("lab is %s with a listener left; want opened", p.Status)
	}
	second()
	for e := range events {
		if e.Action != app.EventProjectClosed {
			continue
		}
		if e.ProjectID != lab.ID {
			t.Fatalf("project %s closed; want only lab", e.ProjectID)
		}
		break
	}
	if n := mustFindNode(t, svc, pc); n.Status != app.Stopped {
		t.Errorf("lab's node is %s after the auto close; want stopped", n.Status)
	}
	if p := mustReadProject(t, svc, kept.ID).project; p.Status != app.ProjectOpened {
		t.Errorf("project without auto_close is %s; want opened", p.Status)
	}
}
