package api

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// leaseRE reads the address of VPCS's "ip dhcp" answer.
var leaseRE = regexp.MustCompile(`IP (192\.168\.122\.\d+)/24 GW 192\.168\.122\.1`)

// natLab starts a NAT node, a switch and a VPCS pc1 behind them, and has
// pc1 take a DHCP lease from the gateway (h.ip).
func natLab(t *testing.T) (ts *testServer, pid, nat, sw string, h *labHost) {
	t.Helper()
	ts = newVPCSServer(t)
	pid = ts.mustCreateProject("lab")
	nat = ts.mustCreateNode(pid, map[string]any{"node_type": "nat"})["node_id"].(string)
	sw = mustCreateSwitch(ts, t, pid, nil)
	n := ts.mustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": "pc1",
		"properties": map[string]any{"startup_script": "set pcname pc1\n"}})
	pc := n["node_id"].(string)
	ts.link(t, pid, nat, 0, sw, 0)
	ts.link(t, pid, pc, 0, sw, 1)
	ts.do("POST", "/v2/projects/"+pid+"/nodes/"+pc+"/start", nil).want(t, 200)
	con := dialConsole(t, n["console"].(float64))
	if !con.expect("pc1>", true, 15*time.Second) {
		t.Fatalf("no prompt: %q", con.seen.String())
	}

	// DHCP: "DDORA IP 192.168.122.2/24 GW 192.168.122.1".
	if !con.run("ip dhcp", "GW 192.168.122.1", 30*time.Second) {
		t.Fatalf("no DHCP lease from the NAT gateway:\n%s", printable(con.log.String()))
	}
	lease := leaseRE.FindStringSubmatch(con.seen.String())
	if lease == nil {
		t.Fatalf("lease outside 192.168.122.0/24:\n%s", printable(con.seen.String()))
	}
	con.expect("pc1>", false, 5*time.Second)
	return ts, pid, nat, sw, &labHost{id: pc, name: "pc1", ip: lease[1], con: con}
}

// The NAT node is a user-mode gateway (app/natgw): a real VPCS behind it
// gets a DHCP lease, pings the gateway, and reaches a TCP service on the
// host's loopback through the gateway's address, but not nodedesk's API.
// A new NAT node in place of a deleted one leases pc1 the same address.
// All traffic stays on this machine.
func TestNAT_DHCPPingAndHostService(t *testing.T) {
	ts, pid, nat, sw, h := natLab(t)
	con := h.con
	if !h.pings("192.168.122.1", 20*time.Second) {
		t.Fatalf("the gateway does not answer ping:\n%s", printable(con.log.String()))
	}

	// A TCP service on the host's loopback, reached at the gateway's address.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			go func() { // read what VPCS sends until it closes
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(10 * time.Second))
				buf := make([]byte, 1024)
				for {
					if _, err := c.Read(buf); err != nil {
						return
					}
				}
			}()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	con.drain()
	// "Connect   PORT@192.168.122.1 seq=1 ttl=64 time=0.5 ms"
	if !con.run(fmt.Sprintf("ping 192.168.122.1 -P 6 -p %d -c 2", port), fmt.Sprintf("Connect   %d@192.168.122.1 seq=", port), 20*time.Second) {
		t.Fatalf("no TCP connection to the host's 127.0.0.1:%d through the gateway:\n%s", port, printable(con.log.String()))
	}
	con.expect("pc1>", false, 10*time.Second)
	for end := time.Now().Add(5 * time.Second); accepted.Load() == 0 && time.Now().Before(end); {
		time.Sleep(50 * time.Millisecond)
	}
	if accepted.Load() == 0 {
		t.Fatal("VPCS connected, but the host listener saw no connection")
	}
	t.Logf("host listener accepted %d connections; transcript:\n%s", accepted.Load(), printable(con.log.String()))

	// nodedesk's own API port is refused: "Connect   PORT@192.168.122.1 RST returned".
	api := ts.srv.ln.Addr().(*net.TCPAddr).Port
	con.drain()
	if !con.run(fmt.Sprintf("ping 192.168.122.1 -P 6 -p %d -c 1", api), fmt.Sprintf("Connect   %d@192.168.122.1 RST returned", api), 20*time.Second) {
		t.Fatalf("the API port %d was not refused through the gateway:\n%s", api, printable(con.log.String()))
	}
	if strings.Contains(con.seen.String(), fmt.Sprintf("Connect   %d@192.168.122.1 seq=", api)) {
		t.Fatalf("the lab connected to the API:\n%s", printable(con.seen.String()))
	}

	// Deleting the NAT node stops its gateway: no more answers.
	ts.do("DELETE", "/v2/projects/"+pid+"/nodes/"+nat, nil).want(t, 204)
	if !h.silent("192.168.122.1") {
		t.Fatal("the gateway still answers after its NAT node was deleted")
	}

	// A new NAT node in its place leases pc1 the address it had, though
	// another host (a frame from a cloud's UDP tunnel) asks first.
	peer := newUDPPeer(t)
	ts.link(t, pid, ts.cloudTunnels(t, pid, peer), 0, sw, 2)
	nat = ts.mustCreateNode(pid, map[string]any{"node_type": "nat"})["node_id"].(string)
	ts.link(t, pid, nat, 0, sw, 0)
	other := net.HardwareAddr{0x02, 0, 0, 0, 0, 0x99}
	var offered net.IP
	for try := 0; try < 5 && offered == nil; try++ { // bounded: the link may take a moment
		peer.send(t, dhcpDiscover(other))
		for _, f := range peer.receive(500*time.Millisecond, 3*time.Second) {
			if len(f) > 42+240 && f[23] == 17 && binary.BigEndian.Uint16(f[34:]) == 67 && f[42] == 2 && bytes.Equal(f[42+28:42+34], other) {
				offered = net.IP(f[42+16 : 42+20])
			}
		}
	}
	if offered == nil || offered.String() == h.ip {
		t.Fatalf("the other host was offered %v (pc1 had %s)", offered, h.ip)
	}
	con.drain()
	if !con.run("ip dhcp", "GW 192.168.122.1", 30*time.Second) {
		t.Fatalf("no DHCP lease from the new NAT gateway:\n%s", printable(con.log.String()))
	}
	if got := leaseRE.FindStringSubmatch(con.seen.String()); got == nil || got[1] != h.ip {
		t.Fatalf("pc1 had %s, the new gateway leases it %v:\n%s", h.ip, got, printable(con.seen.String()))
	}
	t.Logf("the new gateway leased pc1 %s again", h.ip)
}

// udpEcho is a UDP service on the host's loopback that answers each
// datagram with itself; it returns its port and how many it answered.
func udpEcho(t *testing.T) (int, *atomic.Int32) {
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

// hostsAnswersLocalhost skips a test unless this host answers "localhost"
// from /etc/hosts before any DNS server: a lab's query for it must not
// leave the machine.
func hostsAnswersLocalhost(t *testing.T) {
	t.Helper()
	hosts, err := os.ReadFile("/etc/hosts")
	ns, _ := os.ReadFile("/etc/nsswitch.conf")
	if err != nil || !regexp.MustCompile(`(?m)^127\.0\.0\.1\s+(.*\s)?localhost(\s|$)`).Match(hosts) ||
		!regexp.MustCompile(`(?m)^hosts:\s+files\b`).Match(ns) {
		t.Skip("localhost is not answered from /etc/hosts first: the lab's query could leave the machine")
	}
}

// Behind the NAT node, a real VPCS reaches a UDP service on the host's
// loopback at the gateway's address, and resolves a name by the gateway's
// DNS: "localhost." (VPCS asks only names with a dot), which this host
// answers from /etc/hosts — no query leaves the machine. VPCS then pings
// 127.0.0.1, which the gateway does not carry to the host's loopback.
func TestNAT_UDPAndDNS(t *testing.T) {
	hostsAnswersLocalhost(t)
	_, _, _, _, h := natLab(t)
	con := h.con

	// "192.168.122.1 udp_seq=1 ttl=64 time=1.186 ms"
	port, answered := udpEcho(t)
	con.drain()
	from := con.log.Len()
	if !con.run(fmt.Sprintf("ping 192.168.122.1 -P 17 -p %d -c 2", port), "192.168.122.1 udp_seq=1 ttl=", 20*time.Second) {
		t.Fatalf("no answer from the host's UDP service 127.0.0.1:%d through the gateway:\n%s", port, printable(con.log.String()))
	}
	con.expect("pc1>", false, 10*time.Second)
	if answered.Load() == 0 {
		t.Fatal("VPCS got a UDP answer, but the host's service saw no datagram")
	}
	t.Logf("UDP: the host's service answered %d datagrams:\n%s", answered.Load(), printable(con.log.String()[from:]))

	con.drain()
	from = con.log.Len()
	if !con.run("ping localhost. -c 1", "localhost resolved to 127.0.0.1", 20*time.Second) {
		t.Fatalf("VPCS did not resolve localhost. by the gateway's DNS:\n%s", printable(con.log.String()))
	}
	con.expect("pc1>", false, 10*time.Second)
	if strings.Contains(con.seen.String(), "ttl=") {
		t.Fatalf("a ping of 127.0.0.1 was answered through the gateway:\n%s", printable(con.seen.String()))
	}
	t.Logf("DNS:\n%s", printable(con.log.String()[from:]))
}

// Behind the NAT node, a real VPCS pings an address beyond the gateway — in
// a network namespace the test creates, reached over a veth pair — and
// gets that namespace's real replies, one per request, by a raw socket
// (root) and by an unprivileged ping socket; an address there that nobody
// holds stays silent (the gateway does not answer for it).
func TestNAT_PingBeyondTheGateway(t *testing.T) {
	mustBeNetAdmin(t)
	_, _, _, _, h := natLab(t)
	con := h.con
	b := make([]byte, 1)
	_, _ = rand.Read(b)
	prefix := fmt.Sprintf("10.250.%d.", b[0])
	ns := netns(t)
	host := vethInto(t, ns, prefix+"2/24")
	sh(t, "ip", "addr", "add", prefix+"1/24", "dev", host)
	target := prefix + "2"

	pings := func(how string) {
		t.Helper()
		con.drain()
		from := con.log.Len()
		// "10.250.7.2 icmp_seq=1 ttl=64 time=1.636 ms"
		if !con.run("ping "+target+" -c 3", target+" icmp_seq=1 ttl=", 20*time.Second) {
			t.Fatalf("%s: no reply from %s beyond the gateway:\n%s", how, target, printable(con.log.String()))
		}
		con.expect("pc1>", false, 15*time.Second)
		out := printable(con.log.String()[from:])
		for seq := 1; seq <= 3; seq++ {
			if n := strings.Count(out, fmt.Sprintf("%s icmp_seq=%d ttl=", target, seq)); n != 1 {
				t.Fatalf("%s: %d replies to icmp_seq=%d:\n%s", how, n, seq, out)
			}
		}
		t.Logf("%s:\n%s", how, out)
	}
	pings("ICMP beyond the gateway")
	if !h.silent(prefix + "3") {
		t.Fatalf("a ping of %s3, which nobody holds, was answered:\n%s", prefix, printable(con.log.String()))
	}

	// The same with an unprivileged ICMP socket, which the gateway tries
	// first: allow it for every group for the test.
	const f = "/proc/sys/net/ipv4/ping_group_range"
	old, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte("0 2147483647"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.WriteFile(f, old, 0o644) })
	pings("ICMP beyond the gateway, by a ping socket")
}

// dhcpDiscover is a broadcast DHCPDISCOVER of mac, in a frame.
func dhcpDiscover(mac net.HardwareAddr) []byte {
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
	f := ethFrame(broadcast, mac, append(ip, u...))
	binary.BigEndian.PutUint16(f[12:], 0x0800)
	return f
}
