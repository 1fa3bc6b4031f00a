package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"nodedesk/app/dynamips/dynamipstest"
	"nodedesk/app/kit"
)

// TestMain_DynamipsLeftBehind: after kill -9 of nodedesk with a router
// running, the next nodedesk ends the Dynamips process it left, removes
// its record and shows the router stopped.
func TestMain_DynamipsLeftBehind(t *testing.T) {
	bin := dynamipstest.Binary(t)
	image, err := os.ReadFile(dynamipstest.FakeIOS(t, "c7200"))
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "d.db")
	ios := filepath.Join(filepath.Dir(db), "images", "IOS")
	if err := os.MkdirAll(ios, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ios, "c7200.image"), image, 0o644); err != nil {
		t.Fatal(err)
	}
	env := sandboxEnv(t, "NODEDESK_DYNAMIPS="+bin)
	args := []string{"--headless", "--listen", "127.0.0.1:0", "--db", db}
	p := start(t, env, args...)
	url := p.waitServing(t)
	_, body := call(t, "POST", url+"/v2/projects", map[string]any{"name": "d"})
	var proj struct {
		ProjectID string `json:"project_id"`
	}
	_ = json.Unmarshal(body, &proj)
	_, body = call(t, "POST", url+"/v2/projects/"+proj.ProjectID+"/nodes", map[string]any{"node_type": "dynamips",
		"properties": map[string]any{"platform": "c7200", "image": "c7200.image", "idlepc": "0xffffffff80008040"}})
	var node struct {
		NodeID string `json:"node_id"`
		Dir    string `json:"node_directory"`
	}
	_ = json.Unmarshal(body, &node)
	nodePath := url + "/v2/projects/" + proj.ProjectID + "/nodes/" + node.NodeID
	if code, body := call(t, "POST", nodePath+"/start", nil); code != 200 {
		t.Fatalf("start: %d %s", code, body)
	}
	if pids := dynamipstest.PIDs(node.Dir); len(pids) != 1 {
		t.Fatalf("dynamips processes %v after start; want one", pids)
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.done
	if pids := dynamipstest.PIDs(node.Dir); len(pids) != 1 {
		t.Fatalf("dynamips processes %v after the kill; the test needs the one left behind", pids)
	}
	p = start(t, env, args...)
	url = p.waitServing(t)
	if !kit.WaitFor(15*time.Second, func() bool { return len(dynamipstest.PIDs(node.Dir)) == 0 }) {
		t.Errorf("dynamips %v still runs after nodedesk was killed and started again", dynamipstest.PIDs(node.Dir))
	}
	_, body = call(t, "GET", url+"/v2/projects/"+proj.ProjectID+"/nodes/"+node.NodeID, nil)
	var got struct{ Status string }
	_ = json.Unmarshal(body, &got)
	if got.Status != "stopped" {
		t.Errorf("after a crash the router is %q at start-up, want stopped", got.Status)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(db), "run", "dynamips", "*")); len(left) != 0 {
		t.Errorf("records of routers left after start-up: %v", left)
	}
	p.stop(t)
}
