package natgw

import (
	"bytes"
	"encoding/binary"
	"log/slog"
	"net"
	"nodedesk/app/kit"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// lab is one station (pc, 192.168.122.10) on a gateway's segment: it
// answers the gateway's ARP requests and keeps every other frame the
// gateway sends.
type lab struct {
	t    *testing.T
	g    *Gateway
	out  chan []byte
	pc   net.HardwareAddr
	pcIP net.IP
}

func newLab(t *testing.T, c Config) *lab {
	t.Helper()
	l := &lab{t: t, out: make(chan []byte, 64), pc: net.HardwareAddr{0x02, 0, 0, 0, 0, 0x10}, pcIP: net.IPv4(192, 168, 122, 10).To4()}
	ready := make(chan struct{})
	c.Out = func(f []byte) {
		<-ready
		if len(f) >= 42 && binary.BigEndian.Uint16(f[12:]) == 0x0806 && binary.BigEndian.Uint16(f[20:]) == 1 && bytes.Equal(f[38:42], l.pcIP) {
			l.g.Input(arpReply(l.pc, l.pcIP, f[22:28], f[28:32]))
			return
		}
		select {
		case l.out <- append([]byte(nil), f...):
		default:
		}
	}
	g, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	l.g = g
	close(ready)
	t.Cleanup(g.Close)
	return l
}

// next is the next frame the gateway sends the lab, or nil after d.
func (l *lab) next(d time.Duration) []byte {
	select {
	case f := <-l.out:
		return f
	case <-time.After(d):
		return nil
	}
}

// arpReply is pc's answer to the ARP request of (mac, ip).
func arpReply(pc net.HardwareAddr, pcIP net.IP, mac, ip []byte) []byte {
	f := arpRequest(pc, pcIP, net.IP(ip))
	copy(f[0:6], mac)
	binary.BigEndian.PutUint16(f[20:], 2)
	copy(f[32:38], mac)
	return f
}

// ipFrame is an IPv4 packet of protocol proto from src to dst, in a frame
// from srcMAC to dstMAC.
func ipFrame(dstMAC, srcMAC net.HardwareAddr, src, dst net.IP, proto byte, payload []byte) []byte {
	f := make([]byte, 14+20+len(payload))
	copy(f[0:6], dstMAC)
	copy(f[6:12], srcMAC)
	binary.BigEndian.PutUint16(f[12:], 0x0800)
	ip := f[14:34]
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], uint16(20+len(payload)))
	ip[8], ip[9] = 64, proto
	copy(ip[12:16], src.To4())
	copy(ip[16:20], dst.To4())
	binary.BigEndian.PutUint16(ip[10:], checksum(ip))
	copy(f[34:], payload)
	return f
}

// echoRequest is an ICMP echo request message.
func echoRequest(ident, seq uint16, data []byte) []byte {
	m := make([]byte, 8+len(data))
	m[0] = 8
	binary.BigEndian.PutUint16(m[4:], ident)
	binary.BigEndian.PutUint16(m[6:], seq)
	copy(m[8:], data)
	binary.BigEndian.PutUint16(m[2:], checksum(m))
	return m
}

// udpDatagram is a UDP datagram without checksum (allowed on IPv4).
func udpDatagram(src, dst uint16, data []byte) []byte {
	u := make([]byte, 8+len(data))
	binary.BigEndian.PutUint16(u[0:], src)
	binary.BigEndian.PutUint16(u[2:], dst)
	binary.BigEndian.PutUint16(u[4:], uint16(8+len(data)))
	copy(u[8:], data)
	return u
}

// hostAddress is an IPv4 address of this machine other than its loopback
// (a ping to it never leaves the machine), or nil.
func hostAddress() net.IP {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() && !n.IP.Equal(net.IPv4(192, 168, 122, 1)) {
			return n.IP.To4()
		}
	}
	return nil
}

// withNetworks runs the test's pings on the host sockets nets only.
func withNetworks(t *testing.T, nets ...string) {
	old := icmpNetworks
	icmpNetworks = nets
	t.Cleanup(func() { icmpNetworks = old })
}

// allowPingSockets widens net.ipv4.ping_group_range to every group for the
// test (as root), restoring it after; it skips the test if it cannot.
func allowPingSockets(t *testing.T) {
	const f = "/proc/sys/net/ipv4/ping_group_range"
	old, err := os.ReadFile(f)
	if err != nil {
		kit.Unavailable(t, "no %s: %v", f, err)
	}
	if c, err := net.ListenPacket("udp4", "127.0.0.1:0"); err == nil { // (just a sanity check that sockets work)
		c.Close()
	}
	if strings.Fields(string(old))[0] == "0" {
		return // already every group from 0
	}
	if err := os.WriteFile(f, []byte("0 2147483647"), 0o644); err != nil {
		kit.Unavailable(t, "ping sockets not allowed here (%s is %q) and cannot be allowed (as root they can): %v", f, strings.TrimSpace(string(old)), err)
	}
	t.Cleanup(func() { _ = os.WriteFile(f, old, 0o644) })
}

// pingsBeyond sends three echoes from pc to dst through the gateway and
// checks that each gets exactly one reply, from dst, to pc, with its
// ident, sequence and data, and valid checksums.
func pingsBeyond(t *testing.T, l *lab, dst net.IP) {
	t.Helper()
	data := []byte("nodedesk natgw echo 0123456789")
	for seq := uint16(1); seq <= 3; seq++ {
		l.g.Input(ipFrame(l.g.MAC(), l.pc, l.pcIP, dst, 1, echoRequest(0x4242, seq, data)))
		r := l.next(10 * time.Second) // a bound, not a speed
		if r == nil {
			t.Fatalf("no echo reply from %s to seq %d", dst, seq)
		}
		ip, m := r[14:34], r[34:]
		switch {
		case !bytes.Equal(r[0:6], l.pc) || !bytes.Equal(r[6:12], l.g.MAC()) || binary.BigEndian.Uint16(r[12:]) != 0x0800:
			t.Fatalf("reply not from the gateway to pc: % x", r[:14])
		case ip[9] != 1 || !bytes.Equal(ip[12:16], dst) || !bytes.Equal(ip[16:20], l.pcIP) || checksum(ip) != 0 || int(binary.BigEndian.Uint16(ip[2:])) != len(r)-14:
			t.Fatalf("reply's IP header wrong (want %s → %s): % x", dst, l.pcIP, ip)
		case m[0] != 0 || m[1] != 0 || binary.BigEndian.Uint16(m[4:]) != 0x4242 || binary.BigEndian.Uint16(m[6:]) != seq || !bytes.Equal(m[8:], data) || checksum(m) != 0:
			t.Fatalf("not the echo reply to ident 0x4242 seq %d: % x", seq, m)
		}
	}
	if f := l.next(time.Second); f != nil {
		t.Fatalf("a frame after the three replies (a duplicate?): % x", f)
	}
}

// A ping from the lab to an address beyond the gateway (one of this
// machine's own: the echo never leaves it) is carried by a host ICMP
// socket, and its real reply comes back once — by an unprivileged ping
// socket and by a raw socket alike.
func TestGateway_PingsBeyondTheGateway(t *testing.T) {
	dst := hostAddress()
	if dst == nil {
		t.Skip("this machine has no IPv4 address but loopback")
	}
	t.Run("ping socket", func(t *testing.T) {
		withNetworks(t, "udp4")
		if os.Geteuid() == 0 {
			allowPingSockets(t)
		}
		if c, _, err := listenICMP(); err != nil {
			kit.Unavailable(t, "no unprivileged ICMP socket: %v", err)
		} else {
			c.Close()
		}
		pingsBeyond(t, newLab(t, Config{NodeID: "n1"}), dst)
	})
	t.Run("raw socket", func(t *testing.T) {
		withNetworks(t, "ip4:icmp")
		if c, _, err := listenICMP(); err != nil {
			kit.Unavailable(t, "no raw ICMP socket (needs CAP_NET_RAW): %v", err)
		} else {
			c.Close()
		}
		pingsBeyond(t, newLab(t, Config{NodeID: "n1"}), dst)
	})
}

// syncBuffer is a log destination safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Without any host ICMP socket, pings beyond the gateway get no reply at
// all — the stack does not answer for the host it cannot reach — and one
// warning says how to allow them; pings of the gateway are answered, once.
// Echoes to another lab address or the host's loopback are not answered
// either.
func TestGateway_PingsBeyondWithoutSocketsWarnOnce(t *testing.T) {
	withNetworks(t)
	var logs syncBuffer
	l := newLab(t, Config{NodeID: "n1", Log: slog.New(slog.NewTextHandler(&logs, nil))})
	for i, dst := range []net.IP{net.IPv4(10, 250, 0, 1), net.IPv4(10, 250, 0, 1), net.IPv4(192, 168, 122, 20), net.IPv4(127, 0, 0, 1)} {
		l.g.Input(ipFrame(l.g.MAC(), l.pc, l.pcIP, dst, 1, echoRequest(7, uint16(i+1), []byte("x"))))
	}
	if f := l.next(time.Second); f != nil {
		t.Fatalf("an answer to a ping the gateway cannot carry: % x", f)
	}
	if n := strings.Count(logs.String(), "level=WARN"); n != 1 || !strings.Contains(logs.String(), `sysctl -w net.ipv4.ping_group_range=\"0 2147483647\"`) ||
		!strings.Contains(logs.String(), "setcap cap_net_raw") {
		t.Fatalf("want one warning with the sysctl and setcap commands, got %d:\n%s", n, logs.String())
	}
	l.g.Input(ipFrame(l.g.MAC(), l.pc, l.pcIP, net.ParseIP(GatewayIP), 1, echoRequest(7, 9, []byte("gw"))))
	r := l.next(10 * time.Second)
	if r == nil || r[34] != 0 || !bytes.Equal(r[26:30], net.ParseIP(GatewayIP).To4()) || binary.BigEndian.Uint16(r[40:]) != 9 {
		t.Fatalf("no echo reply from the gateway: % x", r)
	}
	if f := l.next(500 * time.Millisecond); f != nil {
		t.Fatalf("a second frame after the gateway's echo reply: % x", f)
	}
}

// DNS: a lab query to the gateway's port 53 is answered by the host's
// resolver, with compressed names — "localhost.", which the host answers
// from /etc/hosts once the root dot is dropped: the query never leaves the
// machine.
func TestGateway_AnswersDNS(t *testing.T) {
	hosts, err := os.ReadFile("/etc/hosts")
	ns, _ := os.ReadFile("/etc/nsswitch.conf")
	if err != nil || !regexp.MustCompile(`(?m)^127\.0\.0\.1\s+(.*\s)?localhost(\s|$)`).Match(hosts) ||
		!regexp.MustCompile(`(?m)^hosts:\s+files\b`).Match(ns) {
		t.Skip("localhost is not answered from /etc/hosts first: the query could leave the machine")
	}
	l := newLab(t, Config{NodeID: "n1"})
	q := []byte{0xbe, 0xef, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0}
	q = append(q, 9)
	q = append(q, "localhost"...)
	q = append(q, 0, 0, 1, 0, 1) // root label ("localhost."); A, IN
	l.g.Input(ipFrame(l.g.MAC(), l.pc, l.pcIP, net.ParseIP(GatewayIP), 17, udpDatagram(5353, 53, q)))
	r := l.next(10 * time.Second)
	if r == nil || r[23] != 17 || binary.BigEndian.Uint16(r[34:]) != 53 || binary.BigEndian.Uint16(r[36:]) != 5353 {
		t.Fatalf("no DNS answer from the gateway: % x", r)
	}
	a := r[42:]
	// id, QR set, NOERROR, one answer after the question: its name a
	// pointer to the question's (compressed, as VPCS needs it), type A,
	// class IN, some TTL, length 4, 127.0.0.1.
	if len(a) != len(q)+16 || binary.BigEndian.Uint16(a) != 0xbeef || a[2]&0x80 == 0 || a[3]&0x0f != 0 || binary.BigEndian.Uint16(a[6:]) != 1 ||
		!bytes.Equal(a[12:len(q)], q[12:]) || !bytes.Equal(a[len(q):len(q)+6], []byte{0xc0, 0x0c, 0, 1, 0, 1}) ||
		!bytes.Equal(a[len(q)+10:], []byte{0, 4, 127, 0, 0, 1}) {
		t.Fatalf("not an answer localhost A 127.0.0.1: % x", a)
	}
}

// With the host's loopback allowed, UDP to the gateway's address reaches a
// service on the host's loopback and its answer comes back from the
// gateway; a refused port is not reached, nor the loopback addressed as
// 127.0.0.1 or 0.0.0.0.
func TestGateway_UDPToHostService(t *testing.T) {
	loopback := net.IPv4(127, 0, 0, 1)
	open, _ := udpEcho(t, loopback)
	shut, shutGot := udpEcho(t, loopback)
	l := newLab(t, Config{NodeID: "n1", HostLoopback: true, Refused: func(p uint16) bool { return p == shut }})
	gw := net.ParseIP(GatewayIP)
	l.g.Input(ipFrame(l.g.MAC(), l.pc, l.pcIP, gw, 17, udpDatagram(40000, open, []byte("hello"))))
	r := l.next(10 * time.Second)
	if r == nil || r[23] != 17 || !bytes.Equal(r[26:30], gw.To4()) || binary.BigEndian.Uint16(r[34:]) != open ||
		binary.BigEndian.Uint16(r[36:]) != 40000 || string(r[42:]) != "echo:hello" {
		t.Fatalf("no answer of the host's UDP service on 127.0.0.1:%d: % x", open, r)
	}
	// Refused: at most an ICMP port unreachable, from the gateway.
	l.g.Input(ipFrame(l.g.MAC(), l.pc, l.pcIP, gw, 17, udpDatagram(40001, shut, []byte("hello"))))
	if f := l.next(time.Second); f != nil && (f[23] != 1 || f[34] != 3 || f[35] != 3) {
		t.Fatalf("an answer through the refused port %d: % x", shut, f)
	}
	// The host's loopback addressed directly (127.0.0.1, or 0.0.0.0, which
	// a host socket takes for it) is not reached either: it would bypass
	// the refused ports.
	direct, directGot := udpEcho(t, loopback)
	for _, dst := range []net.IP{net.IPv4(127, 0, 0, 1), net.IPv4zero} {
		l.g.Input(ipFrame(l.g.MAC(), l.pc, l.pcIP, dst, 17, udpDatagram(40002, direct, []byte("hello"))))
		if f := l.next(time.Second); f != nil && (f[23] != 1 || f[34] != 3) {
			t.Fatalf("an answer from %s:%d: % x", dst, direct, f)
		}
	}
	select {
	case m := <-shutGot:
		t.Fatalf("the refused service got %q", m)
	case m := <-directGot:
		t.Fatalf("a service on 127.0.0.1 addressed directly got %q", m)
	default:
	}
}

// By default the gateway's address reaches only the host's services that
// listen on its network addresses, as libvirt's virbr0 does: one bound to
// a non-loopback address of the host and one bound to every address
// answer; one bound to 127.0.0.1 gets nothing, until the NAT node allows
// the host's loopback.
func TestGateway_UDPReachesOnlyNetworkServicesByDefault(t *testing.T) {
	host := hostAddress()
	if host == nil {
		t.Skip("this machine has no non-loopback IPv4 address")
	}
	l := newLab(t, Config{NodeID: "n1"})
	gw := net.ParseIP(GatewayIP)
	ask := func(port uint16, src uint16) []byte {
		l.g.Input(ipFrame(l.g.MAC(), l.pc, l.pcIP, gw, 17, udpDatagram(src, port, []byte("hello"))))
		return l.next(5 * time.Second)
	}
	answered := func(r []byte) bool { return r != nil && r[23] == 17 && string(r[42:]) == "echo:hello" }
	atHost, _ := udpEcho(t, host)
	if r := ask(atHost, 40000); !answered(r) {
		t.Fatalf("no answer of the service on %s:%d at the gateway's address: % x", host, atHost, r)
	}
	everywhere, _ := udpEcho(t, net.IPv4zero)
	if r := ask(everywhere, 40001); !answered(r) {
		t.Fatalf("no answer of the service on 0.0.0.0:%d at the gateway's address: % x", everywhere, r)
	}
	local, localGot := udpEcho(t, net.IPv4(127, 0, 0, 1))
	if r := ask(local, 40002); answered(r) {
		t.Fatalf("the loopback-only service 127.0.0.1:%d answered: % x", local, r)
	}
	select {
	case m := <-localGot:
		t.Fatalf("the loopback-only service got %q", m)
	default:
	}
	l.g.SetHostLoopback(true)
	if r := ask(local, 40003); !answered(r) {
		t.Fatalf("with the loopback allowed, no answer of 127.0.0.1:%d: % x", local, r)
	}
}

// socketTable reads Linux's socket tables: the listening (or unconnected)
// sockets on a port, IPv4 and IPv6, in the host's byte order.
func TestSocketTable(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	got, err := boundAddrs("tcp", port)
	if err != nil {
		t.Skipf("no socket table: %v", err)
	}
	if len(got) != 1 || !got[0].Equal(net.IPv4(127, 0, 0, 1)) {
		t.Fatalf("tcp port %d: %v, want [127.0.0.1]", port, got)
	}
	ln6, err := net.Listen("tcp", ":0") // every address, dual stack
	if err != nil {
		t.Fatal(err)
	}
	defer ln6.Close()
	port6 := uint16(ln6.Addr().(*net.TCPAddr).Port)
	if got, _ := boundAddrs("tcp", port6); len(got) != 1 || !got[0].IsUnspecified() {
		t.Fatalf("tcp port %d: %v, want the unspecified address", port6, got)
	}
	if got, _ := boundAddrs("udp", port6); len(got) != 0 {
		t.Fatalf("udp port %d: %v, want none", port6, got)
	}
}

// A refused port stays refused at the host's own addresses: a lab that
// addresses the host by one of its interfaces' IPv4 addresses (as it would
// reach an API listening on every address) gets no further than at the
// gateway's address, while another port there is reached.
func TestGateway_RefusedPortsAtHostAddresses(t *testing.T) {
	host := hostAddress()
	if host == nil {
		t.Skip("this machine has no non-loopback IPv4 address")
	}
	open, _ := udpEcho(t, host)
	shut, shutGot := udpEcho(t, host)
	l := newLab(t, Config{NodeID: "n1", Refused: func(p uint16) bool { return p == shut }})
	l.g.Input(ipFrame(l.g.MAC(), l.pc, l.pcIP, host, 17, udpDatagram(40000, open, []byte("hello"))))
	if r := l.next(10 * time.Second); r == nil || r[23] != 17 || string(r[42:]) != "echo:hello" {
		t.Fatalf("no answer of the service on %s:%d: % x", host, open, r)
	}
	l.g.Input(ipFrame(l.g.MAC(), l.pc, l.pcIP, host, 17, udpDatagram(40001, shut, []byte("hello"))))
	if f := l.next(time.Second); f != nil && (f[23] != 1 || f[34] != 3) {
		t.Fatalf("an answer through the refused port %s:%d: % x", host, shut, f)
	}
	select {
	case m := <-shutGot:
		t.Fatalf("the refused service at %s got %q", host, m)
	default:
	}
}

// udpEcho is a UDP service of the host on ip: it answers each datagram
// with "echo:" and it, and passes what it got on the channel. It ends with
// the test.
func udpEcho(t *testing.T, ip net.IP) (uint16, chan string) {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: ip})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	got := make(chan string, 8)
	go func() {
		buf := make([]byte, 2048)
		for {
			n, from, err := c.ReadFromUDP(buf)
			if err != nil {
				return
			}
			got <- string(buf[:n])
			_, _ = c.WriteToUDP(append([]byte("echo:"), buf[:n]...), from)
		}
	}()
	return uint16(c.LocalAddr().(*net.UDPAddr).Port), got
}
