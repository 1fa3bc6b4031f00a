package api

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"
)

// A node's console over a websocket (GNS3 2.2's console/ws), with a real
// VPCS behind it.

// wsConsole is a websocket client of a node's console.
type wsConsole struct {
	t    *testing.T
	c    *websocket.Conn
	seen bytes.Buffer
}

func (ts *testServer) dialConsoleWS(t *testing.T, path string, header http.Header) (*wsConsole, *http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.url, "http")+path, &websocket.DialOptions{HTTPHeader: header})
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
	ts := newVPCSServer(t)
	pid := ts.mustCreateProject("lab")
	n := ts.mustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": "pc1",
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
	if r := ts.do("GET", path+"/console/ws", nil); r.status != http.StatusBadRequest {
		t.Errorf("a plain GET of console/ws answered %d, want 400", r.status)
	}

	ts.do("POST", path+"/start", nil).want(t, 200)
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
	ts.do("POST", path+"/console/reset", nil).want(t, http.StatusNoContent)
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
	ts.do("POST", "/v2/projects/"+pid+"/nodes/console/reset", nil).want(t, http.StatusNoContent)
	if !c.closed(5 * time.Second) {
		t.Fatal("the project's console/reset left a client connected")
	}
	ts.do("POST", "/v2/projects/"+uuid.NewString()+"/nodes/console/reset", nil).want(t, http.StatusNotFound)

	// Stopping the node ends the websocket.
	d, _, err := ts.dialConsoleWS(t, path+"/console/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	ts.do("POST", path+"/stop", nil).want(t, 200)
	if !d.closed(10 * time.Second) {
		t.Fatal("the websocket stayed open after the node stopped")
	}
}

func TestConsoleWS_Switch(t *testing.T) {
	ts := mustOpenServerWith(t, testOptions{fabric: true})
	pid := ts.mustCreateProject("lab")
	sw := ts.mustCreateNode(pid, map[string]any{"node_type": "ethernet_switch", "name": "Sw1", "console_type": "telnet"})
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
