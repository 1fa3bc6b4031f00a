// Package qemutest holds what tests need to run QEMU guests: the QEMU
// program (Binary), the test guest that `make guest` builds (Guest and
// the constants of its console and kernel arguments) and the qemu
// process of a node (PID). It is imported by tests only.
package qemutest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"nodedesk/app"
	"nodedesk/app/kit"
)

// The QEMU test guest's console and kernel arguments, as
// scripts/build-guest.sh makes them and build/guest/README says.
const (
	// GuestKernelArgs is the start of a kernel command line for the guest's
	// kernel and initrd: the console on ttyS0, and what shortens its boot
	// under TCG. Append nd.ip=ADDR/LEN (eth0), nd.ip1= (eth1)…, nd.gw=ADDR
	// and nd.name=NAME (the host name, which is the prompt's start).
	GuestKernelArgs = "console=ttyS0 quiet nokaslr mitigations=off tsc=reliable cryptomgr.notests"
	// GuestReady is the line the guest prints on its console once a boot,
	// right before its first prompt; its network is configured by then.
	GuestReady = "nodedesk-guest: ready"
	// GuestPrompt ends the guest shell's prompt, "guest# " or "NAME# ".
	GuestPrompt = "# "
	// GuestScratchOffset is the byte offset in the guest's disk of its
	// scratch region (partition 2: /dev/sda2 on IDE, /dev/vda2 on virtio),
	// which tests may overwrite from inside the guest.
	GuestScratchOffset = 24 << 20
	// GuestScratchSize is the scratch region's length in bytes: the last
	// 8 MiB of the 32 MiB disk.
	GuestScratchSize = 8 << 20
	// GuestScratchMark is the first line of the scratch region in the base
	// disk; the rest of it is zeros.
	GuestScratchMark = "nodedesk-guest scratch partition: tests may overwrite it"
	// GuestMinRAM is the least memory, in MiB, the guest boots with;
	// give it 128.
	GuestMinRAM = 88
)

// GuestImages are the absolute paths of the QEMU test guest's files in
// build/guest of the module, which `make guest` builds (make test does).
type GuestImages struct {
	// Kernel is the Debian kernel as its package ships it (a bzImage).
	Kernel string
	// KernelELF is the same kernel decompressed (an ELF with a PVH
	// entry): QEMU's -kernel boots it about 2 s sooner under TCG.
	KernelELF string
	// Initrd is the busybox initramfs; its init reads the nd.* arguments
	// of GuestKernelArgs.
	Initrd string
	// Disk is a 32 MiB bootable qcow2 disk that boots the same kernel and
	// initrd with no address: the base of linked clones.
	Disk string
}

// Guest finds the test guest's images, or fails the test saying how to
// build them. It never skips: a lab test without its guest is a failure.
func Guest(t testing.TB) GuestImages {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatalf("test guest: %v", err)
		return GuestImages{}
	}
	g, err := findGuest(wd)
	if err != nil {
		t.Fatalf("test guest: %v", err)
	}
	return g
}

// findGuest walks up from dir to the module root (the folder holding
// go.mod) and checks the guest's files in its build/guest: each is there
// and the README names the kernel arguments and scratch offset this
// package's constants hold.
func findGuest(dir string) (GuestImages, error) {
	root, err := kit.ModuleRoot(dir)
	if err != nil {
		return GuestImages{}, err
	}
	gd := filepath.Join(root, "build", "guest")
	g := GuestImages{
		Kernel:    filepath.Join(gd, "vmlinuz"),
		KernelELF: filepath.Join(gd, "vmlinux"),
		Initrd:    filepath.Join(gd, "initrd.img"),
		Disk:      filepath.Join(gd, "disk.qcow2"),
	}
	var missing []string
	for _, p := range []string{g.Kernel, g.KernelELF, g.Initrd, g.Disk, filepath.Join(gd, "README")} {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			missing = append(missing, filepath.Base(p))
		}
	}
	if len(missing) > 0 {
		return GuestImages{}, fmt.Errorf("%s has no %s: run `make guest` (make test does it)",
			gd, strings.Join(missing, ", "))
	}
	readme, err := os.ReadFile(filepath.Join(gd, "README"))
	if err != nil {
		return GuestImages{}, err
	}
	for _, want := range []string{GuestKernelArgs, GuestScratchMark, "byte offset " + strconv.Itoa(GuestScratchOffset) + " "} {
		if !strings.Contains(string(readme), want) {
			return GuestImages{}, fmt.Errorf("%s/README does not say %q, which qemutest/guest.go expects: "+
				"make scripts/build-guest.sh and app/qemu/qemutest/guest.go agree, then run `make guest`", gd, want)
		}
	}
	return g, nil
}

// Binary is the path of qemu-system-x86_64, or fails the test saying
// how to install it.
func Binary(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("qemu-system-x86_64")
	if err != nil {
		t.Fatalf("qemu-system-x86_64 is not installed: run `make test` (it installs it) or " +
			"`sudo apt-get install qemu-system-x86 qemu-utils`")
	}
	return p
}

// PID is the pid of the live qemu-system process of a node (nodedesk
// gives it -uuid <node id>), or 0.
func PID(nodeID string) int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil || !strings.Contains(string(b), "-uuid\x00"+nodeID+"\x00") {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(d)); err == nil && kit.ProcState(pid) != "Z" && kit.ProcState(pid) != "" {
			return pid
		}
	}
	return 0
}

// Emulator runs QEMU nodes in a lab test; it fails the test if QEMU is
// not installed.
var Emulator = kit.Emulator{Type: app.QEMU, Prepare: func(tb testing.TB, _ *app.RunnerEnv) { Binary(tb) }}
