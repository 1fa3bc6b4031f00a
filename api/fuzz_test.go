package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"nodedesk/app/kit"
)

// The fuzz targets' property: whatever a client sends, the server does not
// panic, never answers 5xx, answers every error with a JSON
// {"message","status"} body, and a rejected request leaves the store
// exactly as it was. `go test` runs the seeds; `make fuzz` runs longer.

// fuzzFixture is a server with one project, one node of each compute type
// and a link, served in-process (the handler, no socket) for speed.
type fuzzFixture struct {
	ts      *testServer
	pid     string
	ids     []string
	link    string
	drawing string
	handler http.Handler
}

func newFuzzFixture(f *testing.F) *fuzzFixture {
	ts := mustOpenServer(f)
	fx := &fuzzFixture{ts: ts, pid: ts.MustCreateProject("fuzz"), handler: ts.srv.handler}
	for _, typ := range computeTypes {
		fx.ids = append(fx.ids, ts.MustCreateNode(fx.pid, map[string]any{"node_type": typ})["node_id"].(string))
	}
	fx.link = ts.Do("POST", "/v2/projects/"+fx.pid+"/links", map[string]any{"nodes": []any{kit.End(fx.ids[0], 0, 0), kit.End(fx.ids[2], 0, 0)}}).Want(f, 201).JSON(f)["link_id"].(string)
	fx.drawing = ts.Do("POST", "/v2/projects/"+fx.pid+"/drawings", map[string]any{"svg": "<svg></svg>"}).Want(f, 201).JSON(f)["drawing_id"].(string)
	return fx
}

// digest fingerprints the whole store.
func (fx *fuzzFixture) digest(t *testing.T) [32]byte {
	var b bytes.Buffer
	if err := fx.ts.st.Backup(&b); err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b.Bytes())
}

// serve sends one request in-process and checks the property.
func (fx *fuzzFixture) serve(t *testing.T, method, path string, body []byte) {
	before := fx.digest(t)
	req := httptest.NewRequest(method, "http://"+strings.TrimPrefix(fx.ts.URL, "http://")+"/", bytes.NewReader(body))
	req.URL.Path, req.URL.RawPath, req.RequestURI = path, "", ""
	req.Host = strings.TrimPrefix(fx.ts.URL, "http://")
	rec := httptest.NewRecorder()
	fx.handler.ServeHTTP(rec, req)
	if rec.Code >= 500 {
		t.Fatalf("%s %s %q: %d %s", method, path, body, rec.Code, rec.Body)
	}
	if rec.Code >= 400 {
		var e struct {
			Message *string `json:"message"`
			Status  int     `json:"status"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Message == nil || e.Status != rec.Code {
			t.Fatalf("%s %s %q: %d with body %q", method, path, body, rec.Code, rec.Body)
		}
		if after := fx.digest(t); after != before {
			t.Fatalf("%s %s %q: rejected with %d but the store changed", method, path, body, rec.Code)
		}
	}
}

var fuzzMethods = []string{"GET", "PUT", "POST", "DELETE", "PATCH"}

// fuzzPaths are route shapes; {p}, {n}, {l}, {d}, {t} become the fixture's ids
// (or the fuzzer's own segment, by index).
var fuzzPaths = []string{
	"/v2/projects/{p}/nodes/{n}",
	"/v2/compute/projects/{p}/vpcs/nodes/{n}",
	"/v2/compute/projects/{p}/ethernet_switch/nodes/{n}",
	"/v2/compute/projects/{p}/cloud/nodes/{n}",
	"/v2/compute/projects/{p}/frame_relay_switch/nodes/{n}",
	"/v2/compute/projects/{p}/ethernet_hub/nodes/{n}",
	"/v2/projects/{p}/nodes",
	"/v2/projects/{p}",
	"/v2/projects",
	"/v2/projects/{p}/links",
	"/v2/projects/{p}/links/{l}",
	"/v2/projects/{p}/templates/{t}",
	"/v2/projects/{p}/nodes/{n}/duplicate",
	"/v2/projects/{p}/nodes/{n}/start",
	"/v2/compute/projects",
	"/v2/version",
	"/v2/projects/{p}/drawings",
	"/v2/projects/{p}/drawings/{d}",
	"/v2/projects/{p}/nodes/{n}/files/startup.vpc",
	"/v2/iou_license",
	"/v2/projects/{p}/files/notes/{n}.txt",
	"/v2/projects/{p}/export",
	"/v2/projects/{n}/import",
	"/v2/projects/load",
}

func FuzzRoutes(f *testing.F) {
	fx := newFuzzFixture(f)
	seeds := []struct {
		method, path int
		seg          string
		body         string
	}{
		{1, 0, "", `{"name": "r1", "x": 10, "properties": {"startup_script": "ip dhcp"}}`},
		{1, 2, "", `{"ports_mapping": [{"name": "e0", "port_number": 0, "type": "dot1q", "vlan": 10}]}`},
		{1, 3, "", `{"interfaces": [{"name": "eth0", "special": false, "type": "ethernet"}]}`},
		{1, 4, "", `{"mappings": {"1:101": "2:201"}}`},
		{2, 6, "", `{"node_type": "qemu", "properties": {"adapters": 4}}`},
		{2, 9, "", `{"nodes": [{"node_id": "x", "adapter_number": 0, "port_number": 0}]}`},
		{1, 10, "", `{"suspend": true, "filters": {"delay": [10]}}`},
		{2, 11, "", `{"x": 1, "y": 2}`},
		{2, 12, "", `{"x": 1, "y": 2, "z": 3}`},
		{0, 0, "None", ``},
		{1, 1, "", `{"console": 65536}`},
		{1, 0, "", `[1, {"a": null}]`},
		{1, 7, "", `{"name": "", "zoom": -1}`},
		{2, 8, "", `{"name": "p", "project_id": "not-a-uuid"}`},
		{3, 0, "zzzz", ``},
		{4, 15, "", `{}`},
		{2, 16, "", `{"drawing_id": "0b7d4c3e-1f2a-4b5c-8d9e-0f1a2b3c4d5e", "svg": "<svg/>", "rotation": 360}`},
		{1, 17, "", `{"x": 1, "rotation": -360, "locked": true}`},
		{2, 18, "", "ip dhcp\n"},
		{1, 19, "", `{"iourc_content": "[license]", "license_check": false}`},
		{2, 20, "", "notes\x00"},
		{0, 21, "", ``},
		{2, 22, "", `{"type": "topology", "revision": 9, "name": "f", "topology": {"nodes": [{"node_type": "vpcs", "name": "PC1"}]}}`},
		{2, 22, "", "PK\x03\x04"},
		{2, 23, "", `{"path": "/nonexistent/x.gns3"}`},
	}
	for _, s := range seeds {
		f.Add(uint8(s.method), uint8(s.path), s.seg, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, method, path uint8, seg string, body []byte) {
		if len(body) > 64<<10 || strings.ContainsAny(seg, "/?#%") {
			return
		}
		tmpl := fuzzPaths[int(path)%len(fuzzPaths)]
		nid := fx.ids[int(path)%len(fx.ids)]
		if seg != "" {
			nid = seg
		}
		p := strings.NewReplacer("{p}", fx.pid, "{n}", nid, "{l}", fx.link, "{d}", fx.drawing, "{t}", builtinTemplateIDs["VPCS"]).Replace(tmpl)
		fx.serve(t, fuzzMethods[int(method)%len(fuzzMethods)], p, body)
	})
}

// FuzzNodeBody fuzzes the bodies of the controller node PUT, the busiest
// decoder, including its per-type properties.
func FuzzNodeBody(f *testing.F) {
	fx := newFuzzFixture(f)
	for _, s := range []string{
		`{"properties": {"ports_mapping": [{"name": "a", "port_number": 1, "type": "qinq", "ethertype": ""}]}}`,
		`{"label": {"text": "t", "x": null, "y": 3, "rotation": 360, "style": "s"}}`,
		`{"console_type": null, "console": null}`,
		`{"custom_adapters": [{"adapter_number": 0, "mac_address": "00:11:22:33:44:55"}]}`,
		`{"properties": {"mappings": {"1:1": "2:2", "3:3": "1:1"}}}`,
		`{"symbol": null, "first_port_name": "mgmt", "port_segment_size": 4}`,
		`{"name": "\u00e9\u4e2d", "x": -2147483648, "z": 2147483647}`,
	} {
		for i := range fx.ids {
			f.Add(uint8(i), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		if len(body) > 64<<10 {
			return
		}
		fx.serve(t, "PUT", "/v2/projects/"+fx.pid+"/nodes/"+fx.ids[int(which)%len(fx.ids)], body)
	})
}
