package app_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"

	"nodedesk/app"
	"nodedesk/store/storetest"
)

// tunnel is a cloud port of type udp: a UDP tunnel from lport on this
// machine to rhost:rport.
func udpTunnel(number, lport int) app.CloudPort {
	return app.CloudPort{Name: "UDP tunnel " + strconv.Itoa(number), PortNumber: number, Type: "udp", LPort: lport, RHost: "192.0.2.1", RPort: 30000 + number}
}

func setCloudPorts(ports ...app.CloudPort) app.NodeUpdate {
	return app.NodeUpdate{Properties: &app.CloudUpdate{PortsMapping: app.Some(ports)}}
}

// udpHeld is a PortFree for which the UDP ports in held are taken by
// another program; it may change while a test runs.
type udpHeld struct {
	mu   sync.Mutex
	held map[int]bool
}

func (h *udpHeld) hold(port int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held == nil {
		h.held = map[int]bool{}
	}
	h.held[port] = true
}

func (h *udpHeld) free(network string, port int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return network != "udp" || !h.held[port]
}

func TestService_UpdateNode_CloudTunnels(t *testing.T) {
	ctx := context.Background()
	newSvc := func(t *testing.T) (*app.Service, *udpHeld, *app.Project, *app.Node) {
		h := &udpHeld{}
		svc := app.NewService(app.Config{Store: storetest.Open(t), DataDir: t.TempDir(), HostInterfaces: hostInterfaces,
			PortFree: h.free, Runners: []app.Runner{&fakeRunner{}}})
		p := mustCreateProject(t, svc, "lab")
		return svc, h, p, mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.Cloud})
	}

	t.Run("OK", func(t *testing.T) {
		svc, _, _, c := newSvc(t)
		got, err := svc.UpdateNode(ctx, ref(c), setCloudPorts(udpTunnel(0, 40001), udpTunnel(1, 40002)))
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Properties.CloudPorts) != 2 || got.Properties.CloudPorts[1].LPort != 40002 {
			t.Errorf("cloud ports %+v", got.Properties.CloudPorts)
		}
	})

	t.Run("ErrInvalidSharedLPort", func(t *testing.T) {
		svc, _, _, c := newSvc(t)
		_, err := svc.UpdateNode(ctx, ref(c), setCloudPorts(udpTunnel(0, 40001), udpTunnel(1, 40001)))
		wantCode(t, err, app.EINVALID)
		if f := app.ErrorField(err); f != "properties.ports_mapping.1.lport" {
			t.Errorf("error field %q; want the second tunnel's lport", f)
		}
	})

	t.Run("ErrConflictHeldByAnotherProgram", func(t *testing.T) {
		svc, h, _, c := newSvc(t)
		h.hold(40002)
		_, err := svc.UpdateNode(ctx, ref(c), setCloudPorts(udpTunnel(0, 40001), udpTunnel(1, 40002)))
		wantCode(t, err, app.ECONFLICT)
		if f, msg := app.ErrorField(err), app.ErrorMessage(err); f != "properties.ports_mapping.1.lport" || !strings.Contains(msg, "40002") {
			t.Errorf("error %q (field %q); want it to name port 40002 of the second tunnel", msg, f)
		}
		if got := mustFindNode(t, svc, c); len(got.Properties.CloudPorts) != len(c.Properties.CloudPorts) {
			t.Errorf("a refused change was stored: %+v", got.Properties.CloudPorts)
		}
	})

	t.Run("ErrConflictReserved", func(t *testing.T) {
		svc, _, p, c := newSvc(t)
		port, err := svc.ReserveUDPPort(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		_, err = svc.UpdateNode(ctx, ref(c), setCloudPorts(udpTunnel(0, port)))
		wantCode(t, err, app.ECONFLICT)
	})

	t.Run("ErrConflictLinkPortOfANode", func(t *testing.T) {
		svc, _, p, c := newSvc(t)
		pc := mustCreateVPCS(t, svc, p.ID)
		started, err := svc.NodeAction(ctx, ref(pc), app.Start)
		if err != nil {
			t.Fatal(err)
		}
		// Its pair, then its relay port (decision 0066): each is the node's.
		if len(started.UDPPorts) != 3 {
			t.Fatalf("started VPCS has UDP ports %v; want its pair and its relay port", started.UDPPorts)
		}
		for _, port := range []int{started.UDPPorts[0], started.UDPPorts[2]} {
			_, err = svc.UpdateNode(ctx, ref(c), setCloudPorts(udpTunnel(0, port)))
			wantCode(t, err, app.ECONFLICT)
			if msg := app.ErrorMessage(err); !strings.Contains(msg, pc.Name) {
				t.Errorf("port %d: message %q does not name %s, which holds the port", port, msg, pc.Name)
			}
		}
	})

	t.Run("KeptTunnelNotCheckedAgain", func(t *testing.T) {
		// A tunnel the cloud already has is its own: once bound, the port
		// reads as held, and the cloud can still be changed.
		svc, h, _, c := newSvc(t)
		if _, err := svc.UpdateNode(ctx, ref(c), setCloudPorts(udpTunnel(0, 40001))); err != nil {
			t.Fatal(err)
		}
		h.hold(40001)
		if _, err := svc.UpdateNode(ctx, ref(c), app.NodeUpdate{X: app.Some(30)}); err != nil {
			t.Errorf("moving the cloud: %v", err)
		}
		if _, err := svc.UpdateNode(ctx, ref(c), setCloudPorts(udpTunnel(0, 40001), udpTunnel(1, 40002))); err != nil {
			t.Errorf("adding a tunnel beside a kept one: %v", err)
		}
	})

	t.Run("ErrConflictOnCreate", func(t *testing.T) {
		svc, h, p, _ := newSvc(t)
		h.hold(40005)
		_, err := svc.CreateNode(ctx, p.ID, app.NodeCreate{Type: app.Cloud, NodeUpdate: setCloudPorts(udpTunnel(0, 40005))})
		wantCode(t, err, app.ECONFLICT)
		if ns, _ := svc.FindNodes(ctx, p.ID); len(ns) != 1 {
			t.Errorf("%d nodes after a refused create; want 1", len(ns))
		}
	})
}
