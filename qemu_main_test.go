package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"nodedesk/app/kit"
	"nodedesk/app/qemu/qemutest"
)

// qemuRunning reports whether a qemu-system process runs for a node.
func qemuRunning(nodeID string) bool { return qemutest.PID(nodeID) != 0 }

// waitQEMUGone waits (bounded) until no qemu runs for nodeID.
func waitQEMUGone(t *testing.T, nodeID, after string) {
	t.Helper()
	if !kit.WaitFor(15*time.Second, func() bool { return !qemuRunning(nodeID) }) {
		t.Fatalf("a qemu still runs for node %s %s", nodeID, after)
	}
}

// TestMain_QEMULeftBehind: quitting nodedesk ends its guests; after kill -9
// of nodedesk with guests running, the next nodedesk finds no guest left
// and shows the nodes stopped.
func TestMain_QEMULeftBehind(t *testing.T) {
	qemutest.Binary(t)
	db := filepath.Join(t.TempDir(), "q.db")
	env := sandboxEnv(t)
	args := []string{"--headless", "--listen", "127.0.0.1:0", "--db", db}
	p := start(t, env, args...)
	url := p.waitServing(t)
	_, body := call(t, "POST", url+"/v2/projects", map[string]any{"name": "q"})
	var proj struct {
		ProjectID string `json:"project_id"`
	}
	_ = json.Unmarshal(body, &proj)
	var nodes []string
	for i := 0; i < 2; i++ { // guests with no disk: the firmware waits for one, which is all this needs
		_, body = call(t, "POST", url+"/v2/projects/"+proj.ProjectID+"/nodes", map[string]any{"node_type": "qemu",
			"properties": map[string]any{"ram": 32}})
		var node struct {
			NodeID string `json:"node_id"`
		}
		_ = json.Unmarshal(body, &node)
		nodes = append(nodes, node.NodeID)
	}
	startAll := func(base string) {
		t.Helper()
		if code, body := call(t, "POST", base+"/v2/projects/"+proj.ProjectID+"/nodes/start", nil); code != 204 {
			t.Fatalf("start all: %d %s", code, body)
		}
		for _, id := range nodes {
			if !qemuRunning(id) {
				t.Fatalf("no qemu runs for %s after start", id)
			}
		}
	}
	statuses := func(base string) []string {
		t.Helper()
		_, body := call(t, "GET", base+"/v2/projects/"+proj.ProjectID+"/nodes", nil)
		var got []struct{ Status string }
		_ = json.Unmarshal(body, &got)
		var out []string
		for _, n := range got {
			out = append(out, n.Status)
		}
		return out
	}

	startAll(url)
	p.stop(t) // SIGTERM: exit 0
	for _, id := range nodes {
		waitQEMUGone(t, id, "after nodedesk quit")
	}

	p = start(t, env, args...)
	url = p.waitServing(t)
	startAll(url)
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.done
	p = start(t, env, args...)
	url = p.waitServing(t)
	for _, id := range nodes {
		waitQEMUGone(t, id, "after nodedesk was killed and started again")
	}
	if got := statuses(url); strings.Join(got, ",") != "stopped,stopped" {
		t.Errorf("after a crash the nodes are %v at start-up, want stopped", got)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(db), "run", "qemu", "*")); len(left) != 0 {
		t.Errorf("records of guests left after start-up: %v", left)
	}
	p.stop(t)
}
