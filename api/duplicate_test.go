package api

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"nodedesk/app/kit"
)

// TestProjectDuplicate is the GNS3 desktop GUI's "Save as": the copy has
// new ids everywhere, links re-pointed to its own nodes, the same names,
// new console ports, its own snapshots, and nothing running; the original
// is untouched and can go without the copy.
func TestProjectDuplicate(t *testing.T) {
	ts := mustOpenServer(t)
	l := ts.mustCreateLab()
	base := "/v2/projects/" + l.pid
	ts.Do("POST", base+"/links", map[string]any{"nodes": []any{kit.End(l.pc1, 0, 0), kit.End(l.sw, 0, 1)}}).Want(t, 201)
	ts.Do("POST", base+"/links", map[string]any{"nodes": []any{kit.End(l.pc2, 0, 0), kit.End(l.sw, 0, 2)}}).Want(t, 201)
	ts.Do("POST", base+"/drawings", map[string]any{"svg": "<svg/>", "x": 5}).Want(t, 201)
	ts.Do("PUT", base, map[string]any{"grid_size": 50, "auto_open": true}).Want(t, 200)
	ts.Do("POST", base+"/snapshots", map[string]any{"name": "s1"}).Want(t, 201)
	ts.Do("POST", base+"/nodes/"+l.pc1+"/start", nil).Want(t, 200)
	orig := ts.state(t, l.pid)
	ctl, _ := ts.WSListen(t, "/v2/notifications/ws")

	// The GUI's body for a local server; the name is taken, so it gets -1.
	p := ts.Do("POST", base+"/duplicate", map[string]any{"name": "lab", "path": "/somewhere/lab", "reset_mac_addresses": false}).Want(t, 201).JSON(t)
	if p["project_id"] == l.pid || p["name"] != "lab-1" || p["status"] != "closed" || p["grid_size"] != 50.0 || p["auto_open"] != false {
		t.Errorf("copy %v", p)
	}
	if e := ctl(); e.Action != "project.created" || e.Event["project_id"] != p["project_id"] {
		t.Errorf("event %v, want project.created of the copy", e)
	}
	cid := p["project_id"].(string)
	cp := ts.state(t, cid)

	// Nodes: same names and settings, new ids and console ports.
	if len(cp.nodes) != len(orig.nodes) {
		t.Fatalf("%d nodes in the copy, want %d", len(cp.nodes), len(orig.nodes))
	}
	byName := map[string]map[string]any{}
	for _, n := range orig.nodes {
		byName[n["name"].(string)] = n
	}
	consoles := map[any]bool{}
	for _, n := range orig.nodes {
		if n["console"] != nil {
			consoles[n["console"]] = true
		}
	}
	newOf := map[any]any{} // original node id -> copy's
	for i, n := range cp.nodes {
		o := byName[n["name"].(string)]
		if o == nil || o["name"] != orig.nodes[i]["name"] {
			t.Fatalf("copy's node %d is %v, want %v", i, n["name"], orig.nodes[i]["name"])
		}
		newOf[o["node_id"]] = n["node_id"]
		if n["node_id"] == o["node_id"] || n["project_id"] != cid || n["node_type"] != o["node_type"] || n["x"] != o["x"] {
			t.Errorf("copy's node %v of %v", n, o)
		}
		if n["console"] != nil {
			if consoles[n["console"]] {
				t.Errorf("copy's node %s has console %v, which another node owns", n["name"], n["console"])
			}
			consoles[n["console"]] = true
		}
		if n["node_type"] == "vpcs" && n["status"] != "stopped" {
			t.Errorf("copy's %s is %v, want stopped", n["name"], n["status"])
		}
	}
	// Links: new ids, ends on the copy's nodes at the same ports.
	if len(cp.links) != 2 {
		t.Fatalf("copy's links %v", cp.links)
	}
	for i, lk := range cp.links {
		o := orig.links[i]
		if lk["link_id"] == o["link_id"] || lk["project_id"] != cid {
			t.Errorf("copy's link %v", lk)
		}
		for j, e := range lk["nodes"].([]any) {
			oe := o["nodes"].([]any)[j].(map[string]any)
			if e.(map[string]any)["node_id"] != newOf[oe["node_id"]] || e.(map[string]any)["port_number"] != oe["port_number"] {
				t.Errorf("copy's link end %v, want the copy of %v", e, oe)
			}
		}
	}
	if len(cp.drawings) != 1 || cp.drawings[0]["drawing_id"] == orig.drawings[0]["drawing_id"] || cp.drawings[0]["x"] != 5.0 {
		t.Errorf("copy's drawings %v", cp.drawings)
	}
	snaps := ts.Do("GET", "/v2/projects/"+cid+"/snapshots", nil).Want(t, 200).List(t)
	origSnaps := ts.Do("GET", base+"/snapshots", nil).Want(t, 200).List(t)
	if len(snaps) != 1 || snaps[0]["name"] != "s1" || snaps[0]["snapshot_id"] == origSnaps[0]["snapshot_id"] || snaps[0]["project_id"] != cid {
		t.Errorf("copy's snapshots %v", snaps)
	}

	// The copy works on its own: a port of its own switch is used, its
	// snapshot restores there, and the original can go.
	ts.Do("POST", "/v2/projects/"+cid+"/links", map[string]any{"nodes": []any{kit.End(newOf[l.pc1].(string), 0, 0), kit.End(newOf[l.sw].(string), 0, 5)}}).Want(t, 409)
	ts.Do("POST", "/v2/projects/"+cid+"/snapshots/"+snaps[0]["snapshot_id"].(string)+"/restore", nil).Want(t, 201)
	if after := ts.state(t, cid); len(after.nodes) != len(orig.nodes) || len(after.links) != 2 {
		t.Errorf("copy after restoring its snapshot: %d nodes, %d links", len(after.nodes), len(after.links))
	}
	if now := ts.state(t, l.pid); len(now.nodes) != len(orig.nodes) || now.nodes[0]["node_id"] != orig.nodes[0]["node_id"] {
		t.Error("the original changed")
	}
	ts.Do("POST", base+"/nodes/stop", nil).Want(t, 204)
	ts.Do("DELETE", base, nil).Want(t, 204)
	if got := ts.Do("GET", "/v2/projects/"+cid+"/links", nil).Want(t, 200).List(t); len(got) != 2 {
		t.Errorf("the copy's links after the original went: %v", got)
	}
	// A name of its own, or null for the project's.
	if got := ts.Do("POST", "/v2/projects/"+cid+"/duplicate", map[string]any{"name": "mine"}).Want(t, 201).JSON(t); got["name"] != "mine" {
		t.Errorf("copy named %v", got["name"])
	}
	if got := ts.Do("POST", "/v2/projects/"+cid+"/duplicate", map[string]any{"name": nil}).Want(t, 201).JSON(t); got["name"] != "lab-1-1" {
		t.Errorf("copy of lab-1 named %v, want lab-1-1 (GNS3 appends -1 to the name taken)", got["name"])
	}
	ts.Do("POST", "/v2/projects/5e9f3c1a-0000-4000-8000-000000000001/duplicate", map[string]any{"name": "x"}).Want(t, 404)
	ts.Do("POST", "/v2/projects/"+cid+"/duplicate", map[string]any{"name": ""}).Want(t, 400)
}

func TestDuplicate(t *testing.T) {
	ts := mustOpenServer(t)
	l := ts.mustCreateLab()
	ts.Do("POST", "/v2/projects/"+l.pid+"/links", map[string]any{"nodes": []any{kit.End(l.pc1, 0, 0), kit.End(l.sw, 0, 0)}}).Want(t, 201)
	pc := "/v2/projects/" + l.pid + "/nodes/" + l.pc1
	ts.Do("PUT", pc, map[string]any{"properties": map[string]any{"startup_script": "ip 10.0.0.1/24"}}).Want(t, 200)
	// A started VPCS is not copied, as in GNS3 (its folder may be changing).
	ts.Do("POST", pc+"/start", nil).Want(t, 200)
	ts.Do("POST", pc+"/duplicate", map[string]any{"x": 100, "y": 50, "z": 2}).Want(t, 409)
	ts.Do("POST", pc+"/stop", nil).Want(t, 200)
	orig := ts.Do("GET", pc, nil).JSON(t)
	d := ts.Do("POST", pc+"/duplicate", map[string]any{"x": 100, "y": 50, "z": 2}).Want(t, 201).JSON(t)
	if d["node_id"] == orig["node_id"] || d["name"] != "PC3" || d["console"] == orig["console"] || d["status"] != "stopped" {
		t.Errorf("duplicate %v of %v", d, orig)
	}
	if d["x"] != float64(100) || d["y"] != float64(50) || d["z"] != float64(2) || d["label"].(map[string]any)["text"] != "PC3" {
		t.Errorf("duplicate placement/label %v", d)
	}
	if d["properties"].(map[string]any)["startup_script"] != "ip 10.0.0.1/24" {
		t.Errorf("duplicate lost the startup script: %v", d["properties"])
	}
	if got := ts.Do("GET", "/v2/projects/"+l.pid+"/nodes/"+d["node_id"].(string)+"/links", nil).List(t); len(got) != 0 {
		t.Errorf("links were copied: %v", got)
	}
	for _, bad := range []any{map[string]any{"x": 1}, map[string]any{"x": 1, "y": 2, "w": 3}} {
		ts.Do("POST", pc+"/duplicate", bad).Want(t, 400)
	}
	ts.Do("POST", "/v2/projects/"+l.pid+"/nodes/00000000-0000-4000-8000-000000000000/duplicate", map[string]any{"x": 1, "y": 2}).Want(t, 404)
}

// TestNodeDuplicate_Folder: duplicating a QEMU node copies its folder, as
// GNS3's compute copies a node's working folder: the copy starts from the
// original's linked-clone disks, with what its guest wrote, and each then
// writes its own. A node that runs is refused (409), as GNS3's controller
// refuses it, and nothing is made; a node never started has no folder to
// copy.
func TestNodeDuplicate_Folder(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	orig := ts.MustCreateNode(pid, map[string]any{"node_type": "qemu", "name": "R1", "compute_id": "local"})
	path := "/v2/projects/" + pid + "/nodes/" + orig["node_id"].(string)

	// Never started: no folder, a copy has none either.
	fresh := ts.Do("POST", path+"/duplicate", map[string]any{"x": 10, "y": 10}).Want(t, 201).JSON(t)
	if _, err := os.Stat(fresh["node_directory"].(string)); !os.IsNotExist(err) {
		t.Errorf("copy of a node without a folder has one: %v", err)
	}

	dir := orig["node_directory"].(string)
	disk := []byte("QFI\xfb the guest's writes")
	mustWrite(t, filepath.Join(dir, "hda_disk.qcow2"), disk)
	mustWrite(t, filepath.Join(dir, "sub", "config.txt"), []byte("hostname R1\n"))
	mustWrite(t, filepath.Join(dir, "qemu.log"), []byte("a log is not carried"))

	ts.Do("POST", path+"/start", nil).Want(t, 200)
	before := ts.Do("GET", "/v2/projects/"+pid+"/nodes", nil).Want(t, 200).List(t)
	e := ts.Do("POST", path+"/duplicate", map[string]any{"x": 10, "y": 10}).Want(t, 409).JSON(t)
	if msg := e["message"].(string); !strings.Contains(msg, "Cannot duplicate node data while the node is running") || !strings.Contains(msg, "R1") {
		t.Errorf("refusal says %q; want GNS3's sentence and the node's name", msg)
	}
	if after := ts.Do("GET", "/v2/projects/"+pid+"/nodes", nil).Want(t, 200).List(t); len(after) != len(before) {
		t.Errorf("a refused duplicate made a node: %d nodes, were %d", len(after), len(before))
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("a refused duplicate left folders: %v", entries)
	}

	ts.Do("POST", path+"/stop", nil).Want(t, 200)
	cp := ts.Do("POST", path+"/duplicate", map[string]any{"x": 50, "y": 60}).Want(t, 201).JSON(t)
	cdir := cp["node_directory"].(string)
	if cdir == dir || filepath.Base(cdir) != cp["node_id"] {
		t.Fatalf("copy's folder %s, original's %s", cdir, dir)
	}
	for name, want := range map[string][]byte{"hda_disk.qcow2": disk, "sub/config.txt": []byte("hostname R1\n")} {
		if got, err := os.ReadFile(filepath.Join(cdir, name)); err != nil || !bytes.Equal(got, want) {
			t.Errorf("copy's %s = %q, %v; want the original's %q", name, got, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(cdir, "qemu.log")); !os.IsNotExist(err) {
		t.Errorf("the log was copied: %v", err)
	}
	// Each writes its own disk.
	mustWrite(t, filepath.Join(cdir, "hda_disk.qcow2"), []byte("the copy's guest"))
	if got, _ := os.ReadFile(filepath.Join(dir, "hda_disk.qcow2")); !bytes.Equal(got, disk) {
		t.Errorf("writing the copy's disk changed the original's: %q", got)
	}
	// The copy's folder goes with it; the original's stays.
	ts.Do("DELETE", "/v2/projects/"+pid+"/nodes/"+cp["node_id"].(string), nil).Want(t, 204)
	if _, err := os.Stat(cdir); !os.IsNotExist(err) {
		t.Errorf("deleted copy's folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "hda_disk.qcow2")); err != nil {
		t.Errorf("original's disk after the copy's delete: %v", err)
	}
}
