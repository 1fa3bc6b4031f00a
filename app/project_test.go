package app_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"

	"nodedesk/app"
)

func TestService_CreateProject_Defaults(t *testing.T) {
	svc, b := newService(t)
	events, stop := b.Subscribe(16)
	defer stop()
	p := mustCreateProject(t, svc, "lab")
	want := app.Project{ID: p.ID, Name: "lab", Filename: "lab.gns3", Status: app.ProjectOpened, AutoClose: true,
		SceneWidth: 2000, SceneHeight: 1000, Zoom: 100, GridSize: 75, DrawingGridSize: 25, Seq: p.Seq}
	if p.Supplier != nil || p.Variables != nil {
		t.Errorf("supplier, variables = %v, %v; want none", p.Supplier, p.Variables)
	}
	got := *p
	got.Supplier, got.Variables = nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("new project = %+v; want GNS3's defaults %+v", got, want)
	}
	evs := drain(events)
	if len(evs) == 0 || evs[0].Action != app.EventProjectCreated || evs[0].ProjectID != p.ID {
		t.Errorf("events = %+v; want project.created first", evs)
	}
}

func TestService_CreateProject_WithID(t *testing.T) {
	ctx := context.Background()
	svc, b := newService(t)
	id := "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"
	p, err := svc.CreateProject(ctx, app.ProjectCreate{ID: strings.ToUpper(id), ProjectUpdate: app.ProjectUpdate{Name: app.Some("p")}})
	if err != nil {
		t.Fatal(err)
	}
	if p.ID != id {
		t.Errorf("project id = %s; want %s (canonical)", p.ID, id)
	}
	// Creating it again returns it as it is, and announces nothing.
	events, stop := b.Subscribe(16)
	defer stop()
	again, err := svc.CreateProject(ctx, app.ProjectCreate{ID: id, ProjectUpdate: app.ProjectUpdate{Name: app.Some("other"), GridSize: app.Some(10)}})
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != id || again.Name != "p" || again.GridSize != 75 {
		t.Errorf("second create = %+v; want the project unchanged", again)
	}
	if evs := drain(events); len(evs) != 0 {
		t.Errorf("second create published %+v", evs)
	}
	if ps, _ := svc.FindProjects(ctx); len(ps) != 1 {
		t.Errorf("%d projects; want 1", len(ps))
	}
}

func TestService_CreateProject_Invalid(t *testing.T) {
	ctx := context.Background()
	name := func(n string) app.ProjectUpdate { return app.ProjectUpdate{Name: app.Some(n)} }
	tests := []struct {
		name string
		give app.ProjectCreate
	}{
		{"NoName", app.ProjectCreate{}},
		{"NullName", app.ProjectCreate{ProjectUpdate: app.ProjectUpdate{Name: app.Null[string]()}}},
		{"EmptyName", app.ProjectCreate{ProjectUpdate: name("")}},
		{"NameTooLong", app.ProjectCreate{ProjectUpdate: name(strings.Repeat("é", 256))}},
		{"NameWithLineBreak", app.ProjectCreate{ProjectUpdate: name("a\nb")}},
		{"BadProjectID", app.ProjectCreate{ID: "abc", ProjectUpdate: name("x")}},
		{"ZoomZero", app.ProjectCreate{ProjectUpdate: app.ProjectUpdate{Name: app.Some("x"), Zoom: app.Some(0)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := newService(t)
			_, err := svc.CreateProject(ctx, tt.give)
			wantCode(t, err, app.EINVALID)
			if ps, _ := svc.FindProjects(ctx); len(ps) != 0 {
				t.Errorf("a refused create stored %d projects", len(ps))
			}
		})
	}
	t.Run("OKNameOf255", func(t *testing.T) {
		svc, _ := newService(t)
		mustCreateProject(t, svc, strings.Repeat("é", 255))
	})
}

func TestService_UpdateProject_Settings(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		give     app.ProjectUpdate
		wantCode string
		check    func(t *testing.T, p *app.Project)
	}{
		{"OKSettings", app.ProjectUpdate{SceneWidth: app.Some(3000), ShowGrid: app.Some(true), GridSize: app.Some(0), Zoom: app.Some(1)}, "",
			func(t *testing.T, p *app.Project) {
				if p.SceneWidth != 3000 || !p.ShowGrid || p.GridSize != 0 || p.Zoom != 1 || p.SceneHeight != 1000 {
					t.Errorf("project %+v; want the settings given changed and the others kept", p)
				}
			}},
		{"OKVariablesAndSupplier", app.ProjectUpdate{Variables: app.Some([]app.Variable{{Name: "a", Value: "b"}}),
			Supplier: app.Some(app.Supplier{Logo: "l", URL: "u"})}, "",
			func(t *testing.T, p *app.Project) {
				if len(p.Variables) != 1 || p.Variables[0] != (app.Variable{Name: "a", Value: "b"}) || p.Supplier == nil || p.Supplier.URL != "u" {
					t.Errorf("variables, supplier = %+v, %+v", p.Variables, p.Supplier)
				}
			}},
		{"OKRenameKeepsFilename", app.ProjectUpdate{Name: app.Some("lab2")}, "",
			func(t *testing.T, p *app.Project) {
				if p.Name != "lab2" || p.Filename != "lab.gns3" {
					t.Errorf("name, filename = %q, %q; want lab2, lab.gns3", p.Name, p.Filename)
				}
			}},
		{"ErrInvalidZoomZero", app.ProjectUpdate{Zoom: app.Some(0)}, app.EINVALID, nil},
		{"ErrInvalidNegativeGrid", app.ProjectUpdate{GridSize: app.Some(-1)}, app.EINVALID, nil},
		{"ErrInvalidNegativeDrawingGrid", app.ProjectUpdate{DrawingGridSize: app.Some(-1)}, app.EINVALID, nil},
		{"ErrInvalidNegativeSceneWidth", app.ProjectUpdate{SceneWidth: app.Some(-5)}, app.EINVALID, nil},
		{"ErrInvalidNegativeSceneHeight", app.ProjectUpdate{SceneHeight: app.Some(-5)}, app.EINVALID, nil},
		{"ErrInvalidVariableWithoutName", app.ProjectUpdate{Variables: app.Some([]app.Variable{{Value: "b"}})}, app.EINVALID, nil},
		{"ErrInvalidEmptyName", app.ProjectUpdate{Name: app.Some(""), GridSize: app.Some(10)}, app.EINVALID, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := newService(t)
			p := mustCreateProject(t, svc, "lab")
			got, err := svc.UpdateProject(ctx, p.ID, tt.give)
			wantCode(t, err, tt.wantCode)
			stored, ferr := svc.FindProjectByID(ctx, p.ID)
			if ferr != nil {
				t.Fatal(ferr)
			}
			if tt.wantCode != "" {
				if stored.GridSize != p.GridSize || stored.Zoom != p.Zoom || stored.Name != p.Name || len(stored.Variables) != 0 {
					t.Errorf("a refused update changed the project: %+v", stored)
				}
				return
			}
			tt.check(t, got)
			tt.check(t, stored)
		})
	}
}

func TestService_OpenProject(t *testing.T) {
	ctx := context.Background()
	svc, b := newService(t)
	p := mustCreateProject(t, svc, "lab")
	n := mustCreateVPCS(t, svc, p.ID)
	if _, err := svc.NodeAction(ctx, ref(n), app.Start); err != nil {
		t.Fatal(err)
	}

	// Closing stops the running nodes and marks the project closed.
	events, stop := b.Subscribe(64)
	defer stop()
	if err := svc.CloseProject(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := svc.FindProjectByID(ctx, p.ID); got.Status != app.ProjectClosed {
		t.Errorf("status after close = %s; want closed", got.Status)
	}
	if got := mustFindNode(t, svc, n); got.Status != app.Stopped {
		t.Errorf("node of a closed project is %s; want stopped", got.Status)
	}
	if !hasAction(drain(events), app.EventProjectClosed) {
		t.Error("no project.closed event")
	}
	// Closing again is no error.
	if err := svc.CloseProject(ctx, p.ID); err != nil {
		t.Errorf("second close: %v", err)
	}
	// The nodes of a closed project stay editable.
	if _, err := svc.UpdateNode(ctx, ref(n), app.NodeUpdate{X: app.Some(3)}); err != nil {
		t.Errorf("editing a node of a closed project: %v", err)
	}

	got, err := svc.OpenProject(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != app.ProjectOpened {
		t.Errorf("status after open = %s; want opened", got.Status)
	}
	if !hasAction(drain(events), app.EventProjectOpened) {
		t.Error("no project.opened event")
	}

	for _, id := range []string{"None", uuid.NewString()} {
		_, err := svc.OpenProject(ctx, id)
		wantCode(t, err, app.ENOTFOUND)
		wantCode(t, svc.CloseProject(ctx, id), app.ENOTFOUND)
	}
}

func hasAction(evs []app.Event, a app.EventAction) bool {
	for _, e := range evs {
		if e.Action == a {
			return true
		}
	}
	return false
}

func TestService_FindProjects(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	ps, err := svc.FindProjects(ctx)
	if err != nil || len(ps) != 0 {
		t.Fatalf("projects of a new store = %v, %v; want none", ps, err)
	}
	want := []string{"b", "a", "c"}
	for _, name := range want {
		mustCreateProject(t, svc, name)
	}
	ps, err = svc.FindProjects(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range ps {
		got = append(got, p.Name)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("projects listed %v; want creation order %v", got, want)
	}
}

func TestService_ProjectStats(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	p := mustCreateProject(t, svc, "lab")
	a := mustCreateVPCS(t, svc, p.ID)
	sw := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.EthernetSwitch})
	mustLink(t, svc, p.ID, portEnd(a, 0, 0), portEnd(sw, 0, 1))
	mustCreateDrawing(t, svc, p.ID, app.DrawingUpdate{})
	if _, err := svc.CreateSnapshot(ctx, p.ID, "s1"); err != nil {
		t.Fatal(err)
	}
	st, err := svc.ProjectStats(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := (app.Stats{Nodes: 2, Links: 1, Drawings: 1}); st != want {
		t.Errorf("stats = %+v; want %+v (snapshots are not counted)", st, want)
	}
	_, err = svc.ProjectStats(ctx, uuid.NewString())
	wantCode(t, err, app.ENOTFOUND)
}
