// Package ioutest holds what tests need to run IOU nodes: the free
// stand-in IOU image (FakeIOL, never a real one) and the IOU processes of
// a node. It is imported by tests only.
package ioutest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"nodedesk/app"
	"nodedesk/app/kit"
)

// FakeIOL is the path of the free stand-in IOU image (x86_64: this
// kernel runs no 32-bit programs): from $NODEDESK_FAKE_IOL (make test
// sets it), else the shared folder beside the repository's checkout
// (../shared/fake-iol). The test fails, saying where it looked, if it is
// missing.
func FakeIOL(t testing.TB) string {
	t.Helper()
	return kit.SharedFile(t, "NODEDESK_FAKE_IOL", "fake-iol", "fake-iol-x86_64.bin")
}

// PlaceImage copies the stand-in image into the IOU images folder of a
// nodedesk whose data folder is dataDir, under name (a name holding "l2"
// makes it a switch).
func PlaceImage(t testing.TB, dataDir, name string) {
	t.Helper()
	b, err := os.ReadFile(FakeIOL(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(dataDir, "images", "IOU")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// PIDs are the live IOU processes of application id id (their last
// argument) working in dir (a node's folder).
func PIDs(dir string, id int) []int {
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		cwd, err := os.Readlink(filepath.Join(p, "cwd"))
		if err != nil || cwd != dir {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(p, "cmdline"))
		pid, _ := strconv.Atoi(filepath.Base(p))
		if bytes.HasSuffix(cmdline, []byte("\x00"+strconv.Itoa(id)+"\x00")) && kit.ProcState(pid) != "Z" && kit.ProcState(pid) != "" {
			pids = append(pids, pid)
		}
	}
	return pids
}

// Emulator runs IOU nodes in a lab test; the image is placed by each test
// (PlaceImage).
var Emulator = kit.Emulator{Type: app.IOU, Prepare: func(testing.TB, *app.RunnerEnv) {}}
