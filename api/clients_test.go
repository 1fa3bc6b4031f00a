package api

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// The builtin templates under GNS3's fixed ids (clients.md, checklist 2).
var builtinTemplateIDs = map[string]string{
	"VPCS":               "19021f99-e36f-394d-b4a1-8aaa902ab9cc",
	"Ethernet switch":    "1966b864-93e7-32d5-965f-001384eec461",
	"Ethernet hub":       "b4503ea9-d6b6-3695-9fe4-1db3b39290b0",
	"Frame Relay switch": "dd0f6f3a-ba58-3249-81cb-a1dd88407a47",
	"Cloud":              "39e257dc-8412-3174-b6b3-0ee3ed6a43e9",
	"NAT":                "df8f4ea9-33b7-3e96-86a2-c39bc9bb649c",
	"ATM switch":         "aaa764e2-b383-300f-8a0e-3493bbfdb7d2",
}

func TestTemplates(t *testing.T) {
	ts := mustOpenServer(t)
	l := ts.do("GET", "/v2/templates", nil).want(t, 200).list(t)
	if len(l) != len(builtinTemplateIDs) {
		t.Fatalf("%d templates, want %d", len(l), len(builtinTemplateIDs))
	}
	for _, tmpl := range l {
		if builtinTemplateIDs[tmpl["name"].(string)] != tmpl["template_id"] || tmpl["builtin"] != true || tmpl["category"] == "" {
			t.Errorf("template %v", tmpl)
		}
	}
	vpcs := builtinTemplateIDs["VPCS"]
	if got := ts.do("GET", "/v2/templates/"+vpcs, nil).want(t, 200).json(t); got["template_type"] != "vpcs" || got["default_name_format"] != "PC{0}" ||
		got["base_script_file"] != "vpcs_base_config.txt" {
		t.Errorf("VPCS template %v, want GNS3's with its base script file", got)
	}
	ts.do("GET", "/v2/templates/00000000-0000-4000-8000-000000000000", nil).want(t, 404)

	pid := ts.mustCreateProject("lab")
	use := func(tid string, body any) response {
		return ts.do("POST", "/v2/projects/"+pid+"/templates/"+tid, body)
	}
	for name, tid := range builtinTemplateIDs {
		n := use(tid, map[string]any{"x": 10, "y": 20, "compute_id": "local"}).want(t, 201).json(t)
		if n["template_id"] != tid || n["x"] != float64(10) || n["y"] != float64(20) || n["compute_id"] != "local" {
			t.Errorf("%s: node %v", name, n)
		}
	}
	n := use(vpcs, map[string]any{"x": 0, "y": 0, "name": "client"}).want(t, 201).json(t)
	if n["name"] != "client" || n["node_type"] != "vpcs" {
		t.Errorf("named node from template: %v", n)
	}
	// GNS3's base script: the prompt is the node's name (%h, put at run).
	if script := n["properties"].(map[string]any)["startup_script"]; script != "set pcname %h\n" {
		t.Errorf("VPCS from the builtin template has script %q, want GNS3's base script", script)
	}
	if n := use(vpcs, map[string]any{"x": 0, "y": 0}).want(t, 201).json(t); n["name"] != "PC2" {
		t.Errorf("second VPCS from the template is %v, want PC2", n["name"])
	}
	use(vpcs, map[string]any{"x": 0}).want(t, 400)
	use(vpcs, map[string]any{"x": 0, "y": 0, "symbol": "x"}).want(t, 400)
	use(vpcs, map[string]any{"x": 0, "y": 0, "compute_id": "vm"}).want(t, 404)
	use("00000000-0000-4000-8000-000000000000", map[string]any{"x": 0, "y": 0}).want(t, 404)
	ts.do("POST", "/v2/projects/None/templates/"+vpcs, map[string]any{"x": 0, "y": 0}).want(t, 404)
}

// lab is a project with two VPCS, a switch and a Frame Relay switch.
type lab struct {
	pid                     string
	pc1, pc2, sw, frsw, hub string
}

func (ts *testServer) mustCreateLab() lab {
	ts.tb.Helper()
	l := lab{pid: ts.mustCreateProject("lab")}
	id := func(typ string) string {
		return ts.mustCreateNode(l.pid, map[string]any{"node_type": typ})["node_id"].(string)
	}
	l.pc1, l.pc2, l.sw, l.frsw, l.hub = id("vpcs"), id("vpcs"), id("ethernet_switch"), id("frame_relay_switch"), id("ethernet_hub")
	ts.do("PUT", "/v2/projects/"+l.pid+"/nodes/"+l.frsw, map[string]any{"properties": map[string]any{"mappings": map[string]any{"1:101": "2:201"}}}).want(ts.tb, 200)
	return l
}

func end(node string, adapter, port int) map[string]any {
	return map[string]any{"node_id": node, "adapter_number": adapter, "port_number": port}
}

func TestLinks(t *testing.T) {
	ts := mustOpenServer(t)
	l := ts.mustCreateLab()
	links := "/v2/projects/" + l.pid + "/links"
	create := func(body any) response { return ts.do("POST", links, body) }

	// gns3fy's shape: project_id in the body and text-only labels.
	a := create(map[string]any{"project_id": l.pid, "nodes": []any{
		map[string]any{"node_id": l.pc1, "adapter_number": 0, "port_number": 0, "label": map[string]any{"text": "e0"}},
		map[string]any{"node_id": l.sw, "adapter_number": 0, "port_number": 3, "label": map[string]any{"text": "e3", "x": 5, "y": 6, "rotation": 0, "style": "font-size: 10"}},
	}}).want(t, 201).json(t)
	if a["link_type"] != "ethernet" || a["link_id"] == nil || a["project_id"] != l.pid {
		t.Errorf("link %v", a)
	}
	ends := a["nodes"].([]any)
	if ends[1].(map[string]any)["label"].(map[string]any)["x"] != float64(5) {
		t.Errorf("labels do not round-trip: %v", ends)
	}
	lid := a["link_id"].(string)
	// terraform's shape: no labels; the server gives default ones.
	b := create(map[string]any{"nodes": []any{end(l.pc2, 0, 0), end(l.sw, 0, 4)}}).want(t, 201).json(t)
	if lbl := b["nodes"].([]any)[0].(map[string]any)["label"].(map[string]any); lbl["text"] != "0/0" {
		t.Errorf("default label %v", lbl)
	}

	tests := []struct {
		name    string
		body    any
		want    int
		wantMsg string
	}{
		{"port already used", map[string]any{"nodes": []any{end(l.pc1, 0, 0), end(l.sw, 0, 5)}}, 409, "already used"},
		{"port does not exist", map[string]any{"nodes": []any{end(l.hub, 0, 0), end(l.sw, 0, 99)}}, 400, "no port"},
		{"vpcs has one adapter", map[string]any{"nodes": []any{end(l.hub, 0, 0), end(l.pc2, 1, 0)}}, 400, "no port"},
		{"node to itself", map[string]any{"nodes": []any{end(l.sw, 0, 6), end(l.sw, 0, 7)}}, 409, "itself"},
		{"serial to ethernet", map[string]any{"nodes": []any{end(l.frsw, 0, 1), end(l.hub, 0, 1)}}, 409, "serial"},
		{"one end", map[string]any{"nodes": []any{end(l.hub, 0, 0)}}, 400, "nodes"},
		{"no nodes", map[string]any{}, 400, "nodes"},
		{"unknown node", map[string]any{"nodes": []any{end(l.hub, 0, 0), end("00000000-0000-4000-8000-000000000000", 0, 0)}}, 404, "doesn't exist"},
		{"end without port_number", map[string]any{"nodes": []any{end(l.hub, 0, 0), map[string]any{"node_id": l.sw, "adapter_number": 0}}}, 400, "port_number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := create(tt.body).want(t, tt.want)
			if msg := r.json(t)["message"].(string); !strings.Contains(msg, tt.wantMsg) {
				t.Errorf("message %q lacks %q", msg, tt.wantMsg)
			}
		})
	}
	if got := ts.do("GET", links, nil).want(t, 200).list(t); len(got) != 2 {
		t.Fatalf("%d links after rejected creates, want 2", len(got))
	}
	ts.do("GET", links+"/"+lid, nil).want(t, 200)
	ts.do("GET", links+"/None", nil).want(t, 404)
	ts.do("GET", links+"/00000000-0000-4000-8000-000000000000", nil).want(t, 404)
	if got := ts.do("GET", "/v2/projects/"+l.pid+"/nodes/"+l.sw+"/links", nil).want(t, 200).list(t); len(got) != 2 {
		t.Errorf("switch has %d links, want 2", len(got))
	}

	// PUT relabels (the web UI sends the whole link back) and answers 200.
	a["nodes"].([]any)[0].(map[string]any)["label"] = map[string]any{"text": "uplink", "x": 1, "y": 2, "rotation": 90, "style": nil}
	a["suspend"] = true
	u := ts.do("PUT", links+"/"+lid, a).want(t, 200).json(t)
	if u["nodes"].([]any)[0].(map[string]any)["label"].(map[string]any)["text"] != "uplink" || u["suspend"] != true {
		t.Errorf("updated link %v", u)
	}
	ts.do("PUT", links+"/"+lid, map[string]any{"nodes": []any{end(l.hub, 0, 0)}}).want(t, 400)

	// A switch port with a link cannot disappear; others can.
	sw := "/v2/projects/" + l.pid + "/nodes/" + l.sw
	ts.do("PUT", sw, map[string]any{"properties": map[string]any{"ports_mapping": []any{
		map[string]any{"name": "e0", "port_number": 0, "type": "access"}}}}).want(t, 409)
	ports := []any{}
	for i := range 5 {
		ports = append(ports, map[string]any{"name": "p" + string(rune('0'+i)), "port_number": i, "type": "access"})
	}
	ts.do("PUT", sw, map[string]any{"properties": map[string]any{"ports_mapping": ports}}).want(t, 200)

	stats := ts.do("GET", "/v2/projects/"+l.pid+"/stats", nil).want(t, 200).json(t)
	if stats["nodes"] != float64(5) || stats["links"] != float64(2) || stats["drawings"] != float64(0) || stats["snapshots"] != float64(0) {
		t.Errorf("stats %v", stats)
	}
	// Deleting a node deletes its links; the freed port can be linked again.
	ts.do("DELETE", "/v2/projects/"+l.pid+"/nodes/"+l.pc1, nil).want(t, 204)
	ts.do("GET", links+"/"+lid, nil).want(t, 404)
	create(map[string]any{"nodes": []any{end(l.hub, 0, 0), end(l.sw, 0, 3)}}).want(t, 201)
	ts.do("DELETE", links+"/"+b["link_id"].(string), nil).want(t, 204)
	ts.do("DELETE", links+"/"+b["link_id"].(string), nil).want(t, 404)
	if got := ts.do("GET", "/v2/projects/"+l.pid+"/stats", nil).json(t)["links"]; got != float64(1) {
		t.Errorf("%v links left, want 1", got)
	}
	ts.restart()
	if got := ts.do("GET", links, nil).want(t, 200).list(t); len(got) != 1 {
		t.Errorf("%d links after restart, want 1", len(got))
	}
}

func TestLifecycle(t *testing.T) {
	ts := mustOpenServer(t)
	l := ts.mustCreateLab()
	pc := "/v2/projects/" + l.pid + "/nodes/" + l.pc1
	sw := "/v2/projects/" + l.pid + "/nodes/" + l.sw
	steps := []struct {
		path, action string
		header       http.Header
		body         any
		want         string
	}{
		{pc, "start", nil, nil, "started"},
		{pc, "suspend", nil, nil, "suspended"},
		{pc, "start", http.Header{"Content-Type": {"application/json"}}, "", "started"}, // terraform: JSON type, empty body
		{pc, "reload", nil, map[string]any{}, "started"},
		{pc, "stop", nil, nil, "stopped"},
		{pc, "suspend", nil, nil, "stopped"},
		{pc, "reload", nil, nil, "started"},
		{sw, "stop", nil, nil, "started"},
		{sw, "suspend", nil, nil, "started"},
		{sw, "reload", nil, nil, "started"},
	}
	for _, st := range steps {
		r := ts.doWith("POST", st.path+"/"+st.action, st.body, st.header).want(t, 200).json(t)
		if r["status"] != st.want {
			t.Errorf("%s %s: status %v, want %s", st.path, st.action, r["status"], st.want)
		}
		if got := ts.do("GET", st.path, nil).json(t)["status"]; got != st.want {
			t.Errorf("stored status %v, want %s", got, st.want)
		}
	}
	// A running VPCS keeps its console type.
	ts.do("PUT", pc, map[string]any{"console_type": "telnet"}).want(t, 200)
	ts.do("POST", pc+"/foo", nil).want(t, 404)

	// Project-wide calls answer 204 and reach every node.
	for _, a := range []struct{ action, want string }{{"stop", "stopped"}, {"start", "started"}, {"suspend", "suspended"}, {"reload", "started"}, {"stop", "stopped"}} {
		ts.do("POST", "/v2/projects/"+l.pid+"/nodes/"+a.action, map[string]any{}).want(t, 204)
		for _, id := range []string{l.pc1, l.pc2} {
			if got := ts.do("GET", "/v2/projects/"+l.pid+"/nodes/"+id, nil).json(t)["status"]; got != a.want {
				t.Errorf("after project %s: %v, want %s", a.action, got, a.want)
			}
		}
	}
	ts.do("POST", "/v2/projects/None/nodes/start", nil).want(t, 404)

	// The compute paths: a VPCS start answers the compute node, the others 204.
	cpc := "/v2/compute/projects/" + l.pid + "/vpcs/nodes/" + l.pc2
	if r := ts.do("POST", cpc+"/start", nil).want(t, 200).json(t); r["status"] != "started" || r["startup_script_path"] == "x" {
		t.Errorf("compute start %v", r)
	}
	ts.do("POST", cpc+"/stop", nil).want(t, 204)
	if got := ts.do("GET", cpc, nil).json(t)["status"]; got != "stopped" {
		t.Errorf("after compute stop: %v", got)
	}
	ts.do("POST", "/v2/compute/projects/"+l.pid+"/ethernet_switch/nodes/"+l.sw+"/stop", nil).want(t, 204)
	ts.do("POST", "/v2/compute/projects/"+l.pid+"/ethernet_hub/nodes/"+l.sw+"/start", nil).want(t, 404)
}

// TestLifecycle_StoredTypes: nodes of the emulators nodedesk keeps but
// does not run (qemu, docker, ...) refuse to start, saying so, and stay
// editable; a project that holds one still starts the nodes nodedesk runs.
func TestLifecycle_StoredTypes(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.mustCreateProject("lab")
	pc := ts.mustCreateNode(pid, map[string]any{"node_type": "vpcs"})
	for _, typ := range []string{"qemu", "docker", "dynamips", "iou", "virtualbox", "vmware", "traceng"} {
		n := ts.mustCreateNode(pid, map[string]any{"node_type": typ})
		path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
		for _, a := range []string{"start", "reload"} {
			r := ts.do("POST", path+"/"+a, nil).want(t, 409).json(t)
			if want := "nodedesk does not run " + typ + " nodes"; !strings.HasPrefix(r["message"].(string), want) {
				t.Errorf("%s %s: %v, want it to start with %q", a, typ, r["message"], want)
			}
		}
		ts.do("POST", path+"/stop", nil).want(t, 200)
		ts.do("POST", path+"/suspend", nil).want(t, 200) // a stopped node: nothing to do
		ts.do("PUT", path, map[string]any{"x": 10}).want(t, 200)
	}
	ts.do("POST", "/v2/projects/"+pid+"/nodes/start", nil).want(t, 204)
	for _, n := range ts.do("GET", "/v2/projects/"+pid+"/nodes", nil).want(t, 200).list(t) {
		want := "stopped"
		if n["node_id"] == pc["node_id"] {
			want = "started"
		}
		if n["status"] != want {
			t.Errorf("%s after a project start: %v, want %s", n["name"], n["status"], want)
		}
	}
}

func TestDuplicate(t *testing.T) {
	ts := mustOpenServer(t)
	l := ts.mustCreateLab()
	ts.do("POST", "/v2/projects/"+l.pid+"/links", map[string]any{"nodes": []any{end(l.pc1, 0, 0), end(l.sw, 0, 0)}}).want(t, 201)
	pc := "/v2/projects/" + l.pid + "/nodes/" + l.pc1
	ts.do("PUT", pc, map[string]any{"properties": map[string]any{"startup_script": "ip 10.0.0.1/24"}}).want(t, 200)
	ts.do("POST", pc+"/start", nil).want(t, 200)
	orig := ts.do("GET", pc, nil).json(t)
	d := ts.do("POST", pc+"/duplicate", map[string]any{"x": 100, "y": 50, "z": 2}).want(t, 201).json(t)
	if d["node_id"] == orig["node_id"] || d["name"] != "PC3" || d["console"] == orig["console"] || d["status"] != "stopped" {
		t.Errorf("duplicate %v of %v", d, orig)
	}
	if d["x"] != float64(100) || d["y"] != float64(50) || d["z"] != float64(2) || d["label"].(map[string]any)["text"] != "PC3" {
		t.Errorf("duplicate placement/label %v", d)
	}
	if d["properties"].(map[string]any)["startup_script"] != "ip 10.0.0.1/24" {
		t.Errorf("duplicate lost the startup script: %v", d["properties"])
	}
	if got := ts.do("GET", "/v2/projects/"+l.pid+"/nodes/"+d["node_id"].(string)+"/links", nil).list(t); len(got) != 0 {
		t.Errorf("links were copied: %v", got)
	}
	for _, bad := range []any{map[string]any{"x": 1}, map[string]any{"x": 1, "y": 2, "w": 3}} {
		ts.do("POST", pc+"/duplicate", bad).want(t, 400)
	}
	ts.do("POST", "/v2/projects/"+l.pid+"/nodes/00000000-0000-4000-8000-000000000000/duplicate", map[string]any{"x": 1, "y": 2}).want(t, 404)
}

func TestStartupCalls(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.mustCreateProject("lab")
	ts.mustCreateNode(pid, map[string]any{"node_type": "vpcs"})
	ts.mustCreateNode(pid, map[string]any{"node_type": "vpcs", "console": 6001})
	ports := ts.do("GET", "/v2/computes/local/ports", nil).want(t, 200).json(t)
	if got, _ := json.Marshal(ports["console_ports"]); string(got) != "[5000,6001]" {
		t.Errorf("console_ports %s", got)
	}
	ts.do("GET", "/v2/computes/vm/ports", nil).want(t, 404)
	// The types a GNS3 controller may place on nodedesk: those with a compute view.
	if c := ts.do("GET", "/v2/compute/capabilities", nil).want(t, 200).json(t); fmt.Sprint(c["node_types"]) != "[cloud nat ethernet_hub ethernet_switch frame_relay_switch vpcs]" {
		t.Errorf("capabilities %v", c)
	}
	ts.do("POST", "/v2/version", map[string]any{"version": "2.2.59"}).want(t, 200)
	if r := ts.do("POST", "/v2/version", map[string]any{"version": "2.2.61"}).want(t, 409); !strings.Contains(string(r.body), "2.2.59") {
		t.Errorf("version mismatch message %s", r.body)
	}
	for _, p := range []string{"/v2/computes/local/qemu/images", "/v2/appliances", "/v2/projects/" + pid + "/drawings", "/v2/projects/" + pid + "/snapshots"} {
		if r := ts.do("GET", p, nil).want(t, 200); string(r.body) != "[]" {
			t.Errorf("GET %s = %s", p, r.body)
		}
	}
	for _, p := range []string{"/v2/settings", "/v2/statistics", "/v2/gns3vm"} {
		ts.do("GET", p, nil).want(t, 200)
	}
	syms := ts.do("GET", "/v2/symbols", nil).want(t, 200).list(t)
	if len(syms) < 8 {
		t.Fatalf("%d symbols", len(syms))
	}
	// The web UI asks for a symbol by its id, URL-encoded.
	r := ts.do("GET", "/v2/symbols/%3A%2Fsymbols%2Fcomputer.svg/raw", nil).want(t, 200)
	if !strings.HasPrefix(string(r.body), "<svg") || !strings.Contains(string(r.body), `width="65"`) {
		t.Errorf("symbol %s", r.body)
	}
	ts.do("GET", "/v2/symbols/%3A%2Fsymbols%2Fnope.svg/raw", nil).want(t, 404)
}

// event is one notification as a listener saw it.
type event struct {
	Action string         `json:"action"`
	Event  map[string]any `json:"event"`
}

// wsListen connects to a notification websocket and returns a function
// that gives the next event that is not a ping (nor history.updated, which
// follows every change: history's tests read it with wsListenAll).
func (ts *testServer) wsListen(t *testing.T, path string) (next func() event, first event) {
	t.Helper()
	return ts.wsListenAll(t, path, "history.updated")
}

// wsListenAll is wsListen skipping only pings and the actions given.
func (ts *testServer) wsListenAll(t *testing.T, path string, skip ...string) (next func() event, first event) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.url, "http")+path, nil)
	if err != nil {
		t.Fatalf("dial %s: %v", path, err)
	}
	t.Cleanup(func() { c.CloseNow() })
	read := func() event {
		t.Helper()
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("read %s: %v", path, err)
		}
		var e event
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatalf("notification %s: %v", b, err)
		}
		return e
	}
	first = read()
	return func() event {
		t.Helper()
		for {
			if e := read(); e.Action != "ping" && e.Action != "compute.updated" && !slices.Contains(skip, e.Action) {
				return e
			}
		}
	}, first
}

// controllerRaw opens the controller stream and returns its second message.
func controllerRaw(t *testing.T, ts *testServer) event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.url, "http")+"/v2/notifications/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	var e event
	for range 2 {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// TestClientSession drives a session the way GNS3 clients do, while a
// second connection on the project's websocket sees every change, once, in
// order.
func TestClientSession(t *testing.T) {
	ts := mustOpenServer(t)
	if v := ts.do("GET", "/v2/version", nil).want(t, 200).json(t); v["version"] != "2.2.59" {
		t.Fatal(v)
	}
	controller, hello := ts.wsListen(t, "/v2/notifications/ws")
	if hello.Action != "ping" || hello.Event["cpu_usage_percent"] == nil {
		t.Errorf("controller stream opened with %v", hello)
	}
	if e := controllerRaw(t, ts); e.Action != "compute.updated" || e.Event["compute_id"] != "local" {
		t.Errorf("controller stream's second message %v, want compute.updated of local", e)
	}
	pid := ts.mustCreateProject("session")
	ts.do("POST", "/v2/compute/projects", map[string]any{"name": "session", "project_id": pid}).want(t, 201)
	ts.do("POST", "/v2/projects/"+pid+"/open", nil).want(t, 201)
	project, hello := ts.wsListen(t, "/v2/projects/"+pid+"/notifications/ws")
	if hello.Action != "ping" {
		t.Errorf("project stream opened with %v", hello)
	}
	ts.do("GET", "/v2/templates", nil).want(t, 200)
	mk := func(tmpl string) map[string]any {
		return ts.do("POST", "/v2/projects/"+pid+"/templates/"+builtinTemplateIDs[tmpl], map[string]any{"x": 0, "y": 0, "compute_id": "local"}).want(t, 201).json(t)
	}
	pc, sw := mk("VPCS"), mk("Ethernet switch")
	pcPath := "/v2/projects/" + pid + "/nodes/" + pc["node_id"].(string)
	// gns3fy's PUT after a template create; gns3-gui's general-field PUT.
	ts.do("PUT", pcPath, map[string]any{"name": "pc1", "compute_id": "local"}).want(t, 200)
	ts.do("PUT", pcPath, map[string]any{"x": 50, "y": 60, "node_type": "vpcs", "node_id": pc["node_id"], "compute_id": "local", "properties": map[string]any{}}).want(t, 200)
	ts.do("PUT", pcPath, map[string]any{"x": 50, "y": 60}).want(t, 200)                       // no change: no event
	ts.do("PUT", pcPath, map[string]any{"x": "fifty"}).want(t, 400)                           // rejected: no event
	ts.do("PUT", pcPath, map[string]any{"console": pc["console"].(float64) + 1}).want(t, 200) // still free
	link := ts.do("POST", "/v2/projects/"+pid+"/links", map[string]any{"nodes": []any{end(pc["node_id"].(string), 0, 0), end(sw["node_id"].(string), 0, 1)}}).want(t, 201).json(t)
	ts.do("POST", pcPath+"/start", nil).want(t, 200)
	ts.do("POST", pcPath+"/stop", nil).want(t, 200)
	ts.do("DELETE", pcPath, nil).want(t, 204)
	ts.do("POST", "/v2/projects/"+pid+"/close", nil).want(t, 204)
	ts.do("DELETE", "/v2/projects/"+pid, nil).want(t, 204)

	type want struct {
		action, id, key string
		value           any
	}
	for i, w := range []want{
		{"node.created", pc["node_id"].(string), "name", "PC1"},
		{"node.created", sw["node_id"].(string), "name", "Switch1"},
		{"node.updated", pc["node_id"].(string), "name", "pc1"},
		{"node.updated", pc["node_id"].(string), "x", float64(50)},
		{"node.updated", pc["node_id"].(string), "console", pc["console"].(float64) + 1},
		{"link.created", link["link_id"].(string), "link_type", "ethernet"},
		{"node.updated", pc["node_id"].(string), "status", "started"},
		{"node.updated", pc["node_id"].(string), "status", "stopped"},
		{"link.deleted", link["link_id"].(string), "link_type", "ethernet"},
		{"node.deleted", pc["node_id"].(string), "name", "pc1"},
	} {
		e := project()
		id, _ := e.Event["node_id"].(string)
		if strings.HasPrefix(e.Action, "link.") {
			id, _ = e.Event["link_id"].(string)
		}
		if e.Action != w.action || id != w.id || e.Event[w.key] != w.value {
			t.Fatalf("project event %d: %s %s %s=%v, want %s %s %s=%v", i, e.Action, id, w.key, e.Event[w.key], w.action, w.id, w.key, w.value)
		}
	}
	for i, w := range []string{"project.created", "project.closed", "project.deleted"} {
		if e := controller(); e.Action != w || e.Event["project_id"] != pid {
			t.Fatalf("controller event %d: %s %v, want %s", i, e.Action, e.Event["project_id"], w)
		}
	}
}

func TestNotifications_HTTPStream(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.mustCreateProject("lab")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.url+"/v2/projects/"+pid+"/notifications", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("stream answered %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	lines := bufio.NewScanner(res.Body)
	next := func() event {
		if !lines.Scan() {
			t.Fatalf("stream ended: %v", lines.Err())
		}
		var e event
		if err := json.Unmarshal(lines.Bytes(), &e); err != nil {
			t.Fatalf("line %q: %v", lines.Text(), err)
		}
		return e
	}
	if e := next(); e.Action != "ping" {
		t.Fatalf("first line %v", e)
	}
	n := ts.mustCreateNode(pid, map[string]any{"node_type": "vpcs"})
	other := ts.mustCreateProject("other") // another project's changes are not on this stream
	ts.mustCreateNode(other, map[string]any{"node_type": "vpcs"})
	ts.do("DELETE", "/v2/projects/"+pid+"/nodes/"+n["node_id"].(string), nil).want(t, 204)
	// Each change, then what undo would now take (nodedesk's own event).
	for _, want := range []string{"node.created", "history.updated", "node.deleted", "history.updated"} {
		e := next()
		if id := e.Event["node_id"]; e.Action != want || (want != "history.updated" && id != n["node_id"]) {
			t.Fatalf("event %s %v, want %s of %v", e.Action, id, want, n["node_id"])
		}
	}
	ts.do("GET", "/v2/projects/None/notifications", nil).want(t, 404)
	ts.do("GET", "/v2/projects/"+pid+"/notifications/ws", nil).want(t, 400)
}

// TestNotifications_SlowListener: a listener that never reads does not
// hold up writers.
func TestNotifications_SlowListener(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.mustCreateProject("lab")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.url, "http")+"/v2/projects/"+pid+"/notifications/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	n := ts.mustCreateNode(pid, map[string]any{"node_type": "vpcs"})
	path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
	big := strings.Repeat("x", 16<<10) // 16 KiB an event
	start := time.Now()
	for i := range subscriberBuffer + 100 {
		ts.do("PUT", path, map[string]any{"properties": map[string]any{"startup_script": big}, "x": i}).want(t, 200)
	}
	t.Logf("%d writes with a stalled listener took %v", subscriberBuffer+100, time.Since(start))
	// Every write was acknowledged above; that the Broker drops a listener
	// that lags is TestBroker_DropsSlowSubscriber's job.
}

// TestLinks_NAT: a NAT node has one port, nat0, that a lab node can use;
// NAT to cloud is refused, as GNS3 refuses it.
func TestLinks_NAT(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.mustCreateProject("lab")
	nat := ts.mustCreateNode(pid, map[string]any{"node_type": "nat"})
	ports := nat["ports"].([]any)
	if len(ports) != 1 || ports[0].(map[string]any)["name"] != "nat0" {
		t.Fatalf("NAT ports %v", ports)
	}
	pc := ts.mustCreateNode(pid, map[string]any{"node_type": "vpcs"})
	cloud := ts.mustCreateNode(pid, map[string]any{"node_type": "cloud"})
	links := "/v2/projects/" + pid + "/links"
	ts.do("POST", links, map[string]any{"nodes": []any{end(nat["node_id"].(string), 0, 0), end(cloud["node_id"].(string), 0, 0)}}).want(t, 409)
	ts.do("POST", links, map[string]any{"nodes": []any{end(nat["node_id"].(string), 0, 0), end(pc["node_id"].(string), 0, 0)}}).want(t, 201)
}

// TestLinks_LabelPosition: the GNS3 desktop GUI moves a link end's label
// only when it gets x and y, and fails on a null; a new link's labels have
// text and style only, as GNS3's do.
func TestLinks_LabelPosition(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.mustCreateProject("lab")
	a := ts.mustCreateNode(pid, map[string]any{"node_type": "vpcs"})["node_id"].(string)
	b := ts.mustCreateNode(pid, map[string]any{"node_type": "vpcs"})["node_id"].(string)
	l := ts.link(t, pid, a, 0, b, 0)
	path := "/v2/projects/" + pid + "/links/" + l
	label := func(body map[string]any, i int) map[string]any {
		return body["nodes"].([]any)[i].(map[string]any)["label"].(map[string]any)
	}
	keys := func(m map[string]any) string {
		var k []string
		for key := range m {
			k = append(k, key)
		}
		slices.Sort(k)
		return strings.Join(k, ",")
	}
	got := ts.do("GET", path, nil).want(t, 200).json(t)
	if k := keys(label(got, 0)); k != "style,text" {
		t.Errorf("a new link's label has %s, want style,text", k)
	}
	end := func(node string, lbl map[string]any) map[string]any {
		return map[string]any{"node_id": node, "adapter_number": 0, "port_number": 0, "label": lbl}
	}
	got = ts.do("PUT", path, map[string]any{"nodes": []any{
		end(a, map[string]any{"text": "e0", "x": 10, "y": nil, "rotation": 30}),
		end(b, map[string]any{"text": "e0", "x": 10, "y": -5, "rotation": nil}),
	}}).want(t, 200).json(t)
	if l0, l1 := label(got, 0), label(got, 1); keys(l0) != "rotation,text" || keys(l1) != "text,x,y" || l1["y"] != float64(-5) || l0["rotation"] != float64(30) {
		t.Errorf("labels after a half position and a null rotation: %v, %v", l0, l1)
	}
}
