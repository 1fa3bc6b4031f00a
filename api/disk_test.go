package api

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"nodedesk/app"
	"nodedesk/app/kit"
)

// failingStore makes writes fail on demand, as a full disk would: nothing
// is written and the store reports an error.
type failingStore struct {
	app.Store
	fail atomic.Bool
}

func (f *failingStore) Update(fn func(app.Tx) error) error {
	if f.fail.Load() {
		return app.Errorf(app.EINTERNAL, "The change was not saved: the store could not be written (no space left on device); check free disk space and permissions, then try again")
	}
	return f.Store.Update(fn)
}

func TestDiskTrouble_FailingStore(t *testing.T) {
	fs := &failingStore{}
	ts := mustOpenServerWith(t, testOptions{wrapStore: func(s app.Store) app.Store { fs.Store = s; return fs }})
	pid := ts.MustCreateProject("lab")
	n := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": "keep"})
	path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
	fs.fail.Store(true)
	r := ts.Do("PUT", path, map[string]any{"name": "lost"}).Want(t, 500)
	if msg := r.JSON(t)["message"].(string); !strings.Contains(msg, "disk space") {
		t.Errorf("500 message %q does not say what to do", msg)
	}
	ts.Do("POST", "/v2/projects/"+pid+"/nodes", map[string]any{"node_type": "vpcs"}).Want(t, 500)
	fs.fail.Store(false)
	if got := ts.Do("GET", path, nil).Want(t, 200).JSON(t)["name"]; got != "keep" {
		t.Errorf("name %v after a failed write, want keep", got)
	}
	ts.Do("PUT", path, map[string]any{"name": "saved"}).Want(t, 200)
	ts.restart()
	if got := ts.Do("GET", path, nil).Want(t, 200).JSON(t)["name"]; got != "saved" {
		t.Errorf("name %v after restart, want saved", got)
	}
}

// TestDiskTrouble_FullDisk fills a real (tmpfs) disk under the store.
// Mounting needs root; CI runs as root.
func TestDiskTrouble_FullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		kit.Unavailable(t, "mounting a small tmpfs needs root (CI runs as root)")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", dir).CombinedOutput(); err != nil {
		kit.Unavailable(t, "cannot mount a tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	ts := mustOpenServerWith(t, testOptions{dbPath: filepath.Join(dir, "nodedesk.db")})
	pid := ts.MustCreateProject("lab")
	n := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": "first"})
	path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
	script := strings.Repeat("echo fill the disk\n", 3000) // ~57 KiB a node
	var acked []string
	full := false
	for i := 0; i < 200 && !full; i++ {
		r := ts.Do("POST", "/v2/projects/"+pid+"/nodes", map[string]any{"node_type": "vpcs", "properties": map[string]any{"startup_script": script}})
		switch r.Status {
		case 201:
			acked = append(acked, r.JSON(t)["node_id"].(string))
		case 500:
			full = true
			if msg := r.JSON(t)["message"].(string); !strings.Contains(msg, "disk space") {
				t.Errorf("500 message %q does not say what to do", msg)
			}
		default:
			t.Fatalf("create answered %d %s", r.Status, r.Body)
		}
	}
	if !full {
		t.Fatal("the 2 MiB disk never filled")
	}
	// Nothing stored is lost, and reads still work.
	if got := ts.Do("GET", path, nil).Want(t, 200).JSON(t)["name"]; got != "first" {
		t.Errorf("first node reads %v", got)
	}
	if err := exec.Command("mount", "-o", "remount,size=64m", dir).Run(); err != nil {
		t.Fatalf("remount: %v", err)
	}
	ts.Do("PUT", path, map[string]any{"name": "after"}).Want(t, 200)
	ts.restart()
	for _, id := range acked {
		ts.Do("GET", "/v2/projects/"+pid+"/nodes/"+id, nil).Want(t, 200)
	}
	if got := ts.Do("GET", path, nil).Want(t, 200).JSON(t)["name"]; got != "after" {
		t.Errorf("name %v after the disk had room again", got)
	}
	t.Logf("%d nodes acknowledged before the disk was full; all there after a restart", len(acked))
}
