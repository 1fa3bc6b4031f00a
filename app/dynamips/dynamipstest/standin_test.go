package dynamipstest

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Each router's image name, a bare file name or a Windows path, gets the
// stand-in image of the router's platform; other nodes are left alone.
func TestPlaceStandInIOS(t *testing.T) {
	topo := []byte(`{"topology": {"nodes": [
		{"name": "R1", "node_type": "dynamips", "properties": {"platform": "c3725", "image": "c3725-adventerprisek9-mz.124-15.T14.bin"}},
		{"name": "PC1", "node_type": "vpcs", "properties": {}},
		{"name": "Q1", "node_type": "qemu", "properties": {"platform": "x86_64", "hda_disk_image": "alpine.qcow2"}},
		{"name": "D1", "node_type": "docker", "properties": {"image": "alpine:latest"}},
		{"name": "R2", "node_type": "dynamips", "properties": {"platform": "c7200", "image": "C:\\Users\\me\\GNS3\\images\\IOS\\c7200-adventerprisek9-mz.124-24.T5.image"}}]}}`)
	src := t.TempDir()
	standIn := func(_ testing.TB, platform string) string {
		p := filepath.Join(src, platform)
		writeFile(t, p, "stand-in "+platform)
		return p
	}
	dir := filepath.Join(t.TempDir(), "IOS")
	got := PlaceStandInIOS(t, topo, dir, standIn)
	want := []Router{{"R1", "c3725", "c3725-adventerprisek9-mz.124-15.T14.bin"},
		{"R2", "c7200", `C:\Users\me\GNS3\images\IOS\c7200-adventerprisek9-mz.124-24.T5.image`}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("routers %v; want %v", got, want)
	}
	for name, content := range map[string]string{"c3725-adventerprisek9-mz.124-15.T14.bin": "stand-in c3725",
		"c7200-adventerprisek9-mz.124-24.T5.image": "stand-in c7200"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != content {
			t.Errorf("%s holds %q (%v); want %q", name, b, err, content)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("the folder holds %d files; want the 2 images", len(entries))
	}
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
