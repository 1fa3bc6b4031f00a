// Package vpcstest holds what tests need of the vpcs simulator on this
// machine: that it is installed, and the vpcs processes working in a
// node's folder. It is imported by tests only.
package vpcstest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"nodedesk/app"
	"nodedesk/app/kit"
)

// MustHave fails the test unless the vpcs simulator is installed.
func MustHave(t testing.TB) {
	t.Helper()
	if _, err := os.Stat("/usr/bin/vpcs"); err != nil {
		t.Fatal("the vpcs simulator is not installed: run `make test` (it installs it) or `sudo apt-get install vpcs`")
	}
}

// PID is the pid of a vpcs process working in dir (a zombie too), or 0.
func PID(dir string) int {
	if pids := pids(dir); len(pids) > 0 {
		return pids[0]
	}
	return 0
}

// LivePID is PID not counting zombies: a process of a nodedesk that was
// killed is reaped by whoever inherits it, which may be late.
func LivePID(dir string) int {
	for _, pid := range pids(dir) {
		if kit.ProcState(pid) != "Z" {
			return pid
		}
	}
	return 0
}

// pids lists the vpcs processes working in dir.
func pids(dir string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err == nil && cwd == dir {
			if exe, _ := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); strings.HasSuffix(exe, "vpcs") {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// Emulator runs VPCS nodes in a lab test; it fails the test if vpcs is
// not installed.
var Emulator = kit.Emulator{Type: app.VPCS, Prepare: func(tb testing.TB, _ *app.RunnerEnv) { MustHave(tb) }}
