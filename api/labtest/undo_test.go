package labtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"nodedesk/app/dynamips/dynamipstest"
	"nodedesk/app/kit"
	"nodedesk/app/qemu/qemutest"
)

// deleteAndUndo deletes node n, stopped, and undoes the delete: its
// folder leaves its place with the delete and comes back with the undo,
// every file byte for byte (hashed before and after). It logs the
// folder's size and how long the delete and the undo took.
func deleteAndUndo(t *testing.T, l *Lab, pid string, n map[string]any) {
	t.Helper()
	dir := n["node_directory"].(string)
	before := kit.FolderHashes(t, dir)
	size := kit.FolderSize(t, dir)
	began := time.Now()
	l.Do("DELETE", nodeURL(pid, n), nil).Want(t, 204)
	deleted := time.Since(began)
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("%s's folder is still in place after its delete: %v", n["name"], err)
	}
	began = time.Now()
	l.Do("POST", "/v2/projects/"+pid+"/undo", nil).Want(t, 200)
	undone := time.Since(began)
	kit.WantFiles(t, n["name"].(string)+"'s folder after the undo of its delete", kit.FolderHashes(t, dir), before)
	t.Logf("%s: %d files, %d bytes (%d on disk) kept for undo; delete %v, undo %v", n["name"], len(before), size, diskUse(t, dir), deleted, undone)
}

// diskUse is the disk the files under dir take (their blocks: a sparse
// file takes less than its size).
func diskUse(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if st, ok := info.Sys().(*syscall.Stat_t); err == nil && ok {
			n += st.Blocks * 512
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestUndo_RouterFiles: a Dynamips router started and stopped (its NVRAM
// and configs written back), deleted, then the delete undone, has its
// folder back byte for byte, and starts again from it.
func TestUndo_RouterFiles(t *testing.T) {
	l := Start(t, with(dynamipstest.Emulator))
	iosImage(t, l, "c7200-fake.image", "c7200")
	pid := l.MustCreateProject("undo-router")
	r := routerNode(t, l, pid, "R1", map[string]any{"platform": "c7200", "image": "c7200-fake.image", "idlepc": fakeIdlePC,
		"startup_config_content": "hostname R1\n!\nend\n"})
	url := nodeURL(pid, r)
	l.Do("POST", url+"/start", nil).Want(t, 200)
	l.Do("POST", url+"/stop", nil).Want(t, 200)
	if _, err := os.Stat(filepath.Join(r["node_directory"].(string), "configs")); err != nil {
		t.Fatalf("the stopped router has no configs folder: %v", err)
	}
	deleteAndUndo(t, l, pid, r)
	l.Do("POST", url+"/start", nil).Want(t, 200)
	l.Do("POST", url+"/stop", nil).Want(t, 200)
}

// TestUndo_VMFiles: a QEMU VM started and stopped (its linked clone
// made), deleted, then the delete undone, has its folder back byte for
// byte. A duplicate of it gets a MAC address of its own and a copy of
// its disk: the same bytes, in a file of its own.
func TestUndo_VMFiles(t *testing.T) {
	l := Start(t, with(qemutest.Emulator))
	uploadImage(t, l, "nd-disk.qcow2", qemutest.Guest(t).Disk)
	pid := l.MustCreateProject("undo-vm")
	n := guestNode(t, l, pid, "VM", map[string]any{"hda_disk_image": "nd-disk.qcow2", "ram": 64})
	url := nodeURL(pid, n)
	l.Do("POST", url+"/start", nil).Want(t, 200)
	l.Do("POST", url+"/stop", nil).Want(t, 200)
	disk := filepath.Join(n["node_directory"].(string), "hda_disk.qcow2")
	if _, err := os.Stat(disk); err != nil {
		t.Fatalf("the stopped VM has no linked clone: %v", err)
	}
	deleteAndUndo(t, l, pid, n)

	c := l.Do("POST", url+"/duplicate", map[string]any{"x": 50, "y": 50}).Want(t, 201).JSON(t)
	mac := func(n map[string]any) string { return n["properties"].(map[string]any)["mac_address"].(string) }
	if mac(c) == mac(n) {
		t.Errorf("the duplicate has the original's MAC address %s", mac(n))
	}
	copied := filepath.Join(c["node_directory"].(string), "hda_disk.qcow2")
	if got, want := kit.FolderHashes(t, filepath.Dir(copied))["hda_disk.qcow2"], kit.FolderHashes(t, filepath.Dir(disk))["hda_disk.qcow2"]; got == "" || got != want {
		t.Errorf("the duplicate's disk hashes %q, the original's %q; want the same bytes", got, want)
	}
	a, err1 := os.Stat(disk)
	b, err2 := os.Stat(copied)
	if err1 != nil || err2 != nil || os.SameFile(a, b) {
		t.Errorf("the duplicate's disk is not a file of its own: %v %v", err1, err2)
	}
	l.Do("POST", nodeURL(pid, c)+"/start", nil).Want(t, 200)
	l.Do("POST", nodeURL(pid, c)+"/stop", nil).Want(t, 200)
}
