package dataplane

import (
	"io"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"testing"

	"nodedesk/app"
)

// udpCloud is a cloud whose n ports are UDP tunnels bound to lports on
// 127.0.0.1, each talking to rport.
func udpCloud(lports []int, rport int) *app.Node {
	n := &app.Node{ID: "c", Type: app.Cloud}
	for i, lp := range lports {
		n.Properties.CloudPorts = append(n.Properties.CloudPorts, app.CloudPort{
			Name: "udp" + strconv.Itoa(i), PortNumber: i, Type: "udp", LPort: lp, RHost: "127.0.0.1", RPort: rport})
	}
	return n
}

// The UDP endpoints are read by a few poller threads (decision 0050):
// however many endpoints a lab has, no more than maxPollers threads, each
// with its share; closing the endpoints ends the pollers and their
// threads and releases the ports at once.
func TestFabric_ClosedEndpointsEndTheirPollers(t *testing.T) {
	for _, k := range pollerKinds {
		t.Run(k.name, func(t *testing.T) {
			needKind(t, k.noRing)
			closedEndpointsEndTheirPollers(t, k.noRing)
		})
	}
}

func closedEndpointsEndTheirPollers(t *testing.T, noRing bool) {
	const ports = 16
	peer := listenLoopback(t)
	lports := make([]int, ports)
	for i := range lports {
		lports[i] = freeUDPPort(t)
	}
	for round := range 2 { // the ports are free again after a close
		fab := NewFabric("127.0.0.1", slog.New(slog.NewTextHandler(io.Discard, nil)))
		fab.noRing = noRing
		fab.Load([]*app.Node{udpCloud(lports, peer.LocalAddr().(*net.UDPAddr).Port)}, nil)
		if got := len(fab.topo.Load().udp); got != ports {
			t.Fatalf("round %d: %d UDP endpoints open, want %d (the ports of the last round were not released)", round, got, ports)
		}
		fab.mu.Lock()
		pollers := slices.Clone(fab.readers.pollers)
		sum := 0
		for _, p := range pollers {
			sum += p.n
		}
		fab.mu.Unlock()
		if want := min(ports, maxPollers()); len(pollers) != want || sum != ports {
			t.Fatalf("round %d: %d pollers reading %d endpoints, want %d reading %d", round, len(pollers), sum, want, ports)
		}
		fab.Close() // returns once every poller's goroutine has returned (and, locked, ended its thread)
		for i, p := range pollers {
			select {
			case <-p.gone:
			default:
				t.Fatalf("round %d: poller %d still runs after Close", round, i)
			}
		}
		if len(fab.readers.pollers) != 0 || len(fab.topo.Load().udp) != 0 {
			t.Fatalf("round %d: %d pollers and %d endpoints left after Close", round, len(fab.readers.pollers), len(fab.topo.Load().udp))
		}
	}
}
