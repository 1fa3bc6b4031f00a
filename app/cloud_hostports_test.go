package app_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"nodedesk/app"
)

// hostPortChecker is an app.HostPorts that refuses the interfaces in
// missing and records what it was asked.
type hostPortChecker struct {
	mu      sync.Mutex
	missing map[string]bool
	asked   []string
}

func (h *hostPortChecker) CheckHostPort(p app.CloudPort) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asked = append(h.asked, p.Interface)
	if h.missing[p.Interface] {
		return app.Errorf(app.ECONFLICT, "Host interface %s does not exist", p.Interface)
	}
	return nil
}

func (h *hostPortChecker) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	a := h.asked
	h.asked = nil
	return a
}

// hostPortsLab is a cloud with a host interface port (0, eth0), a TAP port
// (1, tap0) and a tunnel (2), and a switch.
func hostPortsLab(t *testing.T) (*app.Service, *app.Project, *app.Node, *app.Node) {
	t.Helper()
	svc, _ := newService(t)
	p := mustCreateProject(t, svc, "lab")
	c := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.Cloud, NodeUpdate: setCloudPorts(
		app.CloudPort{Name: "eth0", PortNumber: 0, Type: "ethernet", Interface: "eth0"},
		app.CloudPort{Name: "tap0", PortNumber: 1, Type: "tap", Interface: "tap0"},
		udpTunnel(2, 40001),
	)})
	return svc, p, c, mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.EthernetSwitch})
}

func TestService_CreateLink_CloudHostPorts(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		port      int
		missing   string
		wantCode  string
		wantAsked []string
	}{
		{"OKInterface", 0, "", "", []string{"eth0"}},
		{"OKTAP", 1, "", "", []string{"tap0"}},
		{"ErrConflictInterface", 0, "eth0", app.ECONFLICT, []string{"eth0"}},
		{"ErrConflictTAP", 1, "tap0", app.ECONFLICT, []string{"tap0"}},
		{"TunnelNotChecked", 2, "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, p, c, sw := hostPortsLab(t)
			h := &hostPortChecker{missing: map[string]bool{tt.missing: true}}
			svc.UseHostPorts(h)
			_, err := svc.CreateLink(ctx, p.ID, linkOf(portEnd(c, 0, tt.port), portEnd(sw, 0, 0)))
			wantCode(t, err, tt.wantCode)
			if got := h.take(); !slices.Equal(got, tt.wantAsked) {
				t.Errorf("host ports checked %v; want %v", got, tt.wantAsked)
			}
			wantLinks := 1
			if tt.wantCode != "" {
				wantLinks = 0
			}
			if ls, _ := svc.FindLinks(ctx, p.ID); len(ls) != wantLinks {
				t.Errorf("%d links; want %d", len(ls), wantLinks)
			}
		})
	}

	t.Run("NoDataPlaneNoCheck", func(t *testing.T) {
		svc, p, c, sw := hostPortsLab(t)
		mustLink(t, svc, p.ID, portEnd(c, 0, 0), portEnd(sw, 0, 0))
	})
}

// TestService_UpdateNode_LinkedCloudPorts: a linked cloud port cannot
// become a host port, nor a linked host port change, without deleting its
// link first (the data plane's check runs when a port is linked).
func TestService_UpdateNode_LinkedCloudPorts(t *testing.T) {
	ctx := context.Background()
	eth := func(n int, iface string) app.CloudPort {
		return app.CloudPort{Name: iface, PortNumber: n, Type: "ethernet", Interface: iface}
	}
	tap0 := app.CloudPort{Name: "tap0", PortNumber: 1, Type: "tap", Interface: "tap0"}
	tests := []struct {
		name      string
		linked    int // the cloud port linked to the switch
		give      []app.CloudPort
		wantField string
	}{
		{"ErrConflictTunnelToInterface", 2, []app.CloudPort{eth(0, "eth0"), tap0, eth(2, "eth1")}, "properties.ports_mapping.2.type"},
		{"ErrConflictInterfaceChanged", 0, []app.CloudPort{eth(0, "eth1"), tap0, udpTunnel(2, 40001)}, "properties.ports_mapping.0.type"},
		{"LinkedHostPortKept", 0, []app.CloudPort{eth(0, "eth0"), tap0, udpTunnel(2, 40002)}, ""},
		{"UnlinkedPortToInterface", 0, []app.CloudPort{eth(0, "eth0"), tap0, eth(2, "eth1")}, ""},
		{"LinkedTunnelChanged", 2, []app.CloudPort{eth(0, "eth0"), tap0, udpTunnel(2, 40003)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, p, c, sw := hostPortsLab(t)
			mustLink(t, svc, p.ID, portEnd(c, 0, tt.linked), portEnd(sw, 0, 0))
			_, err := svc.UpdateNode(ctx, ref(c), setCloudPorts(tt.give...))
			if tt.wantField == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantCode(t, err, app.ECONFLICT)
			if f := app.ErrorField(err); f != tt.wantField {
				t.Errorf("error field %q; want %q", f, tt.wantField)
			}
			if got := mustFindNode(t, svc, c); !slices.Equal(got.Properties.CloudPorts, c.Properties.CloudPorts) {
				t.Errorf("a refused change was stored: %+v", got.Properties.CloudPorts)
			}
		})
	}
}

func TestIsHostPort(t *testing.T) {
	for typ, want := range map[string]bool{"ethernet": true, "tap": true, "udp": false, "": false} {
		if got := app.IsHostPort(app.CloudPort{Type: typ}); got != want {
			t.Errorf("IsHostPort(type %q) = %v; want %v", typ, got, want)
		}
	}
}

// TestService_ImportedHostPortWaits: a cloud an import makes has its host
// ports unconfirmed (tunnels are not host ports); re-saving the ports
// confirms them, and for a linked one asks the data plane first, so an
// interface this machine cannot open is refused, saying why, and the
// port keeps waiting.
func TestService_ImportedHostPortWaits(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	h := &hostPortChecker{missing: map[string]bool{"eth0": true}}
	svc.UseHostPorts(h)
	cloudID, swID := "0f1e2d3c-0000-4000-8000-0000000000c1", "0f1e2d3c-0000-4000-8000-0000000000c2"
	ports := []app.CloudPort{
		{Name: "eth0", PortNumber: 0, Type: "ethernet", Interface: "eth0"},
		{Name: "tap0", PortNumber: 1, Type: "tap", Interface: "tap0"},
		udpTunnel(2, 40011),
	}
	cloud := app.NodeCreate{Type: app.Cloud, ID: cloudID, NodeUpdate: setCloudPorts(ports...)}
	cloud.Name = app.Some("Uplink")
	p, err := svc.ImportProject(ctx, app.ProjectImport{
		ID: "0f1e2d3c-0000-4000-8000-0000000000a9", Name: "theirs",
		Nodes: []app.NodeCreate{cloud, {Type: app.EthernetSwitch, ID: swID}},
		Links: []app.LinkImport{{ID: "0f1e2d3c-0000-4000-8000-0000000000d1", LinkUpdate: app.LinkUpdate{Nodes: app.Some([]app.LinkEnd{
			{NodeID: cloudID, PortNumber: 0}, {NodeID: swID, PortNumber: 0}})}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := svc.FindNodes(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	var c *app.Node
	for _, n := range nodes {
		if n.Type == app.Cloud {
			c = n
		}
	}
	if got := c.WaitingPorts(); !slices.Equal(got, []string{"eth0", "tap0"}) {
		t.Fatalf("waiting %v; want [eth0 tap0]", got)
	}
	if asked := h.take(); len(asked) != 0 {
		t.Fatalf("the import asked the data plane about %v", asked)
	}
	ref := app.NodeRef{ProjectID: p.ID, NodeID: c.ID}
	_, err = svc.UpdateNode(ctx, ref, setCloudPorts(ports...))
	if app.ErrorCode(err) != app.ECONFLICT {
		t.Fatalf("confirming a linked eth0 this machine lacks: %v; want ECONFLICT", err)
	}
	if got := h.take(); !slices.Equal(got, []string{"eth0"}) {
		t.Errorf("asked %v; want [eth0] (the linked port only)", got)
	}
	if n, _ := svc.FindNode(ctx, ref); !slices.Equal(n.WaitingPorts(), []string{"eth0", "tap0"}) {
		t.Fatalf("after the refusal: waiting %v", n.WaitingPorts())
	}

	h.missing = nil
	n, err := svc.UpdateNode(ctx, ref, setCloudPorts(ports...))
	if err != nil {
		t.Fatal(err)
	}
	if w := n.WaitingPorts(); w != nil {
		t.Fatalf("after the ports were re-saved: waiting %v", w)
	}
}
