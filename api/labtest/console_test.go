package labtest

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"nodedesk/app/kit"
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
	ts := Start(t, Options{DataPlane: true})
	pid := ts.MustCreateProject("lab")
	a, b := kit.NewUDPPeer(t), kit.NewUDPPeer(t)
	cloud := ts.CloudTunnels(t, pid, a, b)

	// A switch has no console until asked; "none", as the GNS3 desktop
	// GUI sends it, is no console.
	sw := ts.MustCreateNode(pid, map[string]any{"node_type": "ethernet_switch", "name": "Access1", "console_type": "none",
		"properties": map[string]any{"ports_mapping": []any{kit.SwitchPort(0, "access", 10, ""), kit.SwitchPort(1, "access", 10, ""), kit.SwitchPort(2, "dot1q", 1, "")}}})
	if sw["console"] != nil || sw["console_type"] != nil {
		t.Fatalf("new switch console %v %v, want null null", sw["console"], sw["console_type"])
	}
	path := "/v2/projects/" + pid + "/nodes/" + sw["node_id"].(string)
	sw = ts.Do("PUT", path, map[string]any{"console_type": "telnet"}).Want(t, 200).JSON(t)
	port, ok := sw["console"].(float64)
	if sw["console_type"] != "telnet" || !ok {
		t.Fatalf("switch after console_type telnet: console %v %v", sw["console"], sw["console_type"])
	}

	ts.Link(t, pid, cloud, 0, sw["node_id"].(string), 0)
	ts.Link(t, pid, cloud, 1, sw["node_id"].(string), 1)
	a.Send(t, kit.EthFrame(kit.Broadcast, kit.MACA, []byte("who is there")))
	b.Receive(200*time.Millisecond, 2*time.Second)
	b.Send(t, kit.EthFrame(kit.MACA, kit.MACB, []byte("me")))
	if !kit.Holds(a.Receive(200*time.Millisecond, 2*time.Second), "me") {
		t.Fatal("the answer did not cross the switch")
	}

	c := kit.DialConsole(t, "127.0.0.1", int(port))
	if !c.Expect("Access1> ", false, 5*time.Second) {
		t.Fatalf("no prompt on the switch console: %q", c.Seen.String())
	}
	// The MAC table, shortened as a switch user types it.
	if !c.Run("sh mac add", "addresses", 5*time.Second) {
		t.Fatalf("show mac address-table: %q", c.Seen.String())
	}
	out := kit.Printable(c.Seen.String())
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
	c.Drain()
	if !c.Run("show interfaces", "Access1> ", 5*time.Second) {
		t.Fatalf("show interfaces: %q", c.Seen.String())
	}
	out = kit.Printable(c.Seen.String())
	for _, p := range []string{"Ethernet0", "Ethernet1"} {
		if f := row(out, p); len(f) != 8 || f[1] != "access" || f[2] != "10" || f[3] != "1" || f[4] != "60" || f[5] != "1" || f[6] != "60" || f[7] != "0" {
			t.Errorf("counters of %s: %v, want access VLAN 10, 1 frame of 60 bytes in and out:\n%s", p, f, out)
		}
	}
	if !c.Run("bogus", "Unknown command", 5*time.Second) {
		t.Errorf("an unknown command is not explained: %q", c.Seen.String())
	}

	// A rename shows in the prompt.
	ts.Do("PUT", path, map[string]any{"name": "Core1"}).Want(t, 200)
	if !c.Expect("Core1> ", true, 5*time.Second) {
		t.Fatalf("prompt after the rename: %q", c.Seen.String())
	}

	t.Logf("switch console transcript:\n%s", kit.Printable(c.Log.String()))

	// No console: the session ends and the port is closed.
	ts.Do("PUT", path, map[string]any{"console_type": nil}).Want(t, 200)
	_ = c.Conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 256)
	for {
		if _, err := c.Conn.Read(buf); err != nil {
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

// A node's console over a websocket (GNS3 2.2's console/ws), with a real
// VPCS behind it.

// wsConsole is a websocket client of a node's console.
type wsConsole struct {
	t    *testing.T
	c    *websocket.Conn
	seen bytes.Buffer
}

func (ts *Lab) dialConsoleWS(t *testing.T, path string, header http.Header) (*wsConsole, *http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+path, &websocket.DialOptions{HTTPHeader: header})
	if err != nil {
		return nil, resp, err
	}
	t.Cleanup(func() { c.CloseNow() })
	return &wsConsole{t: t, c: c}, resp, nil
}

func (w *wsConsole) send(s string) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := w.c.Write(ctx, websocket.MessageText, []byte(s)); err != nil {
		w.t.Fatalf("writing to the console websocket: %v", err)
	}
}

// expect reads binary messages until want has appeared, within limit.
func (w *wsConsole) expect(want string, limit time.Duration) bool {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	for !strings.Contains(w.seen.String(), want) {
		typ, b, err := w.c.Read(ctx)
		if err != nil {
			return false
		}
		if typ != websocket.MessageBinary {
			w.t.Errorf("console message of type %v, want binary", typ)
		}
		w.seen.Write(b)
	}
	return true
}

// closed reports whether the server ends the websocket within limit.
func (w *wsConsole) closed(limit time.Duration) bool {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	for {
		if _, _, err := w.c.Read(ctx); err != nil {
			return ctx.Err() == nil
		}
	}
}

func TestConsoleWS(t *testing.T) {
	ts := StartVPCS(t)
	pid := ts.MustCreateProject("lab")
	n := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": "pc1",
		"properties": map[string]any{"startup_script": "set pcname pc1\nip 10.0.0.1/24 10.0.0.254\n"}})
	nid := n["node_id"].(string)
	path := "/v2/projects/" + pid + "/nodes/" + nid

	// Refused before the upgrade, with a JSON error.
	for _, tc := range []struct {
		name, path string
		status     int
	}{
		{"stopped node", path + "/console/ws", http.StatusConflict},
		{"unknown node", "/v2/projects/" + pid + "/nodes/" + uuid.NewString() + "/console/ws", http.StatusNotFound},
		{"compute path of another type", "/v2/compute/projects/" + pid + "/ethernet_switch/nodes/" + nid + "/console/ws", http.StatusNotFound},
	} {
		_, resp, err := ts.dialConsoleWS(t, tc.path, nil)
		if err == nil || resp == nil || resp.StatusCode != tc.status {
			t.Fatalf("%s: websocket answered %v (%v), want %d", tc.name, resp, err, tc.status)
		}
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("%s: refusal of type %q, want JSON", tc.name, ct)
		}
	}
	if r := ts.Do("GET", path+"/console/ws", nil); r.Status != http.StatusBadRequest {
		t.Errorf("a plain GET of console/ws answered %d, want 400", r.Status)
	}

	ts.Do("POST", path+"/start", nil).Want(t, 200)
	a, _, err := ts.dialConsoleWS(t, path+"/console/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := ts.dialConsoleWS(t, "/v2/compute/projects/"+pid+"/vpcs/nodes/"+nid+"/console/ws", nil)
	if err != nil {
		t.Fatalf("compute console/ws: %v", err)
	}
	// Typing into one client; both see the answer (one console, shared).
	a.send("\r")
	if !a.expect("pc1>", 15*time.Second) {
		t.Fatalf("no prompt over the websocket: %q", a.seen.String())
	}
	deadline := time.Now().Add(15 * time.Second)
	for !a.expect("10.0.0.1", time.Second) && time.Now().Before(deadline) {
		a.send("show ip\r") // VPCS drops keys typed while it is busy: type again
	}
	if !strings.Contains(a.seen.String(), "255.255.255.0") {
		t.Fatalf("show ip over the websocket: %q", a.seen.String())
	}
	if !b.expect("10.0.0.1", 5*time.Second) {
		t.Fatalf("the second client did not see the first one's session: %q", b.seen.String())
	}

	// A cross-site page cannot open it.
	if _, resp, err := ts.dialConsoleWS(t, path+"/console/ws", http.Header{"Origin": {"http://evil.example"}}); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a websocket from another origin was not refused: %v", err)
	}

	// Reset drops the clients; a new one connects and works.
	ts.Do("POST", path+"/console/reset", nil).Want(t, http.StatusNoContent)
	if !a.closed(5*time.Second) || !b.closed(5*time.Second) {
		t.Fatal("console/reset left the websocket clients connected")
	}
	c, _, err := ts.dialConsoleWS(t, path+"/console/ws", nil)
	if err != nil {
		t.Fatalf("a new client after the reset: %v", err)
	}
	c.send("\r")
	if !c.expect("pc1>", 10*time.Second) {
		t.Fatalf("no prompt after the reset: %q", c.seen.String())
	}
	ts.Do("POST", "/v2/projects/"+pid+"/nodes/console/reset", nil).Want(t, http.StatusNoContent)
	if !c.closed(5 * time.Second) {
		t.Fatal("the project's console/reset left a client connected")
	}
	ts.Do("POST", "/v2/projects/"+uuid.NewString()+"/nodes/console/reset", nil).Want(t, http.StatusNotFound)

	// Stopping the node ends the websocket.
	d, _, err := ts.dialConsoleWS(t, path+"/console/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	ts.Do("POST", path+"/stop", nil).Want(t, 200)
	if !d.closed(10 * time.Second) {
		t.Fatal("the websocket stayed open after the node stopped")
	}
}

func TestConsoleWS_Switch(t *testing.T) {
	ts := Start(t, Options{DataPlane: true})
	pid := ts.MustCreateProject("lab")
	sw := ts.MustCreateNode(pid, map[string]any{"node_type": "ethernet_switch", "name": "Sw1", "console_type": "telnet"})
	c, _, err := ts.dialConsoleWS(t, "/v2/projects/"+pid+"/nodes/"+sw["node_id"].(string)+"/console/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !c.expect("Sw1> ", 5*time.Second) {
		t.Fatalf("no switch prompt: %q", c.seen.String())
	}
	c.send("show vlan\r")
	if !c.expect("Ethernet7", 5*time.Second) {
		t.Fatalf("show vlan over the websocket: %q", c.seen.String())
	}
}
