package iou

import (
	"bufio"
	"nodedesk/app/kit"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestLockHolder is not a test: the child TestLockedByOther runs to hold
// a lock, as GNS3's uBridge holds a bridge's .lck.
func TestLockHolder(t *testing.T) {
	path := os.Getenv("NODEDESK_TEST_HOLD_LOCK")
	if path == "" {
		kit.RunElsewhere(t, "a child process of TestLockedByOther, the other process")
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.FcntlFlock(f.Fd(), unix.F_SETLK, &unix.Flock_t{Type: unix.F_WRLCK}); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("locked\n")
	time.Sleep(30 * time.Second) // killed by the parent long before
}

// TestLockedByOther: a lock another process holds is seen; this
// process's own is not, and asking keeps it.
func TestLockedByOther(t *testing.T) {
	dir := t.TempDir()
	theirs, mine := filepath.Join(dir, "1001.lck"), filepath.Join(dir, "1002.lck")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHolder$")
	cmd.Env = append(os.Environ(), "NODEDESK_TEST_HOLD_LOCK="+theirs)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "locked\n" {
		t.Fatalf("the other process did not take its lock: %q", line)
	}
	if !lockedByOther(theirs) {
		t.Error("a lock another process holds is not seen")
	}
	f, err := os.OpenFile(mine, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.FcntlFlock(f.Fd(), unix.F_SETLK, &unix.Flock_t{Type: unix.F_WRLCK}); err != nil {
		t.Fatal(err)
	}
	if lockedByOther(mine) {
		t.Error("this process's own lock is taken for another's")
	}
	if lockedByOther(filepath.Join(dir, "missing.lck")) {
		t.Error("a missing lock file is taken for a held one")
	}
	locks, _ := os.ReadFile("/proc/locks")
	if !strings.Contains(string(locks), " "+strconv.Itoa(os.Getpid())+" ") {
		t.Errorf("asking dropped this process's own lock: /proc/locks is\n%s", locks)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if lockedByOther(theirs) {
		t.Error("a lock whose process has ended is still seen")
	}
}
