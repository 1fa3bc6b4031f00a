package api

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"nodedesk/app"
)

// TestProjectDelete_RemovesFolder: DELETE of a project removes its folder,
// its files and its snapshots' files with it, as GNS3 does; nothing can
// bring the project back (its history went with it), and nothing of it is
// left in the projects folder. Another project's folder stays.
func TestProjectDelete_RemovesFolder(t *testing.T) {
	ts := mustOpenServer(t)
	p := ts.Do("POST", "/v2/projects", map[string]any{"name": "gone"}).Want(t, 201).JSON(t)
	pid, dir := p["project_id"].(string), p["path"].(string)
	other := ts.Do("POST", "/v2/projects", map[string]any{"name": "stays"}).Want(t, 201).JSON(t)
	ts.Do("POST", "/v2/projects/"+other["project_id"].(string)+"/files/notes.txt", "kept").Want(t, 201)
	ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs"})
	ts.Do("POST", "/v2/projects/"+pid+"/files/notes.txt", "mine").Want(t, 201)
	snap := ts.Do("POST", "/v2/projects/"+pid+"/snapshots", map[string]any{"name": "s1"}).Want(t, 201).JSON(t)
	for _, p := range []string{"notes.txt", filepath.Join("snapshots", snap["snapshot_id"].(string), "notes.txt")} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Fatalf("the project's %s is not on disk before the delete: %v", p, err)
		}
	}

	ts.Do("DELETE", "/v2/projects/"+pid, nil).Want(t, 204)
	if _, err := os.Lstat(dir); err == nil {
		t.Errorf("the deleted project's folder %s is still there", dir)
	}
	ts.Do("POST", "/v2/projects/"+pid+"/undo", nil).Want(t, 404)
	entries, err := os.ReadDir(filepath.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), pid) {
			t.Errorf("%s is left in the projects folder", e.Name())
		}
	}
	if b, err := os.ReadFile(filepath.Join(other["path"].(string), "notes.txt")); err != nil || string(b) != "kept" {
		t.Errorf("the other project's file: %q, %v", b, err)
	}
}

// TestProjectDelete_FailedKeepsFolder: a delete whose records' write fails
// (a full disk) leaves the project and its folder as they were.
func TestProjectDelete_FailedKeepsFolder(t *testing.T) {
	fs := &failingStore{}
	ts := mustOpenServerWith(t, testOptions{wrapStore: func(s app.Store) app.Store { fs.Store = s; return fs }})
	p := ts.Do("POST", "/v2/projects", map[string]any{"name": "kept"}).Want(t, 201).JSON(t)
	pid, dir := p["project_id"].(string), p["path"].(string)
	ts.Do("POST", "/v2/projects/"+pid+"/files/notes.txt", "mine").Want(t, 201)
	fs.fail.Store(true)
	ts.Do("DELETE", "/v2/projects/"+pid, nil).Want(t, 500)
	fs.fail.Store(false)
	ts.Do("GET", "/v2/projects/"+pid, nil).Want(t, 200)
	if b, err := os.ReadFile(filepath.Join(dir, "notes.txt")); err != nil || string(b) != "mine" {
		t.Errorf("after a failed delete the project's file is %q, %v; want it in place", b, err)
	}
}
