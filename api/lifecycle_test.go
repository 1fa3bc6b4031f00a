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
