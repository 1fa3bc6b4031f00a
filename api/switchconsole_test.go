package api

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The Ethernet switch's telnet console: nodedesk's own shell, showing the
// MAC table per VLAN and per-port counters.

// row returns the fields of the first line of out that starts with first.
func row(out, first string) []string {
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == first {
			return f
		}
	}
	return nil
}

func TestSwitchConsole(t *testing.T) {
	ts := mustOpenServerWith(t, testOptions{fabric: true})
	pid := ts.mustCreateProject("lab")
	a, b := newUDPPeer(t), newUDPPeer(t)
	cloud := ts.cloudTunnels(t, pid, a, b)

	// A switch has no console until asked; "none", as the GNS3 desktop
	// GUI sends it, is no console.
	sw := ts.mustCreateNode(pid, map[string]any{"node_type": "ethernet_switch", "name": "Access1", "console_type": "none",
		"properties": map[string]any{"ports_mapping": []any{swPort(0, "access", 10, ""), swPort(1, "access", 10, ""), swPort(2, "dot1q", 1, "")}}})
	if sw["console"] != nil || sw["console_type"] != nil {
		t.Fatalf("new switch console %v %v, want null null", sw["console"], sw["console_type"])
	}
	path := "/v2/projects/" + pid + "/nodes/" + sw["node_id"].(string)
	sw = ts.do("PUT", path, map[string]any{"console_type": "telnet"}).want(t, 200).json(t)
	port, ok := sw["console"].(float64)
	if sw["console_type"] != "telnet" || !ok {
		t.Fatalf("switch after console_type telnet: console %v %v", sw["console"], sw["console_type"])
	}

	ts.link(t, pid, cloud, 0, sw["node_id"].(string), 0)
	ts.link(t, pid, cloud, 1, sw["node_id"].(string), 1)
	a.send(t, ethFrame(broadcast, macA, []byte("who is there")))
	b.receive(200*time.Millisecond, 2*time.Second)
	b.send(t, ethFrame(macA, macB, []byte("me")))
	if !holds(a.receive(200*time.Millisecond, 2*time.Second), "me") {
		t.Fatal("the answer did not cross the switch")
	}

	c := dialConsole(t, port)
	if !c.expect("Access1> ", false, 5*time.Second) {
		t.Fatalf("no prompt on the switch console: %q", c.seen.String())
	}
	// The MAC table, shortened as a switch user types it.
	if !c.run("sh mac add", "addresses", 5*time.Second) {
		t.Fatalf("show mac address-table: %q", c.seen.String())
	}
	out := printable(c.seen.String())
	for mac, want := range map[string][]string{"02:00:00:00:00:0a": {"10", "02:00:00:00:00:0a", "Ethernet0"}, "02:00:00:00:00:0b": {"10", "02:00:00:00:00:0b", "Ethernet1"}} {
		found := false
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) >= 3 && f[1] == mac {
				found = f[0] == want[0] && f[2] == want[2]
			}
		}
		if !found {
			t.Errorf("MAC table does not show %s on %s in VLAN %s:\n%s", mac, want[2], want[0], out)
		}
	}
	// Per-port counters: one 60-byte frame in and one out on each port.
	c.drain()
	if !c.run("show interfaces", "Access1> ", 5*time.Second) {
		t.Fatalf("show interfaces: %q", c.seen.String())
	}
	out = printable(c.seen.String())
	for _, p := range []string{"Ethernet0", "Ethernet1"} {
		if f := row(out, p); len(f) != 8 || f[1] != "access" || f[2] != "10" || f[3] != "1" || f[4] != "60" || f[5] != "1" || f[6] != "60" || f[7] != "0" {
			t.Errorf("counters of %s: %v, want access VLAN 10, 1 frame of 60 bytes in and out:\n%s", p, f, out)
		}
	}
	if !c.run("bogus", "Unknown command", 5*time.Second) {
		t.Errorf("an unknown command is not explained: %q", c.seen.String())
	}

	// A rename shows in the prompt.
	ts.do("PUT", path, map[string]any{"name": "Core1"}).want(t, 200)
	if !c.expect("Core1> ", true, 5*time.Second) {
		t.Fatalf("prompt after the rename: %q", c.seen.String())
	}

	t.Logf("switch console transcript:\n%s", printable(c.log.String()))

	// No console: the session ends and the port is closed.
	ts.do("PUT", path, map[string]any{"console_type": nil}).want(t, 200)
	_ = c.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 256)
	for {
		if _, err := c.conn.Read(buf); err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("the console session stayed open after console_type null")
			}
			break
		}
	}
	if conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(int(port)), time.Second); err == nil {
		conn.Close()
		t.Fatal("the console port still accepts connections after console_type null")
	}
}

func TestConsoleTypeNone(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.mustCreateProject("lab")
	q := ts.mustCreateNode(pid, map[string]any{"node_type": "qemu"})
	if q["console_type"] != "telnet" {
		t.Fatalf("qemu console_type %v", q["console_type"])
	}
	got := ts.do("PUT", "/v2/projects/"+pid+"/nodes/"+q["node_id"].(string), map[string]any{"console_type": "none"}).want(t, 200).json(t)
	if got["console_type"] != nil || got["console"] != nil {
		t.Fatalf(`after console_type "none": console %v %v, want null null`, got["console"], got["console_type"])
	}
}
