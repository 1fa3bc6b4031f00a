package api

import (
	"net/http"
	"strings"
	"testing"
)

// TestDrawings drives drawings as the GNS3 desktop GUI does (it chooses the
// id of a drawing it creates and PUTs back its whole state), while the
// project's websocket sees each change once; then the drawings survive a
// restart and go with their project.
func TestDrawings(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("canvas")
	base := "/v2/projects/" + pid + "/drawings"
	next, _ := ts.WSListen(t, "/v2/projects/"+pid+"/notifications/ws")

	// GNS3's defaults for what a client leaves out.
	d := ts.Do("POST", base, map[string]any{}).Want(t, 201).JSON(t)
	want := map[string]any{"svg": "<svg></svg>", "x": 0.0, "y": 0.0, "z": 2.0, "locked": false, "rotation": 0.0, "project_id": pid}
	for k, v := range want {
		if d[k] != v {
			t.Errorf("new drawing %s = %v, want %v", k, d[k], v)
		}
	}
	if e := next(); e.Action != "drawing.created" || e.Event["drawing_id"] != d["drawing_id"] || e.Event["svg"] != "<svg></svg>" {
		t.Errorf("event %v, want drawing.created of %v", e, d["drawing_id"])
	}

	// The GUI's create: its own id, and every field.
	id := "0b7d4c3e-1f2a-4b5c-8d9e-0f1a2b3c4d5e"
	svg := `<svg height="100" width="200"><rect height="100" width="200" fill="#ffffff" /></svg>`
	gui := map[string]any{"drawing_id": id, "svg": svg, "x": -40, "y": 25, "z": 1, "locked": false, "rotation": 45}
	got := ts.Do("POST", base, gui).Want(t, 201).JSON(t)
	if got["drawing_id"] != id || got["svg"] != svg || got["x"] != -40.0 || got["rotation"] != 45.0 {
		t.Errorf("created %v", got)
	}
	if e := next(); e.Action != "drawing.created" || e.Event["drawing_id"] != id {
		t.Errorf("event %v, want drawing.created of %s", e, id)
	}
	// The same id again returns that drawing as it is, and announces nothing.
	again := ts.Do("POST", base, map[string]any{"drawing_id": strings.ToUpper(id), "x": 999}).Want(t, 201).JSON(t)
	if again["x"] != -40.0 || again["drawing_id"] != id {
		t.Errorf("second create with the same id = %v, want the drawing unchanged", again)
	}

	path := base + "/" + id
	// A move: the GUI sends back everything but an unchanged svg, and the
	// event leaves the svg out.
	upd := ts.Do("PUT", path, map[string]any{"drawing_id": id, "project_id": pid, "x": 10, "y": 20, "z": 1, "locked": false, "rotation": 45}).Want(t, 201).JSON(t)
	if upd["x"] != 10.0 || upd["y"] != 20.0 || upd["svg"] != svg {
		t.Errorf("updated %v", upd)
	}
	e := next()
	if _, has := e.Event["svg"]; e.Action != "drawing.updated" || e.Event["x"] != 10.0 || has {
		t.Errorf("event %v, want drawing.updated at x 10 without svg", e)
	}
	ts.Do("PUT", path, map[string]any{"x": 10}).Want(t, 201) // no change: no event
	ts.Do("PUT", path, map[string]any{"svg": "<svg></svg>", "locked": true}).Want(t, 201)
	if e := next(); e.Action != "drawing.updated" || e.Event["svg"] != "<svg></svg>" || e.Event["locked"] != true {
		t.Errorf("event %v, want drawing.updated with the new svg, locked", e)
	}

	// Bad input: 400 naming the field, and nothing changes.
	for _, c := range []struct {
		name, field string
		body        any
	}{
		{"rotation too large", "rotation", map[string]any{"rotation": 361}},
		{"rotation too small", "rotation", map[string]any{"rotation": -360}},
		{"x not an integer", "x", map[string]any{"x": 1.5}},
		{"svg not a string", "svg", map[string]any{"svg": 5}},
		{"locked null", "locked", map[string]any{"locked": nil}},
		{"unknown key", "color", map[string]any{"color": "red"}},
		{"drawing_id not a UUID", "drawing_id", map[string]any{"drawing_id": "d1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, method := range []string{"POST", "PUT"} {
				p := base
				if method == "PUT" {
					p = path
				}
				r := ts.Do(method, p, c.body).Want(t, 400).JSON(t)
				if r["field"] != c.field {
					t.Errorf("%s %v: field %v, want %s: %v", method, c.body, r["field"], c.field, r["message"])
				}
			}
		})
	}
	if d := ts.Do("GET", path, nil).Want(t, 200).JSON(t); d["rotation"] != 45.0 || d["x"] != 10.0 {
		t.Errorf("after rejected changes: %v", d)
	}

	// A locked drawing stays until it is unlocked.
	if r := ts.Do("DELETE", path, nil).Want(t, 409).JSON(t); !strings.Contains(r["message"].(string), "locked") {
		t.Errorf("409 %v", r)
	}
	ts.Do("PUT", path, map[string]any{"locked": false}).Want(t, 201)
	if e := next(); e.Action != "drawing.updated" || e.Event["locked"] != false {
		t.Errorf("event %v, want drawing.updated unlocked", e)
	}

	// Missing things.
	other := "/v2/projects/" + pid + "/drawings/5e9f3c1a-0000-4000-8000-000000000000"
	for _, c := range []struct{ method, path string }{
		{"GET", other}, {"PUT", other}, {"DELETE", other}, {"GET", base + "/not-a-uuid"},
		{"GET", "/v2/projects/5e9f3c1a-0000-4000-8000-000000000001/drawings"},
		{"POST", "/v2/projects/5e9f3c1a-0000-4000-8000-000000000001/drawings"},
		{"GET", "/v2/projects/5e9f3c1a-0000-4000-8000-000000000001/drawings/" + id},
	} {
		r := ts.Do(c.method, c.path, map[string]any{}).Want(t, 404).JSON(t)
		if !strings.Contains(r["message"].(string), "doesn't exist") { // the GUI recreates a drawing on this
			t.Errorf("%s %s: %v", c.method, c.path, r["message"])
		}
	}

	// Listed in creation order, counted in the project's stats.
	list := ts.Do("GET", base, nil).Want(t, 200).List(t)
	if len(list) != 2 || list[0]["drawing_id"] != d["drawing_id"] || list[1]["drawing_id"] != id {
		t.Fatalf("list %v", list)
	}
	if st := ts.Do("GET", "/v2/projects/"+pid+"/stats", nil).Want(t, 200).JSON(t); st["drawings"] != 2.0 {
		t.Errorf("stats %v, want 2 drawings", st)
	}

	// Survives a restart.
	ts.restart()
	if got := ts.Do("GET", path, nil).Want(t, 200).JSON(t); got["x"] != 10.0 || got["svg"] != "<svg></svg>" || got["rotation"] != 45.0 {
		t.Errorf("after restart: %v", got)
	}
	next, _ = ts.WSListen(t, "/v2/projects/"+pid+"/notifications/ws")
	ts.Do("DELETE", path, nil).Want(t, http.StatusNoContent)
	if e := next(); e.Action != "drawing.deleted" || e.Event["drawing_id"] != id || e.Event["svg"] != "<svg></svg>" {
		t.Errorf("event %v, want drawing.deleted of %s", e, id)
	}
	ts.Do("GET", path, nil).Want(t, 404)
	if l := ts.Do("GET", base, nil).Want(t, 200).List(t); len(l) != 1 {
		t.Errorf("after delete: %v", l)
	}

	// Deleting the project deletes its drawings.
	ts.Do("DELETE", "/v2/projects/"+pid, nil).Want(t, 204)
	pid2 := ts.Do("POST", "/v2/projects", map[string]any{"name": "again", "project_id": pid}).Want(t, 201).JSON(t)["project_id"]
	if l := ts.Do("GET", "/v2/projects/"+pid2.(string)+"/drawings", nil).Want(t, 200).List(t); len(l) != 0 {
		t.Errorf("a deleted project's drawings came back: %v", l)
	}
}
