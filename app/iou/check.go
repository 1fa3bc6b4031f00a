package iou

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"nodedesk/app"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// CheckImage tells, before a start, whether the IOU image at path can run
// on this machine, with an error that says what is wrong and what to do:
// the file is missing (or a dangling link), not a regular file, unreadable,
// not a little-endian x86 ELF program (the error names what it is instead:
// an IOS image for the router emulator, an archive, a web page...), cut short, not
// executable (CheckImage first tries MakeExecutable, as GNS3 uploads
// images with the execute bit set), a 32-bit program on a kernel without
// 32-bit support, or a dynamic program whose loader or libraries are
// missing (ldd's "not found", with the Debian/Ubuntu packages to install).
// It covers GNS3 2.2's checks before a start (_check_requirements and
// _library_check in iou_vm.py) and the failures those let through.
func CheckImage(path string) error {
	if path == "" {
		return errors.New("no IOU image is set: choose one in the node's or its template's settings")
	}
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if target, lerr := os.Readlink(path); lerr == nil {
				return fmt.Errorf("IOU image %s is a link to %s, which does not exist: upload the image again, or point the link at it", path, target)
			}
			return fmt.Errorf("IOU image %s does not exist: upload it again, or correct the image of the node or its template", path)
		}
		return fmt.Errorf("cannot look at IOU image %s: %v; check the permissions of the folders above it", path, err)
	}
	if fi.IsDir() {
		return fmt.Errorf("IOU image %s is a folder, not a program: choose the image file inside it", path)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("IOU image %s is not a regular file (%s): choose the image file itself", path, fi.Mode().Type())
	}
	head, err := readHead(path, 512)
	if err != nil {
		return fmt.Errorf("cannot read IOU image %s: %v; make it readable by the user nodedesk runs as (chmod u+r)", path, err)
	}
	is32, err := elfKind(head)
	if err != nil {
		return fmt.Errorf("%s is not an IOU image: it is %v", path, err)
	}
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("IOU image %s is damaged or cut short (%v): upload it again", path, err)
	}
	interp, needed, err := elfDeps(f, fi.Size())
	f.Close()
	if err != nil {
		return fmt.Errorf("IOU image %s is damaged or cut short (%v): upload it again", path, err)
	}
	if err := checkExecutable(path); err != nil {
		return err
	}
	if is32 {
		if ok, known := kernelRuns32Bit(); known && !ok {
			return fmt.Errorf("IOU image %s is a 32-bit program, and this machine's Linux kernel cannot run 32-bit programs "+
				"(starting one fails with \"exec format error\"): the kernel was built without IA32 emulation, or has it turned off. "+
				"Use a 64-bit IOU image (x86_64_crb_linux-…), or boot a kernel with 32-bit support "+
				"(CONFIG_IA32_EMULATION; when it is built in but off, add ia32_emulation=1 to the kernel command line)", path)
		}
	}
	if interp == "" {
		return nil // static: nothing to load
	}
	if _, err := os.Stat(interp); err != nil {
		what := "its program loader " + interp + " is missing"
		if is32 {
			what += ": this machine has no 32-bit C library"
		}
		return fmt.Errorf("IOU image %s cannot start: %s. %s", path, what, libAdvice(append([]string{filepath.Base(interp)}, needed...), is32))
	}
	if missing := lddMissing(path); len(missing) > 0 {
		return fmt.Errorf("IOU image %s needs shared libraries this machine lacks: %s (ldd says \"not found\"). %s",
			path, strings.Join(missing, ", "), libAdvice(missing, is32))
	}
	return nil
}

// MakeExecutable sets the execute permission of the file at path wherever
// it has read permission (and always for its owner), as "chmod +x" would
// for an image uploaded or copied without it.
func MakeExecutable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	mode := fi.Mode()
	add := fs.FileMode(0o100)
	if mode&0o040 != 0 {
		add |= 0o010
	}
	if mode&0o004 != 0 {
		add |= 0o001
	}
	if mode&add == add {
		return nil
	}
	return os.Chmod(path, mode&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky)|add)
}

// checkExecutable makes sure the user can execute path, making it
// executable when it is not.
func checkExecutable(path string) error {
	if unix.Access(path, unix.X_OK) == nil {
		return nil
	}
	if err := MakeExecutable(path); err != nil {
		return fmt.Errorf("IOU image %s is not executable, and making it so failed (%v): run \"chmod +x %s\" as its owner", path, err, path)
	}
	if unix.Access(path, unix.X_OK) == nil {
		return nil
	}
	var st unix.Statfs_t
	if unix.Statfs(path, &st) == nil && st.Flags&unix.ST_NOEXEC != 0 {
		return fmt.Errorf("IOU image %s is on a file system mounted noexec, where no program may run: "+
			"keep the images in a folder on another file system, or remount this one without noexec", path)
	}
	return fmt.Errorf("IOU image %s is not executable by the user nodedesk runs as, even after chmod +x: check its owner and the folder's permissions", path)
}

// readHead returns up to n bytes from the start of the file.
func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	k, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b[:k], nil
}

// elfKind checks that head starts an image GNS3 accepts and this machine's
// architecture can run, a little-endian x86 ELF program, and reports
// whether it is 32-bit; the error (to follow "it is") says what the file
// is instead.
func elfKind(head []byte) (is32 bool, err error) {
	const tail = ". IOU images are Linux x86 programs (ELF, little-endian), such as i86bi-linux-l3-….bin or x86_64_crb_linux-….iol"
	if !bytes.HasPrefix(head, []byte("\x7fELF")) {
		return false, errors.New(sniff(head) + tail)
	}
	if len(head) < 20 {
		return false, errors.New("an ELF file cut short after " + fmt.Sprint(len(head)) + " bytes: upload it again")
	}
	var order binary.ByteOrder = binary.LittleEndian
	if head[5] == 2 {
		order = binary.BigEndian
	}
	machine := elf.Machine(order.Uint16(head[18:]))
	switch {
	case head[5] == 2:
		return false, fmt.Errorf("a big-endian ELF program for %s: most likely a Cisco IOS image for %s routers (c7200, c3725...), "+
			"not an IOU image; add it as such a router instead", machineName(machine), iosRouters)
	case head[5] != 1:
		return false, fmt.Errorf("an ELF file of unknown byte order %d%s", head[5], tail)
	case head[4] != 1 && head[4] != 2:
		return false, fmt.Errorf("an ELF file of unknown class %d%s", head[4], tail)
	case head[6] != 1:
		return false, fmt.Errorf("an ELF file of version %d, where IOU images are version 1%s", head[6], tail)
	case head[4] == 1 && machine == elf.EM_386:
		return true, nil
	case head[4] == 2 && machine == elf.EM_X86_64:
		return false, nil
	}
	return false, fmt.Errorf("a %d-bit ELF program for %s, not for x86%s", 32*int(head[4]), machineName(machine), tail)
}

// machineName is an ELF machine in words: "MIPS (EM_MIPS)".
func machineName(m elf.Machine) string {
	names := map[elf.Machine]string{elf.EM_MIPS: "MIPS", elf.EM_PPC: "PowerPC", elf.EM_PPC64: "PowerPC 64",
		elf.EM_ARM: "ARM", elf.EM_AARCH64: "ARM64", elf.EM_386: "x86 (32-bit)", elf.EM_X86_64: "x86-64",
		elf.EM_SPARC: "SPARC", elf.EM_RISCV: "RISC-V"}
	if n, ok := names[m]; ok {
		return n + " (" + m.String() + ")"
	}
	return m.String()
}

// sniff says what a file that is no ELF program is, from its first bytes.
func sniff(b []byte) string {
	magic := []struct{ prefix, what string }{
		{"#!", "a script, not a program"},
		{"PK\x03\x04", "a ZIP archive: unpack it and use the image inside"},
		{"\x1f\x8b", "a gzip-compressed file: unpack it (gunzip) and use the image inside"},
		{"BZh", "a bzip2-compressed file: unpack it (bunzip2) and use the image inside"},
		{"\xfd7zXZ\x00", "an xz-compressed file: unpack it (unxz) and use the image inside"},
		{"7z\xbc\xaf\x27\x1c", "a 7-Zip archive: unpack it and use the image inside"},
		{"Rar!", "a RAR archive: unpack it and use the image inside"},
		{"MZ", "a Windows program"},
		{"\xfe\xed\xfa", "a macOS program"},
		{"\xcf\xfa\xed\xfe", "a macOS program"},
	}
	switch {
	case len(b) == 0:
		return "an empty file (0 bytes): the upload or copy did not complete; upload it again"
	case len(b) >= 262 && string(b[257:262]) == "ustar":
		return "a tar archive: unpack it (tar xf) and use the image inside"
	}
	for _, m := range magic {
		if bytes.HasPrefix(b, []byte(m.prefix)) {
			return m.what
		}
	}
	lower := bytes.ToLower(b)
	if bytes.Contains(lower, []byte("<html")) || bytes.Contains(lower, []byte("<!doctype")) {
		return "a web page (HTML): the download saved an error or sign-in page instead of the image"
	}
	if isText(b) {
		return "a text file, not a program"
	}
	if len(b) > 8 {
		b = b[:8]
	}
	return fmt.Sprintf("not a program (it starts with the bytes % x)", b)
}

// isText reports whether b looks like text: no NUL, nearly all printable.
func isText(b []byte) bool {
	printable := 0
	for _, c := range b {
		switch {
		case c == 0:
			return false
		case c >= 0x20 && c != 0x7f, c == '\t', c == '\n', c == '\r':
			printable++
		}
	}
	return printable*100 >= len(b)*95
}

// elfDeps returns the program loader a dynamic ELF asks for (PT_INTERP;
// "" for a static one) and the libraries it needs (DT_NEEDED); the error
// says how a file cut short shows.
func elfDeps(f *elf.File, size int64) (interp string, needed []string, err error) {
	for _, p := range f.Progs {
		if p.Filesz > 0 && (p.Off > uint64(size) || p.Filesz > uint64(size)-p.Off) {
			return "", nil, fmt.Errorf("its %s segment at byte %d runs past the end of the %d-byte file", p.Type, p.Off, size)
		}
		if p.Type == elf.PT_INTERP {
			b, err := io.ReadAll(p.Open())
			if err != nil {
				return "", nil, err
			}
			interp = string(bytes.TrimRight(b, "\x00"))
		}
	}
	if interp == "" {
		return "", nil, nil
	}
	needed, err = f.ImportedLibraries()
	if err != nil {
		return "", nil, err
	}
	return interp, needed, nil
}

// lddNotFound is a line of ldd's output for a library it cannot find.
var lddNotFound = regexp.MustCompile(`(?m)^\s*(\S+)\s+=>\s+not found`)

// lddMissing runs ldd on a dynamic program and returns the libraries it
// reports "not found" (nil when ldd is absent or says nothing of the kind).
func lddMissing(path string) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, "ldd", path).Output() // exit 1 for "not a dynamic executable": the text tells
	var missing []string
	for _, m := range lddNotFound.FindAllSubmatch(out, -1) {
		if name := string(m[1]); !slices.Contains(missing, name) {
			missing = append(missing, name)
		}
	}
	return missing
}

// libPackages are the Debian/Ubuntu packages of the libraries IOU images
// ask for. A package some releases lack says which have it.
var libPackages = map[string]string{
	"libc.so.6": "libc6", "libm.so.6": "libc6", "libdl.so.2": "libc6", "libpthread.so.0": "libc6",
	"librt.so.1": "libc6", "libresolv.so.2": "libc6", "libutil.so.1": "libc6", "libnsl.so.1": "libc6",
	"ld-linux.so.2": "libc6", "ld-linux-x86-64.so.2": "libc6",
	"libstdc++.so.6": "libstdc++6", "libgcc_s.so.1": "libgcc-s1",
	"libz.so.1": "zlib1g", "libcrypt.so.1": "libcrypt1", "libnsl.so.2": "libnsl2",
	"libtinfo.so.5": "libtinfo5", "libtinfo.so.6": "libtinfo6", "libncurses.so.5": "libncurses5",
	"libpcap.so.0.8": "libpcap0.8", "libelf.so.1": "libelf1",
	"libssl.so.3": "libssl3", "libcrypto.so.3": "libssl3",
	"libssl.so.1.1": "libssl1.1", "libcrypto.so.1.1": "libssl1.1",
	"libssl.so.1.0.2": "libssl1.0.2", "libcrypto.so.1.0.2": "libssl1.0.2",
	"libssl.so.1.0.0": "libssl1.0.0", "libcrypto.so.1.0.0": "libssl1.0.0",
}

// libReleases are the releases that still have an old package.
var libReleases = map[string]string{
	"libssl1.1":   "Debian 10–11, Ubuntu 18.04–20.04",
	"libssl1.0.2": "Debian 9",
	"libssl1.0.0": "Ubuntu 18.04 and older",
	"libtinfo5":   "Debian 12 and older, Ubuntu 22.04 and older",
	"libncurses5": "Debian 12 and older, Ubuntu 22.04 and older",
}

// libAdvice says how to install the libraries libs on Debian or Ubuntu,
// for a 32-bit or a 64-bit image.
func libAdvice(libs []string, is32 bool) string {
	arch, dir := "", "/usr/lib/x86_64-linux-gnu"
	if is32 {
		arch, dir = ":i386", "/usr/lib/i386-linux-gnu"
	}
	var pkgs, unknown, notes []string
	crypto4 := false
	for _, l := range libs {
		if l == "libcrypto.so.4" || l == "libssl.so.4" {
			crypto4 = true
			continue
		}
		p, ok := libPackages[l]
		if !ok {
			unknown = append(unknown, l)
			continue
		}
		if !slices.Contains(pkgs, p+arch) {
			pkgs = append(pkgs, p+arch)
			if r, ok := libReleases[p]; ok {
				notes = append(notes, p+arch+" exists in "+r+" only")
			}
		}
	}
	var b strings.Builder
	if len(pkgs) > 0 {
		b.WriteString("On Debian or Ubuntu, as root: ")
		if is32 {
			b.WriteString("dpkg --add-architecture i386 && ")
		}
		b.WriteString("apt-get update && apt-get install " + strings.Join(pkgs, " "))
		if len(notes) > 0 {
			b.WriteString(" (" + strings.Join(notes, "; ") + ")")
		}
		b.WriteString(".")
	}
	if crypto4 {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "libcrypto.so.4 is the name old IOU images use for OpenSSL's libcrypto, and no distribution ships it: "+
			"the usual fix, the one GNS3's install notes give, is a link to OpenSSL 1.0.0's libcrypto. Install libssl1.0.0%s "+
			"(Ubuntu 18.04 and older have it; on newer systems copy that one library from an older one), then run "+
			"\"ln -s %s/libcrypto.so.1.0.0 %s/libcrypto.so.4 && ldconfig\" (on older systems the library is in %s).",
			arch, dir, dir, strings.Replace(dir, "/usr/lib/", "/lib/", 1))
		if is32 {
			b.WriteString(" Or use an x86_64 IOU image, which does not need it.")
		}
	}
	if len(unknown) > 0 {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		b.WriteString("To find the package of " + strings.Join(unknown, ", ") + ", run \"apt-file search <library>\".")
	}
	return b.String()
}

// kernelRuns32Bit reports whether this machine's kernel runs 32-bit x86
// programs: known is false when the probe could not tell (it could not
// write or execute its probe), and then nothing is claimed.
var kernelRuns32Bit = sync.OnceValues(probe32Bit)

// probe32 is the smallest 32-bit x86 Linux program: a static ELF whose
// only instructions are exit(0) (mov eax,1; xor ebx,ebx; int 0x80).
var probe32 = func() []byte {
	const base = 0x08048000
	code := []byte{0xb8, 0x01, 0x00, 0x00, 0x00, 0x31, 0xdb, 0xcd, 0x80}
	size := 52 + 32 + len(code)
	b := make([]byte, 0, size)
	le := func(v uint32, n int) {
		for i := range n {
			b = append(b, byte(v>>(8*i)))
		}
	}
	b = append(b, "\x7fELF\x01\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00"...)
	le(2, 2)            // e_type: executable
	le(3, 2)            // e_machine: EM_386
	le(1, 4)            // e_version
	le(base+52+32, 4)   // e_entry: the code after the headers
	le(52, 4)           // e_phoff
	le(0, 4)            // e_shoff: no sections
	le(0, 4)            // e_flags
	le(52, 2)           // e_ehsize
	le(32, 2)           // e_phentsize
	le(1, 2)            // e_phnum
	le(0, 2)            // e_shentsize
	le(0, 2)            // e_shnum
	le(0, 2)            // e_shstrndx
	le(1, 4)            // p_type: PT_LOAD
	le(0, 4)            // p_offset
	le(base, 4)         // p_vaddr
	le(base, 4)         // p_paddr
	le(uint32(size), 4) // p_filesz
	le(uint32(size), 4) // p_memsz
	le(5, 4)            // p_flags: read, execute
	le(0x1000, 4)       // p_align
	return append(b, code...)
}()

// probe32Bit runs probe32: the kernel refuses it with ENOEXEC when it has
// no 32-bit support.
func probe32Bit() (ok, known bool) {
	dir, err := os.MkdirTemp("", "nodedesk-ia32-probe-")
	if err != nil {
		return false, false
	}
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "probe")
	if err := os.WriteFile(p, probe32, 0o700); err != nil {
		return false, false
	}
	for try := 0; ; try++ {
		err = exec.Command(p).Run()
		// ETXTBSY: another goroutine's fork held the file open for writing a moment.
		if !errors.Is(err, syscall.ETXTBSY) || try == 20 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	var exit *exec.ExitError
	switch {
	case err == nil, errors.As(err, &exit):
		return true, true // it ran
	case errors.Is(err, syscall.ENOEXEC):
		return false, true
	}
	return false, false
}

// iosRouters is what users call the node type that runs IOS images
// (app's node-type table holds its title).
var iosRouters = app.IOSImages.Emulator()
