package app_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"nodedesk/app"
	"nodedesk/app/kit"
	"nodedesk/store/storetest"
)

// imageFolders is a Service whose data folder and GNS3 images folder are
// fresh temporary folders: own is nodedesk's QEMU folder, gns3 GNS3's.
type imageFolders struct {
	svc       *app.Service
	events    *app.Broker
	own, gns3 string
}

func newImageFolders(tb testing.TB) imageFolders {
	tb.Helper()
	data, gns3 := tb.TempDir(), tb.TempDir()
	b := app.NewBroker()
	svc := app.NewService(app.Config{Store: storetest.Open(tb), Events: b, DataDir: data, GNS3ImagesDir: gns3})
	f := imageFolders{svc: svc, events: b, own: filepath.Join(data, "images", "QEMU"), gns3: filepath.Join(gns3, "QEMU")}
	for _, d := range []string{f.own, f.gns3} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	return f
}

// mustWriteFile writes content at dir/name, making its folders.
func mustWriteFile(tb testing.TB, dir, name, content string) string {
	tb.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

func md5Of(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestService_Images(t *testing.T) {
	ctx := context.Background()
	f := newImageFolders(t)
	mustWriteFile(t, f.own, "vyos.qcow2", "vyos disk")
	mustWriteFile(t, f.own, "alpine/alpine.qcow2", "alpine disk")
	mustWriteFile(t, f.own, ".upload-1234", "half an upload")
	mustWriteFile(t, f.own, ".hidden/secret.qcow2", "hidden folder")
	mustWriteFile(t, f.gns3, "csr.qcow2", "csr disk")
	mustWriteFile(t, f.gns3, "vyos.qcow2", "another vyos, hidden by nodedesk's")
	mustWriteFile(t, f.gns3, "openwrt.img.tmp", "a GNS3 upload under way")

	imgs, err := f.svc.Images(ctx, app.QEMUImages)
	if err != nil {
		t.Fatal(err)
	}
	want := []app.Image{
		{Filename: "alpine.qcow2", Path: "alpine/alpine.qcow2", MD5Sum: md5Of("alpine disk"), FileSize: 11},
		{Filename: "csr.qcow2", Path: "csr.qcow2", MD5Sum: md5Of("csr disk"), FileSize: 8},
		{Filename: "vyos.qcow2", Path: "vyos.qcow2", MD5Sum: md5Of("vyos disk"), FileSize: 9},
	}
	if !equalImages(imgs, want) {
		t.Fatalf("Images = %+v\nwant %+v", imgs, want)
	}
	// The sums are kept beside the files, as GNS3 keeps them, and are not
	// listed themselves.
	side, err := os.ReadFile(filepath.Join(f.own, "vyos.qcow2.md5sum"))
	if err != nil || strings.TrimSpace(string(side)) != md5Of("vyos disk") {
		t.Fatalf("vyos.qcow2.md5sum = %q, %v", side, err)
	}
	if again, _ := f.svc.Images(ctx, app.QEMUImages); !equalImages(again, want) {
		t.Fatalf("second listing (sidecars present) = %+v", again)
	}

	t.Run("SidecarIsTheCache", func(t *testing.T) {
		// A sidecar newer than its file is believed without reading the
		// file: that is what makes listing large images fast.
		cached := strings.Repeat("ab", 16)
		if err := os.WriteFile(filepath.Join(f.gns3, "csr.qcow2.md5sum"), []byte(cached), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := findImage(t, f.svc, "csr.qcow2"); got.MD5Sum != cached {
			t.Fatalf("md5sum %s, want the sidecar's %s", got.MD5Sum, cached)
		}
	})
	t.Run("NewerFileIsSummedAgain", func(t *testing.T) {
		p := mustWriteFile(t, f.own, "vyos.qcow2", "vyos disk, version 2")
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(p, later, later); err != nil {
			t.Fatal(err)
		}
		if got := findImage(t, f.svc, "vyos.qcow2"); got.MD5Sum != md5Of("vyos disk, version 2") {
			t.Fatalf("md5sum %s after the file changed, want the new file's", got.MD5Sum)
		}
	})
	t.Run("NoGNS3Folder", func(t *testing.T) {
		svc := app.NewService(app.Config{Store: storetest.Open(t), DataDir: t.TempDir(), GNS3ImagesDir: filepath.Join(t.TempDir(), "absent")})
		imgs, err := svc.Images(ctx, app.QEMUImages)
		if err != nil || len(imgs) != 0 {
			t.Fatalf("Images = %v, %v; want an empty list", imgs, err)
		}
	})
	t.Run("ErrUnknownKind", func(t *testing.T) {
		_, err := f.svc.Images(ctx, app.ImageKind("VMDK"))
		wantCode(t, err, app.EINVALID)
	})
}

func equalImages(a, b []app.Image) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func findImage(tb testing.TB, svc *app.Service, filename string) app.Image {
	tb.Helper()
	imgs, err := svc.Images(context.Background(), app.QEMUImages)
	if err != nil {
		tb.Fatal(err)
	}
	for _, img := range imgs {
		if img.Filename == filename {
			return img
		}
	}
	tb.Fatalf("%s is not listed: %+v", filename, imgs)
	return app.Image{}
}

func TestService_ImagePath(t *testing.T) {
	f := newImageFolders(t)
	own := mustWriteFile(t, f.own, "vyos.qcow2", "x")
	sub := mustWriteFile(t, f.own, "alpine/alpine.qcow2", "x")
	gns3 := mustWriteFile(t, f.gns3, "csr.qcow2", "x")
	shadowed := mustWriteFile(t, f.gns3, "vyos.qcow2", "x")
	elsewhere := mustWriteFile(t, t.TempDir(), "bios.bin", "x")
	// A name in a subfolder of nodedesk's folder comes before the same
	// name at the top of GNS3's, as the list shows it.
	nested := mustWriteFile(t, f.own, "deep/nested.qcow2", "x")
	mustWriteFile(t, f.gns3, "nested.qcow2", "x")

	for _, tt := range []struct {
		name, give, want string
	}{
		{"OwnFolder", "vyos.qcow2", own},
		{"GNS3Folder", "csr.qcow2", gns3},
		{"RelativePath", "alpine/alpine.qcow2", sub},
		{"BareNameInSubfolder", "alpine.qcow2", sub},
		{"EarlierFolderFirst", "nested.qcow2", nested},
		{"BackslashPath", `alpine\alpine.qcow2`, sub},
		{"AbsolutePath", elsewhere, elsewhere},
		{"AbsolutePathInGNS3Folder", shadowed, shadowed},
		{"AbsolutePathFromAnotherMachine", "/home/someone/GNS3/images/QEMU/csr.qcow2", gns3},
		{"WindowsPath", `C:\Users\someone\GNS3\images\QEMU\vyos.qcow2`, own},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.svc.ImagePath(app.QEMUImages, tt.give)
			if err != nil || got != tt.want {
				t.Fatalf("ImagePath(%q) = %q, %v; want %q", tt.give, got, err, tt.want)
			}
		})
	}
	t.Run("ErrMissing", func(t *testing.T) {
		_, err := f.svc.ImagePath(app.QEMUImages, "openwrt.img")
		wantCode(t, err, app.ECONFLICT)
		msg := app.ErrorMessage(err)
		for _, want := range []string{"openwrt.img", f.own, f.gns3, "upload"} {
			if !strings.Contains(msg, want) {
				t.Errorf("message %q does not name %q", msg, want)
			}
		}
	})
	for _, give := range []string{"../../nodedesk.db", "alpine/../../x", "", ".hidden"} {
		t.Run("ErrInvalid "+give, func(t *testing.T) {
			_, err := f.svc.ImagePath(app.QEMUImages, give)
			wantCode(t, err, app.EINVALID)
		})
	}
}

// sizedReader is an upload body whose length is known ahead, as an HTTP
// request's with a Content-Length.
type sizedReader struct {
	io.Reader
	size int64
}

func (r sizedReader) Size() int64 { return r.size }

// brokenReader gives some bytes, then fails: a client gone mid-upload.
type brokenReader struct{ n int }

func (r *brokenReader) Read(b []byte) (int, error) {
	if r.n <= 0 {
		return 0, errors.New("connection reset by peer")
	}
	k := min(len(b), r.n)
	r.n -= k
	return k, nil
}

// folderNames lists the names in dir and its subfolders.
func folderNames(tb testing.TB, dir string) []string {
	tb.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != dir {
			rel, _ := filepath.Rel(dir, p)
			names = append(names, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return names
}

func TestService_UploadImage(t *testing.T) {
	ctx := context.Background()

	t.Run("OK", func(t *testing.T) {
		f := newImageFolders(t)
		content := strings.Repeat("disk block ", 300_000) // several read buffers
		img, err := f.svc.UploadImage(ctx, app.QEMUImages, "vyos/vyos.qcow2", strings.NewReader(content))
		if err != nil {
			t.Fatal(err)
		}
		want := app.Image{Filename: "vyos.qcow2", Path: "vyos/vyos.qcow2", MD5Sum: md5Of(content), FileSize: int64(len(content))}
		if *img != want {
			t.Fatalf("UploadImage = %+v, want %+v", *img, want)
		}
		b, err := os.ReadFile(filepath.Join(f.own, "vyos", "vyos.qcow2"))
		if err != nil || string(b) != content {
			t.Fatalf("the file holds %d bytes (%v), want the %d uploaded", len(b), err, len(content))
		}
		if got := findImage(t, f.svc, "vyos.qcow2"); got != want {
			t.Fatalf("listed as %+v, want %+v", got, want)
		}
		if names := folderNames(t, f.own); strings.Join(names, " ") != "vyos vyos/vyos.qcow2 vyos/vyos.qcow2.md5sum" {
			t.Fatalf("the folder holds %v; want the image and its checksum only", names)
		}
		p, err := f.svc.ImagePath(app.QEMUImages, "vyos.qcow2")
		if err != nil || p != filepath.Join(f.own, "vyos", "vyos.qcow2") {
			t.Fatalf("ImagePath after upload = %q, %v", p, err)
		}
	})
	t.Run("ReplacesWhole", func(t *testing.T) {
		f := newImageFolders(t)
		mustWriteFile(t, f.own, "a.img", "old")
		_ = findImage(t, f.svc, "a.img") // its sidecar now holds the old sum
		img, err := f.svc.UploadImage(ctx, app.QEMUImages, "a.img", strings.NewReader("new content"))
		if err != nil {
			t.Fatal(err)
		}
		if got := findImage(t, f.svc, "a.img"); got != *img || got.MD5Sum != md5Of("new content") {
			t.Fatalf("listed as %+v after the upload, want %+v", got, *img)
		}
	})
	t.Run("CutShortLeavesNothing", func(t *testing.T) {
		f := newImageFolders(t)
		mustWriteFile(t, f.own, "a.img", "old")
		_, err := f.svc.UploadImage(ctx, app.QEMUImages, "a.img", &brokenReader{n: 3 << 20})
		wantCode(t, err, app.EINVALID)
		if b, _ := os.ReadFile(filepath.Join(f.own, "a.img")); string(b) != "old" {
			t.Fatalf("a.img holds %q after a failed upload, want the old content", b)
		}
		_, err = f.svc.UploadImage(ctx, app.QEMUImages, "new/b.img", &brokenReader{n: 10})
		wantCode(t, err, app.EINVALID)
		if names := folderNames(t, f.own); strings.Join(names, " ") != "a.img new" {
			t.Fatalf("the folder holds %v after failed uploads; want only what was there and the made folder", names)
		}
	})
	t.Run("CancelledLeavesNothing", func(t *testing.T) {
		f := newImageFolders(t)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := f.svc.UploadImage(cctx, app.QEMUImages, "a.img", strings.NewReader("content"))
		if err == nil {
			t.Fatal("an upload whose request is gone succeeded")
		}
		if names := folderNames(t, f.own); len(names) != 0 {
			t.Fatalf("the folder holds %v after a cancelled upload", names)
		}
	})
	t.Run("ErrTooLarge", func(t *testing.T) {
		f := newImageFolders(t)
		body := sizedReader{Reader: strings.NewReader("x"), size: app.MaxImageBytes + 1}
		_, err := f.svc.UploadImage(ctx, app.QEMUImages, "huge.img", body)
		wantCode(t, err, app.EINVALID)
		if !strings.Contains(app.ErrorMessage(err), "64 GiB") {
			t.Errorf("message %q does not give the limit", app.ErrorMessage(err))
		}
		if names := folderNames(t, f.own); len(names) != 0 {
			t.Fatalf("the folder holds %v after a refused upload", names)
		}
	})
	t.Run("ErrDiskFull", func(t *testing.T) {
		f := newImageFolders(t)
		freeSpace := func() int64 {
			var st syscall.Statfs_t
			if err := syscall.Statfs(f.own, &st); err != nil {
				t.Fatalf("cannot read the free space of %s: %v", f.own, err)
			}
			return int64(st.Bavail) * int64(st.Bsize)
		}
		free := freeSpace()
		if free >= app.MaxImageBytes {
			// No body can be too large for this disk and still be taken:
			// the folder gets a small disk of its own.
			if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", f.own).CombinedOutput(); err != nil {
				kit.Unavailable(t, "the disk has %d GiB free, more than the largest upload, and a small tmpfs cannot be mounted in its place (needs root): %v %s", free>>30, err, out)
			}
			t.Cleanup(func() { _ = exec.Command("umount", "-l", f.own).Run() })
			free = freeSpace()
		}
		_, err := f.svc.UploadImage(ctx, app.QEMUImages, "big.img", sizedReader{Reader: strings.NewReader("x"), size: free})
		wantCode(t, err, app.ECONFLICT)
	})
	for _, give := range []string{"../escape.img", "/etc/passwd", ".hidden.img", "a/.b/c.img", "vyos.qcow2.md5sum", ""} {
		t.Run("ErrName "+give, func(t *testing.T) {
			f := newImageFolders(t)
			_, err := f.svc.UploadImage(ctx, app.QEMUImages, give, strings.NewReader("x"))
			if c := app.ErrorCode(err); c != app.EFORBIDDEN && c != app.EINVALID {
				t.Fatalf("UploadImage(%q): %v, want a refusal", give, err)
			}
			if names := folderNames(t, f.own); len(names) != 0 {
				t.Fatalf("the folder holds %v after a refused name", names)
			}
		})
	}
}

func TestService_OpenImage(t *testing.T) {
	f := newImageFolders(t)
	mustWriteFile(t, f.gns3, "alpine/alpine.qcow2", "alpine disk")
	outside := mustWriteFile(t, t.TempDir(), "secret", "not an image")
	if err := os.Symlink(outside, filepath.Join(f.own, "link.img")); err != nil {
		t.Fatal(err)
	}

	file, err := f.svc.OpenImage(app.QEMUImages, "alpine/alpine.qcow2")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(file)
	file.Close()
	if !bytes.Equal(b, []byte("alpine disk")) {
		t.Fatalf("read %q", b)
	}
	_, err = f.svc.OpenImage(app.QEMUImages, "absent.img")
	wantCode(t, err, app.ENOTFOUND)
	_, err = f.svc.OpenImage(app.QEMUImages, "../../secret")
	wantCode(t, err, app.EFORBIDDEN)
	_, err = f.svc.OpenImage(app.QEMUImages, outside)
	wantCode(t, err, app.EFORBIDDEN)
	_, err = f.svc.OpenImage(app.QEMUImages, "link.img")
	wantCode(t, err, app.EFORBIDDEN)
}

// TestImages_KindOfFile: IOS and IOU folders list only files of their
// kind, as GNS3 2.2.59 does: IOS images are 32-bit big-endian ELF files
// (the stand-in image's header), IOU binaries little-endian ones, and a
// file shorter than the header is neither. The QEMU folder lists every
// file, ELF kernels too.
func TestImages_KindOfFile(t *testing.T) {
	const (
		ios   = "\x7fELF\x01\x02\x01\x00 mips code"
		iou32 = "\x7fELF\x01\x01\x01\x00 x86 code"
		iou64 = "\x7fELF\x02\x01\x01\x00 x86-64 code"
		qcow  = "QFI\xfb\x00\x00\x00\x03 a disk"
	)
	f := newImageFolders(t)
	data := filepath.Dir(filepath.Dir(f.own))
	files := map[string]string{"r.image": ios, "l2.bin": iou32, "l3.bin": iou64, "disk.qcow2": qcow, "tiny": "\x7fELF"}
	for _, kind := range []app.ImageKind{app.IOSImages, app.IOUImages, app.QEMUImages} {
		for name, content := range files {
			mustWriteFile(t, filepath.Join(data, "images", string(kind)), name, content)
		}
	}
	for kind, want := range map[app.ImageKind]string{app.IOSImages: "r.image", app.IOUImages: "l2.bin l3.bin", app.QEMUImages: "disk.qcow2 l2.bin l3.bin r.image tiny"} {
		imgs, err := f.svc.Images(context.Background(), kind)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, img := range imgs {
			got = append(got, img.Filename)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%s images listed: %v; want %s", kind, got, want)
		}
	}
}
