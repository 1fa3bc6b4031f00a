// Package dockertest runs a Docker Engine of the test's own
// (scripts/test-dockerd.sh) with the offline test image: Docker node
// tests run on it, never on the machine's own engine. It is imported by
// tests only.
package dockertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"nodedesk/app"
	"nodedesk/app/kit"
)

// TestImage is the image test-dockerd.sh imports: a busybox-static
// root file system, every applet linked in /bin, CMD /bin/sh.
const TestImage = "nodedesk-test/busybox:latest"

// Dockerd starts a private dockerd (its data, run folder and socket in
// a temporary folder, no bridge and no iptables rules, TestImage
// imported) for the test and returns its address
// (a DOCKER_HOST value, unix://…); it is stopped, with its containers,
// when the test ends. It skips the test, loudly, only where no dockerd
// can run at all (not Linux, not root) or NODEDESK_DOCKER=skip says so; a
// machine without Docker installed fails the test (make test installs
// docker.io and busybox-static).
func Dockerd(t testing.TB) string {
	t.Helper()
	skip := os.Getenv("NODEDESK_DOCKER") == "skip"
	switch {
	case runtime.GOOS != "linux":
		kit.Unavailable(t, "Docker node tests need Linux (dockerd and veth pairs)")
	case os.Geteuid() != 0:
		kit.Unavailable(t, "Docker node tests need root to run a private dockerd and make veth pairs (CI runs as root)")
	}
	if _, err := exec.LookPath("dockerd"); err != nil {
		if skip {
			t.Skip("SKIPPED (NODEDESK_DOCKER=skip): dockerd is not installed")
		}
		t.Fatal("dockerd is not installed: run `make test` (it installs it) or `sudo apt-get install docker.io busybox-static`; " +
			"NODEDESK_DOCKER=skip skips the Docker tests instead")
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, err := kit.ModuleRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(root, "scripts", "test-dockerd.sh")
	// A short folder: the socket's path must fit a unix address.
	dir, err := os.MkdirTemp("", "ndd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if out, err := exec.CommandContext(ctx, script, "stop", dir).CombinedOutput(); err != nil {
			t.Logf("stopping the test's dockerd: %v\n%s", err, out)
		}
		_ = os.RemoveAll(dir)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, "start", dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "dockerd.log"))
		if skip {
			t.Skipf("SKIPPED (NODEDESK_DOCKER=skip): dockerd could not start: %v\n%s", err, stderr.String())
		}
		t.Fatalf("the test's dockerd could not start: %v\n%s\ndockerd.log:\n%s", err, stderr.String(), tail(string(log), 40))
	}
	host := strings.TrimSpace(string(out))
	if !strings.HasPrefix(host, "unix://") {
		t.Fatalf("test-dockerd.sh printed %q, not a unix:// address", host)
	}
	return host
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Emulator runs Docker nodes in a lab test on a private Docker Engine
// (Dockerd), stopped after the lab's containers since cleanups run last
// first.
var Emulator = kit.Emulator{Type: app.Docker, Prepare: func(tb testing.TB, env *app.RunnerEnv) {
	env.Programs[app.Docker] = Dockerd(tb)
}}
