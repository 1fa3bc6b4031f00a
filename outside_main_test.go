package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"nodedesk/app/docker/dockertest"
	"nodedesk/app/dynamips/dynamipstest"
	"nodedesk/app/iou/ioutest"
	"nodedesk/app/qemu/qemutest"
	"nodedesk/app/vpcs/vpcstest"
)

// TestMain_NothingWrittenOutside: nodedesk started from an empty folder
// runs one node of every type it runs, stops them and quits; the folder
// it was started from, its home and its temporary folder are still
// empty: what nodedesk and the emulators it starts write goes into the
// project's folder or nodedesk's data folder (issue 38: a Dynamips
// router's log was left where nodedesk was started), even when the store
// is named relative to the current folder. IOU's sockets go to
// /tmp/netio<uid>, which IOU itself dictates, outside TMPDIR: this test
// does not look there.
func TestMain_NothingWrittenOutside(t *testing.T) {
	vpcstest.MustHave(t)
	qemutest.Binary(t)
	guest := qemutest.Guest(t)
	dockerHost := dockertest.Dockerd(t)
	data := filepath.Join(t.TempDir(), "data")
	placeImage(t, guest.Disk, filepath.Join(data, "images", "QEMU", "nd-disk.qcow2"))
	placeImage(t, dynamipstest.FakeIOS(t, "c7200"), filepath.Join(data, "images", "IOS", "c7200.image"))
	ioutest.PlaceImage(t, data, "iou.bin")

	// Each node type nodedesk runs, as a new node's properties; a type
	// GET /v2/node_types adds must be added here.
	nodes := map[string]map[string]any{
		"vpcs":               {},
		"qemu":               {"hda_disk_image": "nd-disk.qcow2", "ram": 32}, // a linked clone: qemu-img runs too
		"docker":             {"image": dockertest.TestImage},
		"dynamips":           {"platform": "c7200", "image": "c7200.image", "idlepc": "0xffffffff80008040"}, // ghost on: a Ghost instance first
		"iou":                {"path": "iou.bin"},
		"ethernet_switch":    {},
		"ethernet_hub":       {},
		"frame_relay_switch": {},
		"atm_switch":         {},
		"cloud":              {},
		"nat":                {},
	}

	cwd, home, xdg, tmp := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	env := sandboxEnv(t, "HOME="+home, "XDG_DATA_HOME="+xdg, "TMPDIR="+tmp,
		"DOCKER_HOST="+dockerHost, "NODEDESK_DYNAMIPS="+dynamipstest.Binary(t))
	// The store is named from the current folder (../…): the data
	// folder's path is made absolute before any process is told it.
	db, err := filepath.Rel(cwd, filepath.Join(data, "d.db"))
	if err != nil || !strings.HasPrefix(db, "..") {
		t.Fatalf("the store's path from %s is %q (%v); the test wants a relative one", cwd, db, err)
	}
	p := startAt(t, env, cwd, nil, "--headless", "--listen", "127.0.0.1:0", "--db", db)
	t.Cleanup(func() { // after a failure too, nodedesk quits as a user's would: its nodes' processes end with it
		if !p.exited() {
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			_ = p.waitExit(t, time.Now(), shutdownLimit, "SIGTERM")
		}
	})
	url := p.waitServing(t)

	_, body := call(t, "GET", url+"/v2/node_types", nil)
	var types []struct {
		NodeType string `json:"node_type"`
		Runs     bool   `json:"runs"`
	}
	if err := json.Unmarshal(body, &types); err != nil {
		t.Fatalf("GET /v2/node_types: %v %s", err, body)
	}
	for _, nt := range types {
		if _, ok := nodes[nt.NodeType]; nt.Runs && !ok {
			t.Errorf("nodedesk runs %s nodes, which this test does not run: add one", nt.NodeType)
		}
	}

	_, body = call(t, "POST", url+"/v2/projects", map[string]any{"name": "outside"})
	var proj struct {
		ProjectID string `json:"project_id"`
	}
	_ = json.Unmarshal(body, &proj)
	base := url + "/v2/projects/" + proj.ProjectID
	// A licence, unchecked: IOU is given it in a file of its own.
	host, _ := os.Hostname()
	if code, body := call(t, "PUT", url+"/v2/iou_license", map[string]any{"iourc_content": "[license]\n" + host + " = 0123456789abcdef;\n",
		"license_check": false}); code != 201 {
		t.Fatalf("PUT /v2/iou_license: %d %s", code, body)
	}
	for nt, props := range nodes {
		if code, body := call(t, "POST", base+"/nodes", map[string]any{"node_type": nt, "properties": props}); code != 201 {
			t.Fatalf("create a %s node: %d %s", nt, code, body)
		}
	}
	if code, body := call(t, "POST", base+"/nodes/start", nil); code != 204 {
		t.Fatalf("start all: %d %s", code, body)
	}
	_, body = call(t, "GET", base+"/nodes", nil)
	var running []struct {
		NodeType string `json:"node_type"`
		Status   string `json:"status"`
	}
	_ = json.Unmarshal(body, &running)
	for _, n := range running {
		if n.Status != "started" {
			t.Errorf("the %s node is %s after start all, want started", n.NodeType, n.Status)
		}
	}
	if code, body := call(t, "POST", base+"/nodes/stop", nil); code != 204 {
		t.Fatalf("stop all: %d %s", code, body)
	}
	p.stop(t)

	for what, dir := range map[string]string{"the folder nodedesk was started from": cwd, "HOME": home,
		"XDG_DATA_HOME": xdg, "TMPDIR": tmp} {
		if left := filesIn(t, dir); len(left) != 0 {
			t.Errorf("%s (%s) holds %s after the nodes ran and nodedesk quit; all belongs in the project's or the data folder",
				what, dir, strings.Join(left, ", "))
		}
	}
}

// placeImage copies an image file to path, making its folder.
func placeImage(t *testing.T, src, path string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// filesIn lists everything under dir, relative to it, sorted.
func filesIn(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}
