package api

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// exportTopology reads an export's project.gns3: its nodes' image names
// (hda_disk_image) by node name.
func exportTopology(t *testing.T, entries map[string][]byte) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name, props := range nodeProperties(t, entries["project.gns3"]) {
		out[name], _ = props["hda_disk_image"].(string)
	}
	return out
}

// imageEntries lists an archive's entries under images/.
func imageEntries(entries map[string][]byte) []string {
	var out []string
	for name := range entries {
		if strings.HasPrefix(name, "images/") {
			out = append(out, name)
		}
	}
	return out
}

// TestProjectImport_OutsideImagePath: a project file (or a client) that
// names a file outside nodedesk's images folders by its absolute path
// (a private key) never gets it: the import names the image by its file
// name, looked for in the images folders; nothing is written beside the
// file; an export with its images carries no copy of it. A user who sets
// such a path on a node keeps it (the node starts on it), but it is not
// exported either.
func TestProjectImport_OutsideImagePath(t *testing.T) {
	ts, _, own, _ := imagesServer(t)
	home := t.TempDir()
	secret := filepath.Join(home, "id_rsa")
	mustWrite(t, secret, []byte("-----BEGIN OPENSSH PRIVATE KEY-----"))
	untouched := func(what string) {
		t.Helper()
		if got := entriesOf(t, home); !reflect.DeepEqual(got, []string{"id_rsa"}) {
			t.Errorf("%s: the folder of the outside file now holds %v; want only id_rsa", what, got)
		}
	}

	g := newGNS3Project("hostile", 9)
	g.node("7b6a4e34-2c7d-4b1e-9b35-0c7a0d5e1f01", "qemu", "Q1", 0, 0, map[string]any{"hda_disk_image": secret}, nil)
	// A path that starts in the images folder and leaves it.
	up := own + strings.Repeat("/..", strings.Count(own, "/")) + secret
	g.node("7b6a4e34-2c7d-4b1e-9b35-0c7a0d5e1f02", "qemu", "Q0", 0, 0, map[string]any{"hda_disk_image": up}, nil)
	pid := "7b6a4e34-2c7d-4b1e-9b35-0c7a0d5e1f00"
	ts.importArchive(pid, g.archive(t), "").Want(t, 201)
	for _, n := range ts.Do("GET", "/v2/projects/"+pid+"/nodes", nil).Want(t, 200).List(t) {
		props := n["properties"].(map[string]any)
		if props["hda_disk_image"] != "id_rsa" || props["hda_disk_image_md5sum"] != nil && props["hda_disk_image_md5sum"] != "" {
			t.Errorf("the imported node %s names %v (sum %v); want id_rsa, by file name, with no sum", n["name"], props["hda_disk_image"], props["hda_disk_image_md5sum"])
		}
	}
	untouched("import")
	if got := imageEntries(readZip(t, ts.Do("GET", "/v2/projects/"+pid+"/export?include_images=yes", nil).Want(t, 200).Body)); len(got) > 0 {
		t.Errorf("the imported project's export carries %v", got)
	}

	mine := ts.MustCreateProject("mine")
	n := ts.MustCreateNode(mine, map[string]any{"node_type": "qemu", "compute_id": "local", "name": "Q2", "properties": map[string]any{"hda_disk_image": secret}})
	if got := n["properties"].(map[string]any)["hda_disk_image"]; got != secret {
		t.Errorf("a path the user gives is kept as %v; want %s", got, secret)
	}
	untouched("create")
	entries := readZip(t, ts.Do("GET", "/v2/projects/"+mine+"/export?include_images=yes", nil).Want(t, 200).Body)
	if got := imageEntries(entries); len(got) > 0 {
		t.Errorf("the export carries %v, a file outside the images folders", got)
	}
	if got := exportTopology(t, entries)["Q2"]; got != "id_rsa" {
		t.Errorf("the export names Q2's disk %q; want id_rsa, by file name", got)
	}
	untouched("export")
}

// TestProjectExport_ImagesOfOneName: two nodes whose disks are different
// files of one file name (vyos/disk.qcow2, debian/disk.qcow2) export both,
// the second under a name of its own that its node names; a disk only a
// snapshot's node names is exported too.
func TestProjectExport_ImagesOfOneName(t *testing.T) {
	ts, _, own, _ := imagesServer(t)
	mustWrite(t, filepath.Join(own, "vyos", "disk.qcow2"), []byte("vyos disk"))
	mustWrite(t, filepath.Join(own, "debian", "disk.qcow2"), []byte("debian disk"))
	mustWrite(t, filepath.Join(own, "old.qcow2"), []byte("old disk"))
	pid := ts.MustCreateProject("same names")
	ts.MustCreateNode(pid, map[string]any{"node_type": "qemu", "compute_id": "local", "name": "A", "properties": map[string]any{"hda_disk_image": "vyos/disk.qcow2"}})
	ts.MustCreateNode(pid, map[string]any{"node_type": "qemu", "compute_id": "local", "name": "B", "properties": map[string]any{"hda_disk_image": "debian/disk.qcow2"}})
	ts.MustCreateNode(pid, map[string]any{"node_type": "qemu", "compute_id": "local", "name": "C", "properties": map[string]any{"hda_disk_image": "vyos/disk.qcow2"}})
	old := ts.MustCreateNode(pid, map[string]any{"node_type": "qemu", "compute_id": "local", "name": "Old", "properties": map[string]any{"hda_disk_image": "old.qcow2"}})
	ts.Do("POST", "/v2/projects/"+pid+"/snapshots", map[string]any{"name": "before"}).Want(t, 201)
	ts.Do("DELETE", "/v2/projects/"+pid+"/nodes/"+old["node_id"].(string), nil).Want(t, 204)

	entries := readZip(t, ts.Do("GET", "/v2/projects/"+pid+"/export?include_images=yes&include_snapshots=yes", nil).Want(t, 200).Body)
	content := map[string]string{"A": "vyos disk", "B": "debian disk", "C": "vyos disk"}
	names := exportTopology(t, entries)
	for node, want := range content {
		got, ok := entries["images/QEMU/"+names[node]]
		if !ok || string(got) != want {
			t.Errorf("node %s names images/QEMU/%s, which holds %q (there: %v); want %q", node, names[node], got, ok, want)
		}
	}
	if names["A"] == names["B"] {
		t.Errorf("A and B name one image %s for two different disks", names["A"])
	}
	if got := len(imageEntries(entries)); got != 3 {
		t.Errorf("the export carries %d images %v; want 3 (two disk.qcow2 and the snapshot's old.qcow2)", got, imageEntries(entries))
	}
	if string(entries["images/QEMU/old.qcow2"]) != "old disk" {
		t.Errorf("the disk only the snapshot's node names is not exported")
	}
}
