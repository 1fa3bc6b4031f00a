package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// computeTypes are the six node types with a compute view.
var computeTypes = []string{"vpcs", "cloud", "ethernet_switch", "ethernet_hub", "frame_relay_switch", "atm_switch"}

func TestNodeCreate_DefaultsPerType(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	tests := []struct {
		nodeType    string
		wantName    string
		wantConsole any
		wantCType   any
		wantStatus  string
		wantPorts   int
		wantSize    [2]float64
		wantProps   []string
	}{
		{"vpcs", "PC1", float64(5000), "telnet", "stopped", 1, [2]float64{65, 59}, []string{"startup_script", "startup_script_path"}},
		{"ethernet_switch", "Switch1", nil, nil, "started", 8, [2]float64{72, 32}, []string{"ports_mapping"}},
		{"ethernet_hub", "Hub1", nil, nil, "started", 8, [2]float64{72, 32}, []string{"ports_mapping"}},
		{"frame_relay_switch", "FRSW1", nil, nil, "started", 0, [2]float64{51, 48}, []string{"mappings"}},
		{"cloud", "Cloud1", nil, nil, "started", 1, [2]float64{159, 71}, []string{"interfaces", "ports_mapping", "remote_console_host", "remote_console_http_path", "remote_console_port", "remote_console_type"}},
		{"qemu", "QEMU1", float64(5001), "telnet", "stopped", 1, [2]float64{65, 59}, qemuProperties},
	}
	for _, tt := range tests {
		t.Run(tt.nodeType, func(t *testing.T) {
			n := ts.MustCreateNode(pid, map[string]any{"node_type": tt.nodeType, "compute_id": "local"})
			if n["name"] != tt.wantName || n["console"] != tt.wantConsole || n["console_type"] != tt.wantCType || n["status"] != tt.wantStatus {
				t.Errorf("name/console/console_type/status = %v/%v/%v/%v, want %v/%v/%v/%v",
					n["name"], n["console"], n["console_type"], n["status"], tt.wantName, tt.wantConsole, tt.wantCType, tt.wantStatus)
			}
			if got := len(n["ports"].([]any)); got != tt.wantPorts {
				t.Errorf("%d ports, want %d", got, tt.wantPorts)
			}
			if n["width"] != tt.wantSize[0] || n["height"] != tt.wantSize[1] {
				t.Errorf("size %vx%v, want %v", n["width"], n["height"], tt.wantSize)
			}
			label := n["label"].(map[string]any)
			if label["text"] != tt.wantName || label["y"] != -float64(int(tt.wantSize[1]/2+10+0.5)) {
				t.Errorf("label %v", label)
			}
			props := n["properties"].(map[string]any)
			if len(props) != len(tt.wantProps) {
				t.Errorf("properties %v, want keys %v", props, tt.wantProps)
			}
			for _, k := range tt.wantProps {
				if _, ok := props[k]; !ok {
					t.Errorf("properties lack %s: %v", k, props)
				}
			}
			if n["z"] != float64(1) || n["compute_id"] != "local" || n["project_id"] != pid {
				t.Errorf("z/compute_id/project_id = %v/%v/%v", n["z"], n["compute_id"], n["project_id"])
			}
		})
	}
}

func TestNodeCreate_SwitchPortsAndNaming(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	sw := ts.MustCreateNode(pid, map[string]any{"node_type": "ethernet_switch"})
	port3 := sw["ports"].([]any)[3].(map[string]any)
	if port3["name"] != "Ethernet3" || port3["short_name"] != "e3" || port3["port_number"] != float64(3) || port3["adapter_number"] != float64(0) || port3["link_type"] != "ethernet" {
		t.Errorf("port 3 = %v", port3)
	}
	for _, tt := range []struct{ give, want string }{
		{"My PC", "MyPC"}, {"MyPC", "MyPC1"}, {"R{0}", "R1"}, {"R{0}", "R2"}, {"R2", "R3"},
	} {
		n := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": tt.give})
		if n["name"] != tt.want {
			t.Errorf("name %q became %q, want %q", tt.give, n["name"], tt.want)
		}
	}
}

// TestNodeViews_Agree changes each type through one view and reads it
// through the other.
func TestNodeViews_Agree(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	tests := []struct {
		nodeType   string
		computePut map[string]any // changes through the compute view
		ctrlProps  map[string]any // changes through the controller's properties
		check      func(t *testing.T, ctrl, compute map[string]any)
	}{
		{"vpcs", map[string]any{"startup_script": "ip 10.0.0.1/24"}, map[string]any{"startup_script": "ip 10.0.0.2/24"},
			func(t *testing.T, ctrl, compute map[string]any) {
				if ctrl["properties"].(map[string]any)["startup_script"] != compute["startup_script"] || compute["startup_script_path"] != "startup.vpc" {
					t.Errorf("script: controller %v, compute %v", ctrl["properties"], compute)
				}
				if ctrl["console"] != compute["console"] || ctrl["node_directory"] != compute["node_directory"] || ctrl["status"] != compute["status"] {
					t.Errorf("console/dir/status differ: %v vs %v", ctrl, compute)
				}
			}},
		{"ethernet_switch",
			map[string]any{"ports_mapping": []any{map[string]any{"name": "Gi0", "port_number": 0, "type": "dot1q", "vlan": 1}, map[string]any{"name": "Gi1", "port_number": 1, "type": "qinq", "vlan": 100, "ethertype": "0x88A8"}}},
			map[string]any{"ports_mapping": []any{map[string]any{"name": "Fa0", "port_number": 0, "type": "access", "vlan": 10, "ethertype": ""}}},
			func(t *testing.T, ctrl, compute map[string]any) {
				assertJSONEqual(t, ctrl["properties"].(map[string]any)["ports_mapping"], compute["ports_mapping"])
				if len(ctrl["ports"].([]any)) != len(compute["ports_mapping"].([]any)) {
					t.Errorf("ports %v do not follow ports_mapping %v", ctrl["ports"], compute["ports_mapping"])
				}
			}},
		{"ethernet_hub", map[string]any{"ports_mapping": []any{map[string]any{"name": "p0", "port_number": 0}}},
			map[string]any{"ports_mapping": []any{map[string]any{"name": "a", "port_number": 0}, map[string]any{"name": "b", "port_number": 1}}},
			func(t *testing.T, ctrl, compute map[string]any) {
				assertJSONEqual(t, ctrl["properties"].(map[string]any)["ports_mapping"], compute["ports_mapping"])
			}},
		{"frame_relay_switch", map[string]any{"mappings": map[string]any{"1:101": "2:201"}},
			map[string]any{"mappings": map[string]any{"1:102": "3:301", "2:202": "3:302"}},
			func(t *testing.T, ctrl, compute map[string]any) {
				assertJSONEqual(t, ctrl["properties"].(map[string]any)["mappings"], compute["mappings"])
				ports := ctrl["ports"].([]any)
				if len(ports) == 0 || ports[0].(map[string]any)["link_type"] != "serial" {
					t.Errorf("Frame Relay ports %v", ports)
				}
			}},
		{"cloud", map[string]any{"ports_mapping": []any{map[string]any{"name": "tun", "port_number": 0, "type": "udp", "lport": 20000, "rhost": "127.0.0.1", "rport": 20001}}},
			map[string]any{"interfaces": []any{map[string]any{"name": "eth9", "special": false, "type": "ethernet"}}},
			func(t *testing.T, ctrl, compute map[string]any) {
				assertJSONEqual(t, ctrl["properties"].(map[string]any)["interfaces"], compute["interfaces"])
				assertJSONEqual(t, ctrl["properties"].(map[string]any)["ports_mapping"], compute["ports_mapping"])
			}},
	}
	for _, tt := range tests {
		t.Run(tt.nodeType, func(t *testing.T) {
			computeBase := "/v2/compute/projects/" + pid + "/" + tt.nodeType + "/nodes"
			created := ts.Do("POST", computeBase, map[string]any{"name": "n-" + tt.nodeType}).Want(t, 201).JSON(t)
			nid := created["node_id"].(string)
			ctrlPath, computePath := "/v2/projects/"+pid+"/nodes/"+nid, computeBase+"/"+nid

			// compute -> controller
			body := map[string]any{"name": "c-" + tt.nodeType}
			for k, v := range tt.computePut {
				body[k] = v
			}
			ts.Do("PUT", computePath, body).Want(t, 200)
			ctrl := ts.Do("GET", ctrlPath, nil).Want(t, 200).JSON(t)
			compute := ts.Do("GET", computePath, nil).Want(t, 200).JSON(t)
			if ctrl["name"] != "c-"+tt.nodeType || compute["name"] != ctrl["name"] || ctrl["label"].(map[string]any)["text"] != ctrl["name"] {
				t.Errorf("rename through compute: controller %v, compute %v", ctrl["name"], compute["name"])
			}
			tt.check(t, ctrl, compute)

			// controller -> compute
			ts.Do("PUT", ctrlPath, map[string]any{"name": "k-" + tt.nodeType, "x": 10, "properties": tt.ctrlProps}).Want(t, 200)
			ctrl = ts.Do("GET", ctrlPath, nil).Want(t, 200).JSON(t)
			compute = ts.Do("GET", computePath, nil).Want(t, 200).JSON(t)
			if compute["name"] != "k-"+tt.nodeType || ctrl["x"] != float64(10) {
				t.Errorf("rename through controller: compute %v, controller x %v", compute["name"], ctrl["x"])
			}
			tt.check(t, ctrl, compute)

			// The same node is listed once, and deleting it through either
			// view removes it from both.
			if l := ts.Do("GET", "/v2/projects/"+pid+"/nodes", nil).Want(t, 200).List(t); !containsNode(l, nid) {
				t.Errorf("node %s not listed", nid)
			}
			ts.Do("DELETE", computePath, nil).Want(t, 204)
			ts.Do("GET", ctrlPath, nil).Want(t, 404)
			ts.Do("GET", computePath, nil).Want(t, 404)
			ts.Do("DELETE", ctrlPath, nil).Want(t, 404)
		})
	}
}

func containsNode(l []map[string]any, id string) bool {
	for _, n := range l {
		if n["node_id"] == id {
			return true
		}
	}
	return false
}

func assertJSONEqual(t *testing.T, a, b any) {
	t.Helper()
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	if !bytes.Equal(x, y) {
		t.Errorf("views differ:\n%s\n%s", x, y)
	}
}

// TestNodeEndpoints_Status covers the status codes of the spec's tables
// for every endpoint and type.
func TestNodeEndpoints_Status(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	other := ts.MustCreateProject("other")
	ids := map[string]string{}
	for _, typ := range computeTypes {
		ids[typ] = ts.MustCreateNode(pid, map[string]any{"node_type": typ})["node_id"].(string)
	}
	missing := "00000000-0000-4000-8000-000000000000"
	for _, typ := range computeTypes {
		nid := ids[typ]
		wrongType := ids["vpcs"]
		if typ == "vpcs" {
			wrongType = ids["cloud"]
		}
		compute := func(p, n string) string { return "/v2/compute/projects/" + p + "/" + typ + "/nodes/" + n }
		ctrl := func(p, n string) string { return "/v2/projects/" + p + "/nodes/" + n }
		tests := []struct {
			name   string
			method string
			path   string
			body   any
			want   int
		}{
			{"controller GET", "GET", ctrl(pid, nid), nil, 200},
			{"controller PUT", "PUT", ctrl(pid, nid), map[string]any{"x": 5}, 200},
			{"controller PUT empty body", "PUT", ctrl(pid, nid), nil, 200},
			{"controller GET bad project id", "GET", ctrl("abc", nid), nil, 400},
			{"controller GET bad node id", "GET", ctrl(pid, "abc"), nil, 400},
			{"controller PUT bad node id", "PUT", ctrl(pid, "abc"), map[string]any{}, 400},
			{"controller DELETE bad node id", "DELETE", ctrl(pid, "abc"), nil, 400},
			{"controller GET unknown project", "GET", ctrl(missing, nid), nil, 404},
			{"controller GET unknown node", "GET", ctrl(pid, missing), nil, 404},
			{"controller GET node of other project", "GET", ctrl(other, nid), nil, 404},
			{"controller PUT unknown node", "PUT", ctrl(pid, missing), map[string]any{"x": 1}, 404},
			{"controller DELETE unknown node", "DELETE", ctrl(pid, missing), nil, 404},
			{"compute GET", "GET", compute(pid, nid), nil, 200},
			{"compute PUT", "PUT", compute(pid, nid), map[string]any{"name": "renamed-" + typ}, 200},
			{"compute GET bad project id", "GET", compute("abc", nid), nil, 400},
			{"compute GET bad node id", "GET", compute(pid, "abc"), nil, 400},
			{"compute PUT bad node id", "PUT", compute(pid, "abc"), map[string]any{}, 400},
			{"compute DELETE bad node id", "DELETE", compute(pid, "abc"), nil, 400},
			{"compute GET unknown node", "GET", compute(pid, missing), nil, 404},
			{"compute GET unknown project", "GET", compute(missing, nid), nil, 404},
			{"compute GET node of another type", "GET", compute(pid, wrongType), nil, 404},
			{"compute PUT node of another type", "PUT", compute(pid, wrongType), map[string]any{}, 404},
			{"compute DELETE node of another type", "DELETE", compute(pid, wrongType), nil, 404},
			{"compute PUT unknown node", "PUT", compute(pid, missing), map[string]any{}, 404},
			{"compute DELETE unknown node", "DELETE", compute(pid, missing), nil, 404},
			{"compute DELETE", "DELETE", compute(pid, nid), nil, 204},
			{"compute GET deleted", "GET", compute(pid, nid), nil, 404},
			{"controller DELETE deleted", "DELETE", ctrl(pid, nid), nil, 404},
		}
		for _, tt := range tests {
			t.Run(typ+"/"+tt.name, func(t *testing.T) {
				r := ts.Do(tt.method, tt.path, tt.body)
				if r.Status != tt.want {
					t.Fatalf("%s %s: %d, want %d: %s", tt.method, tt.path, r.Status, tt.want, r.Body)
				}
			})
		}
	}
	// A controller DELETE answers 204 with no body too.
	n := ts.MustCreateNode(pid, map[string]any{"node_type": "qemu"})
	ts.Do("DELETE", "/v2/projects/"+pid+"/nodes/"+n["node_id"].(string), nil).Want(t, 204)
}

// TestNodeUpdate_Invalid sends bodies the contract calls invalid: each
// answers 400 with a message, and the node is exactly as before.
func TestNodeUpdate_Invalid(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	node := map[string]string{}
	for _, typ := range append(computeTypes, "qemu") {
		node[typ] = ts.MustCreateNode(pid, map[string]any{"node_type": typ})["node_id"].(string)
	}
	ctrl := func(typ string) string { return "/v2/projects/" + pid + "/nodes/" + node[typ] }
	compute := func(typ string) string { return "/v2/compute/projects/" + pid + "/" + typ + "/nodes/" + node[typ] }
	port := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name, typ, path string
		body            any
		wantMsg         string
	}{
		{"x is a string", "vpcs", ctrl("vpcs"), map[string]any{"x": "a"}, "x"},
		{"x is a float", "vpcs", ctrl("vpcs"), map[string]any{"x": 1.5}, "x"},
		{"x is too big", "vpcs", ctrl("vpcs"), map[string]any{"x": 1e20}, "x"},
		{"name is a number", "vpcs", ctrl("vpcs"), map[string]any{"name": 3}, "name"},
		{"name is empty", "vpcs", ctrl("vpcs"), map[string]any{"name": ""}, "name"},
		{"name is null on the controller", "vpcs", ctrl("vpcs"), map[string]any{"name": nil}, "name"},
		{"console is a string", "vpcs", ctrl("vpcs"), map[string]any{"console": "5000"}, "console"},
		{"console out of range", "vpcs", ctrl("vpcs"), map[string]any{"console": 70000}, "console"},
		{"console privileged", "vpcs", ctrl("vpcs"), map[string]any{"console": 80}, "Console port 80"},
		{"console_type not in enum", "vpcs", ctrl("vpcs"), map[string]any{"console_type": "spice"}, "console_type"},
		{"console_type none: a VPCS cannot be without a console", "vpcs", ctrl("vpcs"), map[string]any{"console_type": "none"}, "console_type"},
		{"vpcs console_type vnc", "vpcs", ctrl("vpcs"), map[string]any{"console_type": "vnc"}, "telnet"},
		{"vpcs compute console_type vnc", "vpcs", compute("vpcs"), map[string]any{"console_type": "vnc"}, "console_type"},
		{"switch console", "ethernet_switch", ctrl("ethernet_switch"), map[string]any{"console": 6000}, "no console"},
		{"node_type not in enum", "vpcs", ctrl("vpcs"), map[string]any{"node_type": "router"}, "node_type"},
		{"status not in enum", "vpcs", ctrl("vpcs"), map[string]any{"status": "running"}, "status"},
		{"unknown field", "vpcs", ctrl("vpcs"), map[string]any{"bogus": 1}, "bogus"},
		{"label without text", "vpcs", ctrl("vpcs"), map[string]any{"label": map[string]any{"x": 5}}, "text"},
		{"label rotation", "vpcs", ctrl("vpcs"), map[string]any{"label": map[string]any{"text": "a", "rotation": 400}}, "rotation"},
		{"vpcs property of a switch", "vpcs", ctrl("vpcs"), map[string]any{"properties": map[string]any{"ports_mapping": []any{}}}, "ports_mapping"},
		{"switch property of a vpcs", "ethernet_switch", ctrl("ethernet_switch"), map[string]any{"properties": map[string]any{"startup_script": "x"}}, "startup_script"},
		{"switch port without type", "ethernet_switch", compute("ethernet_switch"), map[string]any{"ports_mapping": []any{port("name", "e0", "port_number", 0)}}, "type"},
		{"switch port without name", "ethernet_switch", ctrl("ethernet_switch"), map[string]any{"properties": map[string]any{"ports_mapping": []any{port("port_number", 0, "type", "access")}}}, "name"},
		{"switch port bad type", "ethernet_switch", compute("ethernet_switch"), map[string]any{"ports_mapping": []any{port("name", "e0", "port_number", 0, "type", "trunk")}}, "type"},
		{"switch port bad ethertype", "ethernet_switch", compute("ethernet_switch"), map[string]any{"ports_mapping": []any{port("name", "e0", "port_number", 0, "type", "qinq", "ethertype", "0x1234")}}, "ethertype"},
		{"switch port VLAN 0", "ethernet_switch", compute("ethernet_switch"), map[string]any{"ports_mapping": []any{port("name", "e0", "port_number", 0, "type", "access", "vlan", 0)}}, "vlan"},
		{"switch port numbers repeat", "ethernet_switch", compute("ethernet_switch"), map[string]any{"ports_mapping": []any{port("name", "a", "port_number", 1, "type", "access"), port("name", "b", "port_number", 1, "type", "access")}}, "twice"},
		{"hub port without name", "ethernet_hub", compute("ethernet_hub"), map[string]any{"ports_mapping": []any{port("port_number", 0)}}, "name"},
		{"hub port without number", "ethernet_hub", ctrl("ethernet_hub"), map[string]any{"properties": map[string]any{"ports_mapping": []any{port("name", "x")}}}, "port_number"},
		{"cloud interface without special", "cloud", compute("cloud"), map[string]any{"interfaces": []any{port("name", "eth0", "type", "ethernet")}}, "special"},
		{"cloud interface bad type", "cloud", ctrl("cloud"), map[string]any{"properties": map[string]any{"interfaces": []any{port("name", "eth0", "type", "wifi", "special", false)}}}, "type"},
		{"cloud port udp without rport", "cloud", compute("cloud"), map[string]any{"ports_mapping": []any{port("name", "u", "port_number", 0, "type", "udp", "lport", 1, "rhost", "h")}}, "ports_mapping"},
		{"FR mapping not port:dlci", "frame_relay_switch", compute("frame_relay_switch"), map[string]any{"mappings": map[string]any{"1": "2:201"}}, "port:DLCI"},
		{"FR mapping value not a string", "frame_relay_switch", compute("frame_relay_switch"), map[string]any{"mappings": map[string]any{"1:101": 2}}, "mappings"},
		{"FR DLCI out of range", "frame_relay_switch", ctrl("frame_relay_switch"), map[string]any{"properties": map[string]any{"mappings": map[string]any{"1:101": "2:5000"}}}, "DLCI"},
		{"ATM mapping VC to VP", "atm_switch", compute("atm_switch"), map[string]any{"mappings": map[string]any{"1:10:100": "2:20"}}, "virtual channel"},
		{"ATM mapping value not a string", "atm_switch", ctrl("atm_switch"), map[string]any{"properties": map[string]any{"mappings": map[string]any{"1:10:100": 2}}}, "mappings"},
		{"ATM VPI out of range", "atm_switch", ctrl("atm_switch"), map[string]any{"properties": map[string]any{"mappings": map[string]any{"1:4096": "2:1"}}}, "VPI 4096"},
		{"compute body field of another type", "ethernet_hub", compute("ethernet_hub"), map[string]any{"mappings": map[string]any{}}, "mappings"},
		{"body is an array", "vpcs", ctrl("vpcs"), "[]", "body"},
		{"body is a string", "vpcs", compute("vpcs"), `"name"`, "body"},
		{"body is a number", "cloud", compute("cloud"), `42`, "body"},
		{"body is null", "cloud", ctrl("cloud"), `null`, "body"},
		{"malformed JSON", "vpcs", ctrl("vpcs"), `{"name": "a"`, "JSON"},
		{"trailing garbage", "vpcs", compute("vpcs"), `{"name": "a"} x`, "JSON"},
		{"two values", "vpcs", ctrl("vpcs"), `{}{}`, "JSON"},
		{"invalid UTF-8", "vpcs", ctrl("vpcs"), "{\"name\": \"\xff\"}", "UTF-8"},
		{"body over 1 MiB", "vpcs", compute("vpcs"), `{"startup_script": "` + strings.Repeat("a", 1<<20) + `"}`, "larger"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := ts.Do("GET", ctrl(tt.typ), nil).Want(t, 200)
			r := ts.Do("PUT", tt.path, tt.body).Want(t, 400)
			if msg := r.JSON(t)["message"].(string); !strings.Contains(msg, tt.wantMsg) {
				t.Errorf("message %q does not mention %q", msg, tt.wantMsg)
			}
			after := ts.Do("GET", ctrl(tt.typ), nil).Want(t, 200)
			if !bytes.Equal(before.Body, after.Body) {
				t.Errorf("a rejected request changed the node:\nbefore %s\nafter  %s", before.Body, after.Body)
			}
		})
	}
}

// TestNodeUpdate_ReadOnlyFieldsIgnored: a client may PUT back what it got.
func TestNodeUpdate_ReadOnlyFieldsIgnored(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	for _, typ := range append(computeTypes, "qemu") {
		t.Run(typ, func(t *testing.T) {
			n := ts.MustCreateNode(pid, map[string]any{"node_type": typ})
			path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
			before := ts.Do("GET", path, nil).Want(t, 200)
			ts.Do("PUT", path, before.JSON(t)).Want(t, 200)
			ts.Do("PUT", path, map[string]any{"properties": map[string]any{}, "compute_id": "local", "node_type": typ, "node_id": n["node_id"]}).Want(t, 200)
			// Read-only fields with other values are ignored too.
			ts.Do("PUT", path, map[string]any{"width": 1, "height": 2, "ports": []any{}, "status": "suspended",
				"node_directory": "/x", "command_line": "y", "console_host": "h", "project_id": pid, "node_type": "qemu"}).Want(t, 200)
			after := ts.Do("GET", path, nil).Want(t, 200)
			if !bytes.Equal(before.Body, after.Body) {
				t.Errorf("PUT of read-only fields changed the node:\nbefore %s\nafter  %s", before.Body, after.Body)
			}
			if typ != "qemu" {
				cpath := "/v2/compute/projects/" + pid + "/" + typ + "/nodes/" + n["node_id"].(string)
				ts.Do("PUT", cpath, ts.Do("GET", cpath, nil).Want(t, 200).JSON(t)).Want(t, 200)
				if again := ts.Do("GET", path, nil); !bytes.Equal(before.Body, again.Body) {
					t.Errorf("compute PUT of its own GET body changed the node")
				}
			}
		})
	}
}

func TestNodeUpdate_VPCSNameNullKeepsName(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	n := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": "pc"})
	r := ts.Do("PUT", "/v2/compute/projects/"+pid+"/vpcs/nodes/"+n["node_id"].(string), map[string]any{"name": nil, "startup_script": "ip dhcp"}).Want(t, 200).JSON(t)
	if r["name"] != "pc" || r["startup_script"] != "ip dhcp" {
		t.Errorf("got %v", r)
	}
}

func TestConsolePorts(t *testing.T) {
	ts := mustOpenServer(t)
	a := ts.MustCreateProject("a")
	b := ts.MustCreateProject("b")
	pc1 := ts.MustCreateNode(a, map[string]any{"node_type": "vpcs", "name": "PC-A"})
	pc2 := ts.MustCreateNode(b, map[string]any{"node_type": "vpcs"})
	if pc1["console"] != float64(5000) || pc2["console"] != float64(5001) {
		t.Fatalf("consoles %v and %v, want 5000 and 5001 (unique across projects)", pc1["console"], pc2["console"])
	}
	path2 := "/v2/projects/" + b + "/nodes/" + pc2["node_id"].(string)
	for _, p := range []string{path2, "/v2/compute/projects/" + b + "/vpcs/nodes/" + pc2["node_id"].(string)} {
		r := ts.Do("PUT", p, map[string]any{"console": 5000}).Want(t, 409)
		if msg := r.JSON(t)["message"].(string); !strings.Contains(msg, "PC-A") || !strings.Contains(msg, "5000") {
			t.Errorf("409 message %q does not name the owner and port", msg)
		}
	}
	ts.Do("PUT", path2, map[string]any{"console": 6000}).Want(t, 200)
	ts.Do("DELETE", "/v2/projects/"+a+"/nodes/"+pc1["node_id"].(string), nil).Want(t, 204)
	if got := ts.Do("PUT", path2, map[string]any{"console": 5000}).Want(t, 200).JSON(t)["console"]; got != float64(5000) {
		t.Errorf("freed port not taken: %v", got)
	}
	// The lowest free port goes to the next node: 6000 is free again.
	if got := ts.MustCreateNode(a, map[string]any{"node_type": "vpcs"})["console"]; got != float64(5001) {
		t.Errorf("next console %v, want 5001", got)
	}
}

// TestConsolePorts_Race: 50 PUTs race for one free port; exactly one wins.
func TestConsolePorts_Race(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	paths := make([]string, 50)
	for i := range paths {
		paths[i] = "/v2/projects/" + pid + "/nodes/" + ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs"})["node_id"].(string)
	}
	var wg sync.WaitGroup
	statuses := make([]int, len(paths))
	start := make(chan struct{})
	for i, p := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			statuses[i] = ts.Do("PUT", p, map[string]any{"console": 7777}).Status
		}()
	}
	close(start)
	wg.Wait()
	count := map[int]int{}
	for _, s := range statuses {
		count[s]++
	}
	if count[200] != 1 || count[409] != 49 {
		t.Fatalf("statuses %v, want one 200 and 49 409", count)
	}
	owners := 0
	for _, p := range paths {
		if ts.Do("GET", p, nil).JSON(t)["console"] == float64(7777) {
			owners++
		}
	}
	if owners != 1 {
		t.Errorf("%d nodes own port 7777", owners)
	}
}

// TestPersistence: everything survives a restart, byte for byte.
func TestPersistence(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	ts.Do("PUT", "/v2/projects/"+pid, map[string]any{"grid_size": 50, "variables": []any{map[string]any{"name": "a", "value": "b"}}}).Want(t, 200)
	var paths []string
	for _, typ := range append(computeTypes, "docker") {
		n := ts.MustCreateNode(pid, map[string]any{"node_type": typ, "x": 10, "y": -20})
		paths = append(paths, "/v2/projects/"+pid+"/nodes/"+n["node_id"].(string))
	}
	ts.Do("PUT", paths[0], map[string]any{"console": 9000, "properties": map[string]any{"startup_script": "ip 1.2.3.4"}}).Want(t, 200)
	paths = append(paths, "/v2/projects/"+pid+"/nodes", "/v2/projects/"+pid, "/v2/projects")
	before := map[string][]byte{}
	for _, p := range paths {
		before[p] = ts.Do("GET", p, nil).Want(t, 200).Body
	}
	ts.restart()
	for _, p := range paths {
		if after := ts.Do("GET", p, nil).Want(t, 200).Body; !bytes.Equal(before[p], after) {
			t.Errorf("GET %s changed across a restart:\nbefore %s\nafter  %s", p, before[p], after)
		}
	}
	// Allocation continues where it was: 5000 and 9000 are owned.
	if got := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs"})["console"]; got != float64(5000) {
		// PC1 moved to 9000, so 5000 is free again; qemu/docker took 5001.
		t.Errorf("console after restart %v, want 5000", got)
	}
	if r := ts.Do("PUT", paths[1], map[string]any{"name": "PC1"}); r.Status == 200 {
		// paths[1] is the cloud; PC1 is still taken after the restart.
		t.Errorf("rename onto a taken name after restart: %d", r.Status)
	}
}

func TestNodeCreate_Errors(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	tests := []struct {
		name string
		path string
		body any
		want int
	}{
		{"no node_type", "/v2/projects/" + pid + "/nodes", map[string]any{"name": "x"}, 400},
		{"bad node_type", "/v2/projects/" + pid + "/nodes", map[string]any{"node_type": "router"}, 400},
		{"unknown compute", "/v2/projects/" + pid + "/nodes", map[string]any{"node_type": "vpcs", "compute_id": "vm"}, 404},
		{"unknown project", "/v2/projects/00000000-0000-4000-8000-000000000000/nodes", map[string]any{"node_type": "vpcs"}, 404},
		{"project None", "/v2/projects/None/nodes", map[string]any{"node_type": "vpcs"}, 404},
		{"bad node_id", "/v2/projects/" + pid + "/nodes", map[string]any{"node_type": "vpcs", "node_id": "zz"}, 400},
		{"compute without name", "/v2/compute/projects/" + pid + "/vpcs/nodes", map[string]any{}, 400},
		{"compute hub with console", "/v2/compute/projects/" + pid + "/ethernet_hub/nodes", map[string]any{"name": "h", "console": 5000}, 400},
		{"console taken", "/v2/projects/" + pid + "/nodes", map[string]any{"node_type": "vpcs", "console": 5000}, 409},
	}
	ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs"}) // owns 5000
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts.Do("POST", tt.path, tt.body).Want(t, tt.want)
		})
	}
	if n := len(ts.Do("GET", "/v2/projects/"+pid+"/nodes", nil).List(t)); n != 1 {
		t.Errorf("rejected creates left %d nodes, want 1", n)
	}
	// A node id that exists with the same type returns that node.
	id := "11111111-2222-4333-8444-555555555555"
	a := ts.MustCreateNode(pid, map[string]any{"node_type": "ethernet_hub", "node_id": id})
	b := ts.MustCreateNode(pid, map[string]any{"node_type": "ethernet_hub", "node_id": id})
	if a["name"] != b["name"] {
		t.Errorf("repeated create with the same node_id made %v then %v", a["name"], b["name"])
	}
	ts.Do("POST", "/v2/projects/"+pid+"/nodes", map[string]any{"node_type": "vpcs", "node_id": id}).Want(t, 409)
}

func TestNodeList_Order(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	var want []string
	for i := range 20 {
		want = append(want, ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": fmt.Sprintf("n%02d", i)})["name"].(string))
	}
	var got []string
	for _, n := range ts.Do("GET", "/v2/projects/"+pid+"/nodes", nil).Want(t, 200).List(t) {
		got = append(got, n["name"].(string))
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("listed %v, want creation order %v", got, want)
	}
	if r := ts.Do("GET", "/v2/projects/"+ts.MustCreateProject("empty")+"/nodes", nil).Want(t, 200); string(r.Body) != "[]" {
		t.Errorf("empty project lists %s, want []", r.Body)
	}
	_ = http.StatusOK
}

// TestNodeCreate_FirstFreeName: a freed name is given again, first.
func TestNodeCreate_FirstFreeName(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	ids := map[string]string{}
	for range 5 {
		n := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs"})
		ids[n["name"].(string)] = n["node_id"].(string)
	}
	ts.Do("DELETE", "/v2/projects/"+pid+"/nodes/"+ids["PC2"], nil).Want(t, 204)
	ts.Do("PUT", "/v2/projects/"+pid+"/nodes/"+ids["PC4"], map[string]any{"name": "gateway"}).Want(t, 200)
	for _, want := range []string{"PC2", "PC4", "PC6"} {
		if got := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs"})["name"]; got != want {
			t.Errorf("next name %v, want %s", got, want)
		}
	}
}
