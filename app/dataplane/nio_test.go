package dataplane

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"nodedesk/app"
)

// A NIO is a UDP tunnel end on a node's port; one nodedesk's controller
// made for a link (LinkID) takes that link's port end and its settings.
// Frames come from the test's own sockets on 127.0.0.1.
func TestFabric_NIOs(t *testing.T) {
	f := NewFabric("127.0.0.1", slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer f.Close()
	hub := &app.Node{ID: "hub", Type: app.EthernetHub, Status: app.Started,
		Properties: app.Properties{HubPorts: []app.HubPort{{Name: "Ethernet0", PortNumber: 0}, {Name: "Ethernet1", PortNumber: 1}}}}
	f.Load([]*app.Node{hub}, nil)
	a, b := listenLoopback(t), listenLoopback(t)
	la, lb := freeUDPPort(t), freeUDPPort(t)
	nioTo := func(c *net.UDPConn, lport, port int, linkID string) *app.NIO {
		return &app.NIO{ProjectID: "p", NodeID: "hub", PortNumber: port, Type: app.NIOTypeUDP, LPort: lport,
			RHost: "127.0.0.1", RPort: c.LocalAddr().(*net.UDPAddr).Port, LinkID: linkID}
	}
	// Port 0: a link to a node of a remote compute, then its NIO.
	link := &app.Link{ID: "l1", ProjectID: "p", Nodes: []app.LinkEnd{{NodeID: "hub"}, {NodeID: "remote"}}}
	f.Apply(app.Event{Action: app.EventLinkCreated, Payload: link})
	na := nioTo(a, la, 0, "l1")
	f.Apply(app.Event{Action: app.EventNIOCreated, Payload: na})
	f.Apply(app.Event{Action: app.EventNIOCreated, Payload: nioTo(b, lb, 1, "")})

	crosses := func() bool {
		frame := relayFrame(64, 1, 2, 7, 7)
		for range 10 {
			if _, err := a.WriteToUDP(frame, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: la}); err != nil {
				t.Fatal(err)
			}
			_ = b.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
			buf := make([]byte, 2048)
			if n, err := b.Read(buf); err == nil && bytes.Equal(buf[:n], frame) {
				return true
			}
		}
		return false
	}
	if !crosses() {
		t.Fatal("a frame into port 0's NIO did not leave by port 1's")
	}
	// The link's suspend acts on its NIO's wire.
	suspended := *link
	suspended.Suspend = true
	f.Apply(app.Event{Action: app.EventLinkUpdated, Payload: &suspended})
	if crosses() {
		t.Fatal("a frame crossed the NIO of a suspended link")
	}
	// The link gone, the NIO keeps the port with its own settings.
	f.Apply(app.Event{Action: app.EventLinkDeleted, Payload: &suspended})
	if !crosses() {
		t.Fatal("the NIO did not carry frames after its link went")
	}
	// Its own suspend (a GNS3 controller's PUT nio), then its deletion.
	s := *na
	s.Filters = map[string]json.RawMessage{}
	s.Suspend = true
	f.Apply(app.Event{Action: app.EventNIOUpdated, Payload: &s})
	if crosses() {
		t.Fatal("a frame crossed a suspended NIO")
	}
	s.Suspend = false
	f.Apply(app.Event{Action: app.EventNIOUpdated, Payload: &s})
	if !crosses() {
		t.Fatal("no frame after the NIO was resumed")
	}
	f.Apply(app.Event{Action: app.EventNIODeleted, Payload: &s})
	if crosses() {
		t.Fatal("a frame crossed a deleted NIO")
	}
	// Its lport is free again.
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: la})
	if err != nil {
		t.Fatalf("a deleted NIO still holds its lport: %v", err)
	}
	c.Close()
}
