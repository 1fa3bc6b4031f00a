package iou

import (
	"bytes"
	"debug/elf"
	"errors"
	"nodedesk/app/kit"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// copyFile copies src to a file of dir named name, with mode.
func copyFile(t *testing.T, src, dir, name string, mode os.FileMode) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil { // whatever the umask
		t.Fatal(err)
	}
	return p
}

func writeFile(t *testing.T, dir, name string, b []byte, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// elfHeader is the start of an ELF file: class (1: 32-bit, 2: 64-bit),
// byte order (1: little, 2: big), version and machine.
func elfHeader(class, order, version byte, machine uint16) []byte {
	b := make([]byte, 64)
	copy(b, "\x7fELF")
	b[4], b[5], b[6] = class, order, version
	if order == 2 {
		be.PutUint16(b[18:], machine)
	} else {
		b[18], b[19] = byte(machine), byte(machine>>8)
	}
	return b
}

func wantError(t *testing.T, err error, wants ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one with %q", wants)
	}
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q:\n%v", w, err)
		}
	}
}

func TestCheckImageFiles(t *testing.T) {
	dir := t.TempDir()
	x86 := fakeIOL(t, "fake-iol-x86_64.bin")
	good := copyFile(t, x86, dir, "x86_64_crb_linux-adventerprisek9-ms.iol", 0o755)
	whole, _ := os.ReadFile(x86)
	if err := os.Symlink(filepath.Join(dir, "gone.bin"), filepath.Join(dir, "dangling.bin")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(good, filepath.Join(dir, "link.bin")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "folder.bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	var tarHead [512]byte
	copy(tarHead[:], "i86bi-linux.bin")
	copy(tarHead[257:], "ustar\x0000")
	cases := []struct {
		name  string
		path  string
		wants []string // none: no error
	}{
		{"the stand-in x86_64 image (static)", good, nil},
		{"a link to it", filepath.Join(dir, "link.bin"), nil},
		{"no image set", "", []string{"no IOU image is set"}},
		{"missing", filepath.Join(dir, "nothere.bin"), []string{"nothere.bin does not exist", "upload it again"}},
		{"dangling link", filepath.Join(dir, "dangling.bin"), []string{"is a link to " + filepath.Join(dir, "gone.bin") + ", which does not exist"}},
		{"folder", filepath.Join(dir, "folder.bin"), []string{"is a folder"}},
		{"empty", writeFile(t, dir, "empty.bin", nil, 0o755), []string{"is not an IOU image", "empty file (0 bytes)"}},
		{"text", writeFile(t, dir, "notes.bin", []byte("hostname R1\ninterface Ethernet0/0\n"), 0o755), []string{"is not an IOU image: it is a text file", "Linux x86 programs"}},
		{"script", writeFile(t, dir, "run.sh", []byte("#!/bin/sh\nexit 0\n"), 0o755), []string{"a script"}},
		{"web page", writeFile(t, dir, "dl.bin", []byte("<!DOCTYPE html><html><body>Sign in</body></html>"), 0o755), []string{"a web page (HTML)"}},
		{"gzip", writeFile(t, dir, "img.bin.gz", []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0}, 0o644), []string{"gzip-compressed", "gunzip"}},
		{"zip", writeFile(t, dir, "img.zip", []byte("PK\x03\x04rest"), 0o644), []string{"a ZIP archive"}},
		{"tar", writeFile(t, dir, "img.tar", tarHead[:], 0o644), []string{"a tar archive"}},
		{"binary junk", writeFile(t, dir, "junk.bin", []byte{0, 1, 2, 3, 0xff, 0xfe, 9, 9, 9}, 0o755), []string{"it starts with the bytes 00 01 02 03 ff fe 09 09"}},
		{"big-endian ELF (a Dynamips image)", writeFile(t, dir, "c7200-adventerprisek9-mz.124-24.T5.image", elfHeader(1, 2, 1, uint16(elf.EM_MIPS)), 0o755),
			[]string{"big-endian ELF program for MIPS (EM_MIPS)", "IOS image for Dynamips routers", "add it as such a router"}},
		{"big-endian PowerPC ELF", writeFile(t, dir, "c2600.image", elfHeader(1, 2, 1, uint16(elf.EM_PPC)), 0o755), []string{"big-endian ELF program for PowerPC"}},
		{"ARM64 ELF", writeFile(t, dir, "arm.bin", elfHeader(2, 1, 1, uint16(elf.EM_AARCH64)), 0o755), []string{"a 64-bit ELF program for ARM64 (EM_AARCH64), not for x86"}},
		{"64-bit ELF for i386", writeFile(t, dir, "odd.bin", elfHeader(2, 1, 1, uint16(elf.EM_386)), 0o755), []string{"64-bit ELF program for x86 (32-bit)"}},
		{"ELF version 0", writeFile(t, dir, "v0.bin", elfHeader(1, 1, 0, uint16(elf.EM_386)), 0o755), []string{"ELF file of version 0"}},
		{"ELF class 3", writeFile(t, dir, "c3.bin", elfHeader(3, 1, 1, uint16(elf.EM_386)), 0o755), []string{"unknown class 3"}},
		{"ELF header only", writeFile(t, dir, "hdr.bin", []byte("\x7fELF\x02\x01\x01"), 0o755), []string{"ELF file cut short after 7 bytes"}},
		{"cut short", writeFile(t, dir, "half.bin", whole[:len(whole)/2], 0o755), []string{"is damaged or cut short", "upload it again"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckImage(c.path)
			if c.wants == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantError(t, err, c.wants...)
		})
	}
}

func TestCheckImageMakesExecutable(t *testing.T) {
	dir := t.TempDir()
	x86 := fakeIOL(t, "fake-iol-x86_64.bin")
	for _, c := range []struct {
		mode, want os.FileMode
	}{{0o644, 0o755}, {0o600, 0o700}, {0o640, 0o750}, {0o400, 0o500}, {0o604, 0o705}} {
		p := copyFile(t, x86, dir, "img-"+c.mode.String()+".bin", c.mode)
		if err := CheckImage(p); err != nil {
			t.Fatalf("mode %v: %v", c.mode, err)
		}
		fi, _ := os.Stat(p)
		if fi.Mode().Perm() != c.want {
			t.Errorf("mode %v became %v, want %v", c.mode, fi.Mode().Perm(), c.want)
		}
	}
	if err := MakeExecutable(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("MakeExecutable of a missing file: %v", err)
	}
}

// TestCheckImageMounts puts images on a file system mounted noexec and
// on a read-only one, where chmod +x fails (root and mount(2) needed).
func TestCheckImageMounts(t *testing.T) {
	x86 := fakeIOL(t, "fake-iol-x86_64.bin")
	mount := func(opts uintptr) string {
		d := t.TempDir()
		if err := unix.Mount("tmpfs", d, "tmpfs", opts, "size=16m"); err != nil {
			kit.Unavailable(t, "cannot mount a tmpfs here (%v): the noexec and read-only cases need root", err)
		}
		t.Cleanup(func() { _ = unix.Unmount(d, unix.MNT_DETACH) })
		return d
	}
	noexec := mount(unix.MS_NOEXEC)
	p := copyFile(t, x86, noexec, "i86bi-linux-l3.bin", 0o755)
	wantError(t, CheckImage(p), "mounted noexec", "another file system")

	ro := mount(0)
	q := copyFile(t, x86, ro, "i86bi-linux-l3.bin", 0o644)
	if err := unix.Mount("tmpfs", ro, "tmpfs", unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
		kit.Unavailable(t, "cannot remount a tmpfs read-only: %v", err)
	}
	wantError(t, CheckImage(q), "is not executable, and making it so failed", "read-only file system", "chmod +x "+q)
}

// TestCheckImage32Bit checks the i386 build of the stand-in: on a kernel
// that cannot run 32-bit programs (this machine's has no IA32 emulation)
// the error must say so; on one that can, it passes (it is static).
func TestCheckImage32Bit(t *testing.T) {
	i386 := copyFile(t, fakeIOL(t, "fake-iol-i386.bin"), t.TempDir(), "i86bi-linux-l3-adventerprisek9-15.4.1T.bin", 0o755)
	runErr := exec.Command(i386, "-h").Run()
	err := CheckImage(i386)
	if errors.Is(runErr, syscall.ENOEXEC) {
		t.Logf("this kernel runs no 32-bit programs: %v", runErr)
		wantError(t, err, "is a 32-bit program", "cannot run 32-bit programs", "exec format error", "64-bit IOU image", "ia32_emulation=1")
		if ok, known := kernelRuns32Bit(); !known || ok {
			t.Errorf("the probe says ok %v, known %v; the kernel refused a 32-bit program", ok, known)
		}
	} else if err != nil {
		t.Errorf("this kernel runs 32-bit programs (-h: %v), yet: %v", runErr, err)
	}
}

// TestProbe32 checks the probe program is the 32-bit static ELF it means
// to be, and runs it under qemu-i386 where that is installed.
func TestProbe32(t *testing.T) {
	f, err := elf.NewFile(bytes.NewReader(probe32))
	if err != nil {
		t.Fatal(err)
	}
	if f.Class != elf.ELFCLASS32 || f.Machine != elf.EM_386 || f.Type != elf.ET_EXEC || len(f.Progs) != 1 ||
		f.Progs[0].Type != elf.PT_LOAD || f.Entry != f.Progs[0].Vaddr+84 || f.Progs[0].Filesz != uint64(len(probe32)) {
		t.Errorf("probe: class %v machine %v type %v entry %#x progs %v", f.Class, f.Machine, f.Type, f.Entry, f.Progs)
	}
	if is32, err := elfKind(probe32); err != nil || !is32 {
		t.Errorf("elfKind(probe) = %v, %v", is32, err)
	}
	qemu, err := exec.LookPath("qemu-i386")
	if err != nil {
		kit.Unavailable(t, "qemu-i386 is not installed (Debian: qemu-user): the probe is not run")
	}
	p := writeFile(t, t.TempDir(), "probe", probe32, 0o755)
	if err := exec.Command(qemu, p).Run(); err != nil {
		t.Errorf("qemu-i386 probe: %v", err)
	}
}

// gccBuild compiles C source into dir/name with extra gcc arguments.
func gccBuild(t *testing.T, dir, name, src string, args ...string) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		kit.Unavailable(t, "gcc is not installed (Debian: build-essential, which make test installs): the dynamic-image cases need it to build a program")
	}
	c := filepath.Join(dir, name+".c")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name)
	cmd := exec.Command(gcc, append([]string{"-o", out, c}, args...)...)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gcc %s: %v\n%s", name, err, b)
	}
	return out
}

func TestCheckImageDynamic(t *testing.T) {
	dir := t.TempDir()
	libs := t.TempDir()
	// Two libraries the program is linked with, then taken away: one under
	// the name old IOU images ask for, one no package has.
	gccBuild(t, libs, "libcrypto.so.4", "int crypto4(void) { return 4; }\n", "-shared", "-fPIC", "-Wl,-soname,libcrypto.so.4")
	gccBuild(t, libs, "libnodedesk-gone.so.1", "int gone(void) { return 1; }\n", "-shared", "-fPIC", "-Wl,-soname,libnodedesk-gone.so.1")
	prog := "int crypto4(void); int gone(void);\nint main(void) { return crypto4() + gone(); }\n"
	missing := gccBuild(t, dir, "i86bi-linux-l3-missing.bin", prog, "-L"+libs, "-l:libcrypto.so.4", "-l:libnodedesk-gone.so.1")
	ok := gccBuild(t, dir, "i86bi-linux-l3-ok.bin", "#include <stdio.h>\nint main(void) { puts(\"ok\"); return 0; }\n")
	noLoader := gccBuild(t, dir, "i86bi-linux-l3-noloader.bin", "int main(void) { return 0; }\n", "-Wl,--dynamic-linker=/nonexistent/ld-nodedesk.so.2")

	if err := CheckImage(ok); err != nil {
		t.Errorf("a dynamic program with all its libraries: %v", err)
	}
	wantError(t, CheckImage(missing),
		"needs shared libraries this machine lacks: libcrypto.so.4, libnodedesk-gone.so.1 (ldd says \"not found\")",
		"no distribution ships it", "libssl1.0.0", "ln -s /usr/lib/x86_64-linux-gnu/libcrypto.so.1.0.0 /usr/lib/x86_64-linux-gnu/libcrypto.so.4",
		`"apt-file search <library>"`, "libnodedesk-gone.so.1")
	err := CheckImage(noLoader)
	wantError(t, err, "its program loader /nonexistent/ld-nodedesk.so.2 is missing", "apt-get update && apt-get install libc6.")
	if strings.Contains(err.Error(), "i386") {
		t.Errorf("a 64-bit image's advice speaks of i386: %v", err)
	}
}

func TestLibAdvice(t *testing.T) {
	cases := []struct {
		libs   []string
		is32   bool
		wants  []string
		absent []string
	}{
		{[]string{"libcrypto.so.4", "libc.so.6", "libdl.so.2", "libstdc++.so.6"}, true,
			[]string{"dpkg --add-architecture i386 && apt-get update && apt-get install libc6:i386 libstdc++6:i386.",
				"Install libssl1.0.0:i386", "ln -s /usr/lib/i386-linux-gnu/libcrypto.so.1.0.0 /usr/lib/i386-linux-gnu/libcrypto.so.4 && ldconfig",
				"in /lib/i386-linux-gnu", "GNS3's install notes", "Or use an x86_64 IOU image"},
			[]string{"apt-file"}},
		{[]string{"libssl.so.1.1", "libcrypto.so.1.1"}, true,
			[]string{"apt-get install libssl1.1:i386 (libssl1.1:i386 exists in Debian 10–11, Ubuntu 18.04–20.04 only)."},
			[]string{"libcrypto.so.4", "libssl1.1:i386 libssl1.1:i386"}},
		{[]string{"libssl.so.3", "libz.so.1", "libgcc_s.so.1"}, false,
			[]string{"On Debian or Ubuntu, as root: apt-get update && apt-get install libssl3 zlib1g libgcc-s1."},
			[]string{"i386", "dpkg"}},
		{[]string{"libweird.so.9"}, false, []string{`To find the package of libweird.so.9, run "apt-file search <library>".`}, []string{"apt-get install"}},
	}
	for _, c := range cases {
		got := libAdvice(c.libs, c.is32)
		for _, w := range c.wants {
			if !strings.Contains(got, w) {
				t.Errorf("libAdvice(%v, %v) lacks %q:\n%s", c.libs, c.is32, w, got)
			}
		}
		for _, a := range c.absent {
			if strings.Contains(got, a) {
				t.Errorf("libAdvice(%v, %v) has %q:\n%s", c.libs, c.is32, a, got)
			}
		}
	}
}
