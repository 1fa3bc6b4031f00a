package app_test

import (
	"context"
	"path/filepath"
	"testing"

	"nodedesk/app"
	"nodedesk/store/storetest"
)

// fakeQEMU is a QEMUTools that records what it was asked to run.
type fakeQEMU struct {
	bins, imgs []app.QEMUBinary
	caps       app.QEMUCapabilities
	created    []app.QEMUImageSpec
	resized    []app.QEMUImageResize
}

// fakeQEMU is a runner that runs nothing but has QEMU's tools, as QEMU's
// runner does.
func (f *fakeQEMU) Runs(app.NodeType) bool            { return false }
func (f *fakeQEMU) Start(app.Process) (string, error) { return "", nil }
func (f *fakeQEMU) Stop(string) error                 { return nil }
func (f *fakeQEMU) Suspend(string) error              { return nil }
func (f *fakeQEMU) Resume(string) error               { return nil }
func (f *fakeQEMU) Binaries(ctx context.Context, archs []string) ([]app.QEMUBinary, error) {
	return f.bins, nil
}
func (f *fakeQEMU) ImgBinaries(ctx context.Context) ([]app.QEMUBinary, error) { return f.imgs, nil }
func (f *fakeQEMU) Capabilities(ctx context.Context) app.QEMUCapabilities     { return f.caps }
func (f *fakeQEMU) CreateImage(ctx context.Context, spec app.QEMUImageSpec) error {
	f.created = append(f.created, spec)
	return nil
}
func (f *fakeQEMU) ResizeImage(ctx context.Context, r app.QEMUImageResize) error {
	f.resized = append(f.resized, r)
	return nil
}

// newQEMUService is an imageFolders whose Service has tools.
func newQEMUService(tb testing.TB, tools *fakeQEMU) imageFolders {
	tb.Helper()
	f := newImageFolders(tb)
	gns3 := filepath.Dir(f.gns3)
	f.svc = app.NewService(app.Config{Store: storetest.Open(tb), DataDir: filepath.Dir(filepath.Dir(f.own)), GNS3ImagesDir: gns3, Runners: []app.Runner{tools}})
	return f
}

func TestService_CreateQEMUImage(t *testing.T) {
	ctx := context.Background()
	tools := &fakeQEMU{imgs: []app.QEMUBinary{{Path: "/usr/bin/qemu-img", Version: "7.2.22"}}}
	f := newQEMUService(t, tools)
	mustWriteFile(t, f.own, "taken.qcow2", "x")

	ok := []struct {
		name string
		give app.QEMUImageSpec
		want string // the path qemu-img is given
	}{
		{"FileName", app.QEMUImageSpec{Path: "disk.qcow2", Format: "qcow2", Size: 30000}, filepath.Join(f.own, "disk.qcow2")},
		{"Subfolder", app.QEMUImageSpec{QEMUImg: "qemu-img", Path: "lab/disk.vmdk", Format: "vmdk", Size: 10, Subformat: "streamOptimized"}, filepath.Join(f.own, "lab", "disk.vmdk")},
		{"AbsoluteInGNS3Folder", app.QEMUImageSpec{QEMUImg: "/usr/bin/qemu-img", Path: filepath.Join(f.gns3, "g.img"), Format: "raw", Size: 1}, filepath.Join(f.gns3, "g.img")},
	}
	for _, tt := range ok {
		t.Run(tt.name, func(t *testing.T) {
			tools.created = nil
			if err := f.svc.CreateQEMUImage(ctx, tt.give); err != nil {
				t.Fatal(err)
			}
			if len(tools.created) != 1 || tools.created[0].Path != tt.want || tools.created[0].QEMUImg != "/usr/bin/qemu-img" {
				t.Fatalf("qemu-img was asked %+v; want path %s with this machine's qemu-img", tools.created, tt.want)
			}
		})
	}
	bad := []struct {
		name string
		give app.QEMUImageSpec
		code app.Code
	}{
		{"ErrExists", app.QEMUImageSpec{Path: "taken.qcow2", Format: "qcow2", Size: 1}, app.ECONFLICT},
		{"ErrOutside", app.QEMUImageSpec{Path: filepath.Join(t.TempDir(), "x.qcow2"), Format: "qcow2", Size: 1}, app.EINVALID},
		{"ErrLeaves", app.QEMUImageSpec{Path: "../../x.qcow2", Format: "qcow2", Size: 1}, app.EINVALID},
		{"ErrOtherProgram", app.QEMUImageSpec{QEMUImg: "/tmp/evil", Path: "a.qcow2", Format: "qcow2", Size: 1}, app.EINVALID},
		{"ErrFormat", app.QEMUImageSpec{Path: "a.vhdx", Format: "vhdx", Size: 1}, app.EINVALID},
		{"ErrSize", app.QEMUImageSpec{Path: "a.qcow2", Format: "qcow2"}, app.EINVALID},
		{"ErrOption", app.QEMUImageSpec{Path: "a.qcow2", Format: "qcow2", Size: 1, Preallocation: "lots"}, app.EINVALID},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			tools.created = nil
			wantCode(t, f.svc.CreateQEMUImage(ctx, tt.give), tt.code)
			if len(tools.created) != 0 {
				t.Fatalf("qemu-img ran for a refused request: %+v", tools.created)
			}
		})
	}
}

func TestService_ResizeQEMUImage(t *testing.T) {
	ctx := context.Background()
	tools := &fakeQEMU{imgs: []app.QEMUBinary{{Path: "/usr/bin/qemu-img"}}}
	f := newQEMUService(t, tools)
	disk := mustWriteFile(t, f.gns3, "lab/disk.qcow2", "x")

	if err := f.svc.ResizeQEMUImage(ctx, app.QEMUImageResize{Path: "disk.qcow2", Extend: 512}); err != nil {
		t.Fatal(err)
	}
	if len(tools.resized) != 1 || tools.resized[0].Path != disk || tools.resized[0].Extend != 512 {
		t.Fatalf("qemu-img was asked %+v", tools.resized)
	}
	if err := f.svc.ResizeQEMUImage(ctx, app.QEMUImageResize{Path: disk}); err != nil || len(tools.resized) != 1 {
		t.Fatalf("extend 0: %v, %+v; want nothing done", err, tools.resized)
	}
	wantCode(t, f.svc.ResizeQEMUImage(ctx, app.QEMUImageResize{Path: "absent.qcow2", Extend: 1}), app.ENOTFOUND)
	wantCode(t, f.svc.ResizeQEMUImage(ctx, app.QEMUImageResize{Path: "/etc/hostname", Extend: 1}), app.EINVALID)
	wantCode(t, f.svc.ResizeQEMUImage(ctx, app.QEMUImageResize{Path: "disk.qcow2", Extend: -1}), app.EINVALID)
}

func TestService_QEMUWithoutQEMU(t *testing.T) {
	ctx := context.Background()
	svc := app.NewService(app.Config{Store: storetest.Open(t), DataDir: t.TempDir()})
	if bins, err := svc.QEMUBinaries(ctx, nil); err != nil || bins == nil || len(bins) != 0 {
		t.Fatalf("QEMUBinaries = %#v, %v; want an empty list", bins, err)
	}
	if c := svc.QEMUCapabilities(ctx); c.Acceleration != app.AccelNone || c.KVM == nil || c.AccelerationNote == "" {
		t.Fatalf("QEMUCapabilities = %+v", c)
	}
	wantCode(t, svc.CreateQEMUImage(ctx, app.QEMUImageSpec{Path: "a.qcow2", Format: "qcow2", Size: 1}), app.ECONFLICT)
}

func TestQEMUImageSpec_Options(t *testing.T) {
	sp := app.QEMUImageSpec{Format: "qcow2", Size: 1, Preallocation: "metadata", ClusterSize: 65536, LazyRefcounts: "off", RefcountBits: 16}
	got := sp.Options()
	want := []string{"cluster_size=65536", "lazy_refcounts=off", "preallocation=metadata", "refcount_bits=16"}
	if len(got) != len(want) {
		t.Fatalf("Options = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Options = %v, want %v", got, want)
		}
	}
}
