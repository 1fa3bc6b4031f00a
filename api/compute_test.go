package api

import (
	"context"
	"crypto/md5"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"nodedesk/app"
	"nodedesk/app/kit"
)

// nodedesk as a GNS3 compute: the test plays a GNS3 2.2.59 controller and
// makes its exact calls (issue15-design C.2 to C.4): every link, even
// between two nodes of one compute, is two nio_udp on 127.0.0.1 through
// ports the controller reserves with ports/udp (kit.Controller plays
// it). The compute websocket, duplicates and files are here; what runs
// traffic through a compute (VPCS, the data plane, captures) is in
// api/labtest.

func TestCompute_NotificationStream(t *testing.T) {
	ts := mustOpenServer(t)
	c := &kit.Controller{API: ts.API, T: t, PID: uuid.NewString()}
	ts.Do("POST", "/v2/compute/projects", map[string]any{"name": "ws", "project_id": c.PID}).Want(t, 201)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/v2/compute/notifications/ws", nil)
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
	sw := c.Node("ethernet_switch", "SW", map[string]any{"console_type": "none"})
	hub := c.Node("ethernet_hub", "HUB", map[string]any{})
	ts.Do("POST", "/v2/projects/"+c.PID+"/links", map[string]any{"nodes": []any{kit.End(sw["node_id"].(string), 0, 0), kit.End(hub["node_id"].(string), 0, 0)}}).Want(t, 201)
	ts.Do("PUT", "/v2/compute/projects/"+c.PID+"/ethernet_switch/nodes/"+sw["node_id"].(string), map[string]any{"name": "SW2"}).Want(t, 200)
	for {
		m := read()
		if m.Action == "ping" {
			continue
		}
		if m.Action != "node.updated" {
			t.Fatalf("the compute stream carried %s (a controller's event): %+v", m.Action, m)
		}
		if m.ProjectID != c.PID || m.Event["node_id"] != sw["node_id"] || m.Event["ports_mapping"] == nil || m.Event["x"] != nil {
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
	c := &kit.Controller{API: ts.API, T: t, PID: uuid.NewString()}
	ts.Do("POST", "/v2/compute/projects", map[string]any{"name": "dup", "project_id": c.PID}).Want(t, 201)
	src := c.Node("vpcs", "PC1", map[string]any{"startup_script": "ip 10.0.0.9/24\n"})
	// The copy comes with the source's console port, as GNS3's controller
	// sends it: a compute gives it another, as GNS3's does.
	dst := c.Node("vpcs", "PC2", map[string]any{"console": src["console"]})
	if dst["console"] == src["console"] || dst["console"] == nil {
		t.Fatalf("copy's console %v, source's %v", dst["console"], src["console"])
	}
	base := "/v2/compute/projects/" + c.PID + "/vpcs/nodes/"
	// The source's folder replaces the copy's, as GNS3's compute copies it;
	// not while the source runs.
	mustWrite(t, filepath.Join(src["node_directory"].(string), "notes.txt"), []byte("kept"))
	mustWrite(t, filepath.Join(dst["node_directory"].(string), "stale.txt"), []byte("gone"))
	ts.Do("POST", base+src["node_id"].(string)+"/start", nil).Want(t, 200)
	ts.Do("POST", base+src["node_id"].(string)+"/duplicate", map[string]any{"destination_node_id": dst["node_id"]}).Want(t, 409)
	ts.Do("POST", base+src["node_id"].(string)+"/stop", nil).Want(t, 204)
	got := ts.Do("POST", base+src["node_id"].(string)+"/duplicate", map[string]any{"destination_node_id": dst["node_id"]}).Want(t, 201).JSON(t)
	if got["node_id"] != dst["node_id"] || got["startup_script"] != "ip 10.0.0.9/24\n" {
		t.Fatalf("duplicate answered %v", got)
	}
	if b, err := os.ReadFile(filepath.Join(dst["node_directory"].(string), "notes.txt")); err != nil || string(b) != "kept" {
		t.Errorf("copy's notes.txt %q, %v; want the source's", b, err)
	}
	if _, err := os.Stat(filepath.Join(dst["node_directory"].(string), "stale.txt")); !os.IsNotExist(err) {
		t.Errorf("the copy's own folder was not replaced: %v", err)
	}
	ts.Do("POST", base+src["node_id"].(string)+"/duplicate", map[string]any{"destination_node_id": src["node_id"]}).Want(t, 400)
	ts.Do("POST", base+src["node_id"].(string)+"/duplicate", map[string]any{"destination_node_id": uuid.NewString()}).Want(t, 404)
}

// A GNS3 controller exports a project by listing a compute's files, then
// reading each: a VPCS's startup.vpc is one.
func TestCompute_Files(t *testing.T) {
	ts := mustOpenServer(t)
	c := &kit.Controller{API: ts.API, T: t, PID: uuid.NewString()}
	ts.Do("POST", "/v2/compute/projects", map[string]any{"name": "files", "project_id": c.PID}).Want(t, 201)
	pc := c.Node("vpcs", "PC1", map[string]any{"startup_script": "ip 10.0.0.7/24\n"})
	files := ts.Do("GET", "/v2/compute/projects/"+c.PID+"/files", nil).Want(t, 200).List(t)
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
	body := ts.Do("GET", "/v2/compute/projects/"+c.PID+"/files/"+want, nil).Want(t, 200).Body
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
