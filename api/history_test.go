package api

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"nodedesk/app"
	"nodedesk/app/kit"
)

// histLab is a project for history tests: two VPCS, a switch, a hub and a
// Frame Relay switch; PC1 e0 linked to Switch1 e1 and PC2 e0 to Switch1
// e2; a drawing; a snapshot "base" of all that.
type histLab struct {
	pid, base                 string
	pc1, pc2, sw, hub, frsw   string
	l1, l2, drawing, snapshot string
}

func (ts *testServer) mustCreateHistLab(t *testing.T, name string) histLab {
	t.Helper()
	l := histLab{pid: ts.MustCreateProject(name)}
	l.base = "/v2/projects/" + l.pid
	id := func(typ string) string {
		return ts.MustCreateNode(l.pid, map[string]any{"node_type": typ})["node_id"].(string)
	}
	l.pc1, l.pc2, l.sw, l.hub, l.frsw = id("vpcs"), id("vpcs"), id("ethernet_switch"), id("ethernet_hub"), id("frame_relay_switch")
	ts.Do("PUT", l.base+"/nodes/"+l.frsw, map[string]any{"properties": map[string]any{"mappings": map[string]any{"1:101": "2:201"}}}).Want(t, 200)
	l.l1, l.l2 = ts.Link(t, l.pid, l.pc1, 0, l.sw, 1), ts.Link(t, l.pid, l.pc2, 0, l.sw, 2)
	l.drawing = ts.Do("POST", l.base+"/drawings", map[string]any{"svg": "<svg><rect/></svg>", "x": 5}).Want(t, 201).JSON(t)["drawing_id"].(string)
	l.snapshot = ts.Do("POST", l.base+"/snapshots", map[string]any{"name": "base"}).Want(t, 201).JSON(t)["snapshot_id"].(string)
	return l
}

// history reads a project's history.
func (ts *testServer) history(t *testing.T, pid string) (undo, redo []map[string]any) {
	t.Helper()
	h := ts.Do("GET", "/v2/projects/"+pid+"/history", nil).Want(t, 200).JSON(t)
	for _, e := range h["undo"].([]any) {
		undo = append(undo, e.(map[string]any))
	}
	for _, e := range h["redo"].([]any) {
		redo = append(redo, e.(map[string]any))
	}
	return undo, redo
}

// TestHistory_UndoRedo makes each kind of change, undoes it and finds the
// project's records exactly as they were before it (same digest of the
// store), then redoes it and finds them exactly as the change left them.
func TestHistory_UndoRedo(t *testing.T) {
	ts := mustOpenServer(t)
	var ports8 []any
	for i := range 8 {
		ports8 = append(ports8, map[string]any{"name": fmt.Sprintf("Ethernet%d", i), "port_number": i, "type": "access", "vlan": 10 + i})
	}
	tests := []struct {
		name     string
		prepare  func(t *testing.T, l histLab) // before the digest: not undone
		change   func(t *testing.T, l histLab)
		wantDesc string
	}{
		{name: "CreateNode", wantDesc: "Added PC3", change: func(t *testing.T, l histLab) {
			ts.Do("POST", l.base+"/nodes", map[string]any{"node_type": "vpcs", "x": 3, "y": 4}).Want(t, 201)
		}},
		{name: "CreateFromTemplate", wantDesc: "Added Switch2", change: func(t *testing.T, l histLab) {
			ts.Do("POST", l.base+"/templates/1966b864-93e7-32d5-965f-001384eec461", map[string]any{"x": 1, "y": 2}).Want(t, 201)
		}},
		{name: "DuplicateNode", wantDesc: "Added PC3", change: func(t *testing.T, l histLab) {
			ts.Do("POST", l.base+"/nodes/"+l.pc1+"/duplicate", map[string]any{"x": 50, "y": 60}).Want(t, 201)
		}},
		{name: "Move", wantDesc: "Moved PC1", change: func(t *testing.T, l histLab) {
			ts.Do("PUT", l.base+"/nodes/"+l.pc1, map[string]any{"x": 10, "y": -20, "z": 3}).Want(t, 200)
		}},
		{name: "Rename", wantDesc: "Renamed PC1 to Alpha", change: func(t *testing.T, l histLab) {
			ts.Do("PUT", l.base+"/nodes/"+l.pc1, map[string]any{"name": "Alpha"}).Want(t, 200)
		}},
		{name: "ConsolePort", wantDesc: "Changed PC1", change: func(t *testing.T, l histLab) {
			ts.Do("PUT", l.base+"/nodes/"+l.pc1, map[string]any{"console": 5900}).Want(t, 200)
		}},
		{name: "ConsoleType", wantDesc: "Changed Switch1", change: func(t *testing.T, l histLab) {
			ts.Do("PUT", l.base+"/nodes/"+l.sw, map[string]any{"console_type": "telnet"}).Want(t, 200) // gets a console port
		}},
		{name: "Label", wantDesc: "Changed PC1", change: func(t *testing.T, l histLab) {
			ts.Do("PUT", l.base+"/nodes/"+l.pc1, map[string]any{"label": map[string]any{"text": "the pc", "x": 4, "y": -10, "rotation": 90, "style": "font-size: 12"}}).Want(t, 200)
		}},
		{name: "Symbol", wantDesc: "Changed PC1", change: func(t *testing.T, l histLab) {
			ts.Do("PUT", l.base+"/nodes/"+l.pc1, map[string]any{"symbol": ":/symbols/router.svg"}).Want(t, 200)
		}},
		{name: "Locked", wantDesc: "Changed PC1", change: func(t *testing.T, l histLab) {
			ts.Do("PUT", l.base+"/nodes/"+l.pc1, map[string]any{"locked": true, "console_auto_start": true}).Want(t, 200)
		}},
		{name: "StartupScript", wantDesc: "Changed PC1", change: func(t *testing.T, l histLab) {
			ts.Do("PUT", l.base+"/nodes/"+l.pc1, map[string]any{"properties": map[string]any{"startup_script": "ip 10.0.0.1/24\n"}}).Want(t, 200)
		}},
		{name: "NodeFile", wantDesc: "Changed PC1", change: func(t *testing.T, l histLab) {
			ts.DoWith("POST", l.base+"/nodes/"+l.pc1+"/files/startup.vpc", "ip 10.0.0.9/24\n", http.Header{"Content-Type": {"application/octet-stream"}}).Want(t, 201)
		}},
		{name: "ComputeView", wantDesc: "Renamed PC2 to pcx", change: func(t *testing.T, l histLab) {
			ts.Do("PUT", "/v2/compute/projects/"+l.pid+"/vpcs/nodes/"+l.pc2, map[string]any{"name": "pcx"}).Want(t, 200)
		}},
		{name: "BulkSwitchEdit", wantDesc: "Changed ports of Switch1", change: func(t *testing.T, l histLab) {
			ts.Do("PUT", l.base+"/nodes/"+l.sw, map[string]any{"properties": map[string]any{"ports_mapping": ports8}}).Want(t, 200)
		}},
		{name: "HubPorts", wantDesc: "Changed ports of Hub1", change: func(t *testing.T, l histLab) {
			ts.Do("PUT", l.base+"/nodes/"+l.hub, map[string]any{"properties": map[string]any{"ports_mapping": []any{
				map[string]any{"name": "Ethernet0", "port_number": 0}, map[string]any{"name": "Ethernet1", "port_number": 1}}}}).Want(t, 200)
		}},
		{name: "FrameRelayMappings", wantDesc: "Changed ports of FRSW1", change: func(t *testing.T, l histLab) {
			ts.Do("PUT", l.base+"/nodes/"+l.frsw, map[string]any{"properties": map[string]any{"mappings": map[string]any{"1:102": "2:202", "3:303": "4:404"}}}).Want(t, 200)
		}},
		{name: "DeleteNodeWithLinks", wantDesc: "Deleted Switch1 and 2 links", change: func(t *testing.T, l histLab) {
			ts.Do("DELETE", l.base+"/nodes/"+l.sw, nil).Want(t, 204)
		}},
		{name: "DeleteNode", wantDesc: "Deleted Hub1", change: func(t *testing.T, l histLab) {
			ts.Do("DELETE", "/v2/compute/projects/"+l.pid+"/ethernet_hub/nodes/"+l.hub, nil).Want(t, 204)
		}},
		{name: "LinkCreate", wantDesc: "Linked Hub1 to Switch1", change: func(t *testing.T, l histLab) {
			ts.Link(t, l.pid, l.hub, 0, l.sw, 3)
		}},
		{name: "LinkDelete", wantDesc: "Deleted link PC1 – Switch1", change: func(t *testing.T, l histLab) {
			ts.Do("DELETE", l.base+"/links/"+l.l1, nil).Want(t, 204)
		}},
		{name: "LinkFilters", wantDesc: "Changed link PC1 – Switch1", change: func(t *testing.T, l histLab) {
			ts.Do("PUT", l.base+"/links/"+l.l1, map[string]any{"filters": map[string]any{"frequency_drop": []any{5}}, "suspend": true}).Want(t, 200)
		}},
		{name: "LinkStyle", wantDesc: "Changed link PC2 – Switch1", change: func(t *testing.T, l histLab) {
			ts.Do("PUT", l.base+"/links/"+l.l2, map[string]any{"link_style": map[string]any{"color": "#ff0000", "width": 3}}).Want(t, 200)
		}},
		{name: "DrawingCreate", wantDesc: "Added drawing", change: func(t *testing.T, l histLab) {
			ts.Do("POST", l.base+"/drawings", map[string]any{"svg": "<svg><ellipse/></svg>", "x": 1, "y": 2}).Want(t, 201)
		}},
		{name: "DrawingMove", wantDesc: "Moved drawing", change: func(t *testing.T, l histLab) {
			ts.Do("PUT", l.base+"/drawings/"+l.drawing, map[string]any{"x": 40, "y": 50}).Want(t, 201)
		}},
		{name: "DrawingEdit", wantDesc: "Edited drawing", change: func(t *testing.T, l histLab) {
			ts.Do("PUT", l.base+"/drawings/"+l.drawing, map[string]any{"svg": "<svg><line/></svg>", "rotation": 45, "locked": true}).Want(t, 201)
		}},
		{name: "DrawingDelete", wantDesc: "Deleted drawing", change: func(t *testing.T, l histLab) {
			ts.Do("DELETE", l.base+"/drawings/"+l.drawing, nil).Want(t, 204)
		}},
		{name: "SnapshotTake", wantDesc: "Took snapshot second", change: func(t *testing.T, l histLab) {
			ts.Do("POST", l.base+"/snapshots", map[string]any{"name": "second"}).Want(t, 201)
		}},
		{name: "SnapshotDelete", wantDesc: "Deleted snapshot base", change: func(t *testing.T, l histLab) {
			ts.Do("DELETE", l.base+"/snapshots/"+l.snapshot, nil).Want(t, 204)
		}},
		{name: "SnapshotRestore", wantDesc: "Restored snapshot base",
			prepare: func(t *testing.T, l histLab) {
				ts.Do("DELETE", l.base+"/nodes/"+l.sw, nil).Want(t, 204)
				ts.Do("PUT", l.base+"/nodes/"+l.pc1, map[string]any{"x": 99, "name": "moved"}).Want(t, 200)
				ts.Do("POST", l.base+"/drawings", map[string]any{"svg": "<svg/>"}).Want(t, 201)
			},
			change: func(t *testing.T, l histLab) {
				ts.Do("POST", l.base+"/snapshots/"+l.snapshot+"/restore", nil).Want(t, 201)
			}},
		{name: "ProjectSettings", wantDesc: "Changed project settings", change: func(t *testing.T, l histLab) {
			ts.Do("PUT", l.base, map[string]any{"grid_size": 50, "show_grid": true, "variables": []any{map[string]any{"name": "a", "value": "b"}}}).Want(t, 200)
		}},
		{name: "ProjectRename", wantDesc: "Renamed project ProjectRename to renamed", change: func(t *testing.T, l histLab) {
			ts.Do("PUT", l.base, map[string]any{"name": "renamed"}).Want(t, 200)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := ts.mustCreateHistLab(t, tt.name)
			if tt.prepare != nil {
				tt.prepare(t, l)
			}
			before := kit.ProjectDigest(t, ts.st, l.pid)
			undo0, _ := ts.history(t, l.pid)
			tt.change(t, l)
			after := kit.ProjectDigest(t, ts.st, l.pid)
			if after == before {
				t.Fatal("the change changed nothing")
			}
			undo, redo := ts.history(t, l.pid)
			if len(undo) != len(undo0)+1 || len(redo) != 0 {
				t.Fatalf("history after the change: %d to undo, %d to redo; want %d, 0", len(undo), len(redo), len(undo0)+1)
			}
			if e := undo[0]; e["description"] != tt.wantDesc || e["origin"] != "api" {
				t.Errorf("entry %v, want %q from the API", e, tt.wantDesc)
			}

			e := ts.Do("POST", l.base+"/undo", nil).Want(t, 200).JSON(t)
			if e["entry_id"] != undo[0]["entry_id"] || e["description"] != tt.wantDesc {
				t.Errorf("undo answered %v, want the entry %v", e, undo[0])
			}
			kit.WantDigest(t, "after undo", kit.ProjectDigest(t, ts.st, l.pid), before)
			if undo, redo := ts.history(t, l.pid); len(undo) != len(undo0) || len(redo) != 1 || redo[0]["entry_id"] != e["entry_id"] {
				t.Errorf("history after undo: %v to undo, %v to redo", undo, redo)
			}

			ts.Do("POST", l.base+"/redo", nil).Want(t, 200)
			kit.WantDigest(t, "after redo", kit.ProjectDigest(t, ts.st, l.pid), after)
			ts.Do("POST", l.base+"/undo", nil).Want(t, 200)
			kit.WantDigest(t, "after a second undo", kit.ProjectDigest(t, ts.st, l.pid), before)
			checkInvariants(t, ts, l.pid)
		})
	}
}

// TestHistory_Conflicts: an undo or redo that needs something no longer
// free answers 409 naming it, and changes nothing; once it is free, the
// same undo works.
func TestHistory_Conflicts(t *testing.T) {
	ts := mustOpenServer(t)
	l := ts.mustCreateHistLab(t, "lab")
	other := ts.MustCreateProject("other")
	node := func(pid, id string) map[string]any {
		return ts.Do("GET", "/v2/projects/"+pid+"/nodes/"+id, nil).Want(t, 200).JSON(t)
	}
	// refused makes the request, wants a 409 whose message holds each of
	// want, and finds both projects and their histories unchanged.
	refused := func(t *testing.T, path string, want ...string) {
		t.Helper()
		labBefore, otherBefore := kit.ProjectDigest(t, ts.st, l.pid), kit.ProjectDigest(t, ts.st, other)
		histBefore := ts.Do("GET", l.base+"/history", nil).Want(t, 200).Body
		msg := ts.Do("POST", path, nil).Want(t, 409).JSON(t)["message"].(string)
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("409 %q does not say %q", msg, w)
			}
		}
		kit.WantDigest(t, "after a refused "+path, kit.ProjectDigest(t, ts.st, l.pid), labBefore)
		kit.WantDigest(t, "the other project after a refused "+path, kit.ProjectDigest(t, ts.st, other), otherBefore)
		if h := ts.Do("GET", l.base+"/history", nil).Want(t, 200).Body; string(h) != string(histBefore) {
			t.Errorf("history after a refused %s:\n%s\nwant\n%s", path, h, histBefore)
		}
	}

	t.Run("NothingToUndo", func(t *testing.T) {
		empty := ts.MustCreateProject("empty")
		for _, op := range []string{"undo", "redo"} {
			r := ts.Do("POST", "/v2/projects/"+empty+"/"+op, nil).Want(t, 409).JSON(t)
			if r["message"] != "Nothing to "+op+" in project empty" {
				t.Errorf("%s: %v", op, r)
			}
		}
		ts.Do("POST", "/v2/projects/5e9f3c1a-0000-4000-8000-000000000001/undo", nil).Want(t, 404)
		ts.Do("GET", "/v2/projects/None/history", nil).Want(t, 404)
	})

	t.Run("ConsolePortTakenByAnotherProject", func(t *testing.T) {
		pc1 := node(l.pid, l.pc1)
		ts.Do("DELETE", l.base+"/nodes/"+l.pc1, nil).Want(t, 204)
		thief := ts.MustCreateNode(other, map[string]any{"node_type": "vpcs", "name": "thief", "console": pc1["console"]})
		refused(t, l.base+"/undo", fmt.Sprintf("console port %v", pc1["console"]), "thief of project other", `"Deleted PC1 and 1 link"`)
		ts.Do("DELETE", "/v2/projects/"+other+"/nodes/"+thief["node_id"].(string), nil).Want(t, 204)
		ts.Do("POST", l.base+"/undo", nil).Want(t, 200)
		if back := node(l.pid, l.pc1); !reflect.DeepEqual(back, pc1) {
			t.Errorf("PC1 came back as\n%v\nwant\n%v", back, pc1)
		}
		if ls := ts.Do("GET", l.base+"/nodes/"+l.pc1+"/links", nil).Want(t, 200).List(t); len(ls) != 1 || ls[0]["link_id"] != l.l1 {
			t.Errorf("PC1's links after undo: %v", ls)
		}
	})

	t.Run("RedoConsolePortTaken", func(t *testing.T) {
		pc := ts.MustCreateNode(l.pid, map[string]any{"node_type": "vpcs", "name": "late"})
		ts.Do("POST", l.base+"/undo", nil).Want(t, 200)
		thief := ts.MustCreateNode(other, map[string]any{"node_type": "vpcs", "name": "thief2", "console": pc["console"]})
		refused(t, l.base+"/redo", fmt.Sprintf("console port %v", pc["console"]), "thief2 of project other", `Cannot redo "Added late"`)
		ts.Do("DELETE", "/v2/projects/"+other+"/nodes/"+thief["node_id"].(string), nil).Want(t, 204)
		ts.Do("POST", l.base+"/redo", nil).Want(t, 200)
		if back := node(l.pid, pc["node_id"].(string)); !reflect.DeepEqual(back, pc) {
			t.Errorf("redo brought back\n%v\nwant\n%v", back, pc)
		}
		ts.Do("POST", l.base+"/undo", nil).Want(t, 200)
	})

	t.Run("ProjectNameTaken", func(t *testing.T) {
		ts.Do("PUT", l.base, map[string]any{"name": "lab2"}).Want(t, 200)
		squatter := ts.MustCreateProject("lab")
		refused(t, l.base+"/undo", "project name lab is now used by another project")
		ts.Do("DELETE", "/v2/projects/"+squatter, nil).Want(t, 204)
		ts.Do("POST", l.base+"/undo", nil).Want(t, 200)
	})

	// The store file can hold what the history did not see: a store an
	// older nodedesk or another tool wrote. Such changes are made here
	// behind the service's back.
	behind := func(t *testing.T, fn func(tx app.Tx) error) {
		t.Helper()
		if err := ts.st.Update(fn); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("NameTaken", func(t *testing.T) {
		ts.Do("DELETE", l.base+"/nodes/"+l.pc2, nil).Want(t, 204)
		squatter := &app.Node{ID: "5e9f3c1a-0000-4000-8000-00000000aaaa", ProjectID: l.pid, Type: app.EthernetHub, Name: "PC2", Status: app.Started}
		behind(t, func(tx app.Tx) error { return tx.PutNode(squatter) })
		refused(t, l.base+"/undo", "the name PC2 is now used by another node of this project")
		behind(t, func(tx app.Tx) error { return tx.DeleteNode(l.pid, squatter.ID) })
		ts.Do("POST", l.base+"/undo", nil).Want(t, 200)
	})

	t.Run("PortLinkedElsewhere", func(t *testing.T) {
		ts.Do("DELETE", l.base+"/links/"+l.l1, nil).Want(t, 204)
		intruder := &app.Link{ID: "5e9f3c1a-0000-4000-8000-00000000bbbb", ProjectID: l.pid, LinkType: "ethernet",
			Nodes: []app.LinkEnd{{NodeID: l.hub, AdapterNumber: 0, PortNumber: 0}, {NodeID: l.sw, AdapterNumber: 0, PortNumber: 1}}}
		behind(t, func(tx app.Tx) error { return tx.PutLink(intruder) })
		refused(t, l.base+"/undo", "port Ethernet1 of Switch1 is now linked to Hub1", "delete that link")
		behind(t, func(tx app.Tx) error { return tx.DeleteLink(l.pid, intruder.ID) })
		ts.Do("POST", l.base+"/undo", nil).Want(t, 200)
	})

	t.Run("ChangedOutsideHistory", func(t *testing.T) {
		ts.Do("PUT", l.base+"/nodes/"+l.pc1, map[string]any{"x": 77}).Want(t, 200)
		behind(t, func(tx app.Tx) error {
			n, err := tx.Node(l.pid, l.pc1)
			if err != nil {
				return err
			}
			n.Y = 1234
			return tx.PutNode(n)
		})
		refused(t, l.base+"/undo", "node PC1 has changed since")
	})
	checkInvariants(t, ts, l.pid)
}

// TestHistory_Notifications: an undo reaches another client's stream as
// the changes it makes, in the wire form of GNS3's events, then as
// history.updated; so does the change itself, and the redo.
func TestHistory_Notifications(t *testing.T) {
	ts := mustOpenServer(t)
	l := ts.mustCreateHistLab(t, "lab")
	sw := ts.Do("GET", l.base+"/nodes/"+l.sw, nil).Want(t, 200).JSON(t)
	links := ts.Do("GET", l.base+"/links", nil).Want(t, 200).List(t)
	next, _ := ts.WSListenAll(t, l.base+"/notifications/ws")
	stream := func(n int) []kit.Event {
		var evs []kit.Event
		for range n {
			evs = append(evs, next())
		}
		return evs
	}
	actions := func(evs []kit.Event) []string {
		var out []string
		for _, e := range evs {
			out = append(out, e.Action)
		}
		return out
	}

	ts.Do("DELETE", l.base+"/nodes/"+l.sw, nil).Want(t, 204)
	evs := stream(4)
	if got := actions(evs); !reflect.DeepEqual(got, []string{"link.deleted", "link.deleted", "node.deleted", "history.updated"}) {
		t.Fatalf("the delete's events: %v", got)
	}
	if h := evs[3].Event; h["project_id"] != l.pid || h["redo"] != nil || h["undo"].(map[string]any)["description"] != "Deleted Switch1 and 2 links" {
		t.Errorf("history.updated %v", h)
	}

	ts.Do("POST", l.base+"/undo", nil).Want(t, 200)
	evs = stream(4)
	if got := actions(evs); !reflect.DeepEqual(got, []string{"node.created", "link.created", "link.created", "history.updated"}) {
		t.Fatalf("the undo's events: %v", got)
	}
	if !reflect.DeepEqual(evs[0].Event, sw) {
		t.Errorf("node.created of the undo:\n%v\nwant the node as it was\n%v", evs[0].Event, sw)
	}
	for i, e := range evs[1:3] {
		if !reflect.DeepEqual(e.Event, links[i]) {
			t.Errorf("link.created %d of the undo:\n%v\nwant\n%v", i, e.Event, links[i])
		}
	}
	h := evs[3].Event
	if h["redo"].(map[string]any)["description"] != "Deleted Switch1 and 2 links" || h["undo"].(map[string]any)["description"] != "Took snapshot base" {
		t.Errorf("history.updated after undo: %v", h)
	}

	ts.Do("POST", l.base+"/redo", nil).Want(t, 200)
	if got := actions(stream(4)); !reflect.DeepEqual(got, []string{"link.deleted", "link.deleted", "node.deleted", "history.updated"}) {
		t.Fatalf("the redo's events: %v", got)
	}
	// GNS3 clients follow the controller stream: project.* only.
	ts.Do("PUT", l.base, map[string]any{"grid_size": 40}).Want(t, 200)
	if got := actions(stream(1)); !reflect.DeepEqual(got, []string{"history.updated"}) {
		t.Errorf("a settings change on the project stream: %v", got)
	}
}

// TestHistory_Restart: the history is in the store: a restart keeps both
// stacks, and undo and redo go on where they were.
func TestHistory_Restart(t *testing.T) {
	ts := mustOpenServer(t)
	l := ts.mustCreateHistLab(t, "lab")
	before := kit.ProjectDigest(t, ts.st, l.pid)
	ts.Do("DELETE", l.base+"/nodes/"+l.sw, nil).Want(t, 204)
	ts.Do("PUT", l.base+"/nodes/"+l.pc1, map[string]any{"x": 300}).Want(t, 200)
	ts.Do("POST", l.base+"/undo", nil).Want(t, 200)
	h := ts.Do("GET", l.base+"/history", nil).Want(t, 200).Body

	ts.restart()
	if got := ts.Do("GET", l.base+"/history", nil).Want(t, 200).Body; string(got) != string(h) {
		t.Fatalf("history after restart:\n%s\nwant\n%s", got, h)
	}
	ts.Do("POST", l.base+"/undo", nil).Want(t, 200)
	kit.WantDigest(t, "undone after a restart", kit.ProjectDigest(t, ts.st, l.pid), before)
	if _, redo := ts.history(t, l.pid); len(redo) != 2 || redo[0]["description"] != "Deleted Switch1 and 2 links" || redo[1]["description"] != "Moved PC1" {
		t.Errorf("redo after restart and undo: %v", redo)
	}
	// Deleting the project forgets its history; a project of the same id
	// starts with none.
	ts.Do("DELETE", l.base, nil).Want(t, 204)
	ts.Do("POST", "/v2/projects", map[string]any{"name": "again", "project_id": l.pid}).Want(t, 201)
	if undo, redo := ts.history(t, l.pid); len(undo) != 0 || len(redo) != 0 {
		t.Errorf("a deleted project's history came back: %v %v", undo, redo)
	}
}

// TestHistory_Gestures: changes that carry one gesture id are one entry,
// undone as a whole; its origin is the door's; a new change empties the
// redo stack; a gesture that puts everything back leaves no entry.
func TestHistory_Gestures(t *testing.T) {
	ts := mustOpenServer(t)
	l := ts.mustCreateHistLab(t, "lab")
	undo0, _ := ts.history(t, l.pid)
	before := kit.ProjectDigest(t, ts.st, l.pid)
	gesture := func(id string) http.Header {
		return http.Header{"X-Nodedesk-Origin": {"browser"}, "X-Nodedesk-Gesture": {id}}
	}
	for i, id := range []string{l.pc1, l.pc2, l.sw} {
		ts.DoWith("PUT", l.base+"/nodes/"+id, map[string]any{"x": 100 + i, "y": 200}, gesture("drag-1")).Want(t, 200)
	}
	ts.DoWith("PUT", l.base+"/drawings/"+l.drawing, map[string]any{"x": 100, "y": 200}, gesture("drag-1")).Want(t, 201)
	moved := kit.ProjectDigest(t, ts.st, l.pid)
	undo, _ := ts.history(t, l.pid)
	if len(undo) != len(undo0)+1 || undo[0]["description"] != "Moved PC1 and 3 others" || undo[0]["origin"] != "browser" {
		t.Fatalf("after a drag of 4 items: %v", undo[:2])
	}
	// Another gesture, and a change without one, are entries of their own.
	ts.DoWith("PUT", l.base+"/nodes/"+l.hub, map[string]any{"x": 1}, gesture("drag-2")).Want(t, 200)
	ts.Do("PUT", l.base+"/nodes/"+l.frsw, map[string]any{"name": "FR"}).Want(t, 200)
	if undo, _ := ts.history(t, l.pid); len(undo) != len(undo0)+3 || undo[0]["origin"] != "api" || undo[1]["description"] != "Moved Hub1" {
		t.Fatalf("after two more changes: %v", undo[:3])
	}
	ts.Do("POST", l.base+"/undo", nil).Want(t, 200)
	ts.Do("POST", l.base+"/undo", nil).Want(t, 200)
	kit.WantDigest(t, "two undone", kit.ProjectDigest(t, ts.st, l.pid), moved)
	ts.Do("POST", l.base+"/undo", nil).Want(t, 200)
	kit.WantDigest(t, "the drag undone as a whole", kit.ProjectDigest(t, ts.st, l.pid), before)

	// A new change empties the redo stack.
	if _, redo := ts.history(t, l.pid); len(redo) != 3 {
		t.Fatalf("%d to redo, want 3", len(redo))
	}
	ts.Do("PUT", l.base+"/nodes/"+l.pc1, map[string]any{"x": 7}).Want(t, 200)
	if _, redo := ts.history(t, l.pid); len(redo) != 0 {
		t.Errorf("a new change left %d to redo", len(redo))
	}
	ts.Do("POST", l.base+"/redo", nil).Want(t, 409)

	// A gesture that ends where it began leaves nothing to undo.
	n := len(undo0) + 1
	ts.DoWith("PUT", l.base+"/nodes/"+l.pc2, map[string]any{"x": 500}, gesture("wiggle")).Want(t, 200)
	ts.DoWith("PUT", l.base+"/nodes/"+l.pc2, map[string]any{"x": 0}, gesture("wiggle")).Want(t, 200)
	if undo, _ := ts.history(t, l.pid); len(undo) != n {
		t.Errorf("after a gesture that changed nothing: %d entries, want %d: %v", len(undo), n, undo[:2])
	}

	// The window's in-process calls are the window's.
	ctx := app.WithSource(context.Background(), app.Source{Origin: app.OriginWindow, Gesture: "w"})
	if status, body := ts.srv.Call(ctx, "PUT", l.base+"/nodes/"+l.pc2, []byte(`{"x": 9}`)); status != 200 {
		t.Fatalf("in-process PUT: %d %s", status, body)
	}
	if undo, _ := ts.history(t, l.pid); undo[0]["origin"] != "window" {
		t.Errorf("in-process change: %v", undo[0])
	}

	// A page of another site cannot send these headers: the browser asks
	// first, and is not told yes.
	pre := ts.DoWith("OPTIONS", l.base+"/nodes/"+l.pc1, nil, http.Header{"Origin": {"http://evil.example"},
		"Access-Control-Request-Method": {"PUT"}, "Access-Control-Request-Headers": {"x-nodedesk-gesture"}})
	if pre.Status < 400 || pre.Header.Get("Access-Control-Allow-Origin") != "" || pre.Header.Get("Access-Control-Allow-Headers") != "" {
		t.Errorf("CORS preflight answered %d %v", pre.Status, pre.Header)
	}

	// Headers the API does not know are refused, and change nothing.
	for _, h := range []http.Header{{"X-Nodedesk-Origin": {"martian"}}, {"X-Nodedesk-Gesture": {"two words"}},
		{"X-Nodedesk-Gesture": {strings.Repeat("g", 101)}}} {
		ts.DoWith("PUT", l.base+"/nodes/"+l.pc1, map[string]any{"x": 8}, h).Want(t, 400)
	}
	if got := ts.Do("GET", l.base+"/nodes/"+l.pc1, nil).Want(t, 200).JSON(t)["x"]; got != 7.0 {
		t.Errorf("x after refused requests: %v", got)
	}
}

// TestHistory_RuntimeIsNotHistory: starting and stopping always-running
// nodes, and capturing on a link, record nothing.
func TestHistory_RuntimeIsNotHistory(t *testing.T) {
	ts := mustOpenServer(t)
	l := ts.mustCreateHistLab(t, "lab")
	h := ts.Do("GET", l.base+"/history", nil).Want(t, 200).Body
	ts.Do("POST", l.base+"/nodes/"+l.sw+"/stop", nil).Want(t, 200)
	ts.Do("POST", l.base+"/nodes/"+l.sw+"/start", nil).Want(t, 200)
	ts.Do("POST", l.base+"/nodes/start", nil).Want(t, 204)
	ts.Do("POST", l.base+"/links/"+l.l1+"/start_capture", map[string]any{}).Want(t, 201)
	ts.Do("POST", l.base+"/links/"+l.l1+"/stop_capture", nil).Want(t, 201)
	ts.Do("POST", l.base+"/close", nil).Want(t, 204)
	ts.Do("POST", l.base+"/open", nil).Want(t, 201)
	if got := ts.Do("GET", l.base+"/history", nil).Want(t, 200).Body; string(got) != string(h) {
		t.Errorf("runtime changes were recorded:\n%s\nwant\n%s", got, h)
	}
	// An undo keeps a link's capture as it is now.
	ts.Do("POST", l.base+"/links/"+l.l1+"/start_capture", map[string]any{}).Want(t, 201)
	ts.Do("PUT", l.base+"/links/"+l.l1, map[string]any{"suspend": true}).Want(t, 200)
	ts.Do("POST", l.base+"/undo", nil).Want(t, 200)
	if got := ts.Do("GET", l.base+"/links/"+l.l1, nil).Want(t, 200).JSON(t); got["suspend"] != false || got["capturing"] != true {
		t.Errorf("link after undo: %v", got)
	}
}

// TestWithSource_Get: a GET that says it comes from nodedesk's page is
// the page's (the UI's Find idle-PC is GNS3's GET auto_idlepc, which sets
// the router's idle-PC: its history entry must not say "API"); one that
// says nothing keeps its context.
func TestWithSource_Get(t *testing.T) {
	r := httptest.NewRequest("GET", "/v2/projects/p/nodes/n/dynamips/auto_idlepc", nil)
	r.Header.Set("X-Nodedesk-Origin", "browser")
	got, err := withSource(r)
	if err != nil || app.SourceOf(got.Context()).Origin != app.OriginBrowser {
		t.Errorf("GET from the page: source %+v, %v; want browser", app.SourceOf(got.Context()), err)
	}
	plain, err := withSource(httptest.NewRequest("GET", "/v2/version", nil))
	if err != nil || app.SourceOf(plain.Context()).Origin == app.OriginBrowser {
		t.Errorf("GET of another client: source %+v, %v", app.SourceOf(plain.Context()), err)
	}
}
