// Package dynamipstest holds what tests need to run Dynamips routers:
// the dynamips program (Binary), the free stand-in IOS images (FakeIOS,
// PlaceStandInIOS for a GNS3 project's routers) and the Dynamips
// processes working in a node's folder. It is imported by tests only.
package dynamipstest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"nodedesk/app"
	"nodedesk/app/kit"
)

// Binary is the dynamips program the tests run: $NODEDESK_DYNAMIPS
// (make test sets it), else the one `make dynamips` builds into
// build/dynamips, else dynamips on the PATH; the test fails, saying how
// to build it, if there is none.
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("NODEDESK_DYNAMIPS"); p != "" {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if wd, err := os.Getwd(); err == nil {
		if root, err := kit.ModuleRoot(wd); err == nil {
			if p := filepath.Join(root, "build", "dynamips", "dynamips"); fileExists(p) {
				return p
			}
		}
	}
	if p, err := exec.LookPath("dynamips"); err == nil {
		return p
	}
	t.Fatal("dynamips is not built: run `make dynamips` (make test does it; it needs ../shared/third_party/dynamips-0.2.24.tar.gz or THIRD_PARTY=<its folder>)")
	return ""
}

// FakeIOS is the path of the free stand-in IOS image of a platform
// (c7200, c3725, c3745): from $NODEDESK_FAKE_IOS (make test sets it),
// else the shared folder beside the repository's checkout
// (../shared/fake-ios). Never a real IOS image. The test fails, saying
// where it looked, if it is missing.
func FakeIOS(t testing.TB, platform string) string {
	t.Helper()
	return kit.SharedFile(t, "NODEDESK_FAKE_IOS", "fake-ios", "fake-ios-"+platform+".image")
}

// PIDs are the live Dynamips processes (run with -N1, as
// nodedesk runs them) working in dir (a node's folder).
func PIDs(dir string) []int {
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		cwd, err := os.Readlink(filepath.Join(p, "cwd"))
		if err != nil || cwd != dir {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(p, "cmdline"))
		pid, _ := strconv.Atoi(filepath.Base(p))
		if bytes.Contains(cmdline, []byte("\x00-N1\x00")) && kit.ProcState(pid) != "Z" && kit.ProcState(pid) != "" {
			pids = append(pids, pid)
		}
	}
	return pids
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// Emulator runs Dynamips nodes in a lab test with the Dynamips of make
// dynamips; it fails the test if that is not built.
var Emulator = kit.Emulator{Type: app.Dynamips, Prepare: func(tb testing.TB, env *app.RunnerEnv) {
	env.Programs[app.Dynamips] = Binary(tb)
}}
