package labtest

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"nodedesk/app"
	"nodedesk/app/dynamips/dynamipstest"
	"nodedesk/app/iou/ioutest"
	"nodedesk/app/kit"
	"nodedesk/app/qemu/qemutest"
)

// Projects that travel: an export carries the images its nodes name and
// names them by file name; an import puts them in nodedesk's images
// folders and finds by file name the images another machine named by
// its own paths; a router's scratch files (ghost RAM) stay home.

const travelIOU = "i86bi-linux-l3-adventerprisek9-travel.bin"

// travelLab starts a lab that runs Dynamips, QEMU and IOU (licence
// check off, as the stand-in IOU image has none) with their images in
// place: the stand-in c7200 IOS and IOU images in nodedesk's images
// folders, and a tiny empty QEMU disk outside them, at the path it
// returns (a disk named by an absolute path of this machine).
func travelLab(t *testing.T) (*Lab, string) {
	t.Helper()
	l := Start(t, with(dynamipstest.Emulator, qemutest.Emulator, ioutest.Emulator))
	l.Do("PUT", "/v2/iou_license", map[string]any{"iourc_content": "", "license_check": false}).Want(t, 201)
	iosImage(t, l, "c7200-travel.image", "c7200")
	ioutest.PlaceImage(t, filepath.Dir(l.Store.Path()), travelIOU)
	disk := filepath.Join(t.TempDir(), "elsewhere", "travel-disk.qcow2")
	if err := os.MkdirAll(filepath.Dir(disk), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("qemu-img", "create", "-q", "-f", "qcow2", disk, "16M").CombinedOutput(); err != nil {
		t.Fatalf("qemu-img: %v: %s", err, out)
	}
	return l, disk
}

// travelNodes makes R1 (c7200), Q1 (QEMU, its disk named by absolute
// path) and IOU1 in project pid.
func travelNodes(t *testing.T, l *Lab, pid, disk string) {
	t.Helper()
	routerNode(t, l, pid, "R1", map[string]any{"platform": "c7200", "image": "c7200-travel.image", "idlepc": fakeIdlePC})
	guestNode(t, l, pid, "Q1", map[string]any{"hda_disk_image": disk, "ram": 64})
	iouNode(t, l, pid, "IOU1", travelIOU, nil)
}

// startAllRuns starts every node of pid and fails unless each runs, calls
// running (if any), then stops them all.
func startAllRuns(t *testing.T, l *Lab, pid string, running func()) {
	t.Helper()
	l.Do("POST", "/v2/projects/"+pid+"/open", nil).Want(t, 201)
	l.Do("POST", "/v2/projects/"+pid+"/nodes/start", nil).Want(t, 204)
	nodes := l.Do("GET", "/v2/projects/"+pid+"/nodes", nil).Want(t, 200).List(t)
	if len(nodes) != 3 {
		t.Errorf("%d nodes; want 3", len(nodes))
	}
	for _, n := range nodes {
		if n["status"] != "started" {
			t.Errorf("%s is %v after Start all", n["name"], n["status"])
		}
	}
	if running != nil {
		running()
	}
	l.Do("POST", "/v2/projects/"+pid+"/nodes/stop", nil).Want(t, 204)
}

// zipEntries reads an archive's entries by name.
func zipEntries(t *testing.T, archive []byte) map[string][]byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name], err = io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestTravel_ExportWithImagesRunsElsewhere: a lab of a c7200 that has run
// (its ghost RAM and other scratch files in the project's folder), a QEMU
// node whose disk is named by an absolute path (in a subfolder of
// nodedesk's QEMU folder) and an IOU node, exported
// with include_images=yes: the archive carries each image under
// images/<kind>/ and names it by file name, and no scratch file; with the
// project and every image gone, the archive imports, the images are back
// in nodedesk's folders, and every node runs.
func TestTravel_ExportWithImagesRunsElsewhere(t *testing.T) {
	l, outside := travelLab(t)
	data := filepath.Dir(l.Store.Path())
	disk := filepath.Join(data, "images", "QEMU", "mine", "travel-disk.qcow2")
	if err := os.MkdirAll(filepath.Dir(disk), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(outside, disk); err != nil {
		t.Fatal(err)
	}
	pid := l.MustCreateProject("travel")
	travelNodes(t, l, pid, disk)
	// No snapshot of running routers (their RAM files are being written),
	// as GNS3: 409, saying to stop them.
	startAllRuns(t, l, pid, func() {
		r := l.Do("POST", "/v2/projects/"+pid+"/snapshots", map[string]any{"name": "live"}).Want(t, 409).JSON(t)
		if msg, _ := r["message"].(string); !strings.Contains(msg, "must be stopped") || !strings.Contains(msg, "R1") {
			t.Errorf("a snapshot of running nodes is refused with %q; want it to say to stop them, naming them", msg)
		}
	})
	// Stopped, the snapshot holds no scratch file.
	snap := l.Do("POST", "/v2/projects/"+pid+"/snapshots", map[string]any{"name": "stopped"}).Want(t, 201).JSON(t)
	kept, _ := filepath.Glob(filepath.Join(data, "projects", pid, "snapshots", snap["snapshot_id"].(string), "project-files", "dynamips", "*.ghost"))
	if len(kept) > 0 {
		t.Errorf("the snapshot kept the ghost RAM %v", kept)
	}
	ghosts, _ := filepath.Glob(filepath.Join(data, "projects", pid, "project-files", "dynamips", "*.ghost"))
	if len(ghosts) == 0 {
		t.Fatal("R1 ran but left no ghost RAM file: the test proves nothing")
	}

	archive := l.Do("GET", "/v2/projects/"+pid+"/export?include_images=yes", nil).Want(t, 200).Body
	entries := zipEntries(t, archive)
	for _, want := range []string{"images/IOS/c7200-travel.image", "images/QEMU/travel-disk.qcow2", "images/IOU/" + travelIOU} {
		if _, ok := entries[want]; !ok {
			t.Errorf("the export has no %s", want)
		}
	}
	for name := range entries {
		base := filepath.Base(name)
		if strings.HasSuffix(base, ".ghost") || strings.HasPrefix(base, "ilt_") || strings.HasSuffix(base, "_lock") {
			t.Errorf("the export carries the scratch file %s", name)
		}
	}
	topo := string(entries["project.gns3"])
	if strings.Contains(topo, filepath.Dir(disk)) || strings.Contains(topo, data) || !strings.Contains(topo, `"hda_disk_image": "travel-disk.qcow2"`) {
		t.Errorf("project.gns3 names images by this machine's paths, not by file name:\n%s", topo)
	}
	without := zipEntries(t, l.Do("GET", "/v2/projects/"+pid+"/export", nil).Want(t, 200).Body)
	for name := range without {
		if strings.HasPrefix(name, "images/") {
			t.Errorf("an export without images carries %s", name)
		}
	}

	l.Do("DELETE", "/v2/projects/"+pid, nil).Want(t, 204)
	if err := os.RemoveAll(filepath.Join(data, "images")); err != nil {
		t.Fatal(err)
	}
	nid := uuid.NewString()
	l.Do("POST", "/v2/projects/"+nid+"/import", archive).Want(t, 201)
	for _, p := range []string{"IOS/c7200-travel.image", "QEMU/travel-disk.qcow2", "IOU/" + travelIOU} {
		if _, err := os.Stat(filepath.Join(data, "images", p)); err != nil {
			t.Errorf("the import did not put %s in the images folder: %v", p, err)
		}
	}
	startAllRuns(t, l, nid, nil)
}

// TestTravel_ForeignImagePaths: a project made on other machines names
// its images by their paths there (Windows and Linux); the import finds
// them here by file name, names them so, tells the user which file it
// uses, and every node runs.
func TestTravel_ForeignImagePaths(t *testing.T) {
	l, disk := travelLab(t)
	data := filepath.Dir(l.Store.Path())
	// The disk is in nodedesk's QEMU folder; the project names it by the
	// path it had on its author's machine.
	qemuDir := filepath.Join(data, "images", "QEMU")
	if err := os.MkdirAll(qemuDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(disk, filepath.Join(qemuDir, "travel-disk.qcow2")); err != nil {
		t.Fatal(err)
	}
	node := func(typ, name string, props map[string]any) map[string]any {
		return map[string]any{"node_id": uuid.NewString(), "node_type": typ, "name": name, "compute_id": "local",
			"console_type": "telnet", "properties": props}
	}
	topo, _ := json.Marshal(map[string]any{"name": "foreign", "project_id": uuid.NewString(), "revision": 9, "type": "topology",
		"version": "2.2.59", "auto_start": false, "auto_close": true, "auto_open": false,
		"topology": map[string]any{"computes": []any{}, "drawings": []any{}, "links": []any{}, "nodes": []any{
			node("dynamips", "R1", map[string]any{"platform": "c7200", "image": `C:\Users\x\GNS3\images\IOS\c7200-travel.image`, "idlepc": fakeIdlePC}),
			node("qemu", "Q1", map[string]any{"hda_disk_image": "/home/x/GNS3/images/QEMU/travel-disk.qcow2", "ram": 64}),
			node("iou", "IOU1", map[string]any{"path": `D:\labs\images\IOU\` + travelIOU}),
		}}})
	events, stop := l.Events.Subscribe(64)
	defer stop()
	pid := uuid.NewString()
	l.Do("POST", "/v2/projects/"+pid+"/import", kit.Zip(t, map[string][]byte{"project.gns3": topo})).Want(t, 201)
	want := map[string]string{"R1": "c7200-travel.image", "Q1": "travel-disk.qcow2", "IOU1": travelIOU}
	for _, n := range l.Do("GET", "/v2/projects/"+pid+"/nodes", nil).Want(t, 200).List(t) {
		props := n["properties"].(map[string]any)
		got := props["image"]
		if got == nil {
			got = props["hda_disk_image"]
		}
		if got == nil {
			got = props["path"]
		}
		if got != want[n["name"].(string)] {
			t.Errorf("%s names its image %v; want %s, found here by file name", n["name"], got, want[n["name"].(string)])
		}
	}
	told := map[string]bool{}
	for len(events) > 0 {
		e := <-events
		if m, ok := e.Payload.(*app.LogMessage); ok && e.Action == app.EventLogWarning && e.ProjectID == pid && strings.Contains(m.Message, "found by its file name") {
			for name := range want {
				if strings.HasPrefix(m.Message, name+": ") {
					told[name] = true
				}
			}
		}
	}
	for name := range want {
		if !told[name] {
			t.Errorf("the user was not told which file %s's image is", name)
		}
	}
	startAllRuns(t, l, pid, nil)
}

// TestTravel_ForeignPathAtStart: a node that names its disk by another
// machine's path, made before the disk was here, starts once the disk is
// in nodedesk's images folder: found by file name, and the user is told
// which file runs.
func TestTravel_ForeignPathAtStart(t *testing.T) {
	l, disk := travelLab(t)
	pid := l.MustCreateProject("late-disk")
	foreign := `C:\Users\x\GNS3\images\QEMU\travel-disk.qcow2`
	q := guestNode(t, l, pid, "Q1", map[string]any{"hda_disk_image": foreign, "ram": 64})
	if got := q["properties"].(map[string]any)["hda_disk_image"]; got != foreign {
		t.Fatalf("a disk not here yet is named %v; want %s, as given", got, foreign)
	}
	qemuDir := filepath.Join(filepath.Dir(l.Store.Path()), "images", "QEMU")
	if err := os.MkdirAll(qemuDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(disk, filepath.Join(qemuDir, "travel-disk.qcow2")); err != nil {
		t.Fatal(err)
	}
	events, stop := l.Events.Subscribe(64)
	defer stop()
	nodePath := "/v2/projects/" + pid + "/nodes/" + q["node_id"].(string)
	l.Do("POST", nodePath+"/start", nil).Want(t, 200)
	defer l.Do("POST", nodePath+"/stop", nil)
	told := false
	for len(events) > 0 {
		e := <-events
		if m, ok := e.Payload.(*app.LogMessage); ok && e.Action == app.EventLogWarning && strings.Contains(m.Message, "Q1") &&
			strings.Contains(m.Message, filepath.Join(qemuDir, "travel-disk.qcow2")) {
			told = true
		}
	}
	if !told {
		t.Error("the user was not told which file Q1's disk is")
	}
}

// TestTravel_OutsideDiskStaysHome: a user who names a QEMU disk by its
// path outside nodedesk's images folders keeps it: the node starts on it.
// But an export with its images carries no copy of it (the user is told),
// and nodedesk writes nothing beside it (no checksum file).
func TestTravel_OutsideDiskStaysHome(t *testing.T) {
	l, disk := travelLab(t)
	pid := l.MustCreateProject("outside")
	q := guestNode(t, l, pid, "Q1", map[string]any{"hda_disk_image": disk, "ram": 64})
	if got := q["properties"].(map[string]any)["hda_disk_image"]; got != disk {
		t.Fatalf("the disk is named %v; want %s, as the user gave it", got, disk)
	}
	nodePath := "/v2/projects/" + pid + "/nodes/" + q["node_id"].(string)
	l.Do("POST", nodePath+"/start", nil).Want(t, 200)
	l.Do("POST", nodePath+"/stop", nil).Want(t, 200)
	events, stop := l.Events.Subscribe(64)
	defer stop()
	entries := zipEntries(t, l.Do("GET", "/v2/projects/"+pid+"/export?include_images=yes", nil).Want(t, 200).Body)
	for name := range entries {
		if strings.HasPrefix(name, "images/") {
			t.Errorf("the export carries %s, a disk outside the images folders", name)
		}
	}
	told := false
	for len(events) > 0 {
		e := <-events
		if m, ok := e.Payload.(*app.LogMessage); ok && e.Action == app.EventLogWarning && strings.Contains(m.Message, "no copy") && strings.Contains(m.Message, "Q1") {
			told = true
		}
	}
	if !told {
		t.Error("the user was not told that the export carries no copy of Q1's disk")
	}
	es, err := os.ReadDir(filepath.Dir(disk))
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 {
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Errorf("the disk's folder holds %v; want only the disk", names)
	}
}
