package qemu

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"nodedesk/app"
	"nodedesk/app/kit"
)

// mustToolsDirs is a Tools that searches two folders of its own: bin,
// holding links to this machine's QEMU programs (and a program of another
// name), and alias, a link to bin, whose programs must not be listed twice.
func mustToolsDirs(tb testing.TB) (*Tools, string) {
	tb.Helper()
	qemu := mustQEMUSystem(tb)
	img, err := exec.LookPath("qemu-img")
	if err != nil {
		kit.Unavailable(tb, "qemu-img is not installed (Debian: qemu-utils, which make test installs)")
	}
	root := tb.TempDir()
	bin := filepath.Join(root, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		tb.Fatal(err)
	}
	links := map[string]string{"qemu-system-x86_64": qemu, "qemu-img": img, "qemu-nbd-not-listed": img}
	if i386, err := exec.LookPath("qemu-system-i386"); err == nil {
		links["qemu-system-i386"] = i386
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(bin, name)); err != nil {
			tb.Fatal(err)
		}
	}
	// Not executable: not a program.
	if err := os.WriteFile(filepath.Join(bin, "qemu-system-arm"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	alias := filepath.Join(root, "alias")
	if err := os.Symlink(bin, alias); err != nil {
		tb.Fatal(err)
	}
	return &Tools{Dirs: []string{bin, alias}}, bin
}

func TestTools_Binaries(t *testing.T) {
	tools, bin := mustToolsDirs(t)
	ctx := context.Background()
	all, err := tools.Binaries(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, b := range all {
		paths = append(paths, b.Path)
		if !strings.HasPrefix(b.Version, "7.") && !strings.HasPrefix(b.Version, "8.") && !strings.HasPrefix(b.Version, "9.") && !strings.HasPrefix(b.Version, "10.") {
			t.Errorf("%s: version %q", b.Path, b.Version)
		}
	}
	if len(all) == 0 || paths[len(paths)-1] != filepath.Join(bin, "qemu-system-x86_64") {
		t.Fatalf("Binaries = %v; want the qemu-system programs of bin, once each", paths)
	}
	for _, p := range paths {
		if filepath.Dir(p) != bin || !strings.HasPrefix(filepath.Base(p), "qemu-system-") || strings.HasSuffix(p, "arm") {
			t.Errorf("listed %s", p)
		}
	}
	only, err := tools.Binaries(ctx, []string{"x86_64"})
	if err != nil || len(only) != 1 || only[0].Path != filepath.Join(bin, "qemu-system-x86_64") {
		t.Fatalf("Binaries(x86_64) = %v, %v", only, err)
	}
	none, err := tools.Binaries(ctx, []string{"sparc64"})
	if err != nil || none == nil || len(none) != 0 {
		t.Fatalf("Binaries(sparc64) = %#v, %v; want an empty list", none, err)
	}
}

func TestTools_ImgBinaries(t *testing.T) {
	tools, bin := mustToolsDirs(t)
	imgs, err := tools.ImgBinaries(context.Background())
	if err != nil || len(imgs) != 1 || imgs[0].Path != filepath.Join(bin, "qemu-img") || imgs[0].Version == "" {
		t.Fatalf("ImgBinaries = %+v, %v", imgs, err)
	}
}

// virtualSize is a disk image's size as qemu-img info tells it.
func virtualSize(tb testing.TB, qemuImg, p string) int64 {
	tb.Helper()
	out, err := exec.Command(qemuImg, "info", "--output=json", p).Output()
	if err != nil {
		tb.Fatalf("qemu-img info %s: %v", p, err)
	}
	var info struct {
		Format      string `json:"format"`
		VirtualSize int64  `json:"virtual-size"`
	}
	if err := json.Unmarshal(out, &info); err != nil {
		tb.Fatal(err)
	}
	return info.VirtualSize
}

func TestTools_CreateAndResizeImage(t *testing.T) {
	tools, bin := mustToolsDirs(t)
	ctx := context.Background()
	qemuImg := filepath.Join(bin, "qemu-img")
	disk := filepath.Join(t.TempDir(), "disk.qcow2")
	spec := app.QEMUImageSpec{QEMUImg: qemuImg, Path: disk, Format: "qcow2", Size: 16, Preallocation: "metadata", LazyRefcounts: "on", ClusterSize: 65536}
	if err := tools.CreateImage(ctx, spec); err != nil {
		t.Fatal(err)
	}
	if got := virtualSize(t, qemuImg, disk); got != 16<<20 {
		t.Fatalf("virtual size %d, want 16 MiB", got)
	}
	if err := tools.ResizeImage(ctx, app.QEMUImageResize{QEMUImg: qemuImg, Path: disk, Extend: 16}); err != nil {
		t.Fatal(err)
	}
	if got := virtualSize(t, qemuImg, disk); got != 32<<20 {
		t.Fatalf("virtual size %d after extending by 16 MiB, want 32 MiB", got)
	}

	t.Run("ErrRefused", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "bad.qcow2")
		err := tools.CreateImage(ctx, app.QEMUImageSpec{QEMUImg: qemuImg, Path: bad, Format: "qcow2", Size: 16, ClusterSize: 3})
		if app.ErrorCode(err) != app.ECONFLICT || !strings.Contains(strings.ToLower(app.ErrorMessage(err)), "cluster size") {
			t.Fatalf("CreateImage(cluster_size 3) = %v; want qemu-img's refusal", err)
		}
		if _, err := os.Stat(bad); err == nil {
			t.Fatal("a refused create left a file")
		}
		err = tools.ResizeImage(ctx, app.QEMUImageResize{QEMUImg: qemuImg, Path: bad, Extend: 1})
		if app.ErrorCode(err) != app.ECONFLICT {
			t.Fatalf("ResizeImage(absent) = %v", err)
		}
	})
}

// Capabilities on this machine: KVM listed only when the probe guest ran
// under it, and the note says which acceleration nodes get.
func TestTools_Capabilities(t *testing.T) {
	tools, _ := mustToolsDirs(t)
	c := tools.Capabilities(context.Background())
	t.Logf("capabilities: %+v", c)
	switch c.Acceleration {
	case app.AccelKVM:
		if len(c.KVM) == 0 || c.KVM[0] != "x86_64" {
			t.Fatalf("kvm %v with acceleration kvm", c.KVM)
		}
	case app.AccelTCG:
		if c.KVM == nil || len(c.KVM) != 0 || !strings.HasPrefix(c.AccelerationNote, NoKVMCapability+" (why: ") {
			t.Fatalf("capabilities %+v", c)
		}
	default:
		t.Fatalf("acceleration %q", c.Acceleration)
	}
	if os.Getenv("NODEDESK_EXPECT_KVM") == "no" && c.Acceleration != app.AccelTCG {
		t.Fatalf("this machine's KVM does not work, and the capabilities say %+v", c)
	}

	empty := (&Tools{Dirs: []string{t.TempDir()}}).Capabilities(context.Background())
	if empty.Acceleration != app.AccelNone || len(empty.KVM) != 0 || !strings.Contains(empty.AccelerationNote, "not installed") {
		t.Fatalf("capabilities without QEMU: %+v", empty)
	}
}
