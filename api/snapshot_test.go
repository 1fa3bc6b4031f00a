package api

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"nodedesk/app/kit"
)

// projectState is what GET answers say of a project's records.
type projectState struct {
	nodes, links, drawings []map[string]any
	project                map[string]any
}

func (ts *testServer) state(t *testing.T, pid string) projectState {
	t.Helper()
	base := "/v2/projects/" + pid
	return projectState{
		nodes:    ts.Do("GET", base+"/nodes", nil).Want(t, 200).List(t),
		links:    ts.Do("GET", base+"/links", nil).Want(t, 200).List(t),
		drawings: ts.Do("GET", base+"/drawings", nil).Want(t, 200).List(t),
		project:  ts.Do("GET", base, nil).Want(t, 200).JSON(t),
	}
}

// TestSnapshots takes a snapshot of a lab (nodes, a link, a drawing,
// settings), changes everything, restores it and finds the GET answers
// exactly as they were, while the project's websocket hears each change
// and then snapshot.restored. A running node is stopped by a restore; a console
// port taken since by another project's node is replaced by a free one;
// snapshots survive a restart and go with their project.
func TestSnapshots(t *testing.T) {
	ts := mustOpenServer(t)
	l := ts.mustCreateLab()
	base := "/v2/projects/" + l.pid
	snaps := base + "/snapshots"
	ts.Do("PUT", base+"/nodes/"+l.pc1, map[string]any{"properties": map[string]any{"startup_script": "ip 10.0.0.1/24\n"}}).Want(t, 200)
	ts.Do("POST", base+"/links", map[string]any{"nodes": []any{kit.End(l.pc1, 0, 0), kit.End(l.sw, 0, 1)}}).Want(t, 201)
	ts.Do("POST", base+"/drawings", map[string]any{"svg": "<svg/>", "x": 5}).Want(t, 201)
	ts.Do("PUT", base, map[string]any{"grid_size": 50}).Want(t, 200)
	before := ts.state(t, l.pid)

	if got := ts.Do("GET", snaps, nil).Want(t, 200).List(t); len(got) != 0 {
		t.Fatalf("snapshots of a new project: %v", got)
	}
	s := ts.Do("POST", snaps, map[string]any{"name": "first"}).Want(t, 201).JSON(t)
	if s["name"] != "first" || s["project_id"] != l.pid || s["filename"] != "first.gns3snapshot" ||
		!strings.HasPrefix(s["description"].(string), "Snapshot 'first' taken on ") {
		t.Errorf("snapshot %v", s)
	}
	if at, _ := s["created_at"].(float64); at < 1.7e9 {
		t.Errorf("created_at %v, want a Unix time in seconds", s["created_at"])
	}
	sid := s["snapshot_id"].(string)
	if r := ts.Do("POST", snaps, map[string]any{"name": "first"}).Want(t, 409).JSON(t); !strings.Contains(r["message"].(string), "first") {
		t.Errorf("409 %v", r)
	}
	ts.Do("POST", snaps, map[string]any{"name": ""}).Want(t, 400)
	ts.Do("POST", snaps, map[string]any{}).Want(t, 400)
	second := ts.Do("POST", snaps, map[string]any{"name": "second"}).Want(t, 201).JSON(t)
	if got := ts.Do("GET", snaps, nil).Want(t, 200).List(t); len(got) != 2 || got[0]["snapshot_id"] != sid || got[1]["name"] != "second" {
		t.Errorf("list %v", got)
	}

	// Change everything: links and a node go, a node comes, a drawing
	// moves, a setting changes; and pc2's console port goes to another
	// project's node.
	for _, lk := range ts.Do("GET", base+"/links", nil).List(t) {
		ts.Do("DELETE", base+"/links/"+lk["link_id"].(string), nil).Want(t, 204)
	}
	var pc2Console float64
	for _, n := range before.nodes {
		if n["node_id"] == l.pc2 {
			pc2Console = n["console"].(float64)
		}
	}
	ts.Do("DELETE", base+"/nodes/"+l.pc2, nil).Want(t, 204)
	other := ts.MustCreateProject("other")
	thief := ts.MustCreateNode(other, map[string]any{"node_type": "vpcs", "console": pc2Console})
	ts.MustCreateNode(l.pid, map[string]any{"node_type": "vpcs", "name": "newcomer"})
	ts.Do("PUT", base+"/nodes/"+l.pc1, map[string]any{"x": 300, "name": "renamed", "properties": map[string]any{"startup_script": "ip 10.9.9.9/24\n"}}).Want(t, 200)
	ts.Do("PUT", base+"/drawings/"+before.drawings[0]["drawing_id"].(string), map[string]any{"x": 99}).Want(t, 201)
	ts.Do("PUT", base, map[string]any{"grid_size": 10, "name": "lab renamed"}).Want(t, 200)

	// A running node does not block the restore: GNS3 closes the project,
	// which stops its nodes, and restores (controller/snapshot.py:133-135).
	ts.Do("POST", base+"/nodes/"+l.pc1+"/start", nil).Want(t, 200)

	next, _ := ts.WSListen(t, base+"/notifications/ws")
	p := ts.Do("POST", snaps+"/"+sid+"/restore", nil).Want(t, 201).JSON(t)
	if p["project_id"] != l.pid || p["name"] != "lab renamed" || p["grid_size"] != 50.0 {
		t.Errorf("restored project %v: want its name kept and the snapshot's settings", p)
	}
	seen := map[string]int{}
	stopped, gone := false, map[string]bool{}
	for {
		e := next()
		seen[e.Action]++
		for _, kind := range []string{"node", "link", "drawing"} {
			id, _ := e.Event[kind+"_id"].(string)
			switch e.Action {
			case kind + ".deleted":
				gone[id] = true
			case kind + ".created":
				if gone[id] {
					t.Errorf("%s %s deleted, then created again", kind, id)
				}
			}
		}
		if e.Action == "node.updated" && e.Event["node_id"] == l.pc1 && e.Event["status"] == "stopped" && seen["snapshot.restored"] == 0 {
			stopped = true
		}
		if e.Action == "snapshot.restored" {
			if e.Event["snapshot_id"] != sid || e.Event["project_id"] != l.pid {
				t.Errorf("snapshot.restored %v", e.Event)
			}
			break
		}
	}
	if !stopped {
		t.Errorf("the restore did not stop the running node %s (events %v)", l.pc1, seen)
	}
	// Only what changes is announced, and no record is deleted and then
	// created again: the GNS3 GUI would log "Could not find a source or
	// destination item for the link!" for each link, as it still deletes a
	// node when its node.created comes (gns3-gui gns3/project.py:685-708);
	// it reloads the project on snapshot.restored (gns3/topology.py:219).
	want := map[string]int{"node.deleted": 1, "node.created": 1, "node.updated": 2, // newcomer; pc2; pc1 stopped, then restored
		"link.deleted": 0, "link.created": len(before.links),
		"drawing.deleted": 0, "drawing.created": 0, "drawing.updated": 1, "snapshot.restored": 1}
	for k, v := range want {
		if seen[k] != v {
			t.Errorf("%d %s events, want %d (all: %v)", seen[k], k, v, seen)
		}
	}

	after := ts.state(t, l.pid)
	// pc2's console port is the other project's node's now: pc2 got a
	// free one. Everything else is exactly as it was.
	for i, n := range after.nodes {
		if n["node_id"] == l.pc2 {
			if n["console"] == pc2Console || n["console"] == thief["console"] {
				t.Errorf("pc2 restored with console %v, which %s owns", n["console"], thief["node_id"])
			}
			after.nodes[i]["console"] = pc2Console
		}
	}
	if !reflect.DeepEqual(after.nodes, before.nodes) {
		t.Errorf("nodes after restore:\n%v\nwant\n%v", after.nodes, before.nodes)
	}
	if !reflect.DeepEqual(after.links, before.links) || !reflect.DeepEqual(after.drawings, before.drawings) {
		t.Errorf("links/drawings after restore:\n%v %v\nwant\n%v %v", after.links, after.drawings, before.links, before.drawings)
	}
	before.project["name"], before.project["filename"] = after.project["name"], after.project["filename"]
	if !reflect.DeepEqual(after.project, before.project) {
		t.Errorf("project after restore:\n%v\nwant\n%v", after.project, before.project)
	}
	// The restored link carries nothing to a deleted node: its ports are
	// used again, and the nodes can be started.
	ts.Do("POST", base+"/links", map[string]any{"nodes": []any{kit.End(l.pc1, 0, 0), kit.End(l.sw, 0, 2)}}).Want(t, 409)
	// A new node's name is allocated against the restored names.
	fresh := ts.Do("POST", base+"/templates/19021f99-e36f-394d-b4a1-8aaa902ab9cc", map[string]any{"x": 0, "y": 0}).Want(t, 201).JSON(t)
	for _, n := range after.nodes {
		if n["name"] == fresh["name"] {
			t.Errorf("a new node is named %v, as a restored one is", fresh["name"])
		}
	}
	ts.Do("POST", base+"/nodes/start", nil).Want(t, 204)
	ts.Do("POST", base+"/nodes/stop", nil).Want(t, 204)

	// Delete, missing things, restart, project deletion.
	ts.Do("DELETE", snaps+"/"+second["snapshot_id"].(string), nil).Want(t, 204)
	ts.Do("DELETE", snaps+"/"+second["snapshot_id"].(string), nil).Want(t, 404)
	ts.Do("POST", snaps+"/"+second["snapshot_id"].(string)+"/restore", nil).Want(t, 404)
	ts.Do("POST", snaps+"/not-a-uuid/restore", nil).Want(t, 404)
	ts.Do("GET", "/v2/projects/5e9f3c1a-0000-4000-8000-000000000001/snapshots", nil).Want(t, 404)
	ts.restart()
	if got := ts.Do("GET", snaps, nil).Want(t, 200).List(t); len(got) != 1 || got[0]["snapshot_id"] != sid || got[0]["created_at"] != s["created_at"] {
		t.Errorf("after restart: %v", got)
	}
	ts.Do("POST", snaps+"/"+sid+"/restore", nil).Want(t, 201)
	ts.Do("DELETE", base, nil).Want(t, 204)
	ts.Do("POST", "/v2/projects", map[string]any{"name": "again", "project_id": l.pid}).Want(t, 201)
	if got := ts.Do("GET", snaps, nil).Want(t, 200).List(t); len(got) != 0 {
		t.Errorf("a deleted project's snapshots came back: %v", got)
	}
}

// TestSnapshotFiles: a snapshot keeps the project's files as an export
// carries them (a project file, a qemu node's file; not captures, not
// hidden files), in the project's folder under snapshots/<id>/; a restore
// makes the carried files those of the snapshot (changed ones back, added
// ones gone) and leaves captures alone; an export with its snapshots
// carries them. Its folder outlives the record while undo or redo can
// bring the record back, and goes once nothing can. A take that cannot
// copy leaves no record and no folder; a restore whose files cannot move
// in leaves the files as they were.
func TestSnapshotFiles(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("files")
	base := "/v2/projects/" + pid
	snaps := base + "/snapshots"
	dir := filepath.Join(ts.dataDir(), "projects", pid)
	vm := ts.MustCreateNode(pid, map[string]any{"node_type": "qemu", "name": "VM1"})["node_id"].(string)
	// A qemu node keeps no files through its own files endpoint (nodedesk
	// does not run it), but its folder is in the project's.
	nodeFiles := base + "/files/project-files/qemu/" + vm + "/"
	config := "project-files/qemu/" + vm + "/config.txt"
	read := func(p string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			return "<" + err.Error() + ">"
		}
		return string(b)
	}
	files := func(want map[string]string) {
		t.Helper()
		for p, w := range want {
			if got := read(p); got != w {
				t.Errorf("%s: %q, want %q", p, got, w)
			}
		}
	}
	ts.Do("POST", base+"/files/notes.txt", "notes at the snapshot").Want(t, 201)
	ts.Do("POST", nodeFiles+"config.txt", "hostname a").Want(t, 201)
	mustWrite(t, filepath.Join(dir, "project-files", "captures", "a.pcap"), []byte("capture 1"))
	mustWrite(t, filepath.Join(dir, "project-files", "qemu", vm, ".state"), []byte("hidden 1"))

	s := ts.Do("POST", snaps, map[string]any{"name": "files"}).Want(t, 201).JSON(t)
	sid := s["snapshot_id"].(string)
	kept := filepath.Join(dir, "snapshots", sid)
	if got := tree(t, kept); !reflect.DeepEqual(got, []string{"./", "notes.txt", "project-files/", "project-files/qemu/",
		"project-files/qemu/" + vm + "/", config}) {
		t.Errorf("the snapshot's folder holds %v", got)
	}

	// Change both files, add one, change the capture and the hidden file.
	ts.Do("POST", base+"/files/notes.txt", "notes changed").Want(t, 201)
	ts.Do("POST", nodeFiles+"config.txt", "hostname b").Want(t, 201)
	ts.Do("POST", base+"/files/added/new.txt", "added").Want(t, 201)
	mustWrite(t, filepath.Join(dir, "project-files", "captures", "a.pcap"), []byte("capture 2"))
	mustWrite(t, filepath.Join(dir, "project-files", "qemu", vm, ".state"), []byte("hidden 2"))

	ts.Do("POST", snaps+"/"+sid+"/restore", nil).Want(t, 201)
	if r := ts.Do("GET", base+"/files/notes.txt", nil).Want(t, 200); string(r.Body) != "notes at the snapshot" {
		t.Errorf("notes.txt after restore: %q", r.Body)
	}
	if r := ts.Do("GET", nodeFiles+"config.txt", nil).Want(t, 200); string(r.Body) != "hostname a" {
		t.Errorf("config.txt after restore: %q", r.Body)
	}
	ts.Do("GET", base+"/files/added/new.txt", nil).Want(t, 404)
	if _, err := os.Stat(filepath.Join(dir, "added")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the added file's folder: %v, want it gone", err)
	}
	files(map[string]string{"project-files/captures/a.pcap": "capture 2", "project-files/qemu/" + vm + "/.state": "hidden 2",
		"snapshots/" + sid + "/notes.txt": "notes at the snapshot"})
	entries, _ := os.ReadDir(filepath.Join(dir, "snapshots"))
	if len(entries) != 1 {
		t.Errorf("the snapshots folder after a restore holds %d entries, want the snapshot's only", len(entries))
	}

	// An export with its snapshots carries the snapshot's files.
	zipped := readZip(t, ts.Do("GET", base+"/export?include_snapshots=yes", nil).Want(t, 200).Body)
	for name, b := range zipped {
		if strings.HasPrefix(name, "snapshots/files_") {
			inner := readZip(t, b)
			if string(inner["notes.txt"]) != "notes at the snapshot" || string(inner[config]) != "hostname a" {
				t.Errorf("the exported snapshot's files: %v", entryNames(inner))
			}
		} else if strings.HasPrefix(name, "snapshots/") || strings.Contains(name, "captures") || strings.Contains(name, ".state") {
			t.Errorf("the export carries %s", name)
		}
	}

	// Delete: the folder stays while an undo can bring the record back.
	ts.Do("DELETE", snaps+"/"+sid, nil).Want(t, 204)
	files(map[string]string{"snapshots/" + sid + "/notes.txt": "notes at the snapshot"})
	ts.Do("POST", base+"/undo", nil).Want(t, 200)
	ts.Do("POST", base+"/files/notes.txt", "notes changed again").Want(t, 201)
	ts.Do("POST", snaps+"/"+sid+"/restore", nil).Want(t, 201)
	files(map[string]string{"notes.txt": "notes at the snapshot"})
	// Undo the take itself (after the restore, which changed no record and
	// so is no entry): the record goes, the redo can bring it back, so the
	// folder stays, even across a close.
	if got := ts.Do("POST", base+"/undo", nil).Want(t, 200).JSON(t)["description"]; got != "Took snapshot files" {
		t.Fatalf("the undo took back %q, want the take", got)
	}
	if got := ts.Do("GET", snaps, nil).Want(t, 200).List(t); len(got) != 0 {
		t.Fatalf("snapshots after undoing the take: %v", got)
	}
	ts.Do("POST", base+"/close", nil).Want(t, 204)
	files(map[string]string{"snapshots/" + sid + "/notes.txt": "notes at the snapshot"})
	// A new change empties the redo stack: nothing can bring the snapshot
	// back, and the next close sweeps its folder.
	ts.Do("PUT", base, map[string]any{"grid_size": 40}).Want(t, 200)
	ts.Do("POST", base+"/open", nil).Want(t, 201)
	if _, err := os.Stat(kept); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the folder of a snapshot nothing can bring back: %v, want it gone", err)
	}

	// A take that cannot copy (a file where the snapshots folder goes)
	// leaves no record and no folder.
	if err := os.RemoveAll(filepath.Join(dir, "snapshots")); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, "snapshots"), []byte("in the way"))
	ts.Do("POST", snaps, map[string]any{"name": "blocked"}).Want(t, 500)
	if got := ts.Do("GET", snaps, nil).Want(t, 200).List(t); len(got) != 0 {
		t.Errorf("a failed take left %v", got)
	}
	if err := os.Remove(filepath.Join(dir, "snapshots")); err != nil {
		t.Fatal(err)
	}

	// A restore whose files cannot move in (a folder, holding a hidden
	// file, where the snapshot has a file) puts back what it set aside.
	ts.Do("POST", base+"/files/x", "x was a file").Want(t, 201)
	sid = ts.Do("POST", snaps, map[string]any{"name": "x"}).Want(t, 201).JSON(t)["snapshot_id"].(string)
	if err := os.Remove(filepath.Join(dir, "x")); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, "x", ".hidden"), []byte("in the way"))
	ts.Do("POST", base+"/files/notes.txt", "notes after x").Want(t, 201)
	before := tree(t, dir)
	ts.Do("POST", snaps+"/"+sid+"/restore", nil).Want(t, 500)
	if after := tree(t, dir); !reflect.DeepEqual(after, before) {
		t.Errorf("a failed restore left the folder\n%v\nwant\n%v", after, before)
	}
	files(map[string]string{"notes.txt": "notes after x", "x/.hidden": "in the way", config: "hostname a"})
}

func entryNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
