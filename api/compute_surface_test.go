package api

import (
	"context"
	"crypto/md5"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"syscall"
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
	connected := make(chan struct{})
	go func() {
		req, _ := http.NewRequest("GET", ts.url+port1+"/pcap", nil)
		req.Host = "127.0.0.1"
		resp, err := ts.client.Do(req)
		close(connected) // the stream has answered (or failed): the capture may end now
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
	select { // the pcap client must be connected before the capture ends; it reads the whole file either way
	case <-connected:
	case <-time.After(10 * time.Second):
		t.Fatal("the pcap stream did not answer")
	}
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

// A VPCS that stops by itself is a log.error on the compute stream, as
// GNS3's compute says it; nodedesk's own streams carry only the status.
func TestCompute_ProcessExitLogged(t *testing.T) {
	ts := newVPCSServer(t)
	c := &gns3Controller{ts: ts, t: t, pid: uuid.NewString()}
	ts.do("POST", "/v2/compute/projects", map[string]any{"name": "log", "project_id": c.pid}).want(t, 201)
	pc := c.node("vpcs", "PCX", map[string]any{"console_type": "telnet"})
	path := "/v2/compute/projects/" + c.pid + "/vpcs/nodes/" + pc["node_id"].(string)
	compute, _ := ts.wsListen(t, "/v2/compute/notifications/ws")
	project, _ := ts.wsListen(t, "/v2/projects/"+c.pid+"/notifications/ws")
	ts.do("POST", path+"/start", map[string]any{}).want(t, 200)
	vpid := vpcsPID(ts.do("GET", path, nil).json(t)["node_directory"].(string))
	if vpid == 0 {
		t.Fatal("no vpcs process")
	}
	if err := syscall.Kill(vpid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for {
		e := compute()
		if e.Action == "log.error" {
			if msg, _ := e.Event["message"].(string); !strings.Contains(msg, "PCX") {
				t.Fatalf("log.error %v does not name the node", e.Event)
			}
			break
		}
		if e.Action != "node.updated" {
			t.Fatalf("compute stream: %s %v", e.Action, e.Event)
		}
	}
	ts.do("PUT", path, map[string]any{"name": "PCY"}).want(t, 200)
	for {
		e := project()
		if e.Action == "log.error" {
			t.Fatalf("a project stream carried log.error: %v", e.Event)
		}
		if e.Event["name"] == "PCY" {
			break
		}
	}
}

// A GNS3 controller duplicates a node by creating the copy, then asking
// the compute to complete it: the VPCS's script goes with it.
func TestCompute_Duplicate(t *testing.T) {
	ts := mustOpenServer(t)
	c := &gns3Controller{ts: ts, t: t, pid: uuid.NewString()}
	ts.do("POST", "/v2/compute/projects", map[string]any{"name": "dup", "project_id": c.pid}).want(t, 201)
	src := c.node("vpcs", "PC1", map[string]any{"startup_script": "ip 10.0.0.9/24\n"})
	// The copy comes with the source's console port, as GNS3's controller
	// sends it: a compute gives it another, as GNS3's does.
	dst := c.node("vpcs", "PC2", map[string]any{"console": src["console"]})
	if dst["console"] == src["console"] || dst["console"] == nil {
		t.Fatalf("copy's console %v, source's %v", dst["console"], src["console"])
	}
	base := "/v2/compute/projects/" + c.pid + "/vpcs/nodes/"
	got := ts.do("POST", base+src["node_id"].(string)+"/duplicate", map[string]any{"destination_node_id": dst["node_id"]}).want(t, 201).json(t)
	if got["node_id"] != dst["node_id"] || got["startup_script"] != "ip 10.0.0.9/24\n" {
		t.Fatalf("duplicate answered %v", got)
	}
	ts.do("POST", base+src["node_id"].(string)+"/duplicate", map[string]any{"destination_node_id": uuid.NewString()}).want(t, 404)
}

// A GNS3 controller exports a project by listing a compute's files, then
// reading each: a VPCS's startup.vpc is one.
func TestCompute_Files(t *testing.T) {
	ts := mustOpenServer(t)
	c := &gns3Controller{ts: ts, t: t, pid: uuid.NewString()}
	ts.do("POST", "/v2/compute/projects", map[string]any{"name": "files", "project_id": c.pid}).want(t, 201)
	pc := c.node("vpcs", "PC1", map[string]any{"startup_script": "ip 10.0.0.7/24\n"})
	files := ts.do("GET", "/v2/compute/projects/"+c.pid+"/files", nil).want(t, 200).list(t)
	want := "project-files/vpcs/" + pc["node_id"].(string) + "/startup.vpc"
	var sum any
	for _, f := range files {
		if f["path"] == want {
			sum = f["md5sum"]
		}
	}
	if sum == nil {
		t.Fatalf("files %v lack %s", files, want)
	}
	body := ts.do("GET", "/v2/compute/projects/"+c.pid+"/files/"+want, nil).want(t, 200).body
	if string(body) != "ip 10.0.0.7/24\n" || fmt.Sprintf("%x", md5.Sum(body)) != sum {
		t.Fatalf("file %q, md5 listed %v", body, sum)
	}
}
