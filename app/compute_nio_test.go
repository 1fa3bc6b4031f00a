package app_test

import (
	"context"
	"strings"
	"testing"

	"nodedesk/app"
)

// The NIO rules the HTTP test (api/compute_test.go, api/labtest/compute_test.go) does not reach:
// reservations per project, and a NIO nodedesk's own controller makes
// for one of its links (LinkID).
func TestService_NIORules(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	p, q := mustCreateProject(t, svc, "p"), mustCreateProject(t, svc, "q")
	a, b := mustCreateVPCS(t, svc, p.ID), mustCreateVPCS(t, svc, p.ID)
	lport, err := svc.ReserveUDPPort(ctx, p.ID)
	if err != nil || !svc.UDPPorts().Contains(lport) {
		t.Fatalf("ReserveUDPPort = %d, %v", lport, err)
	}
	other, _ := svc.ReserveUDPPort(ctx, q.ID)
	if other == lport {
		t.Fatal("two projects got the same reservation")
	}
	spec := func(lport int, linkID string) app.NIOSpec {
		return app.NIOSpec{Type: app.NIOTypeUDP, LPort: lport, RHost: "127.0.0.1", RPort: 9, LinkID: linkID}
	}
	// Another project's reservation is not this one's.
	_, err = svc.AddNIO(ctx, ref(a), 0, 0, spec(other, ""))
	wantCode(t, err, "conflict")
	_, err = svc.AddNIO(ctx, ref(a), 0, 0, app.NIOSpec{Type: app.NIOTypeUDP, LPort: lport, RHost: "no-such-host.invalid", RPort: 9})
	wantCode(t, err, "invalid")

	// A link holds a's port: a NIO for another link (or none) is refused,
	// one made for that link is taken.
	l, err := svc.CreateLink(ctx, p.ID, app.LinkUpdate{Nodes: app.Some([]app.LinkEnd{{NodeID: a.ID}, {NodeID: b.ID}})})
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.AddNIO(ctx, ref(a), 0, 0, spec(lport, ""))
	wantCode(t, err, "conflict")
	if _, err := svc.AddNIO(ctx, ref(a), 0, 0, spec(lport, l.ID)); err != nil {
		t.Fatalf("AddNIO for the port's own link: %v", err)
	}
	// Re-adding it (heal) is idempotent; its lport is its own.
	if _, err := svc.AddNIO(ctx, ref(a), 0, 0, spec(lport, l.ID)); err != nil {
		t.Fatalf("AddNIO again: %v", err)
	}
	// Its link deleted, the NIO keeps the port: a new link (a new id) is
	// refused until the NIO goes.
	if err := svc.DeleteLink(ctx, p.ID, l.ID); err != nil {
		t.Fatal(err)
	}
	_, err = svc.CreateLink(ctx, p.ID, app.LinkUpdate{Nodes: app.Some([]app.LinkEnd{{NodeID: a.ID}, {NodeID: b.ID}})})
	wantCode(t, err, "conflict")
	if err := svc.DeleteNIO(ctx, ref(a), 0, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateLink(ctx, p.ID, app.LinkUpdate{Nodes: app.Some([]app.LinkEnd{{NodeID: a.ID}, {NodeID: b.ID}})}); err != nil {
		t.Fatalf("link on a port whose NIO is gone: %v", err)
	}
	if nios, _ := svc.FindNIOs(ctx, p.ID); len(nios) != 0 {
		t.Fatalf("NIOs left: %v", nios)
	}
	// No history entry came from the NIOs or reservations: two nodes
	// created, a link created, deleted and created again.
	h, err := svc.FindHistory(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Undo) != 5 {
		for _, e := range h.Undo {
			t.Log(e.Description)
		}
		t.Fatalf("%d history entries, want 5", len(h.Undo))
	}
}

// A port that carries a NIO cannot be removed from its node.
func TestService_NIOPortStays(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	p := mustCreateProject(t, svc, "p")
	hub := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.EthernetHub})
	lport, err := svc.ReserveUDPPort(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AddNIO(ctx, ref(hub), 0, 7, app.NIOSpec{Type: app.NIOTypeUDP, LPort: lport, RHost: "127.0.0.1", RPort: 9}); err != nil {
		t.Fatal(err)
	}
	_, err = svc.UpdateNode(ctx, ref(hub), app.NodeUpdate{Properties: &app.HubUpdate{PortsMapping: app.Some([]app.HubPort{{Name: "Ethernet0", PortNumber: 0}})}})
	wantCode(t, err, "conflict")
	if !strings.Contains(err.Error(), "NIO") {
		t.Fatalf("refused for another reason: %v", err)
	}
}
