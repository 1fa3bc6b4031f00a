package app_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"nodedesk/app"
	"nodedesk/app/kit"
	"nodedesk/store/storetest"
)

// lines is a log kept for a test to read.
type lines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lines) has(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Contains(l.buf.String(), s)
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *lines) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

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

// TestService_AttachViewer_KeepsProjectsOpen: while a UI of nodedesk is
// open (the window, a page), an auto_close project whose last listener
// left stays open, its node running, whichever project the UI shows; once
// the last viewer has gone, it is closed, and the project says why and
// when until it is opened again.
func TestService_AttachViewer_KeepsProjectsOpen(t *testing.T) {
	ctx := context.Background()
	b := app.NewBroker()
	runner := &fakeRunner{}
	logs := &lines{}
	svc := app.NewService(app.Config{Store: storetest.Open(t), Events: b, DataDir: t.TempDir(), HostInterfaces: hostInterfaces,
		PortFree: everyPortFree, Runners: []app.Runner{runner}, AutoCloseAfter: time.Millisecond, Logger: logs.logger()})
	lab := mustCreateProject(t, svc, "lab")
	pc := mustCreateVPCS(t, svc, lab.ID)
	if _, err := svc.NodeAction(ctx, ref(pc), app.Start); err != nil {
		t.Fatal(err)
	}
	events, stop := b.Subscribe(64)
	defer stop()

	window := svc.AttachViewer()
	page := svc.AttachViewer()
	svc.ListenProject(lab.ID)() // the page showed lab, then another project
	page()                      // the browser tab closed; the window is still open
	if !kit.WaitFor(5*time.Second, func() bool { return logs.has("auto_close: kept open") }) {
		t.Fatalf("the auto close never ran; log:\n%s", logs)
	}
	if p := mustReadProject(t, svc, lab.ID).project; p.Status != app.ProjectOpened || p.Closure != nil {
		t.Fatalf("lab is %s (closure %+v) while the window is open; want opened", p.Status, p.Closure)
	}
	if n := mustFindNode(t, svc, pc); n.Status != app.Started {
		t.Fatalf("lab's node is %s while the window is open; want started", n.Status)
	}

	window() // the last viewer: no UI of nodedesk shows anything now
	for e := range events {
		if e.Action == app.EventProjectClosed && e.ProjectID == lab.ID {
			break
		}
	}
	p := mustReadProject(t, svc, lab.ID).project
	if p.Closure == nil || !strings.Contains(p.Closure.Message, "nodedesk closed this project at") ||
		!strings.Contains(p.Closure.Message, "its nodes were stopped") || p.Closure.At.IsZero() {
		t.Fatalf("closure %+v; want when and why nodedesk closed it", p.Closure)
	}
	if n := mustFindNode(t, svc, pc); n.Status != app.Stopped {
		t.Errorf("lab's node is %s after the auto close; want stopped", n.Status)
	}
	if p, err := svc.OpenProject(ctx, lab.ID); err != nil || p.Closure != nil {
		t.Errorf("opened again: %v, closure %+v; want the note gone", err, p.Closure)
	}
}
