package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"
)

// The rest of the compute surface a GNS3 controller calls (issue15-design
// C.2, C.3): the compute websocket, capture on a port's NIO, the host's
// interfaces and ports, project variables, close and delete. Frames come
// from the test's own UDP sockets on 127.0.0.1, the far ends of the NIOs.

func TestCompute_NotificationStream(t *testing.T) {
	ts := mustOpenServer(t)
	c := &gns3Controller{ts: ts, t: t, pid: uuid.NewString()}
	ts.do("POST", "/v2/compute/projects", map[string]any{"name": "ws", "project_id": c.pid}).want(t, 201)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.url, "http")+"/v2/compute/notifications/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	type msg struct {
		Action    string         `json:"action"`
		Event     map[string]any `json:"event"`
		ProjectID string         `json:"project_id"`
	}
	read := func() msg {
		t.Helper()
		_, b, err := ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var m msg
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	// GNS3's controller reads both keys of every ping (a KeyError ends its
	// reader for good).
	first := read()
	if _, cpu := first.Event["cpu_usage_percent"]; first.Action != "ping" || !cpu || first.Event["memory_usage_percent"] == nil {
		t.Fatalf("first message %+v, want a ping with cpu_usage_percent and memory_usage_percent", first)
	}
	// Controller events (node.created, link.*) never come; a node's change
	// comes as its compute view, the project at the top level.
	sw := c.node("ethernet_switch", "SW", map[string]any{"console_type": "none"})
	hub := c.node("ethernet_hub", "HUB", map[string]any{})
	ts.do("POST", "/v2/projects/"+c.pid+"/links", map[string]any{"nodes": []any{end(sw["node_id"].(string), 0, 0), end(hub["node_id"].(string), 0, 0)}}).want(t, 201)
	ts.do("PUT", "/v2/compute/projects/"+c.pid+"/ethernet_switch/nodes/"+sw["node_id"].(string), map[string]any{"name": "SW2"}).want(t, 200)
	for {
		m := read()
		if m.Action == "ping" {
			continue
		}
		if m.Action != "node.updated" {
			t.Fatalf("the compute stream carried %s (a controller's event): %+v", m.Action, m)
		}
		if m.ProjectID != c.pid || m.Event["node_id"] != sw["node_id"] || m.Event["ports_mapping"] == nil || m.Event["x"] != nil {
			t.Fatalf("node.updated is not the switch's compute view with project_id at the top: %+v", m)
		}
		if m.Event["name"] == "SW2" {
			break
		}
	}
}

func TestCompute_CaptureHostAndProject(t *testing.T) {
	ts := mustOpenServerWith(t, testOptions{fabric: true})
	c := &gns3Controller{ts: ts, t: t, pid: uuid.NewString()}
	ts.do("POST", "/v2/compute/projects", map[string]any{"name": "cap", "project_id": c.pid}).want(t, 201)
	hub := c.node("ethernet_hub", "HUB", map[string]any{})
	hid := hub["node_id"].(string)
	// Two far ends, the test's sockets, on ports 0 and 1 of the hub.
	var peers [2]*net.UDPConn
	var lports [2]int
	for i := range peers {
		conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		peers[i], lports[i] = conn, c.udpPort()
		ts.do("POST", c.nioPath("ethernet_hub", hid, 0, i), nio(lports[i], conn.LocalAddr().(*net.UDPAddr).Port, false)).want(t, 201)
	}
	// network/ports lists the NIOs' lports.
	np := ts.do("GET", "/v2/compute/network/ports", nil).want(t, 200).json(t)
	for _, p := range lports {
		if !slices.Contains(np["udp_ports"].([]any), any(float64(p))) {
			t.Errorf("network/ports udp_ports %v lacks lport %d", np["udp_ports"], p)
		}
	}

	port1 := fmt.Sprintf("/v2/compute/projects/%s/ethernet_hub/nodes/%s/adapters/0/ports/1", c.pid, hid)
	ts.do("GET", port1+"/pcap", nil).want(t, 409)
	cap := ts.do("POST", port1+"/start_capture", map[string]any{"capture_file_name": "hub.pcap", "data_link_type": "DLT_EN10MB"}).want(t, 200).json(t)
	if p, _ := cap["pcap_file_path"].(string); !strings.HasSuffix(p, "/project-files/captures/hub.pcap") {
		t.Fatalf("start_capture answered %v", cap)
	}
	ts.do("POST", port1+"/start_capture", map[string]any{"capture_file_name": "hub.pcap"}).want(t, 409)
	// The pcap is streamed as GNS3's controller proxies it: Host without a
	// port.
	streamed := make(chan []byte, 1)
	go func() {
		req, _ := http.NewRequest("GET", ts.url+port1+"/pcap", nil)
		req.Host = "127.0.0.1"
		resp, err := ts.client.Do(req)
		if err != nil || resp.StatusCode != 200 {
			streamed <- nil
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		streamed <- b
	}()
	frame := ethFrame(broadcast, macA, []byte("through-the-nio"))
	got := false
	for range 20 { // until the frame crosses (the stream may still be connecting: it reads the file from its start anyway)
		if _, err := peers[0].WriteToUDP(frame, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: lports[0]}); err != nil {
			t.Fatal(err)
		}
		_ = peers[1].SetReadDeadline(time.Now().Add(250 * time.Millisecond))
		buf := make([]byte, 2048)
		if n, err := peers[1].Read(buf); err == nil && strings.Contains(string(buf[:n]), "through-the-nio") {
			got = true
			break
		}
	}
	if !got {
		t.Fatal("a frame sent into port 0's NIO did not leave by port 1's")
	}
	time.Sleep(300 * time.Millisecond) // let the pcap client connect before the capture ends; it reads the whole file either way
	ts.do("POST", port1+"/stop_capture", nil).want(t, 204)
	select {
	case b := <-streamed:
		if !strings.Contains(string(b), "through-the-nio") {
			t.Fatalf("the streamed pcap (%d bytes) lacks the frame", len(b))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the pcap stream did not end with the capture")
	}

	// The host's interfaces, as GNS3's controller reads them.
	ifs := ts.do("GET", "/v2/compute/network/interfaces", nil).want(t, 200).list(t)
	lo := false
	for _, i := range ifs {
		if i["ip_address"] == "127.0.0.1" && i["netmask"] == "255.0.0.0" && i["special"] == true {
			lo = true
		}
	}
	if !lo {
		t.Errorf("network/interfaces lacks the loopback: %v", ifs)
	}
	ts.do("GET", "/v2/compute/qemu/images", nil).want(t, 200)

	// Variables, close (NIOs and reservations go, records stay), delete.
	pv := ts.do("PUT", "/v2/compute/projects/"+c.pid, map[string]any{"variables": []any{map[string]any{"name": "a", "value": "1"}}}).want(t, 200).json(t)
	if v, _ := pv["variables"].([]any); len(v) != 1 {
		t.Fatalf("PUT project answered %v", pv)
	}
	spare := c.udpPort()
	ts.do("POST", "/v2/compute/projects/"+c.pid+"/close", nil).want(t, 204)
	ts.do("PUT", c.nioPath("ethernet_hub", hid, 0, 0), nio(lports[0], 9, true)).want(t, 404)
	np = ts.do("GET", "/v2/compute/network/ports", nil).want(t, 200).json(t)
	for _, p := range append(lports[:], spare) {
		if slices.Contains(np["udp_ports"].([]any), any(float64(p))) {
			t.Errorf("after close, port %d is still held: %v", p, np["udp_ports"])
		}
	}
	ts.do("GET", "/v2/compute/projects/"+c.pid+"/ethernet_hub/nodes/"+hid, nil).want(t, 200)
	// A method the compute does not serve is a 404, which GNS3 maps, not
	// a 405, which it turns into its own 500.
	ts.do("PATCH", "/v2/compute/projects/"+c.pid+"/ethernet_hub/nodes/"+hid, nil).want(t, 404)
	ts.do("DELETE", "/v2/compute/projects/"+c.pid, nil).want(t, 204)
	ts.do("GET", "/v2/projects/"+c.pid, nil).want(t, 404)
}
