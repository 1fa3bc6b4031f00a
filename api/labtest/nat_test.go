package labtest

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"nodedesk/app/kit"
)

// leaseRE reads the address of VPCS's "ip dhcp" answer.
var leaseRE = regexp.MustCompile(`IP (192\.168\.122\.\d+)/24 GW 192\.168\.122\.1`)

// natLab starts a NAT node, a switch and a VPCS pc1 behind them, and has
// pc1 take a DHCP lease from the gateway (h.IP).
func natLab(t *testing.T) (ts *Lab, pid, nat, sw string, h *kit.Host) {
	t.Helper()
	ts = StartVPCS(t)
	pid = ts.MustCreateProject("lab")
	nat = ts.MustCreateNode(pid, map[string]any{"node_type": "nat"})["node_id"].(string)
	sw = ts.MustCreateSwitch(t, pid, nil)
	n := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": "pc1",
		"properties": map[string]any{"startup_script": "set pcname pc1\n"}})
	pc := n["node_id"].(string)
	ts.Link(t, pid, nat, 0, sw, 0)
	ts.Link(t, pid, pc, 0, sw, 1)
	ts.Do("POST", "/v2/projects/"+pid+"/nodes/"+pc+"/start", nil).Want(t, 200)
	con := kit.DialConsole(t, "127.0.0.1", int(n["console"].(float64)))
	if !con.Expect("pc1>", true, 15*time.Second) {
		t.Fatalf("no prompt: %q", con.Seen.String())
	}

	// DHCP: "DDORA IP 192.168.122.2/24 GW 192.168.122.1".
	if !con.Run("ip dhcp", "GW 192.168.122.1", 30*time.Second) {
		t.Fatalf("no DHCP lease from the NAT gateway:\n%s", kit.Printable(con.Log.String()))
	}
	lease := leaseRE.FindStringSubmatch(con.Seen.String())
	if lease == nil {
		t.Fatalf("lease outside 192.168.122.0/24:\n%s", kit.Printable(con.Seen.String()))
	}
	con.Expect("pc1>", false, 5*time.Second)
	return ts, pid, nat, sw, &kit.Host{ID: pc, Name: "pc1", IP: lease[1], Con: con}
}

// The NAT node is a user-mode gateway (app/natgw): a real VPCS behind it
// gets a DHCP lease and pings the gateway. At the gateway's address it
// reaches the host as GNS3's NAT does: a TCP service that listens on one
// of the host's network addresses (on a dummy interface the test makes),
// not one that listens only on 127.0.0.1 — until the NAT node's
// allow_host_loopback is on — and never nodedesk's API. A new NAT node in
// place of a deleted one leases pc1 the same address. All traffic stays
// on this machine.
func TestNAT_DHCPPingAndHostService(t *testing.T) {
	ts, pid, nat, sw, h := natLab(t)
	con := h.Con
	if !h.Pings("192.168.122.1", 20*time.Second) {
		t.Fatalf("the gateway does not answer ping:\n%s", kit.Printable(con.Log.String()))
	}

	// A TCP service on the host's loopback only: refused by default.
	local, localAccepted := tcpService(t, "127.0.0.1")
	connectRefused(t, con, local, "the loopback-only service 127.0.0.1")
	if localAccepted.Load() != 0 {
		t.Fatal("the loopback-only service accepted a connection from the lab")
	}

	// A TCP service on a network address of the host: reached at the
	// gateway's address.
	hostIP := hostNetworkAddress(t)
	atHost, hostAccepted := tcpService(t, hostIP)
	connects(t, con, atHost, hostAccepted, "the service on the host's "+hostIP)

	// nodedesk's own API port is refused: "Connect   PORT@192.168.122.1 RST returned".
	api := ts.APIPort()
	connectRefused(t, con, api, "the API")

	// With allow_host_loopback on, the loopback-only service is reached;
	// the API stays refused.
	ts.Do("PUT", "/v2/projects/"+pid+"/nodes/"+nat, map[string]any{"properties": map[string]any{"allow_host_loopback": true}}).Want(t, 200)
	connects(t, con, local, localAccepted, "the loopback-only service 127.0.0.1, allowed")
	connectRefused(t, con, api, "the API, with the host's loopback allowed")

	// Deleting the NAT node stops its gateway: no more answers.
	ts.Do("DELETE", "/v2/projects/"+pid+"/nodes/"+nat, nil).Want(t, 204)
	if !h.Silent("192.168.122.1") {
		t.Fatal("the gateway still answers after its NAT node was deleted")
	}

	// A new NAT node in its place leases pc1 the address it had, though
	// another host (a frame from a cloud's UDP tunnel) asks first.
	peer := kit.NewUDPPeer(t)
	ts.Link(t, pid, ts.CloudTunnels(t, pid, peer), 0, sw, 2)
	nat = ts.MustCreateNode(pid, map[string]any{"node_type": "nat"})["node_id"].(string)
	ts.Link(t, pid, nat, 0, sw, 0)
	other := net.HardwareAddr{0x02, 0, 0, 0, 0, 0x99}
	var offered net.IP
	for try := 0; try < 5 && offered == nil; try++ { // bounded: the link may take a moment
		peer.Send(t, kit.DHCPDiscover(other))
		for _, f := range peer.Receive(500*time.Millisecond, 3*time.Second) {
			if len(f) > 42+240 && f[23] == 17 && binary.BigEndian.Uint16(f[34:]) == 67 && f[42] == 2 && bytes.Equal(f[42+28:42+34], other) {
				offered = net.IP(f[42+16 : 42+20])
			}
		}
	}
	if offered == nil || offered.String() == h.IP {
		t.Fatalf("the other host was offered %v (pc1 had %s)", offered, h.IP)
	}
	con.Drain()
	if !con.Run("ip dhcp", "GW 192.168.122.1", 30*time.Second) {
		t.Fatalf("no DHCP lease from the new NAT gateway:\n%s", kit.Printable(con.Log.String()))
	}
	if got := leaseRE.FindStringSubmatch(con.Seen.String()); got == nil || got[1] != h.IP {
		t.Fatalf("pc1 had %s, the new gateway leases it %v:\n%s", h.IP, got, kit.Printable(con.Seen.String()))
	}
	t.Logf("the new gateway leased pc1 %s again", h.IP)
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

// Behind the NAT node with allow_host_loopback on, a real VPCS reaches a
// UDP service on the host's loopback at the gateway's address (off, the
// gateway drops it: app/natgw's tests), and resolves a name by the gateway's
// DNS: "localhost." (VPCS asks only names with a dot), which this host
// answers from /etc/hosts — no query leaves the machine. VPCS then pings
// 127.0.0.1, which the gateway does not carry to the host's loopback.
func TestNAT_UDPAndDNS(t *testing.T) {
	hostsAnswersLocalhost(t)
	ts, pid, nat, _, h := natLab(t)
	con := h.Con
	ts.Do("PUT", "/v2/projects/"+pid+"/nodes/"+nat, map[string]any{"properties": map[string]any{"allow_host_loopback": true}}).Want(t, 200)
	// The data plane takes the change after the PUT's answer: a TCP
	// connection to the loopback (which VPCS retries) shows it has.
	tcpPort, tcpAccepted := tcpService(t, "127.0.0.1")
	connects(t, con, tcpPort, tcpAccepted, "a loopback-only TCP service, allowed")

	// "192.168.122.1 udp_seq=1 ttl=64 time=1.186 ms"
	port, answered := kit.UDPEcho(t)
	con.Drain()
	from := con.Log.Len()
	if !con.Run(fmt.Sprintf("ping 192.168.122.1 -P 17 -p %d -c 2", port), "192.168.122.1 udp_seq=1 ttl=", 20*time.Second) {
		t.Fatalf("no answer from the host's UDP service 127.0.0.1:%d through the gateway (the service answered %d datagrams):\n%s",
			port, answered.Load(), kit.Printable(con.Log.String()))
	}
	con.Expect("pc1>", false, 10*time.Second)
	if answered.Load() == 0 {
		t.Fatal("VPCS got a UDP answer, but the host's service saw no datagram")
	}
	t.Logf("UDP: the host's service answered %d datagrams:\n%s", answered.Load(), kit.Printable(con.Log.String()[from:]))

	con.Drain()
	from = con.Log.Len()
	if !con.Run("ping localhost. -c 1", "localhost resolved to 127.0.0.1", 20*time.Second) {
		t.Fatalf("VPCS did not resolve localhost. by the gateway's DNS:\n%s", kit.Printable(con.Log.String()))
	}
	con.Expect("pc1>", false, 10*time.Second)
	if strings.Contains(con.Seen.String(), "ttl=") {
		t.Fatalf("a ping of 127.0.0.1 was answered through the gateway:\n%s", kit.Printable(con.Seen.String()))
	}
	t.Logf("DNS:\n%s", kit.Printable(con.Log.String()[from:]))
}

// Behind the NAT node, a real VPCS pings an address beyond the gateway — in
// a network namespace the test creates, reached over a veth pair — and
// gets that namespace's real replies, one per request, by a raw socket
// (root) and by an unprivileged ping socket; an address there that nobody
// holds stays silent (the gateway does not answer for it).
func TestNAT_PingBeyondTheGateway(t *testing.T) {
	kit.MustBeNetAdmin(t)
	_, _, _, _, h := natLab(t)
	con := h.Con
	b := make([]byte, 1)
	_, _ = rand.Read(b)
	prefix := fmt.Sprintf("10.250.%d.", b[0])
	ns := kit.Netns(t)
	host := kit.VethInto(t, ns, prefix+"2/24")
	kit.Sh(t, "ip", "addr", "add", prefix+"1/24", "dev", host)
	target := prefix + "2"

	pings := func(how string) {
		t.Helper()
		con.Drain()
		from := con.Log.Len()
		// "10.250.7.2 icmp_seq=1 ttl=64 time=1.636 ms"
		if !con.Run("ping "+target+" -c 3", target+" icmp_seq=1 ttl=", 20*time.Second) {
			t.Fatalf("%s: no reply from %s beyond the gateway:\n%s", how, target, kit.Printable(con.Log.String()))
		}
		con.Expect("pc1>", false, 15*time.Second)
		out := kit.Printable(con.Log.String()[from:])
		for seq := 1; seq <= 3; seq++ {
			if n := strings.Count(out, fmt.Sprintf("%s icmp_seq=%d ttl=", target, seq)); n != 1 {
				t.Fatalf("%s: %d replies to icmp_seq=%d:\n%s", how, n, seq, out)
			}
		}
		t.Logf("%s:\n%s", how, out)
	}
	pings("ICMP beyond the gateway")
	if !h.Silent(prefix + "3") {
		t.Fatalf("a ping of %s3, which nobody holds, was answered:\n%s", prefix, kit.Printable(con.Log.String()))
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

// The NAT node as a GNS3 compute serves it: the test plays a GNS3 2.2.59
// controller that makes a VPCS and a NAT node through the compute paths and
// links them with two nio_udp on 127.0.0.1; the real VPCS takes a DHCP
// lease from the NAT gateway through the tunnel and pings it.
func TestCompute_NATNode(t *testing.T) {
	ts := StartVPCS(t)
	c := &kit.Controller{API: ts.API, T: t, PID: "4c5ab1f0-7e2d-4d3a-9a61-2f0c3b7d9e11"}
	ts.Do("POST", "/v2/compute/projects", map[string]any{"name": "natlab", "project_id": c.PID}).Want(t, 201)

	// GNS3's NAT view: name, node_id, project_id, status started and the
	// fixed nat0 port; nothing else (its schema has no other key).
	nat := c.Node("nat", "NAT1", map[string]any{"ports_mapping": []any{}})
	natID := nat["node_id"].(string)
	wantPorts := []any{map[string]any{"name": "nat0", "port_number": 0.0, "type": "ethernet", "interface": "nat0"}}
	if nat["status"] != "started" || !reflect.DeepEqual(nat["ports_mapping"], wantPorts) || len(nat) != 5 {
		t.Fatalf("NAT compute view %v; want status started, ports_mapping %v and no other key", nat, wantPorts)
	}
	natPath := "/v2/compute/projects/" + c.PID + "/nat/nodes/" + natID
	if got := ts.Do("GET", natPath, nil).Want(t, 200).JSON(t); !reflect.DeepEqual(got, nat) {
		t.Fatalf("GET %v; POST answered %v", got, nat)
	}
	// A change of its ports is ignored, as GNS3 does; a rename is not.
	other := []any{map[string]any{"name": "eth9", "port_number": 3, "type": "ethernet", "interface": "eth9"}}
	if got := ts.Do("PUT", natPath, map[string]any{"name": "NAT9", "ports_mapping": other}).Want(t, 200).JSON(t); got["name"] != "NAT9" || !reflect.DeepEqual(got["ports_mapping"], wantPorts) {
		t.Fatalf("PUT answered %v", got)
	}
	ts.Do("PUT", natPath, map[string]any{"console": 5000}).Want(t, 400) // not a key of GNS3's NAT schema
	// It is always started: every action leaves it so.
	for _, a := range []string{"stop", "suspend", "reload", "start"} {
		ts.Do("POST", natPath+"/"+a, map[string]any{}).Want(t, 204)
		if s := ts.Do("GET", natPath, nil).Want(t, 200).JSON(t)["status"]; s != "started" {
			t.Fatalf("after %s the NAT node is %v", a, s)
		}
	}

	pc := c.Node("vpcs", "PC1", map[string]any{"console_type": "telnet", "startup_script": "set pcname %h\n"})
	pcID := pc["node_id"].(string)
	c.Link(kit.ComputeEnd{Type: "vpcs", Node: pcID, Adapter: 0, Port: 0}, kit.ComputeEnd{Type: "nat", Node: natID, Adapter: 0, Port: 0})
	ts.Do("POST", c.NIOPath("nat", natID, 0, 1), kit.NIO(c.UDPPort(), 9, false)).Want(t, 400) // nat0 is its only port

	v := ts.Do("POST", "/v2/compute/projects/"+c.PID+"/vpcs/nodes/"+pcID+"/start", map[string]any{}).Want(t, 200).JSON(t)
	con := kit.DialConsole(t, "127.0.0.1", int(v["console"].(float64)))
	if !con.Expect("PC1>", true, 15*time.Second) {
		t.Fatalf("no prompt: %q", con.Seen.String())
	}
	if !con.Run("ip dhcp", "GW 192.168.122.1", 30*time.Second) {
		t.Fatalf("no DHCP lease from the NAT gateway through the NIOs:\n%s", kit.Printable(con.Log.String()))
	}
	lease := leaseRE.FindStringSubmatch(con.Seen.String())
	if lease == nil {
		t.Fatalf("lease outside 192.168.122.0/24:\n%s", kit.Printable(con.Seen.String()))
	}
	con.Expect("PC1>", false, 5*time.Second)
	h := &kit.Host{ID: pcID, Name: "PC1", IP: lease[1], Con: con}
	if !h.Pings("192.168.122.1", 20*time.Second) {
		t.Fatalf("the gateway does not answer ping through the NIOs:\n%s", kit.Printable(con.Log.String()))
	}
	t.Logf("console transcript through the NAT node's NIO:\n%s", kit.Printable(con.Log.String()))

	// Without the NAT port's NIO the gateway is out of reach; deleting the
	// node takes its view away.
	ts.Do("DELETE", c.NIOPath("nat", natID, 0, 0), nil).Want(t, 204)
	if !h.Silent("192.168.122.1") {
		t.Fatal("the gateway still answers after its NIO was deleted")
	}
	ts.Do("DELETE", natPath, nil).Want(t, 204)
	ts.Do("GET", natPath, nil).Want(t, 404)
}

// tcpService is a TCP service of the host on ip (a free port): it counts
// the connections it accepts and reads each until it closes. It ends with
// the test.
func tcpService(t *testing.T, ip string) (int, *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp4", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			go func() {
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
	return ln.Addr().(*net.TCPAddr).Port, &accepted
}

// connects has VPCS open a TCP connection to port at the gateway's address
// ("Connect   PORT@192.168.122.1 seq=1 ttl=64 time=0.5 ms") and waits for
// the host's service to count it.
func connects(t *testing.T, con *kit.Console, port int, accepted *atomic.Int32, what string) {
	t.Helper()
	before := accepted.Load()
	con.Drain()
	if !con.Run(fmt.Sprintf("ping 192.168.122.1 -P 6 -p %d -c 1", port), fmt.Sprintf("Connect   %d@192.168.122.1 seq=", port), 20*time.Second) {
		t.Fatalf("no TCP connection to %s (port %d) through the gateway:\n%s", what, port, kit.Printable(con.Log.String()))
	}
	con.Expect("pc1>", false, 10*time.Second)
	for end := time.Now().Add(5 * time.Second); accepted.Load() == before && time.Now().Before(end); {
		time.Sleep(50 * time.Millisecond)
	}
	if accepted.Load() == before {
		t.Fatalf("VPCS connected, but %s saw no connection", what)
	}
}

// connectRefused has VPCS try a TCP connection to port at the gateway's
// address and wants it reset: "Connect   PORT@192.168.122.1 RST returned".
func connectRefused(t *testing.T, con *kit.Console, port int, what string) {
	t.Helper()
	con.Drain()
	if !con.Run(fmt.Sprintf("ping 192.168.122.1 -P 6 -p %d -c 1", port), fmt.Sprintf("Connect   %d@192.168.122.1 RST returned", port), 20*time.Second) {
		t.Fatalf("%s (port %d) was not refused through the gateway:\n%s", what, port, kit.Printable(con.Log.String()))
	}
	con.Expect("pc1>", false, 10*time.Second)
	if strings.Contains(con.Seen.String(), fmt.Sprintf("Connect   %d@192.168.122.1 seq=", port)) {
		t.Fatalf("the lab connected to %s:\n%s", what, kit.Printable(con.Seen.String()))
	}
}

// hostNetworkAddress gives this machine a network address for the test: a
// dummy interface holding 10.254.77.1/32 (root), or where the kernel has
// no dummy interfaces (make test's lab namespace has only loopback) one
// end of a veth pair, removed when the test ends; without root, an IPv4
// address one of its interfaces has.
func hostNetworkAddress(t *testing.T) string {
	t.Helper()
	name := fmt.Sprintf("ndnat%d", os.Getpid()%100000)
	const ip = "10.254.77.1"
	made := func(args ...string) bool {
		return exec.Command("ip", append([]string{"link", "add", name}, args...)...).Run() == nil
	}
	if os.Geteuid() == 0 && (made("type", "dummy") || made("type", "veth", "peer", "name", name+"p")) {
		t.Cleanup(func() { _ = exec.Command("ip", "link", "del", name).Run() })
		if out, err := exec.Command("ip", "addr", "add", ip+"/32", "dev", name).CombinedOutput(); err != nil {
			t.Fatalf("ip addr add: %v: %s", err, out)
		}
		for _, dev := range []string{name, name + "p"} {
			if out, err := exec.Command("ip", "link", "set", dev, "up").CombinedOutput(); err != nil && dev == name {
				t.Fatalf("ip link set up: %v: %s", err, out)
			}
		}
		return ip
	}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			return n.IP.String()
		}
	}
	kit.Unavailable(t, "this machine has no network address, and no dummy interface or veth pair can be made (needs root)")
	return ""
}
