package api

import (
	"context"
	"crypto/md5"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"nodedesk/app"
)

// nodedesk as a GNS3 compute: the test plays a GNS3 2.2.59 controller and
// makes its exact calls (issue15-design C.2 to C.4): every link, even
// between two nodes of one compute, is two nio_udp on 127.0.0.1 through
// ports the controller reserves with ports/udp. The compute websocket,
// duplicates and files are here; what runs traffic through a compute
// (VPCS, the data plane, captures) is in app/labtest.

// gns3Controller is the test's controller: it calls the compute paths.
type gns3Controller struct {
	ts  *testServer
	t   *testing.T
	pid string
}

// node creates a node of type typ on the compute, with body as a GNS3
// controller sends it (node_id and name added).
func (c *gns3Controller) node(typ, name string, body map[string]any) map[string]any {
	c.t.Helper()
	body["node_id"], body["name"] = uuid.NewString(), name
	return c.ts.do("POST", "/v2/compute/projects/"+c.pid+"/"+typ+"/nodes", body).want(c.t, 201).json(c.t)
}

// udpPort reserves a UDP port on the compute.
func (c *gns3Controller) udpPort() int {
	c.t.Helper()
	return int(c.ts.do("POST", "/v2/compute/projects/"+c.pid+"/ports/udp", nil).want(c.t, 201).json(c.t)["udp_port"].(float64))
}

// nioPath is the NIO path of a node's port.
func (c *gns3Controller) nioPath(typ, node string, adapter, port int) string {
	return fmt.Sprintf("/v2/compute/projects/%s/%s/nodes/%s/adapters/%d/ports/%d/nio", c.pid, typ, node, adapter, port)
}

// nio is the body GNS3's UDPLink sends.
func nio(lport, rport int, suspend bool) map[string]any {
	return map[string]any{"type": "nio_udp", "lport": lport, "rhost": "127.0.0.1", "rport": rport, "filters": map[string]any{}, "suspend": suspend}
}

// computeEnd is one end of a link as the controller knows it.
type computeEnd struct {
	typ, node     string
	adapter, port int
}

// link makes a link as GNS3's UDPLink does: a port on each side, then the
// NIO of side 1, then side 2. It returns the lports.
func (c *gns3Controller) link(a, b computeEnd) (int, int) {
	c.t.Helper()
	pa, pb := c.udpPort(), c.udpPort()
	c.ts.do("POST", c.nioPath(a.typ, a.node, a.adapter, a.port), nio(pa, pb, false)).want(c.t, 201)
	c.ts.do("POST", c.nioPath(b.typ, b.node, b.adapter, b.port), nio(pb, pa, false)).want(c.t, 201)
	return pa, pb
}

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

// TestComputeFilter_LocalNodesOnly: the compute stream tells a node's
// change only for a node that lives here, not for one this nodedesk's
// controller runs on another compute.
func TestComputeFilter_LocalNodesOnly(t *testing.T) {
	local := &app.Node{ID: "a", Type: app.VPCS}
	remote := &app.Node{ID: "b", Type: app.VPCS, ComputeID: "other"}
	if !computeFilter(app.Event{Action: app.EventNodeUpdated, Payload: local}) {
		t.Error("a local node's node.updated is not sent on the compute stream")
	}
	if computeFilter(app.Event{Action: app.EventNodeUpdated, Payload: remote}) {
		t.Error("a remote node's node.updated is sent on the compute stream")
	}
}
