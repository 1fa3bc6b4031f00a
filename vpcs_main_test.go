package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"nodedesk/app/kit"
	"nodedesk/app/vpcs/vpcstest"
)

// vpcsRunning reports whether a vpcs process works in dir.
func vpcsRunning(dir string) bool { return vpcstest.LivePID(dir) != 0 }

// waitGone waits (bounded) until no vpcs process works in dir.
func waitGone(t *testing.T, dir, after string) {
	t.Helper()
	if !kit.WaitFor(10*time.Second, func() bool { return !vpcsRunning(dir) }) {
		t.Fatalf("a vpcs process still runs in %s %s", dir, after)
	}
}

// TestMain_VPCSLeftBehind: quitting nodedesk stops its VPCS processes and
// records them stopped; after a crash of nodedesk, the processes end with
// it and the next start finds no stale "started".
func TestMain_VPCSLeftBehind(t *testing.T) {
	vpcstest.MustHave(t)
	db := filepath.Join(t.TempDir(), "v.db")
	env := sandboxEnv(t)
	args := []string{"--headless", "--listen", "127.0.0.1:0", "--db", db}
	p := start(t, env, args...)
	url := p.waitServing(t)
	_, body := call(t, "POST", url+"/v2/projects", map[string]any{"name": "v"})
	var proj struct {
		ProjectID string `json:"project_id"`
	}
	_ = json.Unmarshal(body, &proj)
	_, body = call(t, "POST", url+"/v2/projects/"+proj.ProjectID+"/nodes", map[string]any{"node_type": "vpcs"})
	var node struct {
		NodeID string `json:"node_id"`
		Dir    string `json:"node_directory"`
		Status string `json:"status"`
	}
	_ = json.Unmarshal(body, &node)
	nodeURL := url + "/v2/projects/" + proj.ProjectID + "/nodes/" + node.NodeID
	status := func(base string) string {
		_, body := call(t, "GET", strings.Replace(nodeURL, url, base, 1), nil)
		_ = json.Unmarshal(body, &node)
		return node.Status
	}
	if code, body := call(t, "POST", nodeURL+"/start", nil); code != 200 || !vpcsRunning(node.Dir) {
		t.Fatalf("start: %d %s; running: %v", code, body, vpcsRunning(node.Dir))
	}
	p.stop(t) // SIGTERM: exit 0
	waitGone(t, node.Dir, "after nodedesk quit")

	p = start(t, env, args...)
	url2 := p.waitServing(t)
	if st := status(url2); st != "stopped" {
		t.Errorf("after a clean quit the node is %q, want stopped", st)
	}
	nodeURL = strings.Replace(nodeURL, url, url2, 1)
	url = url2
	if code, body := call(t, "POST", nodeURL+"/start", nil); code != 200 {
		t.Fatalf("start: %d %s", code, body)
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.done
	waitGone(t, node.Dir, "after nodedesk was killed")

	p = start(t, env, args...)
	url2 = p.waitServing(t)
	if st := status(url2); st != "stopped" {
		t.Errorf("after a crash the node is %q at start-up, want stopped (reconciled)", st)
	}
	p.stop(t)
}
