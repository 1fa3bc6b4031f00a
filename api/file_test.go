package api

import (
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestNodeFiles reads and writes node files as the GNS3 desktop GUI's
// "Edit config" does: a VPCS node's startup.vpc is its startup_script, in
// both directions; other files live in the node's folder, and no path
// leaves it.
func TestNodeFiles(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.mustCreateProject("files")
	pc := ts.mustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": "PC1"})
	nodePath := "/v2/projects/" + pid + "/nodes/" + pc["node_id"].(string)
	files := nodePath + "/files/"
	next, _ := ts.wsListen(t, "/v2/projects/"+pid+"/notifications/ws")

	// A VPCS without a script has no startup.vpc (the GUI then shows its default).
	ts.do("GET", files+"startup.vpc", nil).want(t, 404)

	// Writing startup.vpc sets startup_script, announced as a node update.
	script := "set pcname PC1\nip 10.0.0.1/24 10.0.0.254\n"
	hdr := http.Header{"Content-Type": {"application/octet-stream"}}
	if r := ts.doWith("POST", files+"startup.vpc", script, hdr).want(t, 201); len(r.body) != 0 {
		t.Errorf("201 with a body: %q", r.body)
	}
	if p := ts.do("GET", nodePath, nil).want(t, 200).json(t)["properties"].(map[string]any); p["startup_script"] != script || p["startup_script_path"] != "startup.vpc" {
		t.Errorf("properties after writing startup.vpc: %v", p)
	}
	if e := next(); e.Action != "node.updated" || e.Event["properties"].(map[string]any)["startup_script"] != script {
		t.Errorf("event %v, want node.updated with the script", e)
	}
	r := ts.do("GET", files+"startup.vpc", nil).want(t, 200)
	if string(r.body) != script || r.header.Get("Content-Type") != "application/octet-stream" {
		t.Errorf("startup.vpc = %q (%s), want %q", r.body, r.header.Get("Content-Type"), script)
	}
	// And setting startup_script is writing startup.vpc.
	ts.do("PUT", nodePath, map[string]any{"properties": map[string]any{"startup_script": "ip dhcp"}}).want(t, 200)
	if r := ts.do("GET", files+"startup.vpc", nil).want(t, 200); string(r.body) != "ip dhcp" {
		t.Errorf("startup.vpc after a PUT = %q, want ip dhcp", r.body)
	}
	compute := "/v2/compute/projects/" + pid + "/vpcs/nodes/" + pc["node_id"].(string)
	ts.do("PUT", compute, map[string]any{"startup_script": "ip 192.168.1.2/24"}).want(t, 200)
	if r := ts.do("GET", files+"startup.vpc", nil).want(t, 200); string(r.body) != "ip 192.168.1.2/24" {
		t.Errorf("startup.vpc after a compute PUT = %q", r.body)
	}
	ts.do("POST", files+"startup.vpc", "\xff\xfe not text").want(t, 400)

	// Other files live in the node's folder.
	dir := pc["node_directory"].(string)
	ts.do("POST", files+"notes/readme.txt", "hello\x00bytes").want(t, 201)
	if b, err := os.ReadFile(filepath.Join(dir, "notes", "readme.txt")); err != nil || string(b) != "hello\x00bytes" {
		t.Errorf("file on disk %q, %v", b, err)
	}
	if r := ts.do("GET", files+"notes/readme.txt", nil).want(t, 200); string(r.body) != "hello\x00bytes" {
		t.Errorf("read back %q", r.body)
	}
	ts.do("GET", files+"notes/missing.txt", nil).want(t, 404)
	ts.do("GET", files+"notes", nil).want(t, 400) // a folder

	// Nothing leaves the folder.
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		method, path string
		want         int
	}{
		{"GET", `..%5C..%5C..%5Cnodedesk.db`, 403}, // ..\..\..\nodedesk.db
		{"POST", `..%5Cescaped`, 403},
		{"GET", `%5Cetc%5Cpasswd`, 403}, // \etc\passwd: absolute
		{"GET", ".vpcs_history", 403},
		{"POST", "notes/.hidden", 403},
		{"GET", "out/secret", 403},
		{"POST", "out/planted", 403},
		{"GET", "link", 403},
		{"POST", "link", 403},
	} {
		r := ts.do(c.method, files+c.path, "x").want(t, c.want).json(t)
		if !strings.Contains(r["message"].(string), "folder") && !strings.Contains(r["message"].(string), "hidden") {
			t.Errorf("%s %s: %v", c.method, c.path, r["message"])
		}
	}
	// A .. in the URL itself never reaches a file: the router answers for
	// the cleaned path.
	if r := ts.do("GET", files+"../../../../nodedesk.db", nil); r.status == 200 {
		t.Errorf("GET through .. answered 200: %q", r.body)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret")); string(b) != "secret" {
		t.Errorf("the file outside was changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(outside, "planted")); err == nil {
		t.Error("a file was planted outside the node's folder")
	}

	// The body is bounded.
	big := strings.Repeat("x", 1<<20+1)
	ts.do("POST", files+"big.txt", big).want(t, 400)
	ts.do("POST", files+"startup.vpc", big).want(t, 400)
	ts.do("POST", files+"fits.txt", big[1:]).want(t, 201)

	// Nodes that keep no files, and missing ones.
	sw := ts.mustCreateNode(pid, map[string]any{"node_type": "ethernet_switch"})
	swFiles := "/v2/projects/" + pid + "/nodes/" + sw["node_id"].(string) + "/files/"
	ts.do("GET", swFiles+"startup.vpc", nil).want(t, 404)
	ts.do("POST", swFiles+"config.txt", "x").want(t, 409)
	ts.do("GET", "/v2/projects/"+pid+"/nodes/5e9f3c1a-0000-4000-8000-000000000000/files/startup.vpc", nil).want(t, 404)
	ts.do("POST", "/v2/projects/"+pid+"/nodes/5e9f3c1a-0000-4000-8000-000000000000/files/startup.vpc", "x").want(t, 404)
	ts.do("GET", "/v2/projects/5e9f3c1a-0000-4000-8000-000000000000/nodes/"+pc["node_id"].(string)+"/files/startup.vpc", nil).want(t, 404)
	ts.do("GET", "/v2/projects/"+pid+"/nodes/nope/files/startup.vpc", nil).want(t, 400)
}

// TestProjectFiles reads and writes files of a project's folder: raw
// bytes, folders made on the way, VPCS scripts as the node's
// startup_script, and nothing outside the folder.
func TestProjectFiles(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.mustCreateProject("files")
	pc := ts.mustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": "PC1"})
	files := "/v2/projects/" + pid + "/files/"
	ts.do("GET", files+"README.txt", nil).want(t, 404)
	if r := ts.do("POST", files+"README.txt", "hello\x00there").want(t, 201); len(r.body) != 0 {
		t.Errorf("201 with a body %q", r.body)
	}
	if r := ts.do("GET", files+"README.txt", nil).want(t, 200); string(r.body) != "hello\x00there" || r.header.Get("Content-Type") != "application/octet-stream" {
		t.Errorf("README %q %s", r.body, r.header.Get("Content-Type"))
	}
	ts.do("POST", files+"notes/a/b.txt", "deep").want(t, 201)
	if r := ts.do("GET", files+"notes/a/b.txt", nil).want(t, 200); string(r.body) != "deep" {
		t.Errorf("deep %q", r.body)
	}
	ts.do("GET", files+"notes", nil).want(t, 400) // a folder
	script := files + "project-files/vpcs/" + pc["node_id"].(string) + "/startup.vpc"
	ts.do("POST", script, "ip 10.1.1.1/24").want(t, 201)
	if p := ts.do("GET", "/v2/projects/"+pid+"/nodes/"+pc["node_id"].(string), nil).want(t, 200).json(t)["properties"].(map[string]any); p["startup_script"] != "ip 10.1.1.1/24" {
		t.Errorf("startup_script %v", p["startup_script"])
	}
	if r := ts.do("GET", script, nil).want(t, 200); string(r.body) != "ip 10.1.1.1/24" {
		t.Errorf("script %q", r.body)
	}
	outside := tree(t, ts.dataDir())
	for _, c := range []struct {
		method, path string
		want         int
	}{
		{"GET", `..%5Cx`, 403},
		{"POST", `..%5Cx`, 403},
		{"GET", `a%5C..%5C..%5Cnodedesk.db`, 403},
		{"POST", `%5Cabs`, 403},
		{"GET", ".hidden", 403},
		{"POST", "a/.hidden", 403},
	} {
		r := ts.do(c.method, files+c.path, "x").want(t, c.want).json(t)
		if !strings.Contains(r["message"].(string), "project's folder") && !strings.Contains(r["message"].(string), "hidden") {
			t.Errorf("%s %s: %v", c.method, c.path, r["message"])
		}
	}
	if r := ts.do("GET", files+"../nodedesk.db", nil); r.status == 200 {
		t.Errorf("GET through .. answered 200")
	}
	if after := tree(t, ts.dataDir()); !reflect.DeepEqual(after, outside) {
		t.Errorf("refused writes changed the data folder:\n%v\n%v", outside, after)
	}
	ts.do("POST", files+"big.bin", strings.Repeat("x", 1<<20+1)).want(t, 400)
	ts.do("GET", "/v2/projects/"+uuidN("0000000f", 1)+"/files/README.txt", nil).want(t, 404)
	ts.do("POST", "/v2/projects/"+uuidN("0000000f", 1)+"/files/README.txt", "x").want(t, 404)
}

// dataDir is the folder of the store, which holds the projects' folders.
func (ts *testServer) dataDir() string { return filepath.Dir(ts.dbPath) }

func mustWrite(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// tree lists every file and folder under dir (relative paths, folders
// ending in /), for a before/after comparison.
func tree(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// uuidN is a fixed UUID numbered n, for files written by tests.
func uuidN(prefix string, n int) string {
	return fmt.Sprintf("%s-0000-4000-8000-%012d", prefix, n)
}
