package api

import (
	"net/http"
	"strings"
	"testing"
)

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
		r := ts.DoWith("POST", st.path+"/"+st.action, st.body, st.header).Want(t, 200).JSON(t)
		if r["status"] != st.want {
			t.Errorf("%s %s: status %v, want %s", st.path, st.action, r["status"], st.want)
		}
		if got := ts.Do("GET", st.path, nil).JSON(t)["status"]; got != st.want {
			t.Errorf("stored status %v, want %s", got, st.want)
		}
	}
	// A running VPCS keeps its console type.
	ts.Do("PUT", pc, map[string]any{"console_type": "telnet"}).Want(t, 200)
	ts.Do("POST", pc+"/foo", nil).Want(t, 404)

	// Project-wide calls answer 204 and reach every node.
	for _, a := range []struct{ action, want string }{{"stop", "stopped"}, {"start", "started"}, {"suspend", "suspended"}, {"reload", "started"}, {"stop", "stopped"}} {
		ts.Do("POST", "/v2/projects/"+l.pid+"/nodes/"+a.action, map[string]any{}).Want(t, 204)
		for _, id := range []string{l.pc1, l.pc2} {
			if got := ts.Do("GET", "/v2/projects/"+l.pid+"/nodes/"+id, nil).JSON(t)["status"]; got != a.want {
				t.Errorf("after project %s: %v, want %s", a.action, got, a.want)
			}
		}
	}
	ts.Do("POST", "/v2/projects/None/nodes/start", nil).Want(t, 404)

	// The compute paths: a VPCS start answers the compute node, the others 204.
	cpc := "/v2/compute/projects/" + l.pid + "/vpcs/nodes/" + l.pc2
	if r := ts.Do("POST", cpc+"/start", nil).Want(t, 200).JSON(t); r["status"] != "started" || r["startup_script_path"] == "x" {
		t.Errorf("compute start %v", r)
	}
	ts.Do("POST", cpc+"/stop", nil).Want(t, 204)
	if got := ts.Do("GET", cpc, nil).JSON(t)["status"]; got != "stopped" {
		t.Errorf("after compute stop: %v", got)
	}
	ts.Do("POST", "/v2/compute/projects/"+l.pid+"/ethernet_switch/nodes/"+l.sw+"/stop", nil).Want(t, 204)
	ts.Do("POST", "/v2/compute/projects/"+l.pid+"/ethernet_hub/nodes/"+l.sw+"/start", nil).Want(t, 404)
}

// TestLifecycle_StoredTypes: nodes of the emulators nodedesk keeps but
// does not run (virtualbox, ...) refuse to start, saying so, and stay
// editable; a project that holds one still starts the nodes nodedesk runs.
func TestLifecycle_StoredTypes(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	pc := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs"})
	for _, typ := range []string{"virtualbox", "vmware", "traceng"} {
		n := ts.MustCreateNode(pid, map[string]any{"node_type": typ})
		path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
		for _, a := range []string{"start", "reload"} {
			r := ts.Do("POST", path+"/"+a, nil).Want(t, 409).JSON(t)
			if want := "nodedesk does not run " + typ + " nodes"; !strings.HasPrefix(r["message"].(string), want) {
				t.Errorf("%s %s: %v, want it to start with %q", a, typ, r["message"], want)
			}
		}
		ts.Do("POST", path+"/stop", nil).Want(t, 200)
		ts.Do("POST", path+"/suspend", nil).Want(t, 200) // a stopped node: nothing to do
		ts.Do("PUT", path, map[string]any{"x": 10}).Want(t, 200)
	}
	ts.Do("POST", "/v2/projects/"+pid+"/nodes/start", nil).Want(t, 204)
	for _, n := range ts.Do("GET", "/v2/projects/"+pid+"/nodes", nil).Want(t, 200).List(t) {
		want := "stopped"
		if n["node_id"] == pc["node_id"] {
			want = "started"
		}
		if n["status"] != want {
			t.Errorf("%s after a project start: %v, want %s", n["name"], n["status"], want)
		}
	}
}
