package api

import "testing"

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
