package api

import (
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"nodedesk/app/hostnet"
)

// TestCloud_PortsRenumbered: the GNS3 GUI's cloud dialog, after an
// interface is deleted, numbers a new port by count and so sends a number
// twice; GNS3's cloud (compute/builtin/nodes/cloud.py, the ports_mapping
// setter) numbers the ports by position and answers 200, and so does
// nodedesk, on the controller and the compute paths.
func TestCloud_PortsRenumbered(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	n := ts.MustCreateNode(pid, map[string]any{"node_type": "cloud"})
	port := func(name string, number, lport int) map[string]any {
		return map[string]any{"name": name, "port_number": number, "type": "udp", "lport": lport, "rhost": "127.0.0.1", "rport": lport + 1}
	}
	mapping := []any{port("UDP tunnel 1", 0, 22000), port("UDP tunnel 3", 2, 22010), port("UDP tunnel 4", 2, 22020)}
	for _, path := range []string{
		"/v2/projects/" + pid + "/nodes/" + n["node_id"].(string),
		"/v2/compute/projects/" + pid + "/cloud/nodes/" + n["node_id"].(string),
	} {
		body := map[string]any{"ports_mapping": mapping}
		if path[4] == 'p' { // the controller's node keeps them under properties
			body = map[string]any{"properties": body}
		}
		got := ts.Do("PUT", path, body).Want(t, 200).JSON(t)
		ports, _ := got["ports_mapping"].([]any)
		if props, ok := got["properties"].(map[string]any); ok {
			ports, _ = props["ports_mapping"].([]any)
		}
		if len(ports) != 3 {
			t.Fatalf("%s: ports_mapping %v", path, ports)
		}
		for i, p := range ports {
			if p.(map[string]any)["port_number"] != float64(i) {
				t.Errorf("%s: port %d is numbered %v; want %d", path, i, p.(map[string]any)["port_number"], i)
			}
		}
	}
}

// TestCloud_TunnelImportAfterClose: the export of a project whose cloud
// has a UDP tunnel imports (201) while the tunnel's port is bound on this
// machine (the closed original's tunnel, which nodedesk's data plane
// keeps): an import is a closed project, which binds nothing, as in GNS3,
// whose cloud binds its lports only once its project opens and it starts
// (compute/builtin/nodes/cloud.py, add_nio_udp). An open project's cloud
// is still refused a taken port.
func TestCloud_TunnelImportAfterClose(t *testing.T) {
	ts := mustOpenServerWith(t, testOptions{portFree: hostnet.PortFree("127.0.0.1")})
	probe, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	lport := probe.LocalAddr().(*net.UDPAddr).Port
	probe.Close()
	cloud := map[string]any{"node_type": "cloud", "properties": map[string]any{"ports_mapping": []any{
		map[string]any{"name": "UDP tunnel 1", "port_number": 0, "type": "udp", "lport": lport, "rhost": "127.0.0.1", "rport": 22101}}}}
	pid := ts.MustCreateProject("tunnel")
	ts.Do("POST", "/v2/projects/"+pid+"/nodes", cloud).Want(t, 201)
	export := ts.Do("GET", "/v2/projects/"+pid+"/export", nil).Want(t, 200).Body
	ts.Do("POST", "/v2/projects/"+pid+"/close", nil).Want(t, 204)

	// The closed original's tunnel still holds the port.
	held, err := net.ListenPacket("udp", fmt.Sprintf("127.0.0.1:%d", lport))
	if err != nil {
		t.Skipf("port %d was taken meanwhile: %v", lport, err)
	}
	defer held.Close()
	r := ts.importArchive("5e1f2a3b-0000-4000-8000-000000000006", export, "name=copy")
	if r.Status != 201 {
		t.Fatalf("import of the export: %d %s; want 201", r.Status, r.Body)
	}
	// An open project's cloud is still refused the taken port.
	open := ts.MustCreateProject("open")
	ts.Do("POST", "/v2/projects/"+open+"/nodes", cloud).Want(t, 409)
}

// TestCloud_FilePortsWait: a project file names its author's host
// interfaces; a cloud port on one, made by an import or a load, waits for
// this machine's user (ports_waiting names it) until an update of the
// cloud's ports_mapping names it. A port chosen here never waits, and the
// mark shows in no GNS3 view and no exported file.
func TestCloud_FilePortsWait(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("bridged")
	mapping := []any{
		map[string]any{"name": "eth0", "port_number": 0, "type": "ethernet", "interface": "eth0"},
		map[string]any{"name": "UDP tunnel 1", "port_number": 1, "type": "udp", "lport": 22301, "rhost": "127.0.0.1", "rport": 22302},
	}
	made := ts.MustCreateNode(pid, map[string]any{"node_type": "cloud", "name": "Uplink", "properties": map[string]any{"ports_mapping": mapping}})
	if w, ok := made["ports_waiting"]; ok {
		t.Fatalf("a port chosen here waits: %v", w)
	}
	export := ts.Do("GET", "/v2/projects/"+pid+"/export", nil).Want(t, 200).Body
	ts.Do("POST", "/v2/projects/"+pid+"/close", nil).Want(t, 204)

	waiting := func(pid string) (map[string]any, string) {
		t.Helper()
		nodes := ts.Do("GET", "/v2/projects/"+pid+"/nodes", nil).Want(t, 200).List(t)
		if len(nodes) != 1 {
			t.Fatalf("nodes %v", nodes)
		}
		return nodes[0], fmt.Sprint(nodes[0]["ports_waiting"])
	}
	imported := "5e1f2a3b-0000-4000-8000-000000000071"
	ts.importArchive(imported, export, "name=copy").Want(t, 201)
	n, w := waiting(imported)
	if w != "[eth0]" {
		t.Fatalf("imported cloud: ports_waiting %s; want [eth0]", w)
	}
	if s := fmt.Sprint(n["properties"]); strings.Contains(s, "unconfirmed") {
		t.Errorf("the GNS3 view shows the mark: %s", s)
	}
	if s := string(readZip(t, ts.Do("GET", "/v2/projects/"+imported+"/export", nil).Want(t, 200).Body)["project.gns3"]); strings.Contains(s, "unconfirmed") || strings.Contains(s, "ports_waiting") {
		t.Errorf("the exported file carries the mark: %s", s)
	}

	// A load of the same file (under another id) waits too.
	var top map[string]any
	if err := json.Unmarshal(readZip(t, export)["project.gns3"], &top); err != nil {
		t.Fatal(err)
	}
	loaded := "5e1f2a3b-0000-4000-8000-000000000072"
	top["project_id"], top["name"] = loaded, "loaded"
	b, _ := json.Marshal(top)
	file := filepath.Join(t.TempDir(), "loaded.gns3")
	mustWrite(t, file, b)
	ts.Do("POST", "/v2/projects/load", map[string]any{"path": file}).Want(t, 201)
	if _, w := waiting(loaded); w != "[eth0]" {
		t.Fatalf("loaded cloud: ports_waiting %s; want [eth0]", w)
	}

	// An edit that does not name the ports leaves them waiting; one that
	// names them (the UI's Allow re-saves ports_mapping) agrees.
	path := "/v2/projects/" + imported + "/nodes/" + n["node_id"].(string)
	ts.Do("PUT", path, map[string]any{"name": "Renamed", "x": 40}).Want(t, 200)
	if _, w := waiting(imported); w != "[eth0]" {
		t.Fatalf("after a rename: ports_waiting %s; want [eth0]", w)
	}
	got := ts.Do("PUT", path, map[string]any{"properties": map[string]any{"ports_mapping": n["properties"].(map[string]any)["ports_mapping"]}}).Want(t, 200).JSON(t)
	if w, ok := got["ports_waiting"]; ok {
		t.Fatalf("after the ports were re-saved: ports_waiting %v", w)
	}
	if _, w := waiting(imported); w != "<nil>" {
		t.Fatalf("stored: ports_waiting %s after the ports were re-saved", w)
	}
}
