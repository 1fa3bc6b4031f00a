package app_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"

	"nodedesk/app"
)

// end is the link end at a port of n.
func portEnd(n *app.Node, adapter, port int) app.LinkEnd {
	return app.LinkEnd{NodeID: n.ID, AdapterNumber: adapter, PortNumber: port}
}

// linkOf is a request for a link between the given ends.
func linkOf(ends ...app.LinkEnd) app.LinkUpdate { return app.LinkUpdate{Nodes: app.Some(ends)} }

func mustLink(tb testing.TB, svc *app.Service, projectID string, a, b app.LinkEnd) *app.Link {
	tb.Helper()
	l, err := svc.CreateLink(context.Background(), projectID, linkOf(a, b))
	if err != nil {
		tb.Fatalf("CreateLink(%+v, %+v): %v", a, b, err)
	}
	return l
}

// linkLab is a project with two VPCS, a switch, a hub, a Frame Relay
// switch with one circuit, a cloud and a NAT node.
type linkLab struct {
	p                                 *app.Project
	pc1, pc2, sw, hub, frsw, cld, nat *app.Node
}

func mustCreateLinkLab(tb testing.TB, svc *app.Service) linkLab {
	tb.Helper()
	p := mustCreateProject(tb, svc, "lab")
	node := func(typ app.NodeType) *app.Node { return mustCreateNode(tb, svc, p.ID, app.NodeCreate{Type: typ}) }
	l := linkLab{p: p, pc1: node(app.VPCS), pc2: node(app.VPCS), sw: node(app.EthernetSwitch), hub: node(app.EthernetHub)}
	l.frsw = mustCreateNode(tb, svc, p.ID, app.NodeCreate{Type: app.FrameRelaySwitch, NodeUpdate: app.NodeUpdate{
		Properties: &app.FrameRelayUpdate{Mappings: app.Some(map[string]string{"1:101": "2:201"})}}})
	l.cld, l.nat = node(app.Cloud), node(app.NAT)
	return l
}

func TestService_CreateLink(t *testing.T) {
	ctx := context.Background()

	t.Run("OK", func(t *testing.T) {
		svc, b := newService(t)
		l := mustCreateLinkLab(t, svc)
		events, stop := b.Subscribe(16)
		defer stop()
		x, y := 5, 6
		style := "font-size: 10"
		given := &app.LinkLabel{Text: "e3", X: &x, Y: &y, Style: &style}
		swEnd := portEnd(l.sw, 0, 3)
		swEnd.Label = given
		pcEnd := portEnd(l.pc1, 0, 0)
		pcEnd.NodeID = strings.ToUpper(pcEnd.NodeID)
		got, err := svc.CreateLink(ctx, l.p.ID, linkOf(pcEnd, swEnd))
		if err != nil {
			t.Fatal(err)
		}
		if got.LinkType != "ethernet" || got.ProjectID != l.p.ID || len(got.Nodes) != 2 {
			t.Fatalf("link %+v", got)
		}
		if _, err := uuid.Parse(got.ID); err != nil {
			t.Errorf("link id %q is not a UUID", got.ID)
		}
		if got.Nodes[0].NodeID != l.pc1.ID {
			t.Errorf("end node id %q; want the canonical %q", got.Nodes[0].NodeID, l.pc1.ID)
		}
		// A label left out gets the port's numbers and GNS3's style, and
		// no position (the client places it); a label given is kept.
		if lbl := got.Nodes[0].Label; lbl == nil || lbl.Text != "0/0" || lbl.Style == nil || lbl.X != nil || lbl.Y != nil || lbl.Rotation != nil {
			t.Errorf("default label %+v; want text 0/0 with a style and no position", lbl)
		}
		if !reflect.DeepEqual(got.Nodes[1].Label, given) {
			t.Errorf("given label became %+v; want %+v", got.Nodes[1].Label, given)
		}
		if found, err := svc.FindLink(ctx, l.p.ID, got.ID); err != nil || !reflect.DeepEqual(found, got) {
			t.Errorf("stored link %+v, %v; want %+v", found, err, got)
		}
		evs := drain(events)
		if len(evs) == 0 || evs[0].Action != app.EventLinkCreated || evs[0].Payload.(*app.Link).ID != got.ID {
			t.Errorf("events %+v; want link.created first", evs)
		}
	})

	t.Run("OKSerial", func(t *testing.T) {
		svc, _ := newService(t)
		l := mustCreateLinkLab(t, svc)
		fr2 := mustCreateNode(t, svc, l.p.ID, app.NodeCreate{Type: app.FrameRelaySwitch, NodeUpdate: app.NodeUpdate{
			Properties: &app.FrameRelayUpdate{Mappings: app.Some(map[string]string{"1:102": "3:301"})}}})
		if got := mustLink(t, svc, l.p.ID, portEnd(l.frsw, 0, 2), portEnd(fr2, 0, 1)); got.LinkType != "serial" {
			t.Errorf("link type %q; want serial", got.LinkType)
		}
	})

	t.Run("OKNATToNode", func(t *testing.T) {
		svc, _ := newService(t)
		l := mustCreateLinkLab(t, svc)
		mustLink(t, svc, l.p.ID, portEnd(l.nat, 0, 0), portEnd(l.pc1, 0, 0))
	})

	tests := []struct {
		name     string
		give     func(l linkLab) app.LinkUpdate
		wantCode string
		wantMsg  string
	}{
		{"ErrConflictPortUsed", func(l linkLab) app.LinkUpdate { return linkOf(portEnd(l.pc1, 0, 0), portEnd(l.sw, 0, 5)) }, app.ECONFLICT, "already used"},
		{"ErrInvalidNoSuchPort", func(l linkLab) app.LinkUpdate { return linkOf(portEnd(l.hub, 0, 0), portEnd(l.sw, 0, 99)) }, app.EINVALID, "no port"},
		{"ErrInvalidVPCSOneAdapter", func(l linkLab) app.LinkUpdate { return linkOf(portEnd(l.hub, 0, 0), portEnd(l.pc2, 1, 0)) }, app.EINVALID, "no port"},
		{"ErrConflictItself", func(l linkLab) app.LinkUpdate { return linkOf(portEnd(l.sw, 0, 6), portEnd(l.sw, 0, 7)) }, app.ECONFLICT, "itself"},
		{"ErrConflictSerialToEthernet", func(l linkLab) app.LinkUpdate { return linkOf(portEnd(l.frsw, 0, 1), portEnd(l.hub, 0, 1)) }, app.ECONFLICT, "serial"},
		{"ErrConflictCloudToNAT", func(l linkLab) app.LinkUpdate { return linkOf(portEnd(l.nat, 0, 0), portEnd(l.cld, 0, 0)) }, app.ECONFLICT, "cloud"},
		{"ErrInvalidOneEnd", func(l linkLab) app.LinkUpdate { return linkOf(portEnd(l.hub, 0, 0)) }, app.EINVALID, "nodes"},
		{"ErrInvalidThreeEnds", func(l linkLab) app.LinkUpdate {
			return linkOf(portEnd(l.hub, 0, 0), portEnd(l.hub, 0, 1), portEnd(l.sw, 0, 6))
		}, app.EINVALID, "nodes"},
		{"ErrInvalidNoNodes", func(linkLab) app.LinkUpdate { return app.LinkUpdate{} }, app.EINVALID, "nodes"},
		{"ErrNotFoundNode", func(l linkLab) app.LinkUpdate {
			return linkOf(portEnd(l.hub, 0, 0), app.LinkEnd{NodeID: uuid.NewString()})
		}, app.ENOTFOUND, "doesn't exist"},
		{"ErrInvalidFilters", func(l linkLab) app.LinkUpdate {
			u := linkOf(portEnd(l.hub, 0, 0), portEnd(l.sw, 0, 6))
			u.Filters = app.Some(map[string]json.RawMessage{"bogus": json.RawMessage("[1]")})
			return u
		}, app.EINVALID, "bogus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := newService(t)
			l := mustCreateLinkLab(t, svc)
			mustLink(t, svc, l.p.ID, portEnd(l.pc1, 0, 0), portEnd(l.sw, 0, 3))
			_, err := svc.CreateLink(ctx, l.p.ID, tt.give(l))
			wantCode(t, err, tt.wantCode)
			if msg := app.ErrorMessage(err); !strings.Contains(msg, tt.wantMsg) {
				t.Errorf("message %q lacks %q", msg, tt.wantMsg)
			}
			if ls, _ := svc.FindLinks(ctx, l.p.ID); len(ls) != 1 {
				t.Errorf("%d links after a refused create; want 1", len(ls))
			}
		})
	}

	t.Run("ErrNotFoundProject", func(t *testing.T) {
		svc, _ := newService(t)
		l := mustCreateLinkLab(t, svc)
		_, err := svc.CreateLink(ctx, uuid.NewString(), linkOf(portEnd(l.pc1, 0, 0), portEnd(l.sw, 0, 0)))
		wantCode(t, err, app.ENOTFOUND)
	})

	t.Run("ErrNotFoundNodeOfAnotherProject", func(t *testing.T) {
		svc, _ := newService(t)
		l := mustCreateLinkLab(t, svc)
		stranger := mustCreateVPCS(t, svc, mustCreateProject(t, svc, "other").ID)
		_, err := svc.CreateLink(ctx, l.p.ID, linkOf(portEnd(l.pc1, 0, 0), portEnd(stranger, 0, 0)))
		wantCode(t, err, app.ENOTFOUND)
	})
}

func TestService_UpdateLink(t *testing.T) {
	ctx := context.Background()
	setup := func(t *testing.T) (*app.Service, *app.Broker, linkLab, *app.Link) {
		svc, b := newService(t)
		l := mustCreateLinkLab(t, svc)
		return svc, b, l, mustLink(t, svc, l.p.ID, portEnd(l.pc1, 0, 0), portEnd(l.sw, 0, 3))
	}

	t.Run("OKRelabelAndSuspend", func(t *testing.T) {
		svc, _, l, lk := setup(t)
		x, y, rot := 1, 2, 90
		e := portEnd(l.pc1, 0, 0)
		e.Label = &app.LinkLabel{Text: "uplink", X: &x, Y: &y, Rotation: &rot}
		got, err := svc.UpdateLink(ctx, l.p.ID, lk.ID, app.LinkUpdate{Nodes: app.Some([]app.LinkEnd{e}), Suspend: app.Some(true)})
		if err != nil {
			t.Fatal(err)
		}
		if !got.Suspend || got.Nodes[0].Label.Text != "uplink" || *got.Nodes[0].Label.Rotation != 90 {
			t.Errorf("updated link %+v", got)
		}
		if !reflect.DeepEqual(got.Nodes[1], lk.Nodes[1]) {
			t.Errorf("the other end changed: %+v; want %+v", got.Nodes[1], lk.Nodes[1])
		}
		if found, _ := svc.FindLink(ctx, l.p.ID, lk.ID); !reflect.DeepEqual(found, got) {
			t.Errorf("stored %+v; want %+v", found, got)
		}
	})

	t.Run("OKFiltersNormalised", func(t *testing.T) {
		svc, _, l, lk := setup(t)
		got, err := svc.UpdateLink(ctx, l.p.ID, lk.ID, app.LinkUpdate{Filters: app.Some(map[string]json.RawMessage{"packet_loss": json.RawMessage("[99.9]")})})
		if err != nil {
			t.Fatal(err)
		}
		if string(got.Filters["packet_loss"]) != "[99]" {
			t.Errorf("filters %s; want packet_loss [99], as GNS3 stores it", got.Filters)
		}
		// An empty set of filters is none.
		if got, err = svc.UpdateLink(ctx, l.p.ID, lk.ID, app.LinkUpdate{Filters: app.Some(map[string]json.RawMessage{})}); err != nil || got.Filters != nil {
			t.Errorf("filters after clearing = %v, %v; want none", got.Filters, err)
		}
	})

	t.Run("NoChangeNoEvent", func(t *testing.T) {
		svc, b, l, lk := setup(t)
		events, stop := b.Subscribe(16)
		defer stop()
		if _, err := svc.UpdateLink(ctx, l.p.ID, lk.ID, app.LinkUpdate{Suspend: app.Some(false), Nodes: app.Some(lk.Nodes)}); err != nil {
			t.Fatal(err)
		}
		if evs := drain(events); len(evs) != 0 {
			t.Errorf("an update that changes nothing published %+v", evs)
		}
	})

	t.Run("ErrInvalidOtherPort", func(t *testing.T) {
		svc, _, l, lk := setup(t)
		_, err := svc.UpdateLink(ctx, l.p.ID, lk.ID, linkOf(portEnd(l.hub, 0, 0)))
		wantCode(t, err, app.EINVALID)
		if found, _ := svc.FindLink(ctx, l.p.ID, lk.ID); !reflect.DeepEqual(found, lk) {
			t.Errorf("a refused update changed the link: %+v", found)
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		svc, _, l, _ := setup(t)
		for _, id := range []string{uuid.NewString(), "None"} {
			_, err := svc.UpdateLink(ctx, l.p.ID, id, app.LinkUpdate{Suspend: app.Some(true)})
			wantCode(t, err, app.ENOTFOUND)
		}
	})
}

func TestService_DeleteLink(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	l := mustCreateLinkLab(t, svc)
	lk := mustLink(t, svc, l.p.ID, portEnd(l.pc1, 0, 0), portEnd(l.sw, 0, 3))
	if err := svc.DeleteLink(ctx, l.p.ID, lk.ID); err != nil {
		t.Fatal(err)
	}
	_, err := svc.FindLink(ctx, l.p.ID, lk.ID)
	wantCode(t, err, app.ENOTFOUND)
	wantCode(t, svc.DeleteLink(ctx, l.p.ID, lk.ID), app.ENOTFOUND)
	// Its ports are free again.
	mustLink(t, svc, l.p.ID, portEnd(l.pc1, 0, 0), portEnd(l.sw, 0, 3))
}

func TestService_FindLinks(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	l := mustCreateLinkLab(t, svc)
	a := mustLink(t, svc, l.p.ID, portEnd(l.pc1, 0, 0), portEnd(l.sw, 0, 3))
	b := mustLink(t, svc, l.p.ID, portEnd(l.pc2, 0, 0), portEnd(l.sw, 0, 4))
	c := mustLink(t, svc, l.p.ID, portEnd(l.hub, 0, 0), portEnd(l.sw, 0, 5))
	ls, err := svc.FindLinks(ctx, l.p.ID)
	if err != nil || len(ls) != 3 || ls[0].ID != a.ID || ls[1].ID != b.ID || ls[2].ID != c.ID {
		t.Fatalf("FindLinks = %v, %v; want a, b, c in creation order", ls, err)
	}
	swLinks, err := svc.FindNodeLinks(ctx, ref(l.sw))
	if err != nil || len(swLinks) != 3 {
		t.Errorf("switch links = %d, %v; want 3", len(swLinks), err)
	}
	if pcLinks, err := svc.FindNodeLinks(ctx, ref(l.pc2)); err != nil || len(pcLinks) != 1 || pcLinks[0].ID != b.ID {
		t.Errorf("PC2 links = %v, %v; want b", pcLinks, err)
	}
	_, err = svc.FindLinks(ctx, uuid.NewString())
	wantCode(t, err, app.ENOTFOUND)
}

// TestService_DeleteNode_Links: a node goes with its links, and the ports
// they held on other nodes are free again.
func TestService_DeleteNode_Links(t *testing.T) {
	ctx := context.Background()
	svc, b := newService(t)
	l := mustCreateLinkLab(t, svc)
	lk := mustLink(t, svc, l.p.ID, portEnd(l.pc1, 0, 0), portEnd(l.sw, 0, 3))
	kept := mustLink(t, svc, l.p.ID, portEnd(l.pc2, 0, 0), portEnd(l.sw, 0, 4))
	events, stop := b.Subscribe(16)
	defer stop()
	if err := svc.DeleteNode(ctx, ref(l.pc1)); err != nil {
		t.Fatal(err)
	}
	_, err := svc.FindLink(ctx, l.p.ID, lk.ID)
	wantCode(t, err, app.ENOTFOUND)
	if _, err := svc.FindLink(ctx, l.p.ID, kept.ID); err != nil {
		t.Errorf("another node's link went too: %v", err)
	}
	evs := drain(events)
	if len(evs) < 2 || evs[0].Action != app.EventLinkDeleted || evs[1].Action != app.EventNodeDeleted {
		t.Errorf("events %+v; want link.deleted, then node.deleted", evs)
	}
	mustLink(t, svc, l.p.ID, portEnd(l.hub, 0, 0), portEnd(l.sw, 0, 3))
}

// TestService_UpdateNode_LinkedPorts: a port with a link attached cannot
// disappear from a switch's ports; the others can.
func TestService_UpdateNode_LinkedPorts(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	l := mustCreateLinkLab(t, svc)
	mustLink(t, svc, l.p.ID, portEnd(l.pc1, 0, 0), portEnd(l.sw, 0, 3))
	ports := func(n int) []app.SwitchPort {
		var ps []app.SwitchPort
		for i := range n {
			ps = append(ps, app.SwitchPort{Name: "p" + string(rune('0'+i)), PortNumber: i, Type: "access", VLAN: 1})
		}
		return ps
	}
	set := func(n int) error {
		_, err := svc.UpdateNode(ctx, ref(l.sw), app.NodeUpdate{Properties: &app.SwitchUpdate{PortsMapping: app.Some(ports(n))}})
		return err
	}
	err := set(3)
	wantCode(t, err, app.ECONFLICT)
	if !strings.Contains(app.ErrorMessage(err), "link") {
		t.Errorf("message %q does not name the link", app.ErrorMessage(err))
	}
	if got := mustFindNode(t, svc, l.sw); len(got.Properties.SwitchPorts) != 8 {
		t.Errorf("switch has %d ports after a refused change; want 8", len(got.Properties.SwitchPorts))
	}
	if err := set(4); err != nil {
		t.Errorf("keeping the linked port: %v", err)
	}
}

// TestLinkLabel_UnmarshalJSON: a label's position is x and y together; a
// half-given one is left out whole (the GNS3 GUI fails on a null).
func TestLinkLabel_UnmarshalJSON(t *testing.T) {
	tests := []struct {
		name     string
		give     string
		wantXY   bool
		wantRot  bool
		wantText string
	}{
		{"Full", `{"text":"e0","x":1,"y":2,"rotation":30}`, true, true, "e0"},
		{"TextOnly", `{"text":"e0"}`, false, false, "e0"},
		{"YNull", `{"text":"e0","x":10,"y":null,"rotation":30}`, false, true, "e0"},
		{"XMissing", `{"text":"e0","y":-5}`, false, false, "e0"},
		{"RotationNull", `{"text":"e0","x":10,"y":-5,"rotation":null}`, true, false, "e0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l app.LinkLabel
			if err := json.Unmarshal([]byte(tt.give), &l); err != nil {
				t.Fatal(err)
			}
			if (l.X != nil) != tt.wantXY || (l.Y != nil) != tt.wantXY || (l.Rotation != nil) != tt.wantRot || l.Text != tt.wantText {
				t.Errorf("label %s = %+v; want position %v, rotation %v", tt.give, l, tt.wantXY, tt.wantRot)
			}
		})
	}
}
