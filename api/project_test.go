package api

import (
	"strconv"
	"strings"
	"testing"
)

func TestProjects(t *testing.T) {
	ts := mustOpenServer(t)
	p := ts.Do("POST", "/v2/projects", map[string]any{"name": "lab"}).Want(t, 201).JSON(t)
	pid := p["project_id"].(string)
	if p["status"] != "opened" || p["filename"] != "lab.gns3" || p["grid_size"] != float64(75) || p["auto_close"] != true || p["zoom"] != float64(100) {
		t.Errorf("new project %v lacks GNS3's defaults", p)
	}
	tests := []struct {
		name, method, path string
		body               any
		want               int
	}{
		{"name used", "POST", "/v2/projects", map[string]any{"name": "lab"}, 409},
		{"no name", "POST", "/v2/projects", map[string]any{}, 400},
		{"empty name", "POST", "/v2/projects", map[string]any{"name": ""}, 400},
		{"bad field", "POST", "/v2/projects", map[string]any{"name": "x", "grid_size": "big"}, 400},
		{"bad project_id", "POST", "/v2/projects", map[string]any{"name": "x", "project_id": "abc"}, 400},
		{"get", "GET", "/v2/projects/" + pid, nil, 200},
		{"get None", "GET", "/v2/projects/None", nil, 404},
		{"get unknown", "GET", "/v2/projects/00000000-0000-4000-8000-000000000000", nil, 404},
		{"trailing slash", "GET", "/v2/projects/", nil, 404},
		{"update", "PUT", "/v2/projects/" + pid, map[string]any{"name": "lab2", "scene_width": 3000, "show_grid": true}, 200},
		{"update bad type", "PUT", "/v2/projects/" + pid, map[string]any{"zoom": "x"}, 400},
		{"update unknown", "PUT", "/v2/projects/None", map[string]any{"name": "y"}, 404},
		{"open", "POST", "/v2/projects/" + pid + "/open", nil, 201},
		{"close", "POST", "/v2/projects/" + pid + "/close", nil, 204},
		{"close again", "POST", "/v2/projects/" + pid + "/close", nil, 204},
		{"close unknown", "POST", "/v2/projects/None/close", nil, 404},
		{"open unknown", "POST", "/v2/projects/None/open", nil, 404},
		{"list nodes of unknown", "GET", "/v2/projects/None/nodes", nil, 404},
		{"delete unknown", "DELETE", "/v2/projects/None", nil, 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts.Do(tt.method, tt.path, tt.body).Want(t, tt.want)
		})
	}
	got := ts.Do("GET", "/v2/projects/"+pid, nil).Want(t, 200).JSON(t)
	if got["name"] != "lab2" || got["scene_width"] != float64(3000) || got["show_grid"] != true || got["status"] != "closed" || got["filename"] != "lab.gns3" {
		t.Errorf("project after update and close: %v", got)
	}
	// Nodes of a closed project stay readable and editable (the spec's node
	// endpoints know no 403).
	n := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs"})
	ts.Do("PUT", "/v2/projects/"+pid+"/nodes/"+n["node_id"].(string), map[string]any{"x": 3}).Want(t, 200)
	if r := ts.Do("POST", "/v2/projects/"+pid+"/open", nil).Want(t, 201).JSON(t); r["status"] != "opened" {
		t.Errorf("open gave status %v", r["status"])
	}
	other := ts.MustCreateProject("other")
	ts.Do("PUT", "/v2/projects/"+other, map[string]any{"name": "lab2"}).Want(t, 409)
	if l := ts.Do("GET", "/v2/projects", nil).Want(t, 200).List(t); len(l) != 2 || l[0]["name"] != "lab2" || l[1]["name"] != "other" {
		t.Errorf("projects listed: %v", l)
	}
	// Deleting a project deletes its nodes and frees their console ports.
	ts.Do("DELETE", "/v2/projects/"+pid, nil).Want(t, 204)
	ts.Do("GET", "/v2/projects/"+pid, nil).Want(t, 404)
	ts.Do("GET", "/v2/projects/"+pid+"/nodes/"+n["node_id"].(string), nil).Want(t, 404)
	if c := ts.MustCreateNode(other, map[string]any{"node_type": "vpcs"})["console"]; c != n["console"] {
		t.Errorf("console %v of the deleted project's node not freed (got %v)", n["console"], c)
	}
}

func TestProjects_CreateWithID(t *testing.T) {
	ts := mustOpenServer(t)
	id := "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"
	a := ts.Do("POST", "/v2/projects", map[string]any{"name": "p", "project_id": id}).Want(t, 201).JSON(t)
	if a["project_id"] != id {
		t.Fatalf("project_id %v, want %s", a["project_id"], id)
	}
	// Creating it again returns it, as GNS3 does.
	ts.Do("POST", "/v2/projects", map[string]any{"name": "p", "project_id": id}).Want(t, 201)
	// The compute's project call names the same project.
	r := ts.Do("POST", "/v2/compute/projects", map[string]any{"name": "p", "project_id": id}).Want(t, 201).JSON(t)
	if r["project_id"] != id || r["name"] != "p" {
		t.Errorf("compute project %v", r)
	}
	other := "bbbbbbbb-bbbb-4ccc-8ddd-eeeeeeeeeeee"
	ts.Do("POST", "/v2/compute/projects", map[string]any{"name": "q", "project_id": other}).Want(t, 201)
	ts.Do("GET", "/v2/projects/"+other, nil).Want(t, 200)
	ts.Do("POST", "/v2/compute/projects", map[string]any{"name": "q"}).Want(t, 400)
}

func TestVersionAndComputes(t *testing.T) {
	ts := mustOpenServer(t)
	v := ts.Do("GET", "/v2/version", nil).Want(t, 200).JSON(t)
	if v["version"] != "2.2.59" || v["local"] != true || len(v) != 2 {
		t.Errorf("version %v", v)
	}
	l := ts.Do("GET", "/v2/computes", nil).Want(t, 200).List(t)
	if len(l) != 1 || l[0]["compute_id"] != "local" || l[0]["connected"] != true || l[0]["protocol"] != "http" {
		t.Errorf("computes %v", l)
	}
	c := ts.Do("GET", "/v2/computes/local", nil).Want(t, 200).JSON(t)
	if port, _ := c["port"].(float64); !strings.HasSuffix(ts.URL, ":"+strconv.Itoa(int(port))) {
		t.Errorf("compute port %v does not match %s", c["port"], ts.URL)
	}
	ts.Do("GET", "/v2/computes/vm", nil).Want(t, 404)
}
