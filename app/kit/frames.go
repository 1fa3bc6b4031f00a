package kit

import (
	"bytes"
	"encoding/binary"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// Frames sent by the test itself, over a cloud's UDP tunnels (the same
// seam a process on another machine would use), into nodedesk's data
// plane. Only 127.0.0.1.

// MAC addresses of the test's frames.
var (
	MACA      = net.HardwareAddr{0x02, 0, 0, 0, 0, 0x0a}
	MACB      = net.HardwareAddr{0x02, 0, 0, 0, 0, 0x0b}
	Broadcast = net.HardwareAddr{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
)

// EthFrame is an Ethernet frame from src to dst of the local experimental
// ethertype 0x88b5, carrying payload (padded to the 60-byte minimum).
func EthFrame(dst, src net.HardwareAddr, payload []byte) []byte {
	f := make([]byte, 0, max(60, 14+len(payload)))
	f = append(f, dst...)
	f = append(f, src...)
	f = binary.BigEndian.AppendUint16(f, 0x88b5) // local experimental ethertype
	f = append(f, payload...)
	for len(f) < 60 {
		f = append(f, 0)
	}
	return f
}

// Holds reports whether one of frames contains marker.
func Holds(frames [][]byte, marker string) bool {
	for _, f := range frames {
		if bytes.Contains(f, []byte(marker)) {
			return true
		}
	}
	return false
}

// DHCPDiscover is a broadcast DHCPDISCOVER of mac, in a frame.
func DHCPDiscover(mac net.HardwareAddr) []byte {
	d := make([]byte, 300)
	d[0], d[1], d[2] = 1, 1, 6 // BOOTREQUEST, Ethernet
	binary.BigEndian.PutUint32(d[4:], 0x1d1d1d1d)
	copy(d[28:], mac)
	binary.BigEndian.PutUint32(d[236:], 0x63825363)
	copy(d[240:], []byte{53, 1, 1, 255}) // DHCPDISCOVER
	u := make([]byte, 8, 8+len(d))
	binary.BigEndian.PutUint16(u[0:], 68)
	binary.BigEndian.PutUint16(u[2:], 67)
	binary.BigEndian.PutUint16(u[4:], uint16(8+len(d)))
	u = append(u, d...)
	ip := make([]byte, 20, 20+len(u))
	ip[0], ip[8], ip[9] = 0x45, 64, 17
	binary.BigEndian.PutUint16(ip[2:], uint16(20+len(u)))
	copy(ip[16:], []byte{255, 255, 255, 255})
	var sum uint32
	for i := 0; i < 20; i += 2 {
		sum += uint32(binary.BigEndian.Uint16(ip[i:]))
	}
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	binary.BigEndian.PutUint16(ip[10:], ^uint16(sum))
	f := EthFrame(Broadcast, mac, append(ip, u...))
	binary.BigEndian.PutUint16(f[12:], 0x0800)
	return f
}

// UDPEcho is a UDP service on the host's loopback that answers each
// datagram with itself, until the test ends; it returns its port and how
// many datagrams it answered.
func UDPEcho(t testing.TB) (int, *atomic.Int32) {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	var n atomic.Int32
	go func() {
		buf := make([]byte, 2048)
		for {
			k, from, err := c.ReadFromUDP(buf)
			if err != nil {
				return
			}
			n.Add(1)
			_, _ = c.WriteToUDP(buf[:k], from)
		}
	}()
	return c.LocalAddr().(*net.UDPAddr).Port, &n
}

// UDPPeer is the test's end of a cloud's UDP tunnel.
type UDPPeer struct {
	Conn  *net.UDPConn
	LPort int // the cloud's end: the port nodedesk binds
}

// NewUDPPeer binds the test's end on 127.0.0.1 and picks a free port for
// nodedesk's end.
func NewUDPPeer(t testing.TB) *UDPPeer {
	t.Helper()
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	free, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	lport := free.LocalAddr().(*net.UDPAddr).Port
	free.Close()
	return &UDPPeer{Conn: conn, LPort: lport}
}

// Port is cloud port n, a UDP tunnel to p.
func (p *UDPPeer) Port(n int) map[string]any {
	return map[string]any{"name": "UDP tunnel " + string(rune('1'+n)), "port_number": n, "type": "udp",
		"lport": p.LPort, "rhost": "127.0.0.1", "rport": p.Conn.LocalAddr().(*net.UDPAddr).Port}
}

// Send sends one datagram into the lab.
func (p *UDPPeer) Send(t testing.TB, b []byte) {
	t.Helper()
	if _, err := p.Conn.WriteToUDP(b, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: p.LPort}); err != nil {
		t.Fatal(err)
	}
}

// Receive returns the datagrams p gets until none arrives for quiet, or
// until limit.
func (p *UDPPeer) Receive(quiet, limit time.Duration) [][]byte {
	var got [][]byte
	buf := make([]byte, 65536)
	for end := time.Now().Add(limit); time.Now().Before(end); {
		_ = p.Conn.SetReadDeadline(time.Now().Add(quiet))
		n, err := p.Conn.Read(buf)
		if err != nil {
			return got
		}
		got = append(got, append([]byte(nil), buf[:n]...))
	}
	return got
}

// CloudTunnels creates a cloud whose port i tunnels to peers[i] and
// returns its id.
func (a *API) CloudTunnels(t testing.TB, pid string, peers ...*UDPPeer) string {
	t.Helper()
	ports := make([]any, len(peers))
	for i, p := range peers {
		ports[i] = p.Port(i)
	}
	return a.MustCreateNode(pid, map[string]any{"node_type": "cloud",
		"properties": map[string]any{"ports_mapping": ports}})["node_id"].(string)
}

// CloudPort creates a cloud with one port of kind (ethernet, tap) on
// interface iface and returns its id.
func (a *API) CloudPort(t testing.TB, pid, kind, iface string) string {
	t.Helper()
	return a.MustCreateNode(pid, map[string]any{"node_type": "cloud", "properties": map[string]any{
		"ports_mapping": []any{map[string]any{"name": iface, "port_number": 0, "type": kind, "interface": iface}}}})["node_id"].(string)
}
