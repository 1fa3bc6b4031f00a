package api

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// bombStream is a deflate stream of 1000 MiB of zeros in about 1 MB: one
// MiB compressed and flushed to a byte boundary, repeated, then an empty
// final block. Each repetition decodes on its own, so the stream is valid.
func bombStream(t testing.TB) []byte {
	t.Helper()
	var chunk bytes.Buffer
	w, err := flate.NewWriter(&chunk, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	out := bytes.Repeat(chunk.Bytes(), 1000)
	return append(out, 3, 0) // a final, empty, fixed-Huffman block
}

// rawZip is an archive with project.gns3 and one entry written raw: its
// compressed bytes and header sizes as given, true or not.
func rawZip(t testing.TB, topology []byte, name string, method uint16, compressed []byte, size uint64) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, err := zw.Create("project.gns3")
	if err == nil {
		_, err = w.Write(topology)
	}
	if err != nil {
		t.Fatal(err)
	}
	w, err = zw.CreateRaw(&zip.FileHeader{Name: name, Method: method, CompressedSize64: uint64(len(compressed)), UncompressedSize64: size})
	if err == nil {
		_, err = w.Write(compressed)
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// lyingSize is an archive whose second entry's central directory says it
// holds 10 bytes, while its data holds 64 KiB.
func lyingSize(t testing.TB, topology []byte) []byte {
	t.Helper()
	b := makeZip(t, zipEntry{name: "project.gns3", body: topology}, zipEntry{name: "README.txt", body: bytes.Repeat([]byte("x"), 64<<10)})
	i := bytes.LastIndex(b, []byte("PK\x01\x02")) // README.txt's central directory header
	if i < 0 || !bytes.Contains(b[i:], []byte("README.txt")) {
		t.Fatal("no central directory entry")
	}
	binary.LittleEndian.PutUint32(b[i+24:], 10) // uncompressed size
	return b
}

// TestProjectImportHostile: archives built to write outside the project's
// folder, to exhaust the disk or memory, or to lie, answer 400 with a JSON
// error saying why; nothing is written anywhere and no project is made.
func TestProjectImportHostile(t *testing.T) {
	ts := mustOpenServer(t)
	g := newGNS3Project("hostile", 9)
	g.node(uuidN("00000004", 1), "vpcs", "PC1", 0, 0, map[string]any{}, nil)
	topology := g.json(t)
	valid := zipEntry{name: "project.gns3", body: topology}
	entries := []zipEntry{valid}
	for i := range 10_000 {
		entries = append(entries, zipEntry{name: fmt.Sprintf("f%d", i), method: zip.Store})
	}
	many := makeZip(t, entries...)
	parent := filepath.Dir(ts.dataDir())
	for i, c := range []struct {
		name    string
		body    []byte
		wantMsg string
	}{
		{"../evil", makeZip(t, valid, zipEntry{name: "../evil", body: []byte("x")}), "leaves the project's folder"},
		{"../../ deep", makeZip(t, valid, zipEntry{name: "../../../../../../tmp/evil", body: []byte("x")}), "leaves the project's folder"},
		{"/abs", makeZip(t, valid, zipEntry{name: "/tmp/evil", body: []byte("x")}), "absolute"},
		{"a/../../b", makeZip(t, valid, zipEntry{name: "a/../../evil", body: []byte("x")}), "leaves the project's folder"},
		{`..\evil`, makeZip(t, valid, zipEntry{name: `..\evil`, body: []byte("x")}), "leaves the project's folder"},
		{`project-files\..\..\evil`, makeZip(t, valid, zipEntry{name: `project-files\..\..\evil`, body: []byte("x")}), "leaves the project's folder"},
		{"images/../../evil", makeZip(t, valid, zipEntry{name: "images/../../evil", body: []byte("x")}), "leaves the project's folder"},
		{"symlink entry", makeZip(t, valid, zipEntry{name: "link", body: []byte("/etc/passwd"), mode: fs.ModeSymlink | 0o777}), "symbolic link"},
		{"symlink then a file through it", makeZip(t, valid, zipEntry{name: "d", body: []byte(parent), mode: fs.ModeSymlink | 0o777}, zipEntry{name: "d/evil", body: []byte("x")}), "symbolic link"},
		{"a device", makeZip(t, valid, zipEntry{name: "dev", mode: fs.ModeDevice | 0o644}), "not a file"},
		{"10k entries", many, "entries"},
		{"lying header size", lyingSize(t, topology), "damaged"},
		{"truncated data", rawZip(t, topology, "README.txt", zip.Deflate, bombStream(t)[:4096], 1<<20), "damaged"},
		{"bzip2", rawZip(t, topology, "README.txt", 12, []byte("BZh9"), 4), "compression zip or none"},
		{"duplicate names", makeZip(t, valid, zipEntry{name: "README.txt"}, zipEntry{name: "README.txt"}), "twice"},
		{"duplicate after cleaning", makeZip(t, valid, zipEntry{name: "a/b"}, zipEntry{name: "a//b"}), "twice"},
		{"two project.gns3", makeZip(t, valid, valid), "twice"},
		{"a file where a folder is", makeZip(t, valid, zipEntry{name: "a"}, zipEntry{name: "a/b"}), "a/b"},
		{"a name too long for the disk", makeZip(t, valid, zipEntry{name: strings.Repeat("n", 300), body: []byte("x")}), "too long"},
		{"no project.gns3", makeZip(t, zipEntry{name: "README.txt", body: []byte("x")}), "no project.gns3"},
		{"invalid zip", []byte("PK\x03\x04 this is not a zip at all"), "invalid zip"},
		{"a zip that is not a project", makeZip(t, zipEntry{name: "project.gns3", body: []byte("MZ\x90\x00")}), "not valid JSON"},
	} {
		t.Run(c.name, func(t *testing.T) {
			mustWrite(t, filepath.Join(ts.dataDir(), "projects", ".keep"), nil)
			before, beforeParent := tree(t, ts.dataDir()), entriesOf(t, parent)
			projects := len(ts.Do("GET", "/v2/projects", nil).List(t))
			r := ts.importArchive(uuidN("00000011", i), c.body, "").Want(t, 400).JSON(t)
			t.Log(r["message"])
			if msg := r["message"].(string); !strings.Contains(msg, c.wantMsg) {
				t.Errorf("message %q, want it to say %q", msg, c.wantMsg)
			}
			if after := tree(t, ts.dataDir()); !reflect.DeepEqual(after, before) {
				t.Errorf("the data folder changed:\nbefore %v\nafter  %v", before, after)
			}
			if after := entriesOf(t, parent); !reflect.DeepEqual(after, beforeParent) {
				t.Errorf("the data folder's parent changed:\nbefore %v\nafter  %v", beforeParent, after)
			}
			for _, p := range []string{filepath.Join(parent, "evil"), "/tmp/evil"} {
				if _, err := os.Lstat(p); err == nil {
					t.Errorf("%s was written", p)
				}
			}
			if n := len(ts.Do("GET", "/v2/projects", nil).List(t)); n != projects {
				t.Errorf("%d projects, want %d", n, projects)
			}
		})
	}
	// Hidden names are a node's own state (or macOS's): left out, not refused.
	ok := makeZip(t, valid, zipEntry{name: ".DS_Store", body: []byte("x")}, zipEntry{name: "project-files/vpcs/x/.vpcs_history", body: []byte("x")}, zipEntry{name: "kept.txt", body: []byte("k")})
	pid := uuidN("00000012", 1)
	ts.importArchive(pid, ok, "").Want(t, 201)
	if got := tree(t, filepath.Join(ts.dataDir(), "projects", pid)); !reflect.DeepEqual(got, []string{"./", "kept.txt"}) {
		t.Errorf("project folder %v", got)
	}
}

// entriesOf lists the names in a folder (not below it).
func entriesOf(t testing.TB, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// TestProjectImportNoise feeds the import random bytes and damaged
// archives: never a 5xx or a crash, always a JSON error, nothing left
// behind.
func TestProjectImportNoise(t *testing.T) {
	ts := mustOpenServer(t)
	valid := labFile(9).archive(t)
	r := rand.New(rand.NewPCG(13, 13))
	mustWrite(t, filepath.Join(ts.dataDir(), "projects", ".keep"), nil)
	before := tree(t, ts.dataDir())
	created := 0
	for i := range 300 {
		var body []byte
		switch i % 3 {
		case 0: // noise
			body = make([]byte, r.IntN(4096))
			for j := range body {
				body[j] = byte(r.Uint32())
			}
			if r.IntN(2) == 0 && len(body) > 2 {
				copy(body, "PK")
			}
		case 1: // a valid archive with bytes flipped
			body = bytes.Clone(valid)
			for range 1 + r.IntN(8) {
				body[r.IntN(len(body))] ^= byte(1 + r.IntN(255))
			}
		default: // a valid archive cut short
			body = valid[:r.IntN(len(valid))]
		}
		res := ts.importArchive(uuidN("00000013", i), body, "")
		switch {
		case res.Status == 201:
			created++ // a flip in a file's content, say
			ts.Do("DELETE", "/v2/projects/"+uuidN("00000013", i), nil).Want(t, 204)
			_ = os.RemoveAll(filepath.Join(ts.dataDir(), "projects", uuidN("00000013", i)))
		case res.Status != 400 && res.Status != 409:
			t.Fatalf("body %d: %d %s", i, res.Status, res.Body)
		}
	}
	if after := tree(t, ts.dataDir()); !reflect.DeepEqual(after, before) {
		t.Errorf("the data folder changed:\nbefore %v\nafter  %v", before, after)
	}
	t.Logf("%d of 300 damaged bodies still imported", created)
}
