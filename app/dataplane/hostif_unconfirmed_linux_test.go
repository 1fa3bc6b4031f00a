package dataplane

import (
	"io"
	"log/slog"
	"testing"

	"nodedesk/app"
	"nodedesk/app/kit"
)

// A cloud's ethernet port that came from a project file (Unconfirmed)
// opens nothing while linked, not even a packet socket on the interface;
// the update that confirms it opens it, as a port chosen here is at once.
func TestHostPort_UnconfirmedOpensNothing(t *testing.T) {
	kit.MustBeNetAdmin(t)
	a, _ := vethPair(t)
	tn := newTunnel(t)
	ports := []app.CloudPort{
		{Name: a, PortNumber: 0, Type: "ethernet", Interface: a, Unconfirmed: true},
		tn.port("udp1", 1),
	}
	cloud := &app.Node{ID: "c", Type: app.Cloud, Properties: app.Properties{CloudPorts: ports}}
	f := NewFabric("127.0.0.1", slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(f.Close)
	f.Load([]*app.Node{cloud}, []*app.Link{{ID: "l", Nodes: []app.LinkEnd{{NodeID: "c", PortNumber: 0}, {NodeID: "c", PortNumber: 1}}}})
	if n := kit.PacketSockets(t, a); n != 0 || len(f.topo.Load().host) != 0 {
		t.Fatalf("an unconfirmed linked port opened %s: %d packet sockets", a, n)
	}

	confirmed := *cloud
	confirmed.Properties.CloudPorts = []app.CloudPort{ports[0], ports[1]}
	confirmed.Properties.CloudPorts[0].Unconfirmed = false
	f.Apply(app.Event{Action: app.EventNodeUpdated, Payload: &confirmed})
	if n := kit.PacketSockets(t, a); n != 1 || len(f.topo.Load().host) != 1 {
		t.Fatalf("the confirmed port: %d packet sockets on %s, want 1", n, a)
	}
}
