package qemutest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A module without build/guest: the error names the missing files and
// the command that makes them.
func TestFindGuest_MissingSaysMakeGuest(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "go.mod"), "module x\n")
	deep := filepath.Join(root, "app", "labtest")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := findGuest(deep)
	if err == nil {
		t.Fatal("findGuest found a guest in an empty module")
	}
	for _, want := range []string{"run `make guest` (make test does it)", "vmlinuz", "disk.qcow2", filepath.Join(root, "build", "guest")} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// Found from a subfolder: absolute paths under the module's build/guest.
func TestFindGuest_FromSubfolder(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "go.mod"), "module x\n")
	gd := filepath.Join(root, "build", "guest")
	for _, f := range []string{"vmlinuz", "vmlinux", "initrd.img", "disk.qcow2"} {
		writeFile(t, filepath.Join(gd, f), "x")
	}
	writeFile(t, filepath.Join(gd, "README"), GuestKernelArgs+"\n"+GuestScratchMark+"\nbyte offset "+
		strconv.Itoa(GuestScratchOffset)+" (sector 49152)\n")
	sub := filepath.Join(root, "app", "qemu")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	g, err := findGuest(sub)
	if err != nil {
		t.Fatal(err)
	}
	want := GuestImages{Kernel: filepath.Join(gd, "vmlinuz"), KernelELF: filepath.Join(gd, "vmlinux"),
		Initrd: filepath.Join(gd, "initrd.img"), Disk: filepath.Join(gd, "disk.qcow2")}
	if g != want {
		t.Fatalf("findGuest = %+v, want %+v", g, want)
	}
}

// A README from another version of the script: the error says to rebuild.
func TestFindGuest_StaleReadme(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "go.mod"), "module x\n")
	gd := filepath.Join(root, "build", "guest")
	for _, f := range []string{"vmlinuz", "vmlinux", "initrd.img", "disk.qcow2"} {
		writeFile(t, filepath.Join(gd, f), "x")
	}
	writeFile(t, filepath.Join(gd, "README"), "console=ttyS0\n")
	if _, err := findGuest(root); err == nil || !strings.Contains(err.Error(), "run `make guest`") {
		t.Fatalf("findGuest with a stale README: %v", err)
	}
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The guest make test builds: its files are what their names say, and the
// base disk's scratch region starts with its mark, read without writing.
func TestGuest_ThisModule(t *testing.T) {
	g := Guest(t)
	for p, magic := range map[string]string{g.Disk: "QFI\xfb", g.KernelELF: "\x7fELF", g.Initrd: "\x1f\x8b"} {
		b := make([]byte, len(magic))
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.Read(b)
		f.Close()
		if err != nil || string(b) != magic {
			t.Errorf("%s starts with %q, want %q", p, b, magic)
		}
	}
	out, err := exec.Command("qemu-io", "-r", "-f", "qcow2", "-c",
		"read -v "+strconv.Itoa(GuestScratchOffset)+" 64", g.Disk).CombinedOutput()
	if err != nil {
		t.Fatalf("qemu-io: %v: %s", err, out)
	}
	if !strings.Contains(string(out), "nodedesk.guest.s") {
		t.Errorf("the base disk's scratch region does not start with its mark:\n%s", out)
	}
}
