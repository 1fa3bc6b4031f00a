package api

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"nodedesk/app"
	"nodedesk/app/kit"
)

// fakeQEMU is a QEMUTools that records what it was asked.
type fakeQEMU struct {
	mu      sync.Mutex
	archs   [][]string
	created []app.QEMUImageSpec
	resized []app.QEMUImageResize
}

func (f *fakeQEMU) Binaries(ctx context.Context, archs []string) ([]app.QEMUBinary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.archs = append(f.archs, archs)
	return []app.QEMUBinary{{Path: "/usr/bin/qemu-system-x86_64", Version: "7.2.22"}}, nil
}

func (f *fakeQEMU) ImgBinaries(ctx context.Context) ([]app.QEMUBinary, error) {
	return []app.QEMUBinary{{Path: "/usr/bin/qemu-img", Version: "7.2.22"}}, nil
}

func (f *fakeQEMU) Capabilities(ctx context.Context) app.QEMUCapabilities {
	return app.QEMUCapabilities{KVM: []string{}, Acceleration: app.AccelTCG, AccelerationNote: "running without hardware acceleration: slower (test)"}
}

func (f *fakeQEMU) CreateImage(ctx context.Context, spec app.QEMUImageSpec) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.created = append(f.created, spec)
	return nil
}

func (f *fakeQEMU) ResizeImage(ctx context.Context, r app.QEMUImageResize) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.resized = append(f.resized, r)
	return nil
}

// imagesServer is a test server with a GNS3 images folder and QEMU tools;
// own is nodedesk's QEMU images folder, gns3 GNS3's.
func imagesServer(t *testing.T) (ts *testServer, tools *fakeQEMU, own, gns3 string) {
	t.Helper()
	gns3Root := t.TempDir()
	gns3 = filepath.Join(gns3Root, "QEMU")
	if err := os.MkdirAll(gns3, 0o755); err != nil {
		t.Fatal(err)
	}
	tools = &fakeQEMU{}
	ts = mustOpenServerWith(t, testOptions{gns3Images: gns3Root, qemu: tools, timeouts: Timeouts{Read: 500 * time.Millisecond}})
	return ts, tools, filepath.Join(filepath.Dir(ts.dbPath), "images", "QEMU"), gns3
}

func md5Hex(b []byte) string {
	sum := md5.Sum(b)
	return hex.EncodeToString(sum[:])
}

// upload sends body as a stream of unknown length (chunked), chunk after
// chunk with pause between them, and returns the checked answer.
func upload(t *testing.T, ts *testServer, path string, body []byte, chunks int, pause time.Duration) kit.Response {
	t.Helper()
	pr, pw := io.Pipe()
	go func() {
		step := (len(body) + chunks - 1) / chunks
		for i := 0; i < len(body); i += step {
			if _, err := pw.Write(body[i:min(i+step, len(body))]); err != nil {
				return
			}
			time.Sleep(pause)
		}
		pw.Close()
	}()
	req, err := http.NewRequest("POST", ts.URL+path, pr)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ts.Client.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := kit.Response{Status: res.StatusCode, Body: raw, Header: res.Header}
	ts.CheckContract("POST", path, r)
	return r
}

func TestQEMUImages_UploadListDownload(t *testing.T) {
	ts, _, own, gns3 := imagesServer(t)
	if err := os.WriteFile(filepath.Join(gns3, "csr.qcow2"), []byte("csr disk"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Larger than any JSON body may be (1 MiB), sent slower than the
	// server's read timeout (500 ms here): an image streams.
	disk := bytes.Repeat([]byte("0123456789abcdef"), 3<<18) // 12 MiB
	upload(t, ts, "/v2/compute/qemu/images/vyos/vyos.qcow2", disk, 4, 300*time.Millisecond).Want(t, 204)

	list := ts.Do("GET", "/v2/compute/qemu/images", nil).Want(t, 200).List(t)
	if len(list) != 2 || list[0]["filename"] != "csr.qcow2" || list[1]["path"] != "vyos/vyos.qcow2" ||
		list[1]["md5sum"] != md5Hex(disk) || list[1]["filesize"] != float64(len(disk)) {
		t.Fatalf("images: %v", list)
	}
	got := ts.Do("GET", "/v2/compute/qemu/images/vyos/vyos.qcow2", nil).Want(t, 200)
	if !bytes.Equal(got.Body, disk) || got.Header.Get("Content-Type") != "application/octet-stream" {
		t.Fatalf("download: %d bytes, Content-Type %q", len(got.Body), got.Header.Get("Content-Type"))
	}
	part := ts.DoWith("GET", "/v2/compute/qemu/images/csr.qcow2", nil, http.Header{"Range": {"bytes=4-7"}}).Want(t, 206)
	if string(part.Body) != "disk" {
		t.Fatalf("range: %q", part.Body)
	}
	ts.Do("GET", "/v2/compute/qemu/images/absent.qcow2", nil).Want(t, 404)
	ts.Do("GET", "/v2/compute/qemu/images/.hidden", nil).Want(t, 403)

	// The controller's forms, as the GNS3 GUI calls them.
	if l := ts.Do("GET", "/v2/computes/local/qemu/images", nil).Want(t, 200).List(t); len(l) != 2 {
		t.Fatalf("controller list: %v", l)
	}
	if m := ts.Do("POST", "/v2/computes/local/qemu/images/b.img", "b image").Want(t, 200).JSON(t); len(m) != 0 {
		t.Fatalf("controller upload answered %v, want {} as GNS3's controller", m)
	}
	if b, err := os.ReadFile(filepath.Join(own, "b.img")); err != nil || string(b) != "b image" {
		t.Fatalf("b.img: %q, %v", b, err)
	}
}

func TestQEMUImages_UploadRefused(t *testing.T) {
	ts, _, own, _ := imagesServer(t)
	for _, name := range []string{".hidden.img", "vyos.qcow2.md5sum", "sub/.x/y.img"} {
		ts.Do("POST", "/v2/compute/qemu/images/"+name, "data").Want(t, 403)
	}
	entries, _ := os.ReadDir(own)
	if len(entries) != 0 {
		t.Fatalf("refused uploads left %v", entries)
	}
}

func TestQEMUTools_Routes(t *testing.T) {
	ts, tools, own, _ := imagesServer(t)

	t.Run("Binaries", func(t *testing.T) {
		for _, path := range []string{"/v2/compute/qemu/binaries", "/v2/computes/local/qemu/binaries"} {
			l := ts.Do("GET", path, nil).Want(t, 200).List(t)
			if len(l) != 1 || l[0]["path"] != "/usr/bin/qemu-system-x86_64" || l[0]["version"] != "7.2.22" {
				t.Fatalf("%s: %v", path, l)
			}
		}
		ts.Do("GET", "/v2/compute/qemu/binaries?archs=x86_64,i386", nil).Want(t, 200)
		ts.Do("GET", "/v2/computes/local/qemu/binaries", map[string]any{"archs": []string{"aarch64"}}).Want(t, 200)
		ts.Do("GET", "/v2/compute/qemu/binaries", map[string]any{"archs": []string{"z80"}}).Want(t, 400)
		tools.mu.Lock()
		defer tools.mu.Unlock()
		if len(tools.archs) != 4 || strings.Join(tools.archs[2], ",") != "x86_64,i386" || strings.Join(tools.archs[3], ",") != "aarch64" {
			t.Fatalf("the tools were asked for archs %v", tools.archs)
		}
	})
	t.Run("ImgBinariesAndCapabilities", func(t *testing.T) {
		for _, pre := range []string{"/v2/compute/qemu", "/v2/computes/local/qemu"} {
			if l := ts.Do("GET", pre+"/img-binaries", nil).Want(t, 200).List(t); len(l) != 1 || l[0]["path"] != "/usr/bin/qemu-img" {
				t.Fatalf("%s/img-binaries: %v", pre, l)
			}
			c := ts.Do("GET", pre+"/capabilities", nil).Want(t, 200).JSON(t)
			if kvm, ok := c["kvm"].([]any); !ok || len(kvm) != 0 || c["acceleration"] != "tcg" ||
				!strings.HasPrefix(c["acceleration_note"].(string), "running without hardware acceleration: slower") {
				t.Fatalf("%s/capabilities: %v", pre, c)
			}
		}
	})
	t.Run("Img", func(t *testing.T) {
		r := ts.Do("POST", "/v2/compute/qemu/img", map[string]any{"qemu_img": "/usr/bin/qemu-img", "path": "disk.qcow2", "format": "qcow2", "size": 30000, "preallocation": "metadata"}).Want(t, 201)
		if len(r.Body) != 0 {
			t.Errorf("201 with a body: %s", r.Body)
		}
		ts.Do("POST", "/v2/computes/local/qemu/img", map[string]any{"qemu_img": "/usr/bin/qemu-img", "path": "other.vmdk", "format": "vmdk", "size": 10}).Want(t, 200)
		ts.Do("POST", "/v2/compute/qemu/img", map[string]any{"qemu_img": "/usr/bin/qemu-img", "path": "x.img", "format": "vhdx", "size": 1}).Want(t, 400)
		ts.Do("POST", "/v2/compute/qemu/img", map[string]any{"qemu_img": "/bin/sh", "path": "x.img", "format": "raw", "size": 1}).Want(t, 400)
		ts.Do("POST", "/v2/compute/qemu/img", map[string]any{"qemu_img": "/usr/bin/qemu-img", "path": "/etc/x.img", "format": "raw", "size": 1}).Want(t, 400)
		tools.mu.Lock()
		created := append([]app.QEMUImageSpec(nil), tools.created...)
		tools.mu.Unlock()
		if len(created) != 2 || created[0].Path != filepath.Join(own, "disk.qcow2") || created[0].Preallocation != "metadata" || created[1].Path != filepath.Join(own, "other.vmdk") {
			t.Fatalf("qemu-img was asked %+v", created)
		}

		if err := os.WriteFile(filepath.Join(own, "disk.qcow2"), []byte("qcow"), 0o644); err != nil {
			t.Fatal(err)
		}
		ts.Do("POST", "/v2/compute/qemu/img", map[string]any{"qemu_img": "/usr/bin/qemu-img", "path": "disk.qcow2", "format": "qcow2", "size": 1}).Want(t, 409)
		ts.Do("PUT", "/v2/compute/qemu/img", map[string]any{"qemu_img": "/usr/bin/qemu-img", "path": "disk.qcow2", "extend": 1024}).Want(t, 201)
		ts.Do("PUT", "/v2/computes/local/qemu/img", map[string]any{"qemu_img": "/usr/bin/qemu-img", "path": "disk.qcow2", "extend": 1}).Want(t, 200)
		ts.Do("PUT", "/v2/compute/qemu/img", map[string]any{"qemu_img": "/usr/bin/qemu-img", "path": "absent.qcow2", "extend": 1}).Want(t, 404)
		tools.mu.Lock()
		defer tools.mu.Unlock()
		if len(tools.resized) != 2 || tools.resized[0].Path != filepath.Join(own, "disk.qcow2") || tools.resized[0].Extend != 1024 {
			t.Fatalf("qemu-img resize was asked %+v", tools.resized)
		}
	})
	t.Run("RemoteCompute", func(t *testing.T) {
		ts.Do("GET", "/v2/computes/nosuch/qemu/binaries", nil).Want(t, 404)
		ts.Do("POST", "/v2/computes/nosuch/qemu/img", map[string]any{"qemu_img": "q", "path": "d.qcow2", "format": "qcow2", "size": 1}).Want(t, 404)
		id := ts.Do("POST", "/v2/computes", map[string]any{"protocol": "http", "host": "127.0.0.1", "port": 1}).Want(t, 201).JSON(t)["compute_id"].(string)
		ts.Do("GET", "/v2/computes/"+id+"/qemu/binaries", nil).Want(t, 409) // asked of it, not connected
		e := ts.Do("POST", "/v2/computes/"+id+"/qemu/img", map[string]any{"qemu_img": "q", "path": "d.qcow2", "format": "qcow2", "size": 1}).Want(t, 409).JSON(t)
		if !strings.Contains(e["message"].(string), "remote compute") {
			t.Errorf("message %v", e["message"])
		}
		ts.Do("POST", "/v2/computes/"+id+"/qemu/images/x.img", "x").Want(t, 409)
	})
}

// Without QEMU on the machine, the GNS3 GUI's calls still answer, and say so.
func TestQEMUTools_NotInstalled(t *testing.T) {
	ts := mustOpenServer(t)
	if l := ts.Do("GET", "/v2/computes/local/qemu/binaries", nil).Want(t, 200).List(t); len(l) != 0 {
		t.Fatalf("binaries: %v", l)
	}
	if c := ts.Do("GET", "/v2/compute/qemu/capabilities", nil).Want(t, 200).JSON(t); c["acceleration"] != "none" {
		t.Fatalf("capabilities: %v", c)
	}
	ts.Do("POST", "/v2/compute/qemu/img", map[string]any{"qemu_img": "qemu-img", "path": "d.qcow2", "format": "qcow2", "size": 1}).Want(t, 409)
}

func TestApplianceImport(t *testing.T) {
	ts, _, _, _ := imagesServer(t)
	appliance := map[string]any{
		"name": "Tiny", "category": "guest", "registry_version": 4, "status": "stable",
		"qemu": map[string]any{"adapter_type": "e1000", "adapters": 1, "ram": 64, "arch": "x86_64", "console_type": "telnet", "kvm": "allow"},
		"images": []any{
			map[string]any{"filename": "tiny.qcow2", "version": "1", "md5sum": md5Hex([]byte("tiny disk")), "filesize": 9, "download_url": "http://localhost/tiny"},
		},
		"versions": []any{map[string]any{"name": "1", "images": map[string]any{"hda_disk_image": "tiny.qcow2"}}},
	}
	r := ts.Do("POST", "/v2/appliances/import", appliance).Want(t, 200).JSON(t)
	if m := r["missing"].([]any); len(m) != 1 || m[0].(map[string]any)["download_url"] != "http://localhost/tiny" {
		t.Fatalf("missing: %v", r["missing"])
	}
	ts.Do("POST", "/v2/compute/qemu/images/tiny-renamed.qcow2", "tiny disk").Want(t, 204)
	r = ts.Do("POST", "/v2/appliances/import", appliance).Want(t, 201).JSON(t)
	tpls := r["templates"].([]any)
	if len(tpls) != 1 || len(r["missing"].([]any)) != 0 {
		t.Fatalf("import: %v", r)
	}
	tpl := tpls[0].(map[string]any)
	if tpl["name"] != "Tiny 1" || tpl["template_type"] != "qemu" || tpl["hda_disk_image"] != "tiny-renamed.qcow2" || tpl["ram"] != 64.0 {
		t.Fatalf("template: %v", tpl)
	}
	ts.Do("GET", "/v2/templates/"+tpl["template_id"].(string), nil).Want(t, 200)

	appliance["registry_version"] = 2
	e := ts.Do("POST", "/v2/appliances/import", appliance).Want(t, 400).JSON(t)
	if !strings.Contains(e["message"].(string), "older than 3") {
		t.Errorf("message %v", e["message"])
	}
	ts.Do("POST", "/v2/appliances/import", "[1, 2]").Want(t, 400)
}

// TestQEMUNode_ImagePaths: as GNS3 2.2.59's compute answers a QEMU node,
// an image named by an absolute path inside an images folder is shown
// (and kept) relative to its folder, and each image's *_md5sum is the
// sum of the file: on the controller's node and on the compute's, at
// creation and at each change.
func TestQEMUNode_ImagePaths(t *testing.T) {
	ts, _, own, gns3 := imagesServer(t)
	disk, kernel := []byte("alpine disk"), []byte("a kernel")
	mustWrite(t, filepath.Join(own, "alpine.qcow2"), disk)
	mustWrite(t, filepath.Join(gns3, "kernels", "vmlinuz"), kernel)
	abs := map[string]any{"hda_disk_image": filepath.Join(own, "alpine.qcow2"), "kernel_image": filepath.Join(gns3, "kernels", "vmlinuz")}
	check := func(what string, props map[string]any) {
		t.Helper()
		for k, w := range map[string]any{"hda_disk_image": "alpine.qcow2", "hda_disk_image_md5sum": md5Hex(disk),
			"kernel_image": "kernels/vmlinuz", "kernel_image_md5sum": md5Hex(kernel)} {
			if props[k] != w {
				t.Errorf("%s: %s = %v, want %v", what, k, props[k], w)
			}
		}
	}

	// The controller: the GNS3 GUI's node dialog names the file it picked.
	pid := ts.MustCreateProject("lab")
	n := ts.MustCreateNode(pid, map[string]any{"node_type": "qemu", "compute_id": "local", "properties": abs})
	check("created", n["properties"].(map[string]any))
	path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
	ts.Do("PUT", path, map[string]any{"properties": map[string]any{"hda_disk_image": "", "kernel_image": ""}}).Want(t, 200)
	n = ts.Do("PUT", path, map[string]any{"properties": abs}).Want(t, 200).JSON(t)
	check("updated", n["properties"].(map[string]any))
	check("read again", ts.Do("GET", path, nil).Want(t, 200).JSON(t)["properties"].(map[string]any))

	// The compute, as a GNS3 controller creates and updates a node there.
	c := &kit.Controller{API: ts.API, T: t, PID: uuid.NewString()}
	ts.Do("POST", "/v2/compute/projects", map[string]any{"name": "compute lab", "project_id": c.PID}).Want(t, 201)
	cn := c.Node("qemu", "R1", maps.Clone(abs))
	check("compute created", cn)
	cpath := "/v2/compute/projects/" + c.PID + "/qemu/nodes/" + cn["node_id"].(string)
	check("compute updated", ts.Do("PUT", cpath, maps.Clone(abs)).Want(t, 200).JSON(t))
}

// TestDynamipsImages_UploadListDownload: IOS images as the GNS3 2.2.59
// GUI's IOS router wizard lists and uploads them: nodedesk's IOS folder
// then GNS3's (~/GNS3/images/IOS), sorted by file name, each with
// filename, path, md5sum and filesize; only big-endian 32-bit ELF files
// are listed (a file that is no IOS image is kept but left out, as GNS3
// does); compute and controller forms; downloads; QEMU's list is apart.
func TestDynamipsImages_UploadListDownload(t *testing.T) {
	ts, _, qemuOwn, gns3QEMU := imagesServer(t)
	own := filepath.Join(filepath.Dir(qemuOwn), "IOS")
	gns3 := filepath.Join(filepath.Dir(gns3QEMU), "IOS")
	elf := func(s string) []byte { return append([]byte("\x7fELF\x01\x02\x01\x00"), s...) }
	if err := os.MkdirAll(gns3, 0o755); err != nil {
		t.Fatal(err)
	}
	c7200 := elf("c7200 code")
	if err := os.WriteFile(filepath.Join(gns3, "c7200-adventerprisek9-mz.124-24.T5.image"), c7200, 0o644); err != nil {
		t.Fatal(err)
	}
	c3725 := bytes.Repeat(elf("c3725 code "), 1<<16)
	upload(t, ts, "/v2/compute/dynamips/images/c3725-adventerprisek9-mz.124-15.T14.image", c3725, 3, 0).Want(t, 204)
	if m := ts.Do("POST", "/v2/computes/local/dynamips/images/c3745.image", string(elf("c3745"))).Want(t, 200).JSON(t); len(m) != 0 {
		t.Fatalf("controller upload answered %v, want {} as GNS3's controller", m)
	}
	// A zipped image is no IOS image: kept, not listed.
	upload(t, ts, "/v2/compute/dynamips/images/c2600.zip", []byte("PK\x03\x04 zipped"), 1, 0).Want(t, 204)
	if _, err := os.Stat(filepath.Join(own, "c2600.zip")); err != nil {
		t.Fatal(err)
	}

	want := []map[string]any{
		{"filename": "c3725-adventerprisek9-mz.124-15.T14.image", "path": "c3725-adventerprisek9-mz.124-15.T14.image",
			"md5sum": md5Hex(c3725), "filesize": float64(len(c3725))},
		{"filename": "c3745.image", "path": "c3745.image", "md5sum": md5Hex(elf("c3745")), "filesize": float64(len(elf("c3745")))},
		{"filename": "c7200-adventerprisek9-mz.124-24.T5.image", "path": "c7200-adventerprisek9-mz.124-24.T5.image",
			"md5sum": md5Hex(c7200), "filesize": float64(len(c7200))},
	}
	for _, path := range []string{"/v2/compute/dynamips/images", "/v2/computes/local/dynamips/images"} {
		got := ts.Do("GET", path, nil).Want(t, 200).List(t)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("GET %s:\n %v\nwant\n %v", path, got, want)
		}
	}
	got := ts.Do("GET", "/v2/compute/dynamips/images/c3725-adventerprisek9-mz.124-15.T14.image", nil).Want(t, 200)
	if !bytes.Equal(got.Body, c3725) {
		t.Errorf("download: %d bytes, want the %d uploaded", len(got.Body), len(c3725))
	}
	if got := ts.Do("GET", "/v2/compute/dynamips/images/c7200-adventerprisek9-mz.124-24.T5.image", nil).Want(t, 200); !bytes.Equal(got.Body, c7200) {
		t.Errorf("download from GNS3's folder: %q", got.Body)
	}
	ts.Do("GET", "/v2/compute/dynamips/images/absent.image", nil).Want(t, 404)
	ts.Do("POST", "/v2/compute/dynamips/images/.hidden.image", "x").Want(t, 403)
	if l := ts.Do("GET", "/v2/compute/qemu/images", nil).Want(t, 200).List(t); len(l) != 0 {
		t.Errorf("QEMU images list IOS images: %v", l)
	}
	ts.Do("GET", "/v2/computes/nope/dynamips/images", nil).Want(t, 404)
}

// TestNodeImages: a node's panel learns before any start that the image
// its properties name is missing, and what to do; once uploaded, it is
// found (GET …/nodes/{id}/images, checked against the contract).
func TestNodeImages(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.Do("POST", "/v2/projects", map[string]any{"name": "imgs"}).Want(t, 201).JSON(t)["project_id"].(string)
	nid := ts.Do("POST", "/v2/projects/"+pid+"/nodes", map[string]any{"name": "VM1", "node_type": "qemu", "compute_id": "local",
		"properties": map[string]any{"hda_disk_image": "later.qcow2"}}).Want(t, 201).JSON(t)["node_id"].(string)
	l := ts.Do("GET", "/v2/projects/"+pid+"/nodes/"+nid+"/images", nil).Want(t, 200).List(t)
	if len(l) != 1 || l[0]["property"] != "hda_disk_image" || l[0]["name"] != "later.qcow2" || l[0]["found"] != false ||
		!strings.Contains(l[0]["message"].(string), "later.qcow2") {
		t.Fatalf("before the upload: %v; want later.qcow2 missing, said", l)
	}
	ts.Do("POST", "/v2/computes/local/qemu/images/later.qcow2", "disk").Want(t, 200)
	l = ts.Do("GET", "/v2/projects/"+pid+"/nodes/"+nid+"/images", nil).Want(t, 200).List(t)
	if len(l) != 1 || l[0]["found"] != true || l[0]["message"] != nil {
		t.Fatalf("after the upload: %v; want it found", l)
	}
	vpcs := ts.Do("POST", "/v2/projects/"+pid+"/nodes", map[string]any{"name": "PC1", "node_type": "vpcs", "compute_id": "local"}).Want(t, 201).JSON(t)["node_id"].(string)
	if l := ts.Do("GET", "/v2/projects/"+pid+"/nodes/"+vpcs+"/images", nil).Want(t, 200).List(t); len(l) != 0 {
		t.Errorf("a VPCS names images: %v", l)
	}
	ts.Do("GET", "/v2/projects/"+pid+"/nodes/"+uuid.NewString()+"/images", nil).Want(t, 404)
}
