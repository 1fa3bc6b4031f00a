package qemu

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Whether KVM works is probed, never assumed from /dev/kvm: in a virtual
// machine without nested virtualisation /dev/kvm can exist, open, create
// a VM and run a BIOS, while every guest then crawls or hangs (on the
// machine this was written on, SeaBIOS boots under KVM and a Linux kernel
// never prints a line). So the probe boots a guest that does some work: a
// boot sector that enters protected mode, counts down a loop of 20 million
// steps, copies 1 MiB, and writes a marker to the debug console port. A
// working KVM runs that in milliseconds, QEMU's own translator (TCG) in a
// fraction of a second; a KVM that does not finish it within probeTimeout
// is not used.

// probeTimeout bounds a probe: QEMU's start, SeaBIOS, and the test guest.
const probeTimeout = 3 * time.Second

// probeMarker is what the probe guest writes once its work is done.
const probeMarker = "nodedesk-kvm-probe-ok"

// probeSector is the probe guest: a PC boot sector, machine code written
// for nodedesk (the assembly beside each line; it loads at 0x7c00).
var probeSector = func() []byte {
	code := []byte{
		0xfa,       // cli
		0x31, 0xc0, // xor %ax,%ax
		0x8e, 0xd8, // mov %ax,%ds
		0x8e, 0xd0, // mov %ax,%ss
		0xbc, 0x00, 0x7c, // mov $0x7c00,%sp
		0x66, 0x0f, 0x01, 0x16, 0x88, 0x7c, // lgdtl 0x7c88 (gdtr below)
		0x0f, 0x20, 0xc0, // mov %cr0,%eax
		0x0c, 0x01, // or $1,%al: protected mode
		0x0f, 0x22, 0xc0, // mov %eax,%cr0
		0x66, 0xea, 0x20, 0x7c, 0x00, 0x00, 0x08, 0x00, // ljmpl $0x08,$0x7c20
		// 32-bit code, at 0x7c20:
		0x66, 0xb8, 0x10, 0x00, // mov $0x10,%ax: the data segment
		0x8e, 0xd8, // mov %ax,%ds
		0x8e, 0xc0, // mov %ax,%es
		0x8e, 0xd0, // mov %ax,%ss
		0xb9, 0x00, 0x2d, 0x31, 0x01, // mov $20000000,%ecx
		0x49,       // 1: dec %ecx
		0x75, 0xfd, // jnz 1b
		0xbe, 0x00, 0x00, 0x10, 0x00, // mov $0x100000,%esi
		0xbf, 0x00, 0x00, 0x20, 0x00, // mov $0x200000,%edi
		0xb9, 0x00, 0x00, 0x10, 0x00, // mov $0x100000,%ecx
		0xf3, 0xa4, // rep movsb: copy 1 MiB
		0xbe, 0x56, 0x7c, 0x00, 0x00, // mov $0x7c56,%esi: the message
		0xb9, 0x17, 0x00, 0x00, 0x00, // mov $23,%ecx: its length
		0x66, 0xba, 0x02, 0x04, // mov $0x402,%dx: the debug console port
		0xf3, 0x6e, // rep outsb
		0xf4,       // 2: hlt
		0xeb, 0xfd, // jmp 2b
	}
	code = append(code, "\n"+probeMarker+"\n"...) // at 0x7c56
	for len(code)%8 != 0 {
		code = append(code, 0)
	}
	if len(code) != 0x70 {
		panic("qemu: the probe sector's layout changed")
	}
	code = append(code,
		0, 0, 0, 0, 0, 0, 0, 0, // the GDT at 0x7c70: null descriptor
		0xff, 0xff, 0, 0, 0, 0x9a, 0xcf, 0, // 0x08: code, flat 4 GiB
		0xff, 0xff, 0, 0, 0, 0x92, 0xcf, 0, // 0x10: data, flat 4 GiB
		0x17, 0x00, 0x70, 0x7c, 0x00, 0x00, // gdtr at 0x7c88: limit 23, base 0x7c70
	)
	sector := make([]byte, 512)
	copy(sector, code)
	sector[510], sector[511] = 0x55, 0xaa // the boot signature
	return sector
}()

// probeResult is a probe's answer.
type probeResult struct {
	ok  bool
	why string
}

// probes caches each binary's answer; its lock also makes probes run one
// at a time.
var probes struct {
	sync.Mutex
	done map[string]probeResult
}

// ProbeKVM reports whether binary (a qemu-system-* program) runs guests
// under KVM on this machine, and why: the answer comes from booting a
// test guest under KVM, bounded to a few seconds and killed with its
// process group whatever happens; /dev/kvm existing is not enough. It is
// probed once per binary and then cached; a probe that ctx cut short is
// not cached.
func ProbeKVM(ctx context.Context, binary string) (ok bool, why string) {
	probes.Lock()
	defer probes.Unlock()
	if r, done := probes.done[binary]; done {
		return r.ok, r.why
	}
	r, final := probeKVM(ctx, binary, "", probeTimeout)
	if final {
		if probes.done == nil {
			probes.done = map[string]probeResult{}
		}
		probes.done[binary] = r
	}
	return r.ok, r.why
}

// guestIsX86 reports whether a QEMU program runs x86 guests, by its name.
func guestIsX86(binary string) bool {
	name := strings.TrimSuffix(filepath.Base(binary), ".exe")
	return name == "qemu-kvm" || strings.HasSuffix(name, "x86_64") || strings.HasSuffix(name, "i386")
}

// probeKVM checks what can be checked without a guest, then runs the
// probe guest under KVM (runProbe). final is false when ctx ended the
// probe, whose answer then says nothing of KVM.
func probeKVM(ctx context.Context, binary, tmpRoot string, timeout time.Duration) (r probeResult, final bool) {
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "386" {
		return probeResult{why: "KVM is probed on x86 machines only; QEMU runs under TCG here"}, true
	}
	if !guestIsX86(binary) {
		return probeResult{why: fmt.Sprintf("KVM accelerates guests of this machine's architecture (x86) only, not %s's", filepath.Base(binary))}, true
	}
	f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return probeResult{why: "this machine has no /dev/kvm: it has no hardware virtualisation, or the kvm module is not loaded"}, true
	case errors.Is(err, fs.ErrPermission):
		return probeResult{why: "nodedesk's user may not use /dev/kvm; add it to the kvm group and restart nodedesk"}, true
	case err != nil:
		return probeResult{why: fmt.Sprintf("/dev/kvm cannot be opened: %v", err)}, true
	}
	f.Close()
	return runProbe(ctx, binary, "kvm", tmpRoot, timeout)
}

// runProbe boots the probe guest with binary under accel (kvm; tcg for
// tests), its temporary folder in tmpRoot ("" for the system's), and
// says whether it finished within timeout. The guest's process group is
// killed before runProbe returns, whatever happened.
func runProbe(ctx context.Context, binary, accel, tmpRoot string, timeout time.Duration) (r probeResult, final bool) {
	dir, err := os.MkdirTemp(tmpRoot, "nodedesk-kvm-probe-")
	if err != nil {
		return probeResult{why: fmt.Sprintf("the KVM probe could not make its temporary folder: %v", err)}, true
	}
	defer os.RemoveAll(dir)
	disk := filepath.Join(dir, "probe.img")
	if err := os.WriteFile(disk, probeSector, 0o600); err != nil {
		return probeResult{why: fmt.Sprintf("the KVM probe could not write its guest: %v", err)}, true
	}
	cmd := exec.Command(binary, "-accel", accel, "-nodefaults", "-display", "none", "-machine", "pc", "-m", "16",
		"-drive", "file="+disk+",format=raw,if=ide",
		"-chardev", "stdio,id=debug,signal=off", "-device", "isa-debugcon,iobase=0x402,chardev=debug",
		"-no-reboot")
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	var stderr probeStderr
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return probeResult{why: fmt.Sprintf("the KVM probe could not start %s: %v", binary, err)}, true
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return probeResult{why: fmt.Sprintf("the KVM probe could not start %s: %v", binary, err)}, true
	}
	found, alive := make(chan struct{}), make(chan struct{})
	var spoke atomic.Bool // the BIOS wrote to the debug console
	go func() {
		defer close(alive)
		watchMarker(out, &spoke, found)
		_ = cmd.Wait()
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	name := filepath.Base(binary)
	select {
	case <-found:
		r, final = probeResult{ok: true, why: fmt.Sprintf("KVM works: a test guest ran under it in %v", time.Since(start).Round(time.Millisecond))}, true
	case <-alive:
		r, final = probeResult{why: fmt.Sprintf("%s could not run a guest under %s: %s", name, strings.ToUpper(accel), lastWords(stderr.String()))}, true
	case <-timer.C:
		r, final = probeResult{why: fmt.Sprintf("a test guest did not finish in %v under %s: %[2]s is there but does not work; this machine may be a virtual machine without nested virtualisation", timeout, strings.ToUpper(accel))}, true
		if !spoke.Load() {
			r.why = fmt.Sprintf("a test guest showed no sign of life in %v under %s: %[2]s is there but does not work", timeout, strings.ToUpper(accel))
		}
	case <-ctx.Done():
		r = probeResult{why: "the KVM probe was cut short: " + ctx.Err().Error()}
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-alive // the guest is gone, its output read
	return r, final
}

// watchMarker reads the guest's debug console to its end, setting spoke
// at the first byte and closing found when the probe's marker appears.
func watchMarker(r io.Reader, spoke *atomic.Bool, found chan<- struct{}) {
	var window []byte
	buf := make([]byte, 4096)
	seen := false
	for {
		n, err := r.Read(buf)
		if n > 0 && !seen {
			spoke.Store(true)
			window = append(window, buf[:n]...)
			if bytes.Contains(window, []byte(probeMarker)) {
				seen = true
				close(found)
			} else if keep := len(probeMarker); len(window) > keep {
				window = append(window[:0], window[len(window)-keep:]...)
			}
		}
		if err != nil {
			return
		}
	}
}

// probeStderr keeps the last 4 KiB written to it (a program's stderr).
type probeStderr struct {
	mu  sync.Mutex
	buf []byte
}

func (b *probeStderr) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > 4096 {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-4096:]...)
	}
	return len(p), nil
}

func (b *probeStderr) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// lastWords is the last non-empty line of a program's output, or a word
// that says there was none.
func lastWords(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return l
	}
	return "it exited without a word"
}
