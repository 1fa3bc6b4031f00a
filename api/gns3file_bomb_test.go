package api

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"crypto/md5"
	"encoding/hex"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"syscall"
	"testing"
)

// zeros deflated: n zero bytes as deflate compresses them (about 1000:1,
// as a QEMU disk of zeros does), with their CRC.
func zerosDeflated(t testing.TB, n int64) ([]byte, uint32) {
	t.Helper()
	var b bytes.Buffer
	fw, err := flate.NewWriter(&b, flate.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	crc := crc32.NewIEEE()
	buf := make([]byte, 1<<20)
	for left := n; left > 0; left -= int64(len(buf)) {
		chunk := buf[:min(int64(len(buf)), left)]
		fw.Write(chunk)
		crc.Write(chunk)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), crc.Sum32()
}

// rawArchive is a zip of project.gns3 and entries written raw: their
// compressed bytes with the sizes their headers state (which a bomb may
// lie about).
type rawEntry struct {
	name   string
	data   []byte
	crc    uint32
	stated uint64
}

func rawArchive(t testing.TB, topology []byte, entries []rawEntry) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, _ := zw.Create("project.gns3")
	w.Write(topology)
	for _, e := range entries {
		w, err := zw.CreateRaw(&zip.FileHeader{Name: e.name, Method: zip.Deflate, CRC32: e.crc,
			CompressedSize64: uint64(len(e.data)), UncompressedSize64: e.stated})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(e.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestProjectImport_Bombs: archives built to exhaust the disk or the
// process are refused whole with a 400 that says why, and nothing is
// written; an archive carrying a QEMU disk larger than the old 512 MiB
// bound in all imports, its image in the images folder.
func TestProjectImport_Bombs(t *testing.T) {
	ts := mustOpenServer(t)
	topo := newGNS3Project("bomb", 9).json(t)
	const mb = 1 << 20
	blob, crc := zerosDeflated(t, 64*mb)
	var st syscall.Statfs_t
	if err := syscall.Statfs(ts.dataDir(), &st); err != nil {
		t.Fatal(err)
	}
	free := uint64(st.Bavail) * uint64(st.Bsize)
	// Entries stating, in all, more than the disk has free: each points
	// at the same 64 MiB of zeros.
	var overDisk []rawEntry
	for i, left := 0, free+(1<<30); left > 0; i++ {
		n := min(left, 60<<30)
		overDisk = append(overDisk, rawEntry{name: "images/QEMU/d" + strconv.Itoa(i) + ".img", data: blob, crc: crc, stated: n})
		left -= n
	}
	many := make([]rawEntry, 10001)
	for i := range many {
		many[i] = rawEntry{name: "f" + strconv.Itoa(i), data: []byte{3, 0}, crc: 0, stated: 0}
	}
	for _, c := range []struct {
		name    string
		archive []byte
		code    int // a full disk is a conflict, as everywhere else
		want    []string
	}{
		{"more than the disk holds", rawArchive(t, topo, overDisk), 409, []string{"once unpacked", "free some space"}},
		{"headers that lie", rawArchive(t, topo, []rawEntry{{name: "project-files/qemu/x/hda_disk.qcow2", data: blob, crc: crc, stated: mb}}), 400, []string{"hda_disk.qcow2", "damaged"}},
		{"too many entries", rawArchive(t, topo, many), 400, []string{"10002 entries", "at most 10000"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			mustWrite(t, filepath.Join(ts.dataDir(), "projects", ".keep"), nil)
			before := tree(t, ts.dataDir())
			r := ts.importArchive("7b6a4e34-2c7d-4b1e-9b35-0c7a0d5e1b0"+strconv.Itoa(len(c.name)%10), c.archive, "").Want(t, c.code).JSON(t)
			if msg, _ := r["message"].(string); !containsAll(msg, c.want...) {
				t.Errorf("message %q; want it to say %q", msg, c.want)
			}
			if after := tree(t, ts.dataDir()); !reflect.DeepEqual(after, before) {
				t.Errorf("the data folder changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}

	t.Run("a real lab's images", func(t *testing.T) {
		size := int64(600 * mb) // more than the former bound of 512 MiB in all
		if s := os.Getenv("NODEDESK_IMPORT_IMAGE_MB"); s != "" {
			n, _ := strconv.Atoi(s)
			size = int64(n) * mb
		}
		disk, crc := zerosDeflated(t, size)
		g := newGNS3Project("big-images", 9)
		g.node("7b6a4e34-2c7d-4b1e-9b35-0c7a0d5e1c01", "qemu", "Q1", 0, 0, map[string]any{"hda_disk_image": "big.img"}, nil)
		archive := rawArchive(t, g.json(t), []rawEntry{{name: "images/QEMU/big.img", data: disk, crc: crc, stated: uint64(size)}})
		ts.importArchive("7b6a4e34-2c7d-4b1e-9b35-0c7a0d5e1c00", archive, "").Want(t, 201)
		f, err := os.Open(filepath.Join(ts.dataDir(), "images", "QEMU", "big.img"))
		if err != nil {
			t.Fatalf("the image is not in the images folder: %v", err)
		}
		defer f.Close()
		h := md5.New()
		n, _ := io.Copy(h, f)
		z := md5.New()
		io.Copy(z, io.LimitReader(zeroReader{}, size))
		if n != size || hex.EncodeToString(h.Sum(nil)) != hex.EncodeToString(z.Sum(nil)) {
			t.Errorf("the imported image has %d bytes, or other bytes than the archive's %d zeros", n, size)
		}
	})
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestProjectImport_Images: an archive's images go into nodedesk's images
// folder; one the folder has already (same MD5) is not written again;
// one whose name a different image of the user's has is stored beside it,
// the user's left as it was, and the import's node uses the project's,
// on a second import of the project too.
func TestProjectImport_Images(t *testing.T) {
	ts := mustOpenServer(t)
	dir := filepath.Join(ts.dataDir(), "images", "QEMU")
	mine := []byte("the user's own disk")
	mustWrite(t, filepath.Join(dir, "disk.img"), mine)
	sum := func(b []byte) string { h := md5.Sum(b); return hex.EncodeToString(h[:]) }
	lab := func(id string, disk []byte) []byte {
		g := newGNS3Project("with-images", 9)
		g.node(id, "qemu", "Q1", 0, 0, map[string]any{"hda_disk_image": "disk.img"}, nil)
		g.files["images/QEMU/disk.img"] = string(disk)
		g.files["images/QEMU/new.img"] = "a new disk"
		return g.archive(t)
	}
	diskOf := func(pid string) string {
		nodes := ts.Do("GET", "/v2/projects/"+pid+"/nodes", nil).Want(t, 200).List(t)
		return nodes[0]["properties"].(map[string]any)["hda_disk_image"].(string)
	}

	same := "7b6a4e34-2c7d-4b1e-9b35-0c7a0d5e1d00"
	ts.importArchive(same, lab("7b6a4e34-2c7d-4b1e-9b35-0c7a0d5e1d01", mine), "").Want(t, 201)
	if got := diskOf(same); got != "disk.img" {
		t.Errorf("the same image: the node names %s; want disk.img", got)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "new.img")); err != nil || string(b) != "a new disk" {
		t.Errorf("a new image was not put in the images folder: %q, %v", b, err)
	}

	theirs := []byte("the project's own disk, another one")
	other := "7b6a4e34-2c7d-4b1e-9b35-0c7a0d5e1e00"
	ts.importArchive(other, lab("7b6a4e34-2c7d-4b1e-9b35-0c7a0d5e1e01", theirs), "").Want(t, 201)
	if b, _ := os.ReadFile(filepath.Join(dir, "disk.img")); string(b) != string(mine) {
		t.Errorf("the user's disk.img was replaced by the project's: %q", b)
	}
	want := "disk-" + sum(theirs)[:8] + ".img"
	if got := diskOf(other); got != want {
		t.Errorf("a different image: the node names %s; want %s, the project's copy", got, want)
	}
	if b, err := os.ReadFile(filepath.Join(dir, want)); err != nil || string(b) != string(theirs) {
		t.Errorf("the project's image is not kept as %s: %q, %v", want, b, err)
	}
	// The same project again: its copy is there already, and its node
	// uses it, not the user's image of that name.
	again := "7b6a4e34-2c7d-4b1e-9b35-0c7a0d5e1e10"
	ts.importArchive(again, lab("7b6a4e34-2c7d-4b1e-9b35-0c7a0d5e1e11", theirs), "").Want(t, 201)
	if got := diskOf(again); got != want {
		t.Errorf("imported a second time, the node names %s; want %s, the project's copy", got, want)
	}
}
