package api

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
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
		nodes:    ts.do("GET", base+"/nodes", nil).want(t, 200).list(t),
		links:    ts.do("GET", base+"/links", nil).want(t, 200).list(t),
		drawings: ts.do("GET", base+"/drawings", nil).want(t, 200).list(t),
		project:  ts.do("GET", base, nil).want(t, 200).json(t),
	}
}

// TestSnapshots takes a snapshot of a lab (nodes, a link, a drawing,
// settings), changes everything, restores it and finds the GET answers
// exactly as they were, while the project's websocket hears each change
// and then snapshot.restored. A running node blocks a restore; a console
// port taken since by another project's node is replaced by a free one;
// snapshots survive a restart and go with their project.
func TestSnapshots(t *testing.T) {
	ts := mustOpenServer(t)
	l := ts.mustCreateLab()
	base := "/v2/projects/" + l.pid
	snaps := base + "/snapshots"
	ts.do("PUT", base+"/nodes/"+l.pc1, map[string]any{"properties": map[string]any{"startup_script": "ip 10.0.0.1/24\n"}}).want(t, 200)
	ts.do("POST", base+"/links", map[string]any{"nodes": []any{end(l.pc1, 0, 0), end(l.sw, 0, 1)}}).want(t, 201)
	ts.do("POST", base+"/drawings", map[string]any{"svg": "<svg/>", "x": 5}).want(t, 201)
	ts.do("PUT", base, map[string]any{"grid_size": 50}).want(t, 200)
	before := ts.state(t, l.pid)

	if got := ts.do("GET", snaps, nil).want(t, 200).list(t); len(got) != 0 {
		t.Fatalf("snapshots of a new project: %v", got)
	}
	s := ts.do("POST", snaps, map[string]any{"name": "first"}).want(t, 201).json(t)
	if s["name"] != "first" || s["project_id"] != l.pid || s["filename"] != "first.gns3snapshot" ||
		!strings.HasPrefix(s["description"].(string), "Snapshot 'first' taken on ") {
		t.Errorf("snapshot %v", s)
	}
	if at, _ := s["created_at"].(float64); at < 1.7e9 {
		t.Errorf("created_at %v, want a Unix time in seconds", s["created_at"])
	}
	sid := s["snapshot_id"].(string)
	if r := ts.do("POST", snaps, map[string]any{"name": "first"}).want(t, 409).json(t); !strings.Contains(r["message"].(string), "first") {
		t.Errorf("409 %v", r)
	}
	ts.do("POST", snaps, map[string]any{"name": ""}).want(t, 400)
	ts.do("POST", snaps, map[string]any{}).want(t, 400)
	second := ts.do("POST", snaps, map[string]any{"name": "second"}).want(t, 201).json(t)
	if got := ts.do("GET", snaps, nil).want(t, 200).list(t); len(got) != 2 || got[0]["snapshot_id"] != sid || got[1]["name"] != "second" {
		t.Errorf("list %v", got)
	}

	// Change everything: links and a node go, a node comes, a drawing
	// moves, a setting changes; and pc2's console port goes to another
	// project's node.
	for _, lk := range ts.do("GET", base+"/links", nil).list(t) {
		ts.do("DELETE", base+"/links/"+lk["link_id"].(string), nil).want(t, 204)
	}
	var pc2Console float64
	for _, n := range before.nodes {
		if n["node_id"] == l.pc2 {
			pc2Console = n["console"].(float64)
		}
	}
	ts.do("DELETE", base+"/nodes/"+l.pc2, nil).want(t, 204)
	other := ts.mustCreateProject("other")
	thief := ts.mustCreateNode(other, map[string]any{"node_type": "vpcs", "console": pc2Console})
	ts.mustCreateNode(l.pid, map[string]any{"node_type": "vpcs", "name": "newcomer"})
	ts.do("PUT", base+"/nodes/"+l.pc1, map[string]any{"x": 300, "name": "renamed", "properties": map[string]any{"startup_script": "ip 10.9.9.9/24\n"}}).want(t, 200)
	ts.do("PUT", base+"/drawings/"+before.drawings[0]["drawing_id"].(string), map[string]any{"x": 99}).want(t, 201)
	ts.do("PUT", base, map[string]any{"grid_size": 10, "name": "lab renamed"}).want(t, 200)

	// A running node blocks the restore, and nothing changes.
	ts.do("POST", base+"/nodes/"+l.pc1+"/start", nil).want(t, 200)
	r := ts.do("POST", snaps+"/"+sid+"/restore", nil).want(t, 409).json(t)
	if msg := r["message"].(string); !strings.Contains(msg, "renamed") || !strings.Contains(msg, "stop") {
		t.Errorf("409 %v, want it to name the running node and say to stop it", r)
	}
	ts.do("POST", base+"/nodes/"+l.pc1+"/stop", nil).want(t, 200)
	changed := ts.state(t, l.pid)

	next, _ := ts.wsListen(t, base+"/notifications/ws")
	p := ts.do("POST", snaps+"/"+sid+"/restore", nil).want(t, 201).json(t)
	if p["project_id"] != l.pid || p["name"] != "lab renamed" || p["grid_size"] != 50.0 {
		t.Errorf("restored project %v: want its name kept and the snapshot's settings", p)
	}
	seen := map[string]int{}
	for {
		e := next()
		seen[e.Action]++
		if e.Action == "snapshot.restored" {
			if e.Event["snapshot_id"] != sid || e.Event["project_id"] != l.pid {
				t.Errorf("snapshot.restored %v", e.Event)
			}
			break
		}
	}
	want := map[string]int{"node.deleted": len(changed.nodes), "node.created": len(before.nodes),
		"link.deleted": len(changed.links), "link.created": len(before.links),
		"drawing.deleted": len(changed.drawings), "drawing.created": len(before.drawings), "snapshot.restored": 1}
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
	ts.do("POST", base+"/links", map[string]any{"nodes": []any{end(l.pc1, 0, 0), end(l.sw, 0, 2)}}).want(t, 409)
	// A new node's name is allocated against the restored names.
	fresh := ts.do("POST", base+"/templates/19021f99-e36f-394d-b4a1-8aaa902ab9cc", map[string]any{"x": 0, "y": 0}).want(t, 201).json(t)
	for _, n := range after.nodes {
		if n["name"] == fresh["name"] {
			t.Errorf("a new node is named %v, as a restored one is", fresh["name"])
		}
	}
	ts.do("POST", base+"/nodes/start", nil).want(t, 204)
	ts.do("POST", base+"/nodes/stop", nil).want(t, 204)

	// Delete, missing things, restart, project deletion.
	ts.do("DELETE", snaps+"/"+second["snapshot_id"].(string), nil).want(t, 204)
	ts.do("DELETE", snaps+"/"+second["snapshot_id"].(string), nil).want(t, 404)
	ts.do("POST", snaps+"/"+second["snapshot_id"].(string)+"/restore", nil).want(t, 404)
	ts.do("POST", snaps+"/not-a-uuid/restore", nil).want(t, 404)
	ts.do("GET", "/v2/projects/5e9f3c1a-0000-4000-8000-000000000001/snapshots", nil).want(t, 404)
	ts.restart()
	if got := ts.do("GET", snaps, nil).want(t, 200).list(t); len(got) != 1 || got[0]["snapshot_id"] != sid || got[0]["created_at"] != s["created_at"] {
		t.Errorf("after restart: %v", got)
	}
	ts.do("POST", snaps+"/"+sid+"/restore", nil).want(t, 201)
	ts.do("DELETE", base, nil).want(t, 204)
	ts.do("POST", "/v2/projects", map[string]any{"name": "again", "project_id": l.pid}).want(t, 201)
	if got := ts.do("GET", snaps, nil).want(t, 200).list(t); len(got) != 0 {
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
	pid := ts.mustCreateProject("files")
	base := "/v2/projects/" + pid
	snaps := base + "/snapshots"
	dir := filepath.Join(ts.dataDir(), "projects", pid)
	vm := ts.mustCreateNode(pid, map[string]any{"node_type": "qemu", "name": "VM1"})["node_id"].(string)
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
	ts.do("POST", base+"/files/notes.txt", "notes at the snapshot").want(t, 201)
	ts.do("POST", nodeFiles+"config.txt", "hostname a").want(t, 201)
	mustWrite(t, filepath.Join(dir, "project-files", "captures", "a.pcap"), []byte("capture 1"))
	mustWrite(t, filepath.Join(dir, "project-files", "qemu", vm, ".state"), []byte("hidden 1"))

	s := ts.do("POST", snaps, map[string]any{"name": "files"}).want(t, 201).json(t)
	sid := s["snapshot_id"].(string)
	kept := filepath.Join(dir, "snapshots", sid)
	if got := tree(t, kept); !reflect.DeepEqual(got, []string{"./", "notes.txt", "project-files/", "project-files/qemu/",
		"project-files/qemu/" + vm + "/", config}) {
		t.Errorf("the snapshot's folder holds %v", got)
	}

	// Change both files, add one, change the capture and the hidden file.
	ts.do("POST", base+"/files/notes.txt", "notes changed").want(t, 201)
	ts.do("POST", nodeFiles+"config.txt", "hostname b").want(t, 201)
	ts.do("POST", base+"/files/added/new.txt", "added").want(t, 201)
	mustWrite(t, filepath.Join(dir, "project-files", "captures", "a.pcap"), []byte("capture 2"))
	mustWrite(t, filepath.Join(dir, "project-files", "qemu", vm, ".state"), []byte("hidden 2"))

	ts.do("POST", snaps+"/"+sid+"/restore", nil).want(t, 201)
	if r := ts.do("GET", base+"/files/notes.txt", nil).want(t, 200); string(r.body) != "notes at the snapshot" {
		t.Errorf("notes.txt after restore: %q", r.body)
	}
	if r := ts.do("GET", nodeFiles+"config.txt", nil).want(t, 200); string(r.body) != "hostname a" {
		t.Errorf("config.txt after restore: %q", r.body)
	}
	ts.do("GET", base+"/files/added/new.txt", nil).want(t, 404)
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
	zipped := readZip(t, ts.do("GET", base+"/export?include_snapshots=yes", nil).want(t, 200).body)
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
	ts.do("DELETE", snaps+"/"+sid, nil).want(t, 204)
	files(map[string]string{"snapshots/" + sid + "/notes.txt": "notes at the snapshot"})
	ts.do("POST", base+"/undo", nil).want(t, 200)
	ts.do("POST", base+"/files/notes.txt", "notes changed again").want(t, 201)
	ts.do("POST", snaps+"/"+sid+"/restore", nil).want(t, 201)
	files(map[string]string{"notes.txt": "notes at the snapshot"})
	// Undo the take itself (after the restore): the record goes, the redo
	// can bring it back, so the folder stays, even across a close.
	ts.do("POST", base+"/undo", nil).want(t, 200) // the restore
	ts.do("POST", base+"/undo", nil).want(t, 200) // the take
	if got := ts.do("GET", snaps, nil).want(t, 200).list(t); len(got) != 0 {
		t.Fatalf("snapshots after undoing the take: %v", got)
	}
	ts.do("POST", base+"/close", nil).want(t, 204)
	files(map[string]string{"snapshots/" + sid + "/notes.txt": "notes at the snapshot"})
	// A new change empties the redo stack: nothing can bring the snapshot
	// back, and the next close sweeps its folder.
	ts.do("PUT", base, map[string]any{"grid_size": 40}).want(t, 200)
	ts.do("POST", base+"/open", nil).want(t, 201)
	if _, err := os.Stat(kept); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the folder of a snapshot nothing can bring back: %v, want it gone", err)
	}

	// A take that cannot copy (a file where the snapshots folder goes)
	// leaves no record and no folder.
	if err := os.RemoveAll(filepath.Join(dir, "snapshots")); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, "snapshots"), []byte("in the way"))
	ts.do("POST", snaps, map[string]any{"name": "blocked"}).want(t, 500)
	if got := ts.do("GET", snaps, nil).want(t, 200).list(t); len(got) != 0 {
		t.Errorf("a failed take left %v", got)
	}
	if err := os.Remove(filepath.Join(dir, "snapshots")); err != nil {
		t.Fatal(err)
	}

	// A restore whose files cannot move in (a folder, holding a hidden
	// file, where the snapshot has a file) puts back what it set aside.
	ts.do("POST", base+"/files/x", "x was a file").want(t, 201)
	sid = ts.do("POST", snaps, map[string]any{"name": "x"}).want(t, 201).json(t)["snapshot_id"].(string)
	if err := os.Remove(filepath.Join(dir, "x")); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, "x", ".hidden"), []byte("in the way"))
	ts.do("POST", base+"/files/notes.txt", "notes after x").want(t, 201)
	before := tree(t, dir)
	ts.do("POST", snaps+"/"+sid+"/restore", nil).want(t, 500)
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
