package gns3file

import (
	"archive/zip"
	"bytes"
	"testing"

	"nodedesk/app"
)

func TestSkipped(t *testing.T) {
	for give, want := range map[string]bool{
		"images/QEMU/linux.qcow2": false, "snapshots/a.gns3project": true, "other.gns3": true,
		"project-files/x.gns3": false, "images/../evil": false, `images\..\..\evil`: false, "README.txt": false,
		// What an export leaves out: logs, a router's scratch files.
		"project-files/dynamips/c7200.image-512.ghost": true, "project-files/dynamips/x/c7200_i1_log.txt": true,
		"project-files/dynamips/x/c7200_i1_nvram": false,
	} {
		if got := skipped(give); got != want {
			t.Errorf("skipped(%q) = %v, want %v", give, got, want)
		}
	}
}

// FuzzDecode: whatever a .gns3 holds, Decode does not panic and fails only
// with an EINVALID or ECONFLICT *app.Error.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"type":"topology","revision":9,"name":"p","project_id":"7b6a4e34-2c7d-4b1e-9b35-0c7a0d5e1a01","topology":{"nodes":[{"node_id":"7b6a4e34-2c7d-4b1e-9b35-0c7a0d5e1a02","node_type":"vpcs","name":"PC1","properties":{"startup_script":"ip dhcp"}}],"links":[],"drawings":[{"svg":"<svg/>"}]}}`,
		`{"type":"topology","revision":7,"name":"p","grid_size":10,"topology":{"nodes":[{"node_type":"qemu","properties":{"acpi_shutdown":true}}]}}`,
		`{"type":"topology","revision":10}`,
		"\xef\xbb\xbf{}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if _, err := Decode(raw, Options{}); err != nil {
			if c := app.ErrorCode(err); c != app.EINVALID && c != app.ECONFLICT {
				t.Fatalf("%q: %v", raw, err)
			}
		}
	})
}

// FuzzReadArchive: whatever an archive holds, reading it does not panic,
// and reading its files stays within the limits.
func FuzzReadArchive(f *testing.F) {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, _ := zw.Create(TopologyFile)
	w.Write([]byte(`{"type":"topology","revision":9,"name":"p","topology":{"nodes":[],"links":[],"drawings":[]}}`))
	w, _ = zw.Create("README.txt")
	w.Write(bytes.Repeat([]byte("x"), 3000))
	zw.Close()
	f.Add(b.Bytes())
	f.Add([]byte("PK\x03\x04"))
	lim := Limits{FileBytes: 2048, TotalBytes: 4096}
	f.Fuzz(func(t *testing.T, raw []byte) {
		imp, err := ReadArchive(bytes.NewReader(raw), int64(len(raw)), Options{Limits: lim})
		if err != nil {
			return
		}
		var total int64
		for _, file := range imp.Files {
			if file.Dir {
				continue
			}
			rc, err := file.Open()
			if err != nil {
				continue
			}
			n, _ := bytes.NewBuffer(nil).ReadFrom(rc)
			rc.Close()
			total += n
			if n > lim.FileBytes+64<<10 {
				t.Fatalf("%s gave %d bytes, past its limit", file.Path, n)
			}
		}
		if total > lim.TotalBytes+64<<10 {
			t.Fatalf("%d bytes in all, past the limit", total)
		}
	})
}
