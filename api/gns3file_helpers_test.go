package api

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"nodedesk/app/kit"
)

// Helpers to write GNS3 project files the way GNS3 writes them, and to
// compare what nodedesk made of them.

// gns3Project is a .gns3 being written: its top-level keys, and its nodes,
// links and drawings in GNS3's topology-dump form.
type gns3Project struct {
	top                    map[string]any
	nodes, links, drawings []map[string]any
	files                  map[string]string // path in the project's folder -> content
}

func newGNS3Project(name string, revision int) *gns3Project {
	return &gns3Project{
		top: map[string]any{
			"project_id": "7b6a4e34-2c7d-4b1e-9b35-0c7a0d5e1a01", "name": name, "type": "topology",
			"revision": revision, "version": "2.2.59", "auto_start": false, "auto_open": false, "auto_close": true,
			"scene_width": 2000, "scene_height": 1000, "zoom": 100, "show_layers": false, "snap_to_grid": false,
			"show_grid": false, "grid_size": 75, "drawing_grid_size": 25, "show_interface_labels": false,
			"supplier": nil, "variables": nil,
		},
		files: map[string]string{},
	}
}

// node adds a node with GNS3's topology-dump keys; over changes or adds
// keys (absent deletes one).
func (g *gns3Project) node(id, typ, name string, x, y int, props map[string]any, over map[string]any) {
	n := map[string]any{
		"compute_id": "local", "node_id": id, "node_type": typ, "template_id": nil, "name": name,
		"console": nil, "console_type": "none", "console_auto_start": false, "properties": props,
		"label": map[string]any{"rotation": 0, "style": "font-family: TypeWriter;font-size: 10.0;font-weight: bold;fill: #000000;fill-opacity: 1.0;", "text": name, "x": 10, "y": -25},
		"x":     x, "y": y, "z": 1, "locked": false, "width": 65, "height": 59, "symbol": ":/symbols/computer.svg",
		"port_name_format": "Ethernet{0}", "port_segment_size": 0, "first_port_name": nil, "custom_adapters": []any{},
	}
	for k, v := range over {
		if v == absent {
			delete(n, k)
		} else {
			n[k] = v
		}
	}
	g.nodes = append(g.nodes, n)
}

// absent, as a value of node's over, deletes the key.
var absent = &struct{}{}

// link adds a link between two ports; over changes or adds keys.
func (g *gns3Project) link(id string, a, b []any, over map[string]any) {
	end := func(e []any) map[string]any {
		m := map[string]any{"node_id": e[0], "adapter_number": e[1], "port_number": e[2]}
		if len(e) > 3 {
			m["label"] = e[3]
		}
		return m
	}
	l := map[string]any{"link_id": id, "nodes": []any{end(a), end(b)}, "filters": map[string]any{}, "link_style": map[string]any{}, "suspend": false}
	for k, v := range over {
		l[k] = v
	}
	g.links = append(g.links, l)
}

func (g *gns3Project) drawing(id, svg string, x, y, z, rotation int, locked bool) {
	g.drawings = append(g.drawings, map[string]any{"drawing_id": id, "svg": svg, "x": x, "y": y, "z": z, "rotation": rotation, "locked": locked})
}

// json is the .gns3.
func (g *gns3Project) json(t testing.TB) []byte {
	t.Helper()
	m := map[string]any{}
	for k, v := range g.top {
		if v != nil || k == "supplier" || k == "variables" {
			m[k] = v
		}
	}
	m["topology"] = map[string]any{"nodes": nonNilSlice(g.nodes), "links": nonNilSlice(g.links), "drawings": nonNilSlice(g.drawings), "computes": []any{}}
	b, err := json.MarshalIndent(m, "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func nonNilSlice(s []map[string]any) []map[string]any {
	if s == nil {
		return []map[string]any{}
	}
	return s
}

// archive is the .gns3project: project.gns3 and the files.
func (g *gns3Project) archive(t testing.TB) []byte {
	t.Helper()
	entries := []zipEntry{{name: "project.gns3", body: g.json(t)}}
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for p := range g.files {
			if !yield(p) {
				return
			}
		}
	}) {
		entries = append(entries, zipEntry{name: p, body: []byte(g.files[p])})
	}
	return makeZip(t, entries...)
}

// writeDir writes the project as GNS3 keeps it on disk: <dir>/<name>.gns3
// beside its files; it returns the .gns3's path.
func (g *gns3Project) writeDir(t testing.TB, dir string) string {
	t.Helper()
	path := filepath.Join(dir, g.top["name"].(string)+".gns3")
	mustWrite(t, path, g.json(t))
	for p, body := range g.files {
		mustWrite(t, filepath.Join(dir, filepath.FromSlash(p)), []byte(body))
	}
	return path
}

// zipEntry is one entry of a test archive; mode 0 is a regular file.
type zipEntry struct {
	name   string
	body   []byte
	mode   fs.FileMode
	method uint16 // 0: deflate
}

func makeZip(t testing.TB, entries ...zipEntry) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.method != 0 {
			h.Method = e.method
		}
		if e.mode != 0 {
			h.SetMode(e.mode)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(e.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// nodeProperties reads a project.gns3's nodes: their properties by node
// name.
func nodeProperties(t testing.TB, projectGNS3 []byte) map[string]map[string]any {
	t.Helper()
	var topo struct {
		Topology struct {
			Nodes []struct {
				Name       string         `json:"name"`
				Properties map[string]any `json:"properties"`
			} `json:"nodes"`
		} `json:"topology"`
	}
	if err := json.Unmarshal(projectGNS3, &topo); err != nil {
		t.Fatalf("project.gns3: %v", err)
	}
	out := map[string]map[string]any{}
	for _, n := range topo.Topology.Nodes {
		out[n.Name] = n.Properties
	}
	return out
}

// readZip returns an archive's entries by name.
func readZip(t testing.TB, b []byte) map[string][]byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("not a zip: %v", err)
	}
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		_, err = buf.ReadFrom(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name] = buf.Bytes()
	}
	return out
}

// normalized is a project's state with what differs between two imports
// of one file taken out: ids (node ids become names in link ends), console
// ports, folders; so that two states compare equal when they hold the
// same nodes, links and drawings.
func normalized(st projectState) map[string]any {
	names := map[any]any{}
	var nodes, links, drawings []any
	for _, n := range st.nodes {
		names[n["node_id"]] = n["name"]
		c := without(n, "node_id", "project_id", "console", "node_directory", "console_host")
		if props, ok := c["properties"].(map[string]any); ok && props["aux"] != nil {
			c["properties"] = without(props, "aux") // a port, like console: the first import owns its own
		}
		nodes = append(nodes, c)
	}
	for _, l := range st.links {
		c := without(l, "link_id", "project_id")
		var ends []any
		for _, e := range l["nodes"].([]any) {
			ce := without(e.(map[string]any))
			ce["node_id"] = names[ce["node_id"]]
			ends = append(ends, ce)
		}
		c["nodes"] = ends
		links = append(links, c)
	}
	for _, d := range st.drawings {
		drawings = append(drawings, without(d, "drawing_id", "project_id"))
	}
	return map[string]any{"nodes": nodes, "links": links, "drawings": drawings}
}

// without is a copy of m without keys.
func without(m map[string]any, keys ...string) map[string]any {
	c := maps.Clone(m)
	for _, k := range keys {
		delete(c, k)
	}
	return c
}

// importArchive posts a body to /import under a new project id.
func (ts *testServer) importArchive(id string, body []byte, query string) kit.Response {
	ts.tb.Helper()
	path := "/v2/projects/" + id + "/import"
	if query != "" {
		path += "?" + query
	}
	return ts.DoWith("POST", path, body, nil)
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
