package api

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"nodedesk/app/kit"
)

// TestUserTemplates creates, lists, changes, duplicates and deletes user
// templates as the GNS3 desktop GUI does, refuses to change builtins, and
// makes nodes from a user template with its settings; templates survive a
// restart.
func TestUserTemplates(t *testing.T) {
	ts := mustOpenServer(t)
	builtins := ts.Do("GET", "/v2/templates", nil).Want(t, 200).List(t)

	// The GUI's VPCS template: the common keys and the type's settings.
	vpcs := ts.Do("POST", "/v2/templates", map[string]any{"template_type": "vpcs", "name": "My PC", "compute_id": "local",
		"default_name_format": "{name}-{0}", "category": 2, "console_type": "none", "console_auto_start": true,
		"base_script_file": "vpcs_base_config.txt", "symbol": ":/symbols/computer.svg"}).Want(t, 201).JSON(t)
	for k, v := range map[string]any{"template_type": "vpcs", "name": "My PC", "compute_id": "local", "builtin": false,
		"category": "guest", "console_type": "none", "console_auto_start": true, "symbol": ":/symbols/computer.svg"} {
		if vpcs[k] != v {
			t.Errorf("created template %s = %v, want %v", k, vpcs[k], v)
		}
	}
	vid := vpcs["template_id"].(string)
	// The type's defaults for what is left out.
	sw := ts.Do("POST", "/v2/templates", map[string]any{"template_type": "ethernet_switch", "name": "Core", "compute_id": nil,
		"ports_mapping": []any{map[string]any{"name": "Ethernet0", "port_number": 0, "type": "access", "vlan": 10},
			map[string]any{"name": "Ethernet1", "port_number": 1, "type": "dot1q", "vlan": 1}}}).Want(t, 201).JSON(t)
	if sw["default_name_format"] != "Switch{0}" || sw["category"] != "switch" || sw["symbol"] != ":/symbols/ethernet_switch.svg" || sw["compute_id"] != nil {
		t.Errorf("switch template %v", sw)
	}
	swid := sw["template_id"].(string)

	for _, c := range []struct {
		name, field string
		body        map[string]any
		status      int
	}{
		{"no name", "name", map[string]any{"template_type": "vpcs", "compute_id": "local"}, 400},
		{"no type", "template_type", map[string]any{"name": "x", "compute_id": "local"}, 400},
		{"bad category", "category", map[string]any{"name": "x", "template_type": "vpcs", "compute_id": "local", "category": "toaster"}, 400},
		{"id taken", "template_id", map[string]any{"name": "x", "template_type": "vpcs", "compute_id": "local", "template_id": vid}, 409},
		{"builtin id", "template_id", map[string]any{"name": "x", "template_type": "vpcs", "compute_id": "local", "template_id": builtins[0]["template_id"]}, 409},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := ts.Do("POST", "/v2/templates", c.body).Want(t, c.status).JSON(t)
			if r["field"] != c.field && !strings.Contains(r["message"].(string), "'"+c.field+"'") {
				t.Errorf("field %v, want %s: %v", r["field"], c.field, r["message"])
			}
		})
	}

	// Change: keys given replace, the others stay; template_type is ignored.
	upd := ts.Do("PUT", "/v2/templates/"+vid, map[string]any{"name": "Host", "console_type": "telnet", "template_type": "qemu"}).Want(t, 200).JSON(t)
	if upd["name"] != "Host" || upd["console_type"] != "telnet" || upd["console_auto_start"] != true || upd["template_type"] != "vpcs" {
		t.Errorf("updated %v", upd)
	}
	if got := ts.Do("GET", "/v2/templates/"+vid, nil).Want(t, 200).JSON(t); got["name"] != "Host" {
		t.Errorf("GET after PUT %v", got)
	}

	// Builtins cannot be changed, deleted or duplicated.
	bid := builtins[0]["template_id"].(string)
	for _, c := range []struct{ method, path string }{
		{"PUT", "/v2/templates/" + bid}, {"DELETE", "/v2/templates/" + bid}, {"POST", "/v2/templates/" + bid + "/duplicate"},
	} {
		if r := ts.Do(c.method, c.path, map[string]any{"name": "mine"}).Want(t, 409).JSON(t); !strings.Contains(r["message"].(string), "builtin") {
			t.Errorf("%s %s: %v", c.method, c.path, r)
		}
	}

	// Duplicate: a new id, the same settings and name.
	dup := ts.Do("POST", "/v2/templates/"+vid+"/duplicate", nil).Want(t, 201).JSON(t)
	if dup["template_id"] == vid || dup["name"] != "Host" || dup["console_auto_start"] != true || dup["builtin"] != false {
		t.Errorf("duplicate %v", dup)
	}
	list := ts.Do("GET", "/v2/templates", nil).Want(t, 200).List(t)
	if len(list) != len(builtins)+3 || list[len(builtins)]["template_id"] != vid || list[len(list)-1]["template_id"] != dup["template_id"] {
		t.Errorf("list %v", list)
	}

	// Nodes made from user templates get their settings.
	pid := ts.MustCreateProject("lab")
	n := ts.Do("POST", "/v2/projects/"+pid+"/templates/"+vid, map[string]any{"x": 10, "y": 20}).Want(t, 201).JSON(t)
	if n["name"] != "Host-1" || n["node_type"] != "vpcs" || n["console_type"] != "telnet" || n["console_auto_start"] != true ||
		n["symbol"] != ":/symbols/computer.svg" || n["template_id"] != vid || n["x"] != 10.0 {
		t.Errorf("node from user template %v", n)
	}
	if script := n["properties"].(map[string]any)["startup_script"]; script != "set pcname Host-1\n" {
		t.Errorf("node from a template with base_script_file has script %q, want the file's naming the node", script)
	}
	s := ts.Do("POST", "/v2/projects/"+pid+"/templates/"+swid, map[string]any{"x": 0, "y": 0}).Want(t, 201).JSON(t)
	ports := s["properties"].(map[string]any)["ports_mapping"].([]any)
	if s["name"] != "Switch1" || len(ports) != 2 || ports[0].(map[string]any)["vlan"] != 10.0 || ports[1].(map[string]any)["type"] != "dot1q" {
		t.Errorf("switch from user template %v", s)
	}

	// Usage: the nodes made from a template, over every project, counted
	// before a delete; a template nothing was made from is unused.
	pid2 := ts.MustCreateProject("lab 2")
	ts.Do("POST", "/v2/projects/"+pid2+"/templates/"+vid, map[string]any{"x": 0, "y": 0}).Want(t, 201)
	ts.Do("POST", "/v2/projects/"+pid2+"/templates/"+vid, map[string]any{"x": 90, "y": 0}).Want(t, 201)
	if u := ts.Do("GET", "/v2/templates/"+vid+"/usage", nil).Want(t, 200).JSON(t); u["nodes"] != 3.0 || u["projects"] != 2.0 {
		t.Errorf("usage of the VPCS template %v, want 3 nodes in 2 projects", u)
	}
	if u := ts.Do("GET", "/v2/templates/"+dup["template_id"].(string)+"/usage", nil).Want(t, 200).JSON(t); u["nodes"] != 0.0 || u["projects"] != 0.0 {
		t.Errorf("usage of an unused template %v", u)
	}
	ts.Do("GET", "/v2/templates/"+uuid.NewString()+"/usage", nil).Want(t, 404)

	// Survive a restart; deleted ones go.
	ts.restart()
	if got := ts.Do("GET", "/v2/templates/"+swid, nil).Want(t, 200).JSON(t); len(got["ports_mapping"].([]any)) != 2 {
		t.Errorf("after restart %v", got)
	}
	ts.Do("DELETE", "/v2/templates/"+dup["template_id"].(string), nil).Want(t, 204)
	ts.Do("DELETE", "/v2/templates/"+dup["template_id"].(string), nil).Want(t, 404)
	ts.Do("POST", "/v2/projects/"+pid+"/templates/"+dup["template_id"].(string), map[string]any{"x": 0, "y": 0}).Want(t, 404)
	if got := ts.Do("GET", "/v2/templates", nil).Want(t, 200).List(t); len(got) != len(builtins)+2 {
		t.Errorf("after delete: %d templates", len(got))
	}
}

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
	l := ts.Do("GET", "/v2/templates", nil).Want(t, 200).List(t)
	if len(l) != len(builtinTemplateIDs) {
		t.Fatalf("%d templates, want %d", len(l), len(builtinTemplateIDs))
	}
	for _, tmpl := range l {
		if builtinTemplateIDs[tmpl["name"].(string)] != tmpl["template_id"] || tmpl["builtin"] != true || tmpl["category"] == "" {
			t.Errorf("template %v", tmpl)
		}
	}
	vpcs := builtinTemplateIDs["VPCS"]
	if got := ts.Do("GET", "/v2/templates/"+vpcs, nil).Want(t, 200).JSON(t); got["template_type"] != "vpcs" || got["default_name_format"] != "PC{0}" ||
		got["base_script_file"] != "vpcs_base_config.txt" {
		t.Errorf("VPCS template %v, want GNS3's with its base script file", got)
	}
	ts.Do("GET", "/v2/templates/00000000-0000-4000-8000-000000000000", nil).Want(t, 404)

	pid := ts.MustCreateProject("lab")
	use := func(tid string, body any) kit.Response {
		return ts.Do("POST", "/v2/projects/"+pid+"/templates/"+tid, body)
	}
	for name, tid := range builtinTemplateIDs {
		n := use(tid, map[string]any{"x": 10, "y": 20, "compute_id": "local"}).Want(t, 201).JSON(t)
		if n["template_id"] != tid || n["x"] != float64(10) || n["y"] != float64(20) || n["compute_id"] != "local" {
			t.Errorf("%s: node %v", name, n)
		}
	}
	n := use(vpcs, map[string]any{"x": 0, "y": 0, "name": "client"}).Want(t, 201).JSON(t)
	if n["name"] != "client" || n["node_type"] != "vpcs" {
		t.Errorf("named node from template: %v", n)
	}
	// GNS3's base script: the prompt is the node's name (%h, put in the file).
	if script := n["properties"].(map[string]any)["startup_script"]; script != "set pcname client\n" {
		t.Errorf("VPCS from the builtin template has script %q, want GNS3's base script", script)
	}
	if n := use(vpcs, map[string]any{"x": 0, "y": 0}).Want(t, 201).JSON(t); n["name"] != "PC2" {
		t.Errorf("second VPCS from the template is %v, want PC2", n["name"])
	}
	use(vpcs, map[string]any{"x": 0}).Want(t, 400)
	use(vpcs, map[string]any{"x": 0, "y": 0, "symbol": "x"}).Want(t, 400)
	use(vpcs, map[string]any{"x": 0, "y": 0, "compute_id": "vm"}).Want(t, 404)
	use("00000000-0000-4000-8000-000000000000", map[string]any{"x": 0, "y": 0}).Want(t, 404)
	ts.Do("POST", "/v2/projects/None/templates/"+vpcs, map[string]any{"x": 0, "y": 0}).Want(t, 404)
}

// TestTemplates_Notifications: the controller stream (websocket and HTTP)
// carries template.created, template.updated and template.deleted, each
// with the template as GET /v2/templates/{id} shows it, as GNS3's
// controller sends them; the GNS3 GUI learns the templates its wizard
// makes only from these. A change that changes nothing, or is refused,
// says nothing.
func TestTemplates_Notifications(t *testing.T) {
	ts := mustOpenServer(t)
	ws, _ := ts.WSListen(t, "/v2/notifications/ws")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/v2/notifications", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	lines := bufio.NewScanner(res.Body)
	lines.Buffer(nil, 1<<20)
	httpNext := func() kit.Event {
		t.Helper()
		for lines.Scan() {
			var e kit.Event
			if err := json.Unmarshal(lines.Bytes(), &e); err != nil {
				t.Fatalf("line %q: %v", lines.Text(), err)
			}
			if e.Action != "ping" && e.Action != "compute.updated" {
				return e
			}
		}
		t.Fatalf("HTTP stream ended: %v", lines.Err())
		return kit.Event{}
	}
	if res.StatusCode != 200 {
		t.Fatalf("HTTP stream answered %d", res.StatusCode)
	}
	// want reads the next event of both streams: action, and the body GET
	// answers (as it was before a delete).
	want := func(action string, body map[string]any) {
		t.Helper()
		for name, next := range map[string]func() kit.Event{"websocket": ws, "HTTP": httpNext} {
			e := next()
			if e.Action != action || !reflect.DeepEqual(e.Event, body) {
				t.Fatalf("%s stream: %s %v\nwant %s %v", name, e.Action, e.Event, action, body)
			}
		}
	}
	get := func(id string) map[string]any {
		return ts.Do("GET", "/v2/templates/"+id, nil).Want(t, 200).JSON(t)
	}

	// The GUI's wizard posts the template with its own id and no callback.
	id := uuid.NewString()
	ts.Do("POST", "/v2/templates", map[string]any{"template_id": id, "template_type": "vpcs", "name": "Host",
		"compute_id": "local", "category": 2, "symbol": ":/symbols/computer.svg"}).Want(t, 201)
	created := get(id)
	want("template.created", created)

	ts.Do("POST", "/v2/templates", map[string]any{"template_id": id, "template_type": "vpcs", "name": "Again", "compute_id": "local"}).Want(t, 409)
	ts.Do("PUT", "/v2/templates/"+id, map[string]any{"name": ""}).Want(t, 400)
	ts.Do("PUT", "/v2/templates/"+id, map[string]any{"name": "Host"}).Want(t, 200) // no change
	ts.Do("PUT", "/v2/templates/"+id, map[string]any{"name": "Server", "console_type": "none"}).Want(t, 200)
	updated := get(id)
	if updated["name"] != "Server" {
		t.Fatalf("after PUT: %v", updated)
	}
	want("template.updated", updated)

	dup := ts.Do("POST", "/v2/templates/"+id+"/duplicate", nil).Want(t, 201).JSON(t)
	want("template.created", get(dup["template_id"].(string)))

	ts.Do("DELETE", "/v2/templates/"+builtinTemplateIDs["VPCS"], nil).Want(t, 409)
	ts.Do("DELETE", "/v2/templates/"+id, nil).Want(t, 204)
	want("template.deleted", updated)
}
