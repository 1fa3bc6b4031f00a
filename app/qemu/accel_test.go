package qemu

import (
	"context"
	"nodedesk/app/kit"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mustQEMUSystem returns the path of qemu-system-x86_64, or skips the test where
// it is not installed.
func mustQEMUSystem(tb testing.TB) string {
	tb.Helper()
	p, err := exec.LookPath("qemu-system-x86_64")
	if err != nil {
		kit.Unavailable(tb, "qemu-system-x86_64 is not installed (Debian: qemu-system-x86, which make test installs)")
	}
	return p
}

// processesUnder lists the running processes whose command line names
// dir: a probe's guest, by the temporary folder it was given.
func processesUnder(tb testing.TB, dir string) []string {
	tb.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		tb.Skip("no /proc here:", err)
	}
	var found []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), dir) {
			found = append(found, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return found
}

// wantNoGuestLeft fails the test if a probe's guest outlived its probe.
func wantNoGuestLeft(tb testing.TB, tmpRoot string) {
	tb.Helper()
	if left := processesUnder(tb, tmpRoot); len(left) > 0 {
		tb.Fatalf("the probe left processes running: %v", left)
	}
	if entries, _ := os.ReadDir(tmpRoot); len(entries) > 0 {
		tb.Fatalf("the probe left files in %s: %v", tmpRoot, entries)
	}
}

// The probe guest itself works: under TCG, which works everywhere, it
// writes its marker well within the probe's bound. (Without this, a probe
// that always says no would pass for a good one.)
func TestRunProbe_GuestFinishesUnderTCG(t *testing.T) {
	qemu := mustQEMUSystem(t)
	tmp := t.TempDir()
	r, final := runProbe(context.Background(), qemu, "tcg", tmp, probeTimeout)
	if !r.ok || !final {
		t.Fatalf("the probe guest did not finish under TCG: %+v", r)
	}
	if !strings.HasPrefix(r.why, "KVM works") {
		t.Errorf("why = %q", r.why)
	}
	wantNoGuestLeft(t, tmp)
}

// A guest that has not finished when the bound is reached is killed with
// its process group, and the answer is no.
func TestRunProbe_LateGuestIsKilled(t *testing.T) {
	qemu := mustQEMUSystem(t)
	tmp := t.TempDir()
	r, final := runProbe(context.Background(), qemu, "tcg", tmp, time.Nanosecond)
	if r.ok || !final {
		t.Fatalf("a guest given no time passed: %+v", r)
	}
	if !strings.Contains(r.why, "did not finish") && !strings.Contains(r.why, "no sign of life") {
		t.Errorf("why = %q", r.why)
	}
	wantNoGuestLeft(t, tmp)
}

func TestRunProbe_ProgramThatFails(t *testing.T) {
	tmp := t.TempDir()
	r, final := runProbe(context.Background(), "/bin/false", "kvm", tmp, probeTimeout)
	if r.ok || !final || !strings.Contains(r.why, "could not run a guest under KVM") {
		t.Fatalf("runProbe(/bin/false) = %+v, %v", r, final)
	}
	r, _ = runProbe(context.Background(), filepath.Join(tmp, "absent"), "kvm", tmp, probeTimeout)
	if r.ok || !strings.Contains(r.why, "could not start") {
		t.Fatalf("runProbe(absent program) = %+v", r)
	}
}

// A probe that its caller gave up on says nothing of KVM: it is not cached.
func TestRunProbe_CancelledIsNotFinal(t *testing.T) {
	qemu := mustQEMUSystem(t)
	tmp := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, final := runProbe(ctx, qemu, "tcg", tmp, time.Minute)
	if final {
		t.Fatalf("a cancelled probe gave a final answer: %+v", r)
	}
	wantNoGuestLeft(t, tmp)
}

// ProbeKVM on this machine: an answer with its reason, once (cached), and
// no guest left. NODEDESK_EXPECT_KVM=no (or yes) says what this machine
// must answer: the machine nodedesk is built on has a /dev/kvm that hangs
// guests, and must be found out.
func TestProbeKVM_ThisMachine(t *testing.T) {
	qemu := mustQEMUSystem(t)
	ok, why := ProbeKVM(context.Background(), qemu)
	t.Logf("ProbeKVM(%s) = %v: %s", qemu, ok, why)
	if why == "" {
		t.Fatal("no reason given")
	}
	switch os.Getenv("NODEDESK_EXPECT_KVM") {
	case "no":
		if ok {
			t.Fatalf("KVM said to work, on a machine where it does not: %s", why)
		}
	case "yes":
		if !ok {
			t.Fatalf("KVM said not to work, on a machine where it does: %s", why)
		}
	}
	probes.Lock()
	cached, done := probes.done[qemu]
	probes.Unlock()
	if !done || cached.ok != ok || cached.why != why {
		t.Fatalf("the answer is not cached: %+v", cached)
	}
	if ok2, why2 := ProbeKVM(context.Background(), qemu); ok2 != ok || why2 != why {
		t.Fatalf("second answer %v %q differs from the first", ok2, why2)
	}
	if left := processesUnder(t, "nodedesk-kvm-probe-"); len(left) > 0 {
		t.Logf("probe guests running now (perhaps another test's): %v", left)
	}
}

// Programs for other guests than this machine's are not probed: KVM does
// not accelerate them.
func TestProbeKVM_ForeignGuest(t *testing.T) {
	r, final := probeKVM(context.Background(), "/usr/bin/qemu-system-aarch64", t.TempDir(), probeTimeout)
	if r.ok || !final || r.why == "" {
		t.Fatalf("probeKVM(aarch64) = %+v, %v", r, final)
	}
}

func TestProbeSector(t *testing.T) {
	if len(probeSector) != 512 || probeSector[510] != 0x55 || probeSector[511] != 0xaa {
		t.Fatal("the probe guest is not a boot sector")
	}
	if !strings.Contains(string(probeSector[0x56:0x6d]), probeMarker) {
		t.Fatalf("the marker is not where the code writes it from: %q", probeSector[0x56:0x6d])
	}
}
