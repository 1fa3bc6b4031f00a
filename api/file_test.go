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
	pid := ts.MustCreateProject("files")
	pc := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": "PC1"})
	nodePath := "/v2/projects/" + pid + "/nodes/" + pc["node_id"].(string)
	files := nodePath + "/files/"
	next, _ := ts.WSListen(t, "/v2/projects/"+pid+"/notifications/ws")

	// A VPCS without a script has no startup.vpc (the GUI then shows its default).
	ts.Do("GET", files+"startup.vpc", nil).Want(t, 404)

	// Writing startup.vpc sets startup_script, announced as a node update.
	script := "set pcname PC1\nip 10.0.0.1/24 10.0.0.254\n"
	hdr := http.Header{"Content-Type": {"application/octet-stream"}}
	if r := ts.DoWith("POST", files+"startup.vpc", script, hdr).Want(t, 201); len(r.Body) != 0 {
		t.Errorf("201 with a body: %q", r.Body)
	}
	if p := ts.Do("GET", nodePath, nil).Want(t, 200).JSON(t)["properties"].(map[string]any); p["startup_script"] != script || p["startup_script_path"] != "startup.vpc" {
		t.Errorf("properties after writing startup.vpc: %v", p)
	}
	if e := next(); e.Action != "node.updated" || e.Event["properties"].(map[string]any)["startup_script"] != script {
		t.Errorf("event %v, want node.updated with the script", e)
	}
	r := ts.Do("GET", files+"startup.vpc", nil).Want(t, 200)
	if string(r.Body) != script || r.Header.Get("Content-Type") != "application/octet-stream" {
		t.Errorf("startup.vpc = %q (%s), want %q", r.Body, r.Header.Get("Content-Type"), script)
	}
	// And setting startup_script is writing startup.vpc.
	ts.Do("PUT", nodePath, map[string]any{"properties": map[string]any{"startup_script": "ip dhcp"}}).Want(t, 200)
	if r := ts.Do("GET", files+"startup.vpc", nil).Want(t, 200); string(r.Body) != "ip dhcp" {
		t.Errorf("startup.vpc after a PUT = %q, want ip dhcp", r.Body)
	}
	compute := "/v2/compute/projects/" + pid + "/vpcs/nodes/" + pc["node_id"].(string)
	ts.Do("PUT", compute, map[string]any{"startup_script": "ip 192.168.1.2/24"}).Want(t, 200)
	if r := ts.Do("GET", files+"startup.vpc", nil).Want(t, 200); string(r.Body) != "ip 192.168.1.2/24" {
		t.Errorf("startup.vpc after a compute PUT = %q", r.Body)
	}
	ts.Do("POST", files+"startup.vpc", "\xff\xfe not text").Want(t, 400)

	// Other files live in the node's folder.
	dir := pc["node_directory"].(string)
	ts.Do("POST", files+"notes/readme.txt", "hello\x00bytes").Want(t, 201)
	if b, err := os.ReadFile(filepath.Join(dir, "notes", "readme.txt")); err != nil || string(b) != "hello\x00bytes" {
		t.Errorf("file on disk %q, %v", b, err)
	}
	if r := ts.Do("GET", files+"notes/readme.txt", nil).Want(t, 200); string(r.Body) != "hello\x00bytes" {
		t.Errorf("read back %q", r.Body)
	}
	ts.Do("GET", files+"notes/missing.txt", nil).Want(t, 404)
	ts.Do("GET", files+"notes", nil).Want(t, 400) // a folder

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
		r := ts.Do(c.method, files+c.path, "x").Want(t, c.want).JSON(t)
		if !strings.Contains(r["message"].(string), "folder") && !strings.Contains(r["message"].(string), "hidden") {
			t.Errorf("%s %s: %v", c.method, c.path, r["message"])
		}
	}
	// A .. in the URL itself never reaches a file: the router answers for
	// the cleaned path.
	if r := ts.Do("GET", files+"../../../../nodedesk.db", nil); r.Status == 200 {
		t.Errorf("GET through .. answered 200: %q", r.Body)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret")); string(b) != "secret" {
		t.Errorf("the file outside was changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(outside, "planted")); err == nil {
		t.Error("a file was planted outside the node's folder")
	}

	// The body is bounded.
	big := strings.Repeat("x", 1<<20+1)
	ts.Do("POST", files+"big.txt", big).Want(t, 400)
	ts.Do("POST", files+"startup.vpc", big).Want(t, 400)
	ts.Do("POST", files+"fits.txt", big[1:]).Want(t, 201)

	// Nodes that keep no files, and missing ones.
	sw := ts.MustCreateNode(pid, map[string]any{"node_type": "ethernet_switch"})
	swFiles := "/v2/projects/" + pid + "/nodes/" + sw["node_id"].(string) + "/files/"
	ts.Do("GET", swFiles+"startup.vpc", nil).Want(t, 404)
	ts.Do("POST", swFiles+"config.txt", "x").Want(t, 409)
	ts.Do("GET", "/v2/projects/"+pid+"/nodes/5e9f3c1a-0000-4000-8000-000000000000/files/startup.vpc", nil).Want(t, 404)
	ts.Do("POST", "/v2/projects/"+pid+"/nodes/5e9f3c1a-0000-4000-8000-000000000000/files/startup.vpc", "x").Want(t, 404)
	ts.Do("GET", "/v2/projects/5e9f3c1a-0000-4000-8000-000000000000/nodes/"+pc["node_id"].(string)+"/files/startup.vpc", nil).Want(t, 404)
	ts.Do("GET", "/v2/projects/"+pid+"/nodes/nope/files/startup.vpc", nil).Want(t, 400)
}

// TestProjectFiles reads and writes files of a project's folder: raw
// bytes, folders made on the way, VPCS scripts as the node's
// startup_script, and nothing outside the folder.
func TestProjectFiles(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("files")
	pc := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": "PC1"})
	files := "/v2/projects/" + pid + "/files/"
	ts.Do("GET", files+"README.txt", nil).Want(t, 404)
	if r := ts.Do("POST", files+"README.txt", "hello\x00there").Want(t, 201); len(r.Body) != 0 {
		t.Errorf("201 with a body %q", r.Body)
	}
	if r := ts.Do("GET", files+"README.txt", nil).Want(t, 200); string(r.Body) != "hello\x00there" || r.Header.Get("Content-Type") != "application/octet-stream" {
		t.Errorf("README %q %s", r.Body, r.Header.Get("Content-Type"))
	}
	ts.Do("POST", files+"notes/a/b.txt", "deep").Want(t, 201)
	if r := ts.Do("GET", files+"notes/a/b.txt", nil).Want(t, 200); string(r.Body) != "deep" {
		t.Errorf("deep %q", r.Body)
	}
	ts.Do("GET", files+"notes", nil).Want(t, 400) // a folder
	script := files + "project-files/vpcs/" + pc["node_id"].(string) + "/startup.vpc"
	ts.Do("POST", script, "ip 10.1.1.1/24").Want(t, 201)
	if p := ts.Do("GET", "/v2/projects/"+pid+"/nodes/"+pc["node_id"].(string), nil).Want(t, 200).JSON(t)["properties"].(map[string]any); p["startup_script"] != "ip 10.1.1.1/24" {
		t.Errorf("startup_script %v", p["startup_script"])
	}
	if r := ts.Do("GET", script, nil).Want(t, 200); string(r.Body) != "ip 10.1.1.1/24" {
		t.Errorf("script %q", r.Body)
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
		r := ts.Do(c.method, files+c.path, "x").Want(t, c.want).JSON(t)
		if !strings.Contains(r["message"].(string), "project's folder") && !strings.Contains(r["message"].(string), "hidden") {
			t.Errorf("%s %s: %v", c.method, c.path, r["message"])
		}
	}
	if r := ts.Do("GET", files+"../nodedesk.db", nil); r.Status == 200 {
		t.Errorf("GET through .. answered 200")
	}
	if after := tree(t, ts.dataDir()); !reflect.DeepEqual(after, outside) {
		t.Errorf("refused writes changed the data folder:\n%v\n%v", outside, after)
	}
	ts.Do("POST", files+"big.bin", strings.Repeat("x", 1<<20+1)).Want(t, 400)
	ts.Do("GET", "/v2/projects/"+uuidN("0000000f", 1)+"/files/README.txt", nil).Want(t, 404)
	ts.Do("POST", "/v2/projects/"+uuidN("0000000f", 1)+"/files/README.txt", "x").Want(t, 404)
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

// TestVPCSScriptNamesNode is "Edit config" of a new VPCS in the GNS3 GUI:
// GNS3's compute writes startup.vpc with the node's name for each %h of
// the base script, and a rename puts the new name in it, so the file the
// GUI reads back names the node.
func TestVPCSScriptNamesNode(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("edit-config")
	pc := ts.Do("POST", "/v2/projects/"+pid+"/templates/"+builtinTemplateIDs["VPCS"], map[string]any{"x": 0, "y": 0}).Want(t, 201).JSON(t)
	nodePath := "/v2/projects/" + pid + "/nodes/" + pc["node_id"].(string)
	file := nodePath + "/files/startup.vpc"
	if r := ts.Do("GET", file, nil).Want(t, 200); string(r.Body) != "set pcname PC1\n" {
		t.Errorf("startup.vpc of a new VPCS = %q, want set pcname PC1", r.Body)
	}

	// A script written with %h gets the name too.
	ts.DoWith("POST", file, "set pcname %h\nip dhcp\n", http.Header{"Content-Type": {"application/octet-stream"}}).Want(t, 201)
	if r := ts.Do("GET", file, nil).Want(t, 200); string(r.Body) != "set pcname PC1\nip dhcp\n" {
		t.Errorf("startup.vpc written with %%h = %q", r.Body)
	}

	// A rename renames the prompt.
	n := ts.Do("PUT", nodePath, map[string]any{"name": "web"}).Want(t, 200).JSON(t)
	if s := n["properties"].(map[string]any)["startup_script"]; s != "set pcname web\nip dhcp\n" {
		t.Errorf("script after a rename = %q, want set pcname web", s)
	}
	if r := ts.Do("GET", file, nil).Want(t, 200); string(r.Body) != "set pcname web\nip dhcp\n" {
		t.Errorf("startup.vpc after a rename = %q", r.Body)
	}
}
