package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"

	"nodedesk/app"
	"nodedesk/app/kit"
	"nodedesk/store/storetest"
)

// histLab is a project for history tests: two VPCS, a switch, a hub and a
// Frame Relay switch; PC1 e0 linked to Switch1 e1 and PC2 e0 to Switch1
// e2; a drawing; a snapshot "base" of all that.
type histLab struct {
	p                       *app.Project
	pc1, pc2, sw, hub, frsw *app.Node
	l1, l2                  *app.Link
	drawing                 *app.Drawing
	snapshot                *app.Snapshot
}

func mustCreateHistLab(tb testing.TB, svc *app.Service, name string) histLab {
	tb.Helper()
	l := histLab{p: mustCreateProject(tb, svc, name)}
	node := func(typ app.NodeType) *app.Node { return mustCreateNode(tb, svc, l.p.ID, app.NodeCreate{Type: typ}) }
	l.pc1, l.pc2, l.sw, l.hub = node(app.VPCS), node(app.VPCS), node(app.EthernetSwitch), node(app.EthernetHub)
	l.frsw = mustCreateNode(tb, svc, l.p.ID, app.NodeCreate{Type: app.FrameRelaySwitch, NodeUpdate: app.NodeUpdate{
		Properties: &app.FrameRelayUpdate{Mappings: app.Some(map[string]string{"1:101": "2:201"})}}})
	l.l1 = mustLink(tb, svc, l.p.ID, portEnd(l.pc1, 0, 0), portEnd(l.sw, 0, 1))
	l.l2 = mustLink(tb, svc, l.p.ID, portEnd(l.pc2, 0, 0), portEnd(l.sw, 0, 2))
	l.drawing = mustCreateDrawing(tb, svc, l.p.ID, app.DrawingUpdate{SVG: app.Some("<svg><rect/></svg>"), X: app.Some(5)})
	l.snapshot = mustCreateSnapshot(tb, svc, l.p.ID, "base")
	return l
}

// projectState is everything the Service lists of a project, as JSON
// text, so that two states compare whole and a difference reads well.
func projectState(tb testing.TB, svc *app.Service, projectID string) string {
	tb.Helper()
	r := mustReadProject(tb, svc, projectID)
	snaps, err := svc.FindSnapshots(context.Background(), projectID)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := json.MarshalIndent(map[string]any{"project": r.project, "nodes": r.nodes, "links": r.links,
		"drawings": r.drawings, "snapshots": snaps}, "", " ")
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// TestService_Undo makes each kind of change, undoes it and finds the
// project exactly as it was before, redoes it and finds it exactly as the
// change left it.
func TestService_Undo(t *testing.T) {
	ctx := context.Background()
	var ports8 []app.SwitchPort
	for i := range 8 {
		ports8 = append(ports8, app.SwitchPort{Name: fmt.Sprintf("Ethernet%d", i), PortNumber: i, Type: "access", VLAN: 10 + i})
	}
	must := func(t *testing.T, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	update := func(t *testing.T, svc *app.Service, n *app.Node, u app.NodeUpdate) {
		t.Helper()
		_, err := svc.UpdateNode(ctx, ref(n), u)
		must(t, err)
	}
	tests := []struct {
		name     string
		prepare  func(t *testing.T, svc *app.Service, l histLab) // not undone
		change   func(t *testing.T, svc *app.Service, l histLab)
		wantDesc string
	}{
		{name: "CreateNode", wantDesc: "Added PC3", change: func(t *testing.T, svc *app.Service, l histLab) {
			mustCreateNode(t, svc, l.p.ID, app.NodeCreate{Type: app.VPCS, NodeUpdate: app.NodeUpdate{X: app.Some(3), Y: app.Some(4)}})
		}},
		{name: "CreateFromTemplate", wantDesc: "Added Switch2", change: func(t *testing.T, svc *app.Service, l histLab) {
			_, err := svc.CreateNodeFromTemplate(ctx, l.p.ID, "1966b864-93e7-32d5-965f-001384eec461", app.TemplateUse{X: 1, Y: 2})
			must(t, err)
		}},
		{name: "DuplicateNode", wantDesc: "Added PC3", change: func(t *testing.T, svc *app.Service, l histLab) {
			_, err := svc.DuplicateNode(ctx, ref(l.pc1), 50, 60, app.Field[int]{})
			must(t, err)
		}},
		{name: "Move", wantDesc: "Moved PC1", change: func(t *testing.T, svc *app.Service, l histLab) {
			update(t, svc, l.pc1, app.NodeUpdate{X: app.Some(10), Y: app.Some(-20), Z: app.Some(3)})
		}},
		{name: "Rename", wantDesc: "Renamed PC1 to Alpha", change: func(t *testing.T, svc *app.Service, l histLab) {
			update(t, svc, l.pc1, app.NodeUpdate{Name: app.Some("Alpha")})
		}},
		{name: "ConsolePort", wantDesc: "Changed PC1", change: func(t *testing.T, svc *app.Service, l histLab) {
			update(t, svc, l.pc1, app.NodeUpdate{Console: app.Some(5900)})
		}},
		{name: "ConsoleType", wantDesc: "Changed Switch1", change: func(t *testing.T, svc *app.Service, l histLab) {
			update(t, svc, l.sw, app.NodeUpdate{ConsoleType: app.Some(app.ConsoleTelnet)})
		}},
		{name: "StartupScript", wantDesc: "Changed PC1", change: func(t *testing.T, svc *app.Service, l histLab) {
			update(t, svc, l.pc1, app.NodeUpdate{Properties: &app.VPCSUpdate{StartupScript: app.Some("ip 10.0.0.1/24\n")}})
		}},
		{name: "BulkSwitchEdit", wantDesc: "Changed ports of Switch1", change: func(t *testing.T, svc *app.Service, l histLab) {
			update(t, svc, l.sw, app.NodeUpdate{Properties: &app.SwitchUpdate{PortsMapping: app.Some(ports8)}})
		}},
		{name: "FrameRelayMappings", wantDesc: "Changed ports of FRSW1", change: func(t *testing.T, svc *app.Service, l histLab) {
			update(t, svc, l.frsw, app.NodeUpdate{Properties: &app.FrameRelayUpdate{Mappings: app.Some(map[string]string{"1:102": "2:202", "3:303": "4:404"})}})
		}},
		{name: "DeleteNodeWithLinks", wantDesc: "Deleted Switch1 and 2 links", change: func(t *testing.T, svc *app.Service, l histLab) {
			must(t, svc.DeleteNode(ctx, ref(l.sw)))
		}},
		{name: "DeleteNode", wantDesc: "Deleted Hub1", change: func(t *testing.T, svc *app.Service, l histLab) {
			must(t, svc.DeleteNode(ctx, ref(l.hub)))
		}},
		{name: "LinkCreate", wantDesc: "Linked Hub1 to Switch1", change: func(t *testing.T, svc *app.Service, l histLab) {
			mustLink(t, svc, l.p.ID, portEnd(l.hub, 0, 0), portEnd(l.sw, 0, 3))
		}},
		{name: "LinkDelete", wantDesc: "Deleted link PC1 – Switch1", change: func(t *testing.T, svc *app.Service, l histLab) {
			must(t, svc.DeleteLink(ctx, l.p.ID, l.l1.ID))
		}},
		{name: "LinkFilters", wantDesc: "Changed link PC1 – Switch1", change: func(t *testing.T, svc *app.Service, l histLab) {
			_, err := svc.UpdateLink(ctx, l.p.ID, l.l1.ID, app.LinkUpdate{Suspend: app.Some(true),
				Filters: app.Some(map[string]json.RawMessage{"frequency_drop": json.RawMessage("[5]")})})
			must(t, err)
		}},
		{name: "DrawingCreate", wantDesc: "Added drawing", change: func(t *testing.T, svc *app.Service, l histLab) {
			mustCreateDrawing(t, svc, l.p.ID, app.DrawingUpdate{SVG: app.Some("<svg><ellipse/></svg>")})
		}},
		{name: "DrawingMove", wantDesc: "Moved drawing", change: func(t *testing.T, svc *app.Service, l histLab) {
			_, err := svc.UpdateDrawing(ctx, l.p.ID, l.drawing.ID, app.DrawingUpdate{X: app.Some(40), Y: app.Some(50)})
			must(t, err)
		}},
		{name: "DrawingEdit", wantDesc: "Edited drawing", change: func(t *testing.T, svc *app.Service, l histLab) {
			_, err := svc.UpdateDrawing(ctx, l.p.ID, l.drawing.ID, app.DrawingUpdate{SVG: app.Some("<svg><line/></svg>"), Rotation: app.Some(45), Locked: app.Some(true)})
			must(t, err)
		}},
		{name: "DrawingDelete", wantDesc: "Deleted drawing", change: func(t *testing.T, svc *app.Service, l histLab) {
			must(t, svc.DeleteDrawing(ctx, l.p.ID, l.drawing.ID))
		}},
		{name: "SnapshotTake", wantDesc: "Took snapshot second", change: func(t *testing.T, svc *app.Service, l histLab) {
			mustCreateSnapshot(t, svc, l.p.ID, "second")
		}},
		{name: "SnapshotDelete", wantDesc: "Deleted snapshot base", change: func(t *testing.T, svc *app.Service, l histLab) {
			must(t, svc.DeleteSnapshot(ctx, l.p.ID, l.snapshot.ID))
		}},
		{name: "SnapshotRestore", wantDesc: "Restored snapshot base",
			prepare: func(t *testing.T, svc *app.Service, l histLab) {
				must(t, svc.DeleteNode(ctx, ref(l.sw)))
				update(t, svc, l.pc1, app.NodeUpdate{X: app.Some(99), Name: app.Some("moved")})
				mustCreateDrawing(t, svc, l.p.ID, app.DrawingUpdate{})
			},
			change: func(t *testing.T, svc *app.Service, l histLab) {
				_, err := svc.RestoreSnapshot(ctx, l.p.ID, l.snapshot.ID)
				must(t, err)
			}},
		{name: "ProjectSettings", wantDesc: "Changed project settings", change: func(t *testing.T, svc *app.Service, l histLab) {
			_, err := svc.UpdateProject(ctx, l.p.ID, app.ProjectUpdate{GridSize: app.Some(50), ShowGrid: app.Some(true),
				Variables: app.Some([]app.Variable{{Name: "a", Value: "b"}})})
			must(t, err)
		}},
		{name: "ProjectRename", wantDesc: "Renamed project lab to renamed", change: func(t *testing.T, svc *app.Service, l histLab) {
			_, err := svc.UpdateProject(ctx, l.p.ID, app.ProjectUpdate{Name: app.Some("renamed")})
			must(t, err)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := newService(t)
			l := mustCreateHistLab(t, svc, "lab")
			if tt.prepare != nil {
				tt.prepare(t, svc, l)
			}
			before := projectState(t, svc, l.p.ID)
			undo0 := len(mustFindHistory(t, svc, l.p.ID).Undo)
			tt.change(t, svc, l)
			after := projectState(t, svc, l.p.ID)
			if after == before {
				t.Fatal("the change changed nothing")
			}
			h := mustFindHistory(t, svc, l.p.ID)
			if len(h.Undo) != undo0+1 || len(h.Redo) != 0 {
				t.Fatalf("history after the change: %d to undo, %d to redo; want %d, 0", len(h.Undo), len(h.Redo), undo0+1)
			}
			if e := h.Undo[0]; e.Description != tt.wantDesc || e.Origin != app.OriginAPI {
				t.Errorf("entry %q from %q; want %q from the API", e.Description, e.Origin, tt.wantDesc)
			}

			e, err := svc.Undo(ctx, l.p.ID)
			if err != nil {
				t.Fatal(err)
			}
			if e.ID != h.Undo[0].ID || e.Description != tt.wantDesc {
				t.Errorf("Undo returned %q (%s); want the entry %s", e.Description, e.ID, h.Undo[0].ID)
			}
			kit.WantDigest(t, "after undo", projectState(t, svc, l.p.ID), before)
			if h := mustFindHistory(t, svc, l.p.ID); len(h.Undo) != undo0 || len(h.Redo) != 1 || h.Redo[0].ID != e.ID {
				t.Errorf("history after undo: %d to undo, %d to redo", len(h.Undo), len(h.Redo))
			}

			if _, err := svc.Redo(ctx, l.p.ID); err != nil {
				t.Fatal(err)
			}
			kit.WantDigest(t, "after redo", projectState(t, svc, l.p.ID), after)
			if _, err := svc.Undo(ctx, l.p.ID); err != nil {
				t.Fatal(err)
			}
			kit.WantDigest(t, "after a second undo", projectState(t, svc, l.p.ID), before)
		})
	}
}

// TestService_Undo_NewChangeDropsRedo: a change made after an undo is the
// newest; what was undone can no longer be redone.
func TestService_Undo_NewChangeDropsRedo(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	p := mustCreateProject(t, svc, "lab")
	n := mustCreateVPCS(t, svc, p.ID)
	if _, err := svc.UpdateNode(ctx, ref(n), app.NodeUpdate{X: app.Some(1)}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Undo(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.UpdateNode(ctx, ref(n), app.NodeUpdate{Y: app.Some(2)}); err != nil {
		t.Fatal(err)
	}
	if h := mustFindHistory(t, svc, p.ID); len(h.Redo) != 0 || len(h.Undo) != 2 {
		t.Errorf("history: %d to undo, %d to redo; want 2, 0", len(h.Undo), len(h.Redo))
	}
	_, err := svc.Redo(ctx, p.ID)
	wantCode(t, err, app.ECONFLICT)
}

// TestService_Undo_Conflicts: an undo or redo that needs something no
// longer free is refused with a conflict naming it, and changes nothing;
// once it is free, the same undo works.
func TestService_Undo_Conflicts(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	svc := app.NewService(app.Config{Store: st, DataDir: t.TempDir(), HostInterfaces: hostInterfaces, PortFree: everyPortFree})
	l := mustCreateHistLab(t, svc, "lab")
	other := mustCreateProject(t, svc, "other")

	// refused calls op, wants a conflict whose message holds each of want,
	// and finds both projects and the history unchanged.
	refused := func(t *testing.T, op func(context.Context, string) (*app.HistoryEntry, error), want ...string) {
		t.Helper()
		labBefore, otherBefore := projectState(t, svc, l.p.ID), projectState(t, svc, other.ID)
		histBefore := mustFindHistory(t, svc, l.p.ID)
		_, err := op(ctx, l.p.ID)
		wantCode(t, err, app.ECONFLICT)
		for _, w := range want {
			if !strings.Contains(app.ErrorMessage(err), w) {
				t.Errorf("conflict %q does not say %q", app.ErrorMessage(err), w)
			}
		}
		kit.WantDigest(t, "after a refused replay", projectState(t, svc, l.p.ID), labBefore)
		kit.WantDigest(t, "the other project after a refused replay", projectState(t, svc, other.ID), otherBefore)
		if h := mustFindHistory(t, svc, l.p.ID); !reflect.DeepEqual(h, histBefore) {
			t.Errorf("history after a refused replay:\n%+v\nwant\n%+v", h, histBefore)
		}
	}
	// behind changes the store without the Service, as an older nodedesk
	// or another tool could have.
	behind := func(t *testing.T, fn func(tx app.Tx) error) {
		t.Helper()
		if err := st.Update(fn); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("NothingToUndo", func(t *testing.T) {
		empty := mustCreateProject(t, svc, "empty")
		for op, f := range map[string]func(context.Context, string) (*app.HistoryEntry, error){"undo": svc.Undo, "redo": svc.Redo} {
			_, err := f(ctx, empty.ID)
			wantCode(t, err, app.ECONFLICT)
			if msg := app.ErrorMessage(err); msg != "Nothing to "+op+" in project empty" {
				t.Errorf("%s: %q", op, msg)
			}
		}
		_, err := svc.Undo(ctx, uuid.NewString())
		wantCode(t, err, app.ENOTFOUND)
		_, err = svc.FindHistory(ctx, "None")
		wantCode(t, err, app.ENOTFOUND)
	})

	t.Run("ConsolePortTakenByAnotherProject", func(t *testing.T) {
		pc1 := mustFindNode(t, svc, l.pc1)
		if err := svc.DeleteNode(ctx, ref(pc1)); err != nil {
			t.Fatal(err)
		}
		thief := mustCreateNode(t, svc, other.ID, app.NodeCreate{Type: app.VPCS, NodeUpdate: app.NodeUpdate{
			Name: app.Some("thief"), Console: app.Some(pc1.Console)}})
		refused(t, svc.Undo, fmt.Sprintf("console port %d", pc1.Console), "thief of project other", `"Deleted PC1 and 1 link"`)
		if err := svc.DeleteNode(ctx, ref(thief)); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Undo(ctx, l.p.ID); err != nil {
			t.Fatal(err)
		}
		if back := mustFindNode(t, svc, pc1); !reflect.DeepEqual(back, pc1) {
			t.Errorf("PC1 came back as\n%+v\nwant\n%+v", back, pc1)
		}
		if ls, _ := svc.FindNodeLinks(ctx, ref(pc1)); len(ls) != 1 || ls[0].ID != l.l1.ID {
			t.Errorf("PC1's links after undo: %v", ls)
		}
	})

	t.Run("RedoConsolePortTaken", func(t *testing.T) {
		pc := mustCreateNode(t, svc, l.p.ID, namedNode(app.VPCS, "late"))
		if _, err := svc.Undo(ctx, l.p.ID); err != nil {
			t.Fatal(err)
		}
		thief := mustCreateNode(t, svc, other.ID, app.NodeCreate{Type: app.VPCS, NodeUpdate: app.NodeUpdate{
			Name: app.Some("thief2"), Console: app.Some(pc.Console)}})
		refused(t, svc.Redo, fmt.Sprintf("console port %d", pc.Console), "thief2 of project other", `Cannot redo "Added late"`)
		if err := svc.DeleteNode(ctx, ref(thief)); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Redo(ctx, l.p.ID); err != nil {
			t.Fatal(err)
		}
		if back := mustFindNode(t, svc, pc); !reflect.DeepEqual(back, pc) {
			t.Errorf("redo brought back\n%+v\nwant\n%+v", back, pc)
		}
		if _, err := svc.Undo(ctx, l.p.ID); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("ProjectNameTaken", func(t *testing.T) {
		if _, err := svc.UpdateProject(ctx, l.p.ID, app.ProjectUpdate{Name: app.Some("lab2")}); err != nil {
			t.Fatal(err)
		}
		squatter := mustCreateProject(t, svc, "lab")
		refused(t, svc.Undo, "project name lab is now used by another project")
		if err := svc.DeleteProject(ctx, squatter.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Undo(ctx, l.p.ID); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("NameTaken", func(t *testing.T) {
		if err := svc.DeleteNode(ctx, ref(l.pc2)); err != nil {
			t.Fatal(err)
		}
		squatter := &app.Node{ID: uuid.NewString(), ProjectID: l.p.ID, Type: app.EthernetHub, Name: "PC2", Status: app.Started}
		behind(t, func(tx app.Tx) error { return tx.PutNode(squatter) })
		refused(t, svc.Undo, "the name PC2 is now used by another node of this project")
		behind(t, func(tx app.Tx) error { return tx.DeleteNode(l.p.ID, squatter.ID) })
		if _, err := svc.Undo(ctx, l.p.ID); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("PortLinkedElsewhere", func(t *testing.T) {
		if err := svc.DeleteLink(ctx, l.p.ID, l.l1.ID); err != nil {
			t.Fatal(err)
		}
		intruder := &app.Link{ID: uuid.NewString(), ProjectID: l.p.ID, LinkType: "ethernet",
			Nodes: []app.LinkEnd{portEnd(l.hub, 0, 0), portEnd(l.sw, 0, 1)}}
		behind(t, func(tx app.Tx) error { return tx.PutLink(intruder) })
		refused(t, svc.Undo, "port Ethernet1 of Switch1 is now linked to Hub1", "delete that link")
		behind(t, func(tx app.Tx) error { return tx.DeleteLink(l.p.ID, intruder.ID) })
		if _, err := svc.Undo(ctx, l.p.ID); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("ChangedOutsideHistory", func(t *testing.T) {
		if _, err := svc.UpdateNode(ctx, ref(l.pc1), app.NodeUpdate{X: app.Some(77)}); err != nil {
			t.Fatal(err)
		}
		behind(t, func(tx app.Tx) error {
			n, err := tx.Node(l.p.ID, l.pc1.ID)
			if err != nil {
				return err
			}
			n.Y = 1234
			return tx.PutNode(n)
		})
		refused(t, svc.Undo, "node PC1 has changed since")
	})
}
