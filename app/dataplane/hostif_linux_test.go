package dataplane

import (
	"bytes"
	"io"
	"log/slog"
	"net"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"nodedesk/app"
	"nodedesk/app/kit"
)

// A cloud's ethernet port on one end of a veth pair the test makes (no
// address, no IPv6: the host sends nothing on it), wired to a UDP tunnel
// whose peer is the test: a VLAN-tagged frame sent into the other end
// reaches the peer with its tag (the kernel strips it; auxdata gives it
// back), a frame from the peer leaves on the veth, and the port reads back
// neither what it sent nor what the host sends on the interface.
func TestHostPort_EthernetVLANAndOwnFrames(t *testing.T) {
	kit.MustBeNetAdmin(t)
	a, b := vethPair(t)

	peer := listenLoopback(t)
	lport := freeUDPPort(t)
	cloud := &app.Node{ID: "c", Type: app.Cloud, Properties: app.Properties{CloudPorts: []app.CloudPort{
		{Name: a, PortNumber: 0, Type: "ethernet", Interface: a},
		{Name: "udp1", PortNumber: 1, Type: "udp", LPort: lport, RHost: "127.0.0.1", RPort: peer.LocalAddr().(*net.UDPAddr).Port},
	}}}
	f := NewFabric("127.0.0.1", slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(f.Close)
	f.Load([]*app.Node{cloud}, nil)
	if len(f.topo.Load().host) != 0 {
		t.Fatal("an unlinked host port was opened")
	}
	f.Apply(app.Event{Action: app.EventLinkCreated, Payload: &app.Link{ID: "l", Nodes: []app.LinkEnd{{NodeID: "c", PortNumber: 0}, {NodeID: "c", PortNumber: 1}}}})
	if len(f.topo.Load().host) != 1 {
		t.Fatal("the linked host port is not open")
	}

	// The test's own packet socket on the other end of the pair.
	fd := packetSocket(t, b, htons(unix.ETH_P_ALL))
	_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Usec: 200000})

	tagged := make([]byte, 64)
	copy(tagged, []byte{0x02, 0, 0x5e, 0, 0, 2, 0x02, 0, 0x5e, 0, 0, 1, 0x81, 0x00, 0x00, 0x64, 0x88, 0xb5})
	copy(tagged[18:], "tagged from the veth")
	if _, err := unix.Write(fd, tagged); err != nil {
		t.Fatal(err)
	}
	if got := readUDP(peer, 2*time.Second, "tagged from the veth"); !bytes.Equal(got, tagged) {
		t.Fatalf("the peer got\n% x\nwant (tag 100 put back)\n% x", got, tagged)
	}

	plain := make([]byte, 60)
	copy(plain, []byte{0x02, 0, 0x5e, 0, 0, 1, 0x02, 0, 0x5e, 0, 0, 2, 0x88, 0xb5})
	copy(plain[14:], "from the lab")
	if _, err := peer.WriteToUDP(plain, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: lport}); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 2048)
	deadline := time.Now().Add(2 * time.Second)
	for {
		n, err := unix.Read(fd, buf)
		if err == nil && bytes.Equal(buf[:n], plain) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a frame from the lab did not leave on the host interface")
		}
	}
	if got := readUDP(peer, 500*time.Millisecond, "from the lab"); got != nil {
		t.Fatal("the host port read back a frame it sent")
	}

	// What the host itself sends on the interface (here, another packet
	// socket's send) stays out of the lab.
	fa := packetSocket(t, a, 0)
	own := bytes.Clone(plain)
	copy(own[14:], "the host's own send")
	if _, err := unix.Write(fa, own); err != nil {
		t.Fatal(err)
	}
	if got := readUDP(peer, 500*time.Millisecond, "the host's own send"); got != nil {
		t.Fatal("a frame the host sent on the interface entered the lab")
	}

	// Unlinked, the port closes.
	f.Apply(app.Event{Action: app.EventLinkDeleted, Payload: &app.Link{ID: "l"}})
	if len(f.topo.Load().host) != 0 {
		t.Fatal("the host port stayed open after its link was deleted")
	}
}

// readUDP returns the first datagram c receives within limit that holds
// marker, or nil.
func readUDP(c *net.UDPConn, limit time.Duration, marker string) []byte {
	buf := make([]byte, 2048)
	_ = c.SetReadDeadline(time.Now().Add(limit))
	defer c.SetReadDeadline(time.Time{})
	for {
		n, _, err := c.ReadFromUDP(buf)
		if err != nil {
			return nil
		}
		if bytes.Contains(buf[:n], []byte(marker)) {
			return append([]byte(nil), buf[:n]...)
		}
	}
}

// vethPair makes a veth pair of the test's own, both ends up with no
// address and no IPv6 (the host sends nothing on them), deleted when the
// test ends.
func vethPair(t *testing.T) (a, b string) {
	t.Helper()
	sfx := kit.RandomSuffix(t)
	a, b = "ndva"+sfx, "ndvb"+sfx
	kit.Sh(t, "ip", "link", "add", a, "type", "veth", "peer", "name", b)
	t.Cleanup(func() { kit.ShQuiet("ip", "link", "del", a) })
	for _, n := range []string{a, b} {
		_ = os.WriteFile("/proc/sys/net/ipv6/conf/"+n+"/disable_ipv6", []byte("1"), 0o644)
		kit.Sh(t, "ip", "link", "set", n, "up")
	}
	return a, b
}

// packetSocket is a packet socket of the test's own bound to interface
// name, receiving protocol proto (0: none, for sending only), closed when
// the test ends.
func packetSocket(t *testing.T, name string, proto uint16) int {
	t.Helper()
	ifi, err := net.InterfaceByName(name)
	if err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, int(proto))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Close(fd) })
	if err := unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ALL), Ifindex: ifi.Index}); err != nil {
		t.Fatal(err)
	}
	return fd
}
