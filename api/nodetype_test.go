package api

import (
	"fmt"
	"strings"
	"testing"
)

// TestNodeTypes checks that what GET /v2/node_types says of each type is
// what the API does: the UI relies on it instead of rules of its own.
func TestNodeTypes(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	infos := ts.Do("GET", "/v2/node_types", nil).Want(t, 200).List(t)
	if len(infos) != 14 {
		t.Fatalf("%d node types, want the spec's 13 and GNS3 2.2's traceng", len(infos))
	}
	all := []any{"telnet", "vnc", "http", nil}
	for _, info := range infos {
		typ := info["node_type"].(string)
		t.Run(typ, func(t *testing.T) {
			n := ts.MustCreateNode(pid, map[string]any{"node_type": typ})
			path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)

			allowed := info["console_types"].([]any)
			if n["console_type"] != allowed[0] {
				t.Errorf("new node's console_type %v, want the first listed, %v", n["console_type"], allowed[0])
			}
			for _, ct := range all {
				listed := false
				for _, a := range allowed {
					listed = listed || a == ct
				}
				want := 400
				if listed {
					want = 200
				}
				ts.Do("PUT", path, map[string]any{"console_type": ct}).Want(t, want)
			}

			// runs is false exactly for the types whose start is refused.
			switch runs := info["runs"]; {
			case runs == false:
				if e := ts.Do("POST", path+"/start", nil).Want(t, 409).JSON(t); !strings.Contains(e["message"].(string), "nodedesk does not run") {
					t.Errorf("start of a %s (runs false): %v", typ, e["message"])
				}
			case runs != true:
				t.Errorf("runs %v, want a boolean", runs)
			case info["lifecycle"] == "always_running":
				ts.Do("POST", path+"/start", nil).Want(t, 200)
			}

			wantStatus := map[string]string{"process": "stopped", "always_running": "started"}[info["lifecycle"].(string)]
			if n["status"] != wantStatus {
				t.Errorf("new node's status %v, want %s for lifecycle %v", n["status"], wantStatus, info["lifecycle"])
			}
			if info["lifecycle"] == "process" {
				ts.Do("POST", path+"/suspend", nil).Want(t, 200)
				if got := ts.Do("GET", path, nil).Want(t, 200).JSON(t)["status"]; got != "stopped" {
					t.Errorf("suspend of a stopped %s gave %v", typ, got)
				}
			} else {
				ts.Do("POST", path+"/stop", nil).Want(t, 200)
				if got := ts.Do("GET", path, nil).Want(t, 200).JSON(t)["status"]; got != "started" {
					t.Errorf("stop of an always-running %s gave %v", typ, got)
				}
			}

			props := n["properties"].(map[string]any)
			if keys, ok := info["properties"].([]any); ok {
				if len(props) != len(keys) {
					t.Errorf("properties %v, want the keys %v", props, keys)
				}
				for _, k := range keys {
					if _, ok := props[k.(string)]; !ok {
						t.Errorf("properties lack %v: %v", k, props)
					}
				}
			}

			computed := ts.Do("GET", "/v2/compute/projects/"+pid+"/"+typ+"/nodes/"+n["node_id"].(string), nil).Status
			if want := map[bool]int{true: 200, false: 404}[info["compute_view"] == true]; computed != want {
				t.Errorf("compute view answered %d, want %d", computed, want)
			}
			if info["default_name_format"] == "" || info["symbol"] != n["symbol"] {
				t.Errorf("default name %v, symbol %v; the node has symbol %v", info["default_name_format"], info["symbol"], n["symbol"])
			}
		})
	}
}

// TestErrorBody checks the error shape: GNS3's message and status, and the
// code and field path the UI reads instead of the wording.
func TestErrorBody(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	sw := ts.MustCreateNode(pid, map[string]any{"node_type": "ethernet_switch"})["node_id"].(string)
	pc := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs"})
	fr := ts.MustCreateNode(pid, map[string]any{"node_type": "frame_relay_switch"})["node_id"].(string)
	ports := func(vlan any) []any {
		return []any{map[string]any{"name": "e0", "port_number": 0, "type": "access", "vlan": 1},
			map[string]any{"name": "e1", "port_number": 1, "type": "access", "vlan": vlan}}
	}
	ctrl := "/v2/projects/" + pid + "/nodes/"
	link := "/v2/projects/" + pid + "/links/" + ts.Link(t, pid, sw, 0, pc["node_id"].(string), 0)
	tests := []struct {
		name, method, path string
		body               any
		wantStatus         int
		wantCode           string
		wantField          string
	}{
		{"RuleInProperties", "PUT", ctrl + sw, map[string]any{"properties": map[string]any{"ports_mapping": ports(5000)}}, 400, "invalid", "properties.ports_mapping.1.vlan"},
		{"RuleInComputeView", "PUT", "/v2/compute/projects/" + pid + "/ethernet_switch/nodes/" + sw, map[string]any{"ports_mapping": ports(5000)}, 400, "invalid", "ports_mapping.1.vlan"},
		{"SchemaInProperties", "PUT", ctrl + sw, map[string]any{"properties": map[string]any{"ports_mapping": ports("ten")}}, 400, "invalid", "properties.ports_mapping.1.vlan"},
		{"SchemaTopLevel", "PUT", ctrl + sw, map[string]any{"x": "left"}, 400, "invalid", "x"},
		{"ConsoleRange", "PUT", ctrl + pc["node_id"].(string), map[string]any{"console": 80}, 400, "invalid", "console"},
		{"Mappings", "PUT", ctrl + fr, map[string]any{"properties": map[string]any{"mappings": map[string]any{"1:101": "2:2000"}}}, 400, "invalid", "properties.mappings"},
		{"FilterValue", "PUT", link, map[string]any{"filters": map[string]any{"delay": []any{100, -5}}}, 400, "invalid", "filters.delay.1"},
		{"FilterArity", "PUT", link, map[string]any{"filters": map[string]any{"packet_loss": []any{1, 2}}}, 400, "invalid", "filters.packet_loss"},
		{"FilterUnknown", "PUT", link, map[string]any{"filters": map[string]any{"bpf": []any{"icmp"}}}, 400, "invalid", "filters.bpf"},
		{"NameTaken", "PUT", ctrl + sw, map[string]any{"name": pc["name"]}, 409, "conflict", "name"},
		{"NotFound", "GET", ctrl + "00000000-0000-4000-8000-000000000000", nil, 404, "not_found", ""},
		{"NoRoute", "GET", "/v2/nothing", nil, 404, "not_found", ""},
		{"Method", "PATCH", ctrl + sw, nil, 405, "method_not_allowed", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := ts.Do(tt.method, tt.path, tt.body).Want(t, tt.wantStatus).JSON(t)
			if e["status"] != float64(tt.wantStatus) || e["code"] != tt.wantCode || e["message"] == "" {
				t.Errorf("error body %v, want status %d and code %s", e, tt.wantStatus, tt.wantCode)
			}
			if field, _ := e["field"].(string); field != tt.wantField {
				t.Errorf("field %q, want %q (%v)", field, tt.wantField, e["message"])
			}
		})
	}
}

// TestDynamipsPlatforms: every choice GET /v2/dynamips/platforms offers
// (what the UI's slot menus list) is one the API accepts, and gives the
// router the ports of the adapter.
func TestDynamipsPlatforms(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	platforms := ts.Do("GET", "/v2/dynamips/platforms", nil).Want(t, 200).List(t)
	if len(platforms) != 7 {
		t.Fatalf("%d platforms, want GNS3 2.2's 7", len(platforms))
	}
	for _, p := range platforms {
		platform := p["platform"].(string)
		for _, c := range p["chassis"].([]any) {
			ch := c.(map[string]any)
			props := map[string]any{"platform": platform}
			if name := ch["name"].(string); name != "" {
				props["chassis"] = name
			}
			n := ts.MustCreateNode(pid, map[string]any{"node_type": "dynamips", "properties": props})
			path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
			base := len(n["ports"].([]any))
			for _, s := range ch["slots"].([]any) {
				slot := s.(map[string]any)
				key := fmt.Sprintf("slot%d", int(slot["slot"].(float64)))
				if slot["built_in"].(bool) {
					continue
				}
				for _, a := range slot["adapters"].([]any) {
					got := ts.Do("PUT", path, map[string]any{"properties": map[string]any{key: a}}).Want(t, 200).JSON(t)
					if key != "slot0" && len(got["ports"].([]any)) <= base {
						t.Errorf("%s %v: %s = %v gave no ports", platform, ch["name"], key, a)
					}
					ts.Do("PUT", path, map[string]any{"properties": map[string]any{key: nil}}).Want(t, 200)
				}
			}
			for i := range int(ch["wic_slots"].(float64)) {
				for _, w := range p["wics"].([]any) {
					key := fmt.Sprintf("wic%d", i)
					got := ts.Do("PUT", path, map[string]any{"properties": map[string]any{key: w}}).Want(t, 200).JSON(t)
					if len(got["ports"].([]any)) <= base {
						t.Errorf("%s %v: %s = %v gave no ports", platform, ch["name"], key, w)
					}
					ts.Do("PUT", path, map[string]any{"properties": map[string]any{key: nil}}).Want(t, 200)
				}
			}
		}
	}
}
