package qemu

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"nodedesk/app"
	"nodedesk/app/procrecord"
	"nodedesk/app/supervise"
)

// These tests run real qemu-system-x86_64 processes with no guest at all
// (the firmware spins waiting for a boot disk), which is all the process
// side of the runner needs: its monitor, its record, its end.

func qemuOrFail(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("qemu-system-x86_64"); err != nil {
		t.Fatal("qemu-system-x86_64 is not installed; `make test` installs it (Debian package qemu-system-x86)")
	}
}

func noKVM(context.Context, string) (bool, string) { return false, "the test says so" }

func testRunner(t *testing.T) *Runner {
	t.Helper()
	qemuOrFail(t)
	r := New(Config{ConsoleHost: "127.0.0.1", RunDir: t.TempDir(), ProbeKVM: noKVM, StopGrace: time.Second})
	t.Cleanup(r.StopAll)
	return r
}

func bareGuest(t *testing.T, name string, onClose string) app.Process {
	t.Helper()
	p, _ := json.Marshal(map[string]any{"ram": 32, "adapters": 0, "mac_address": "0c:00:00:00:01:00", "on_close": onClose, "options": "-nodefaults"})
	var m map[string]json.RawMessage
	_ = json.Unmarshal(p, &m)
	return app.Process{ProjectID: "p", NodeID: uuid.NewString(), Name: name, Dir: t.TempDir(), ConsoleType: app.ConsoleNone, Properties: m}
}

func status(t *testing.T, r *Runner, nodeID string) string {
	t.Helper()
	g, err := r.get(nodeID)
	if err != nil {
		t.Fatal(err)
	}
	out, err := g.mon.run("query-status", nil)
	if err != nil {
		t.Fatal(err)
	}
	var st struct{ Status string }
	_ = json.Unmarshal(out, &st)
	return st.Status
}

func alive(pid int) bool {
	st, err := procrecord.State(pid)
	return err == nil && st != "Z"
}

// TestRunner_Lifecycle: start answers once the monitor does; suspend and
// resume pause and continue the guest; reload resets it; stop leaves no
// process and no record.
func TestRunner_Lifecycle(t *testing.T) {
	r := testRunner(t)
	var notes []string
	r.Observe(supervise.Funcs{Note: func(_, _ string, n app.Note) { notes = append(notes, n.Message+" | "+n.Detail) }})
	p := bareGuest(t, "VM1", powerOff)
	cmdline, err := r.Start(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cmdline, "-accel tcg,tb-size=64") || !strings.Contains(cmdline, "-uuid "+p.NodeID) {
		t.Errorf("command line %s", cmdline)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], `"VM1" `+NoKVMNote+" | Why there is no KVM: ") {
		t.Errorf("notes %q; want one saying %q, the reason apart", notes, NoKVMNote)
	}
	g, _ := r.get(p.NodeID)
	pid := g.Pid()
	if _, err := os.Stat(r.records().Path(p.NodeID)); err != nil {
		t.Errorf("no record of the running guest: %v", err)
	}
	if got := status(t, r, p.NodeID); got != "running" {
		t.Errorf("status after start %q", got)
	}
	if err := r.Suspend(p.NodeID); err != nil {
		t.Fatal(err)
	}
	if got := status(t, r, p.NodeID); got != "paused" {
		t.Errorf("status after suspend %q, want paused", got)
	}
	if err := r.Resume(p.NodeID); err != nil {
		t.Fatal(err)
	}
	if got := status(t, r, p.NodeID); got != "running" {
		t.Errorf("status after resume %q, want running", got)
	}
	if err := r.Reload(p.NodeID); err != nil {
		t.Fatal(err)
	}
	if err := r.Stop(p.NodeID); err != nil {
		t.Fatal(err)
	}
	if alive(pid) {
		t.Errorf("process %d still there after stop", pid)
	}
	if _, err := os.Stat(r.records().Path(p.NodeID)); !os.IsNotExist(err) {
		t.Errorf("the record outlived the guest: %v", err)
	}
	if err := r.Suspend(p.NodeID); app.ErrorCode(err) != app.ECONFLICT {
		t.Errorf("suspend of a stopped guest: %v, want ECONFLICT", err)
	}
}

// TestRunner_DiesByItself: a guest killed from outside is reported with
// what QEMU last said.
func TestRunner_DiesByItself(t *testing.T) {
	r := testRunner(t)
	var mu sync.Mutex
	exited := make(chan string, 1)
	r.Observe(supervise.Funcs{Exit: func(_, nodeID, detail string) { mu.Lock(); defer mu.Unlock(); exited <- detail }})
	p := bareGuest(t, "VM2", powerOff)
	if _, err := r.Start(p); err != nil {
		t.Fatal(err)
	}
	g, _ := r.get(p.NodeID)
	_ = syscall.Kill(g.Pid(), syscall.SIGTERM)
	select {
	case d := <-exited:
		if !strings.Contains(d, "QEMU") {
			t.Errorf("exit detail %q does not say what ended", d)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the exit was not reported")
	}
}

// TestRunner_BadOptionsFailAtStart: QEMU refusing its command line is a
// conflict that quotes QEMU, and nothing stays behind.
func TestRunner_BadOptionsFailAtStart(t *testing.T) {
	r := testRunner(t)
	p := bareGuest(t, "VM3", powerOff)
	p.Properties["options"] = json.RawMessage(`"-no-such-option"`)
	_, err := r.Start(p)
	if app.ErrorCode(err) != app.ECONFLICT || !strings.Contains(err.Error(), "no-such-option") {
		t.Fatalf("start with a bad option: %v; want a conflict quoting QEMU", err)
	}
	if _, err := r.get(p.NodeID); err == nil {
		t.Error("a failed guest is still listed")
	}
}

// TestRunner_Open: a guest recorded by a nodedesk that died is ended at
// the next start (Open), which names it; a record whose PID is now
// another program's leaves that program alone.
func TestRunner_Open(t *testing.T) {
	qemuOrFail(t)
	dir := t.TempDir()
	orphan := exec.Command("qemu-system-x86_64", "-nodefaults", "-display", "none", "-accel", "tcg", "-m", "32")
	orphan.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := orphan.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = orphan.Process.Kill(); _, _ = orphan.Process.Wait() }()
	bystander := exec.Command("sleep", "30")
	if err := bystander.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = bystander.Process.Kill(); _, _ = bystander.Process.Wait() }()

	old := New(Config{RunDir: dir})
	if err := old.records().Keep("n1", "R1", orphan.Process.Pid); err != nil {
		t.Fatal(err)
	}
	stale, _ := json.Marshal(map[string]any{"pid": bystander.Process.Pid, "started": 1, "node_id": "n2", "name": "R2"}) // a PID reused since
	if err := os.WriteFile(filepath.Join(dir, "n2.json"), stale, 0o600); err != nil {
		t.Fatal(err)
	}

	ended, err := New(Config{RunDir: dir, ProbeKVM: noKVM}).Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(ended) != 1 || ended[0] != "R1" {
		t.Errorf("ended %q, want [R1]", ended)
	}
	done := make(chan error, 1)
	go func() { done <- orphan.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Error("the orphan guest is still running")
	}
	if !alive(bystander.Process.Pid) {
		t.Error("a program that reused a recorded PID was killed")
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("records left: %v", left)
	}
}
