package api

import (
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The NAT node is a user-mode gateway (app/natgw): a real VPCS behind it
// gets a DHCP lease, pings the gateway, and reaches a TCP service on the
// host's loopback through the gateway's address, but not nodedesk's API.
// All traffic stays on this machine.
func TestNAT_DHCPPingAndHostService(t *testing.T) {
	ts := newVPCSServer(t)
	pid := ts.mustCreateProject("lab")
	nat := ts.mustCreateNode(pid, map[string]any{"node_type": "nat"})["node_id"].(string)
	sw := mustCreateSwitch(ts, t, pid, nil)
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
	if !strings.Contains(con.seen.String(), "IP 192.168.122.") {
		t.Fatalf("lease outside 192.168.122.0/24:\n%s", printable(con.seen.String()))
	}
	con.expect("pc1>", false, 5*time.Second)
	h := &labHost{id: pc, name: "pc1", con: con}
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
}
