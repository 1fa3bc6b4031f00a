package dataplane

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"golang.org/x/sys/unix"

	"nodedesk/app"
	"nodedesk/app/kit"
)

// A running veth node (Docker) has the host end of one veth pair per
// port, which the fabric reads and writes as a cloud's ethernet port. The
// test plays the container with a network namespace of its own, the veth
// pairs named as the runner names them, and the rest of the lab with
// sockets on 127.0.0.1 behind a cloud's UDP tunnels; the netns kernel
// answers the ARP requests the test sends through the lab.

// vethPort makes the veth pair of port i of veth node id as its runner
// does: the host end app.VethName(id, i), up, without IPv6 (the host
// sends nothing on it); the other end in ns with addr, up. The pair is
// deleted when the test ends.
func vethPort(t *testing.T, ns, id string, i int, addr string) string {
	t.Helper()
	return kit.VethNamed(t, ns, app.VethName(id, i), addr)
}

// tunnel is the test's end of a cloud's UDP tunnel: a socket on
// 127.0.0.1 that the cloud port bound to lport talks to.
type tunnel struct {
	c     *net.UDPConn
	lport int
}

func newTunnel(t *testing.T) tunnel { return tunnel{listenLoopback(t), freeUDPPort(t)} }

// port is the cloud port of the tunnel, named name.
func (tn tunnel) port(name string, number int) app.CloudPort {
	return app.CloudPort{Name: name, PortNumber: number, Type: "udp", LPort: tn.lport, RHost: "127.0.0.1", RPort: tn.c.LocalAddr().(*net.UDPAddr).Port}
}

// tellARP sends into the lab an ARP request for ip from spa (and MAC
// kit.MACA).
func (tn tunnel) tellARP(t *testing.T, ip, spa net.IP) []byte {
	t.Helper()
	req := kit.ARP(1, kit.Broadcast, kit.MACA, spa, nil, ip)
	if _, err := tn.c.WriteToUDP(req, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: tn.lport}); err != nil {
		t.Fatal(err)
	}
	return req
}

// ask sends ARP requests for ip from spa, a few times, until ip's answer
// to spa comes back; it returns the frames that came before and the
// answer, or nil if none came.
func (tn tunnel) ask(t *testing.T, ip, spa net.IP) (before [][]byte, answer []byte) {
	t.Helper()
	for range 10 {
		tn.tellARP(t, ip, spa)
		seen, a := tn.await(500*time.Millisecond, func(f []byte) bool { return arpAnswer(f, ip, spa) })
		if before = append(before, seen...); a != nil {
			return before, a
		}
	}
	return before, nil
}

// await reads what the tunnel brings until a frame match accepts, or
// limit passes; it returns the frames before it, and it (nil if none).
func (tn tunnel) await(limit time.Duration, match func([]byte) bool) (before [][]byte, got []byte) {
	buf := make([]byte, 2048)
	_ = tn.c.SetReadDeadline(time.Now().Add(limit))
	for {
		n, err := tn.c.Read(buf)
		if err != nil {
			return before, nil
		}
		frame := bytes.Clone(buf[:n])
		if match(frame) {
			return before, frame
		}
		before = append(before, frame)
	}
}

// arpFrom makes the kernel in ns ask (ARP) for ip, by sending it a
// datagram.
func arpFrom(t *testing.T, ns string, ip net.IP) {
	t.Helper()
	kit.Sh(t, "ip", "netns", "exec", ns, "bash", "-c", "echo > /dev/udp/"+ip.String()+"/9")
}

// asks is a match of ARP requests for ip.
func asks(ip net.IP) func([]byte) bool {
	return func(f []byte) bool { _, _, ok := kit.ARPRequestFor(f, ip); return ok }
}

// arpAnswer reports whether frame is an ARP reply from ip to tpa.
func arpAnswer(frame []byte, ip, tpa net.IP) bool {
	return len(frame) >= 42 && binary.BigEndian.Uint16(frame[12:]) == kit.EtherARP && binary.BigEndian.Uint16(frame[20:]) == 2 &&
		net.IP(frame[28:32]).Equal(ip) && net.IP(frame[38:42]).Equal(tpa)
}

// A Docker node's two ports: eth0 linked straight to a tunnel, eth1
// through a switch to another. Frames cross both ways; a capture of eth0's
// link records them; suspending it stops them; unlinking a port, stopping
// and deleting the node close the packet sockets on its interfaces, and
// starting it again opens them.
func TestHostPort_VethNode(t *testing.T) {
	kit.MustBeNetAdmin(t)
	ns := kit.Netns(t)
	id := uuid.NewString()
	eth0 := vethPort(t, ns, id, 0, "10.77.0.2/24")
	eth1 := vethPort(t, ns, id, 1, "10.77.1.2/24")
	tn0, tn1 := newTunnel(t), newTunnel(t)
	cloud := &app.Node{ID: "cloud", Type: app.Cloud, Properties: app.Properties{CloudPorts: []app.CloudPort{tn0.port("udp0", 0), tn1.port("udp1", 1)}}}
	sw := ethSwitchNode(swAccess(1), swAccess(1))
	sw.ID = "sw"
	docker := &app.Node{ID: id, ProjectID: "p", Type: app.Docker, Status: app.Started,
		Properties: app.Properties{Extra: map[string]json.RawMessage{"adapters": json.RawMessage("2")}}}
	link := func(id string, a string, aa, ap int, b string, ba, bp int) *app.Link {
		return &app.Link{ID: id, ProjectID: "p", Nodes: []app.LinkEnd{{NodeID: a, AdapterNumber: aa, PortNumber: ap}, {NodeID: b, AdapterNumber: ba, PortNumber: bp}}}
	}
	l0 := link("l0", "cloud", 0, 0, id, 0, 0)
	l1, l2 := link("l1", "cloud", 0, 1, "sw", 0, 0), link("l2", id, 1, 0, "sw", 0, 1)

	f := NewFabric("127.0.0.1", slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(f.Close)
	f.Load([]*app.Node{cloud, sw, docker}, []*app.Link{l0, l1, l2})
	if got := len(f.topo.Load().udp); got != 2 {
		t.Fatalf("%d UDP endpoints, want the cloud's 2 (a Docker node has none)", got)
	}
	if kit.PacketSockets(t, eth0) != 1 || kit.PacketSockets(t, eth1) != 1 {
		t.Fatal("the linked ports of the running node have no packet socket on their veths")
	}

	ip0, ip1 := net.IPv4(10, 77, 0, 2), net.IPv4(10, 77, 1, 2)
	if _, a := tn0.ask(t, ip0, net.IPv4(10, 77, 0, 11)); a == nil {
		t.Fatal("eth0 (linked to a tunnel) did not answer ARP through the lab")
	}
	if _, a := tn1.ask(t, ip1, net.IPv4(10, 77, 1, 11)); a == nil {
		t.Fatal("eth1 (linked to a switch) did not answer ARP through the lab")
	}

	// A capture of l0 holds both frames of an exchange.
	pcap := filepath.Join(t.TempDir(), "l0.pcap")
	capturing := *l0
	capturing.Capturing, capturing.CaptureFilePath, capturing.CaptureDataLinkType = true, &pcap, "DLT_EN10MB"
	f.Apply(app.Event{Action: app.EventLinkUpdated, Payload: &capturing})
	spa := net.IPv4(10, 77, 0, 12)
	_, answer := tn0.ask(t, ip0, spa)
	if answer == nil {
		t.Fatal("no answer while capturing")
	}
	f.Apply(app.Event{Action: app.EventLinkUpdated, Payload: l0})
	file, err := os.Open(pcap)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	_, frames := readCapture(t, file)
	req := kit.ARP(1, kit.Broadcast, kit.MACA, spa, nil, ip0)
	var gotReq, gotAnswer bool
	for _, fr := range frames {
		gotReq = gotReq || bytes.Equal(fr, req)
		gotAnswer = gotAnswer || bytes.Equal(fr, answer)
	}
	if !gotReq || !gotAnswer {
		t.Fatalf("the capture of the container's link holds %d frames; the request: %v, its answer: %v", len(frames), gotReq, gotAnswer)
	}

	// Suspended, l0 carries nothing either way; resumed, it does again.
	suspended := *l0
	suspended.Suspend = true
	f.Apply(app.Event{Action: app.EventLinkUpdated, Payload: &suspended})
	lost := net.IPv4(10, 77, 0, 13)
	tn0.tellARP(t, ip0, lost)
	arpFrom(t, ns, net.IPv4(10, 77, 0, 98))
	seen, _ := tn0.await(time.Second, func([]byte) bool { return false })
	for _, fr := range seen {
		if arpAnswer(fr, ip0, lost) || asks(net.IPv4(10, 77, 0, 98))(fr) {
			t.Fatalf("a frame crossed the suspended link:\n% x", fr)
		}
	}
	f.Apply(app.Event{Action: app.EventLinkUpdated, Payload: l0})
	arpFrom(t, ns, net.IPv4(10, 77, 0, 99))
	if _, got := tn0.await(5*time.Second, asks(net.IPv4(10, 77, 0, 99))); got == nil {
		t.Fatal("the container's ARP request did not reach the lab after the link was resumed")
	}
	if _, a := tn0.ask(t, ip0, net.IPv4(10, 77, 0, 14)); a == nil {
		t.Fatal("no answer after the link was resumed")
	}

	// Unlinked, eth1's socket closes; eth0's stays.
	f.Apply(app.Event{Action: app.EventLinkDeleted, Payload: l2})
	if kit.PacketSockets(t, eth1) != 0 || kit.PacketSockets(t, eth0) != 1 {
		t.Fatalf("after eth1's link was deleted: %d sockets on eth1 (want 0), %d on eth0 (want 1)", kit.PacketSockets(t, eth1), kit.PacketSockets(t, eth0))
	}

	// Stopped, the node has no host port; started again, it has.
	stopped := *docker
	stopped.Status = app.Stopped
	f.Apply(app.Event{Action: app.EventNodeUpdated, Payload: &stopped})
	if len(f.topo.Load().host) != 0 || kit.PacketSockets(t, eth0) != 0 {
		t.Fatal("the stopped node's veth is still open")
	}
	f.Apply(app.Event{Action: app.EventNodeUpdated, Payload: docker})
	if kit.PacketSockets(t, eth0) != 1 || kit.PacketSockets(t, eth1) != 0 {
		t.Fatal("starting the node again did not open its linked port (only)")
	}
	if _, a := tn0.ask(t, ip0, net.IPv4(10, 77, 0, 15)); a == nil {
		t.Fatal("no answer after the node was started again")
	}

	// Deleted, it has none either.
	f.Apply(app.Event{Action: app.EventNodeDeleted, Payload: docker})
	if len(f.topo.Load().host) != 0 || kit.PacketSockets(t, eth0) != 0 {
		t.Fatal("the deleted node's veth is still open")
	}
}

// warnings counts the records logged at Warn or above; it is a
// slog.Handler.
type warnings struct{ atomic.Int32 }

func (c *warnings) Enabled(context.Context, slog.Level) bool { return true }
func (c *warnings) WithAttrs([]slog.Attr) slog.Handler       { return c }
func (c *warnings) WithGroup(string) slog.Handler            { return c }
func (c *warnings) Handle(_ context.Context, r slog.Record) error {
	if r.Level >= slog.LevelWarn {
		c.Add(1)
	}
	return nil
}

// A veth that does not exist yet when its node is running and linked is
// opened once it appears; one that goes and comes back new (a container
// restarted in place) is opened again. Each outage is logged once at
// most.
func TestHostPort_VethAppearsLate(t *testing.T) {
	kit.MustBeNetAdmin(t)
	ns := kit.Netns(t)
	id := uuid.NewString()
	tn := newTunnel(t)
	cloud := &app.Node{ID: "cloud", Type: app.Cloud, Properties: app.Properties{CloudPorts: []app.CloudPort{tn.port("udp0", 0)}}}
	docker := &app.Node{ID: id, Type: app.Docker, Status: app.Started}
	warned := &warnings{}
	f := NewFabric("127.0.0.1", slog.New(warned))
	t.Cleanup(f.Close)
	f.Load([]*app.Node{cloud, docker}, []*app.Link{{ID: "l", Nodes: []app.LinkEnd{{NodeID: "cloud"}, {NodeID: id}}}})
	if len(f.topo.Load().host) != 1 {
		t.Fatal("the linked port of the running node is not a host port of the fabric")
	}

	ip := net.IPv4(10, 78, 0, 2)
	host := vethPort(t, ns, id, 0, "10.78.0.2/24")
	if _, a := tn.ask(t, ip, net.IPv4(10, 78, 0, 11)); a == nil {
		t.Fatal("the veth was not opened once it appeared")
	}
	first := kit.PacketSockets(t, host)

	kit.Sh(t, "ip", "link", "del", host)
	vethPort(t, ns, id, 0, "10.78.0.2/24")
	if _, a := tn.ask(t, ip, net.IPv4(10, 78, 0, 12)); a == nil {
		t.Fatal("the veth was not opened again after it was made anew")
	}
	if first != 1 || kit.PacketSockets(t, host) != 1 {
		t.Fatalf("%d then %d packet sockets on the veth, want 1", first, kit.PacketSockets(t, host))
	}
	if n := warned.Load(); n > 2 {
		t.Fatalf("the two outages were logged %d times", n)
	}
}

// Reading a frame from a host port and carrying it allocates nothing.
func TestHostPort_ReadZeroAllocs(t *testing.T) {
	kit.MustBeNetAdmin(t)
	a, b := vethPair(t)
	file, err := openHost(hostIf{kind: "ethernet", iface: a, name: a})
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	rc, err := file.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	rd := newHostReader(true)
	rd.use(rc)
	fd := packetSocket(t, b, 0)
	hf := newHotFabric(t, "relay") // the frame goes on from n1's port to n2's
	frame := relayFrame(1500, 1, 2, 1, 1)
	// AllocsPerRun counts the whole process's allocations, and on a busy
	// machine a goroutine an earlier test left winding down can allocate
	// during a run; an allocation of the read path itself shows in every
	// run, so the fewest of three is what a frame costs.
	allocs := math.Inf(1)
	for range 3 {
		allocs = min(allocs, testing.AllocsPerRun(100, func() {
			if _, err := unix.Write(fd, frame); err != nil {
				t.Fatal(err)
			}
			got, err := rd.read()
			if err != nil || !bytes.Equal(got, frame) {
				t.Fatalf("read % x, %v", got, err)
			}
			hf.carry(end{"n1", 0, 0}, got)
		}))
	}
	if allocs != 0 {
		t.Errorf("%v allocations per frame, in the best of three runs", allocs)
	}
}

// On a compute a GNS3 controller drives, a port is linked by a NIO: a
// Docker node's veth is open while a NIO holds its port.
func TestHostPort_VethNodeNIO(t *testing.T) {
	kit.MustBeNetAdmin(t)
	ns := kit.Netns(t)
	id := uuid.NewString()
	host := vethPort(t, ns, id, 0, "10.79.0.2/24")
	tn := newTunnel(t)
	f := NewFabric("127.0.0.1", slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(f.Close)
	f.Load([]*app.Node{{ID: id, ProjectID: "p", Type: app.Docker, Status: app.Started}}, nil)
	if kit.PacketSockets(t, host) != 0 {
		t.Fatal("an unlinked port of the node is open")
	}
	nio := &app.NIO{ProjectID: "p", NodeID: id, Type: app.NIOTypeUDP, LPort: tn.lport, RHost: "127.0.0.1",
		RPort: tn.c.LocalAddr().(*net.UDPAddr).Port, Filters: map[string]json.RawMessage{}}
	f.Apply(app.Event{Action: app.EventNIOCreated, Payload: nio})
	if _, a := tn.ask(t, net.IPv4(10, 79, 0, 2), net.IPv4(10, 79, 0, 11)); a == nil {
		t.Fatal("no answer through the NIO on the Docker node's port")
	}
	f.Apply(app.Event{Action: app.EventNIODeleted, Payload: nio})
	if kit.PacketSockets(t, host) != 0 {
		t.Fatal("the veth is still open after its NIO was deleted")
	}
}
