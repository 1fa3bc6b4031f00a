package app_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"nodedesk/app"
)

// drawingEvents returns the drawing.* events already published to ch.
func drawingEvents(ch <-chan app.Event) []app.Event {
	var out []app.Event
	for _, e := range drain(ch) {
		if strings.HasPrefix(string(e.Action), "drawing.") {
			out = append(out, e)
		}
	}
	return out
}

func mustCreateDrawing(tb testing.TB, svc *app.Service, projectID string, u app.DrawingUpdate) *app.Drawing {
	tb.Helper()
	d, err := svc.CreateDrawing(context.Background(), projectID, u)
	if err != nil {
		tb.Fatalf("CreateDrawing: %v", err)
	}
	return d
}

func TestService_CreateDrawing(t *testing.T) {
	ctx := context.Background()

	t.Run("Defaults", func(t *testing.T) {
		svc, b := newService(t)
		p := mustCreateProject(t, svc, "canvas")
		events, stop := b.Subscribe(16)
		defer stop()
		d := mustCreateDrawing(t, svc, p.ID, app.DrawingUpdate{})
		want := app.Drawing{ID: d.ID, ProjectID: p.ID, SVG: "<svg></svg>", Z: 2}
		got := *d
		got.Seq = 0
		if got != want {
			t.Errorf("new drawing = %+v; want GNS3's defaults %+v", got, want)
		}
		if _, err := uuid.Parse(d.ID); err != nil {
			t.Errorf("drawing id %q is not a UUID", d.ID)
		}
		evs := drawingEvents(events)
		if len(evs) != 1 || evs[0].Action != app.EventDrawingCreated || evs[0].Payload.(*app.Drawing).ID != d.ID {
			t.Errorf("events = %+v; want one drawing.created of %s", evs, d.ID)
		}
	})

	t.Run("OKClientID", func(t *testing.T) {
		svc, b := newService(t)
		p := mustCreateProject(t, svc, "canvas")
		id := "0b7d4c3e-1f2a-4b5c-8d9e-0f1a2b3c4d5e"
		svg := `<svg height="100" width="200"></svg>`
		d := mustCreateDrawing(t, svc, p.ID, app.DrawingUpdate{ID: app.Some(id), SVG: app.Some(svg),
			X: app.Some(-40), Y: app.Some(25), Z: app.Some(1), Rotation: app.Some(45)})
		if d.ID != id || d.SVG != svg || d.X != -40 || d.Y != 25 || d.Z != 1 || d.Rotation != 45 {
			t.Fatalf("created %+v", d)
		}
		// The same id again (in any case) returns the drawing unchanged
		// and announces nothing.
		events, stop := b.Subscribe(16)
		defer stop()
		again := mustCreateDrawing(t, svc, p.ID, app.DrawingUpdate{ID: app.Some(strings.ToUpper(id)), X: app.Some(999)})
		if again.ID != id || again.X != -40 {
			t.Errorf("second create with the same id = %+v; want the drawing unchanged", again)
		}
		if evs := drawingEvents(events); len(evs) != 0 {
			t.Errorf("second create published %+v", evs)
		}
		if ds, _ := svc.FindDrawings(ctx, p.ID); len(ds) != 1 {
			t.Errorf("%d drawings; want 1", len(ds))
		}
	})

	tests := []struct {
		name      string
		give      app.DrawingUpdate
		wantCode  string
		wantField string
	}{
		{"OKRotationMin", app.DrawingUpdate{Rotation: app.Some(app.MinDrawingRotation)}, "", ""},
		{"OKRotationMax", app.DrawingUpdate{Rotation: app.Some(app.MaxDrawingRotation)}, "", ""},
		{"ErrInvalidRotationTooLarge", app.DrawingUpdate{Rotation: app.Some(361)}, app.EINVALID, "rotation"},
		{"ErrInvalidRotationTooSmall", app.DrawingUpdate{Rotation: app.Some(-360)}, app.EINVALID, "rotation"},
		{"ErrInvalidID", app.DrawingUpdate{ID: app.Some("d1")}, app.EINVALID, "drawing_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := newService(t)
			p := mustCreateProject(t, svc, "canvas")
			_, err := svc.CreateDrawing(ctx, p.ID, tt.give)
			wantCode(t, err, tt.wantCode)
			if got := app.ErrorField(err); got != tt.wantField {
				t.Errorf("error field = %q; want %q", got, tt.wantField)
			}
			wantDrawings := 1
			if tt.wantCode != "" {
				wantDrawings = 0
			}
			if ds, _ := svc.FindDrawings(ctx, p.ID); len(ds) != wantDrawings {
				t.Errorf("%d drawings stored; want %d", len(ds), wantDrawings)
			}
		})
	}

	t.Run("ErrNotFoundProject", func(t *testing.T) {
		svc, _ := newService(t)
		_, err := svc.CreateDrawing(ctx, uuid.NewString(), app.DrawingUpdate{})
		wantCode(t, err, app.ENOTFOUND)
	})
}

func TestService_UpdateDrawing(t *testing.T) {
	ctx := context.Background()
	const svg = `<svg><rect/></svg>`
	setup := func(t *testing.T) (*app.Service, *app.Broker, *app.Drawing) {
		svc, b := newService(t)
		p := mustCreateProject(t, svc, "canvas")
		return svc, b, mustCreateDrawing(t, svc, p.ID, app.DrawingUpdate{SVG: app.Some(svg), Rotation: app.Some(45)})
	}

	t.Run("OKMoveLeavesSVGOutOfEvent", func(t *testing.T) {
		svc, b, d := setup(t)
		events, stop := b.Subscribe(16)
		defer stop()
		// A client sends back everything it read, the svg unchanged.
		got, err := svc.UpdateDrawing(ctx, d.ProjectID, d.ID, app.DrawingUpdate{ID: app.Some(uuid.NewString()),
			SVG: app.Some(svg), X: app.Some(10), Y: app.Some(20), Z: app.Some(2), Rotation: app.Some(45)})
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != d.ID || got.X != 10 || got.Y != 20 || got.SVG != svg {
			t.Errorf("updated = %+v; want the same drawing moved to 10, 20", got)
		}
		if found, _ := svc.FindDrawing(ctx, d.ProjectID, d.ID); found == nil || found.X != 10 {
			t.Errorf("stored = %+v; want x 10", found)
		}
		evs := drawingEvents(events)
		if len(evs) != 1 || evs[0].Action != app.EventDrawingUpdated {
			t.Fatalf("events = %+v; want one drawing.updated", evs)
		}
		if c := evs[0].Payload.(*app.DrawingChanged); c.SVGChanged || c.Drawing.X != 10 {
			t.Errorf("payload = %+v; want the moved drawing, svg unchanged", c)
		}
	})

	t.Run("OKNewSVGInEvent", func(t *testing.T) {
		svc, b, d := setup(t)
		events, stop := b.Subscribe(16)
		defer stop()
		if _, err := svc.UpdateDrawing(ctx, d.ProjectID, d.ID, app.DrawingUpdate{SVG: app.Some("<svg></svg>"), Locked: app.Some(true)}); err != nil {
			t.Fatal(err)
		}
		evs := drawingEvents(events)
		if len(evs) != 1 || !evs[0].Payload.(*app.DrawingChanged).SVGChanged || !evs[0].Payload.(*app.DrawingChanged).Drawing.Locked {
			t.Errorf("events = %+v; want one drawing.updated with the new svg, locked", evs)
		}
	})

	t.Run("NoChangeNoEvent", func(t *testing.T) {
		svc, b, d := setup(t)
		events, stop := b.Subscribe(16)
		defer stop()
		if _, err := svc.UpdateDrawing(ctx, d.ProjectID, d.ID, app.DrawingUpdate{X: app.Some(d.X), SVG: app.Some(svg)}); err != nil {
			t.Fatal(err)
		}
		if evs := drain(events); len(evs) != 0 {
			t.Errorf("an update that changes nothing published %+v", evs)
		}
	})

	tests := []struct {
		name      string
		give      app.DrawingUpdate
		wantField string
	}{
		{"ErrInvalidRotationTooLarge", app.DrawingUpdate{X: app.Some(5), Rotation: app.Some(361)}, "rotation"},
		{"ErrInvalidRotationTooSmall", app.DrawingUpdate{X: app.Some(5), Rotation: app.Some(-360)}, "rotation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _, d := setup(t)
			_, err := svc.UpdateDrawing(ctx, d.ProjectID, d.ID, tt.give)
			wantCode(t, err, app.EINVALID)
			if got := app.ErrorField(err); got != tt.wantField {
				t.Errorf("error field = %q; want %q", got, tt.wantField)
			}
			if found, _ := svc.FindDrawing(ctx, d.ProjectID, d.ID); found == nil || *found != *d {
				t.Errorf("rejected update changed the drawing: %+v; want %+v", found, d)
			}
		})
	}

	t.Run("ErrNotFound", func(t *testing.T) {
		svc, _, d := setup(t)
		_, err := svc.UpdateDrawing(ctx, d.ProjectID, uuid.NewString(), app.DrawingUpdate{X: app.Some(1)})
		wantCode(t, err, app.ENOTFOUND)
		if !strings.Contains(app.ErrorMessage(err), "doesn't exist") {
			t.Errorf("message %q; want GNS3's \"doesn't exist\" (the GUI recreates the drawing on it)", app.ErrorMessage(err))
		}
	})
}

func TestService_DeleteDrawing(t *testing.T) {
	ctx := context.Background()

	t.Run("ErrConflictLocked", func(t *testing.T) {
		svc, b := newService(t)
		p := mustCreateProject(t, svc, "canvas")
		d := mustCreateDrawing(t, svc, p.ID, app.DrawingUpdate{Locked: app.Some(true)})
		err := svc.DeleteDrawing(ctx, p.ID, d.ID)
		wantCode(t, err, app.ECONFLICT)
		if !strings.Contains(app.ErrorMessage(err), "locked") {
			t.Errorf("message %q does not say the drawing is locked", app.ErrorMessage(err))
		}
		if _, err := svc.FindDrawing(ctx, p.ID, d.ID); err != nil {
			t.Fatalf("locked drawing gone: %v", err)
		}
		// Unlocked, it goes, announced with what it was.
		if _, err := svc.UpdateDrawing(ctx, p.ID, d.ID, app.DrawingUpdate{Locked: app.Some(false)}); err != nil {
			t.Fatal(err)
		}
		events, stop := b.Subscribe(16)
		defer stop()
		if err := svc.DeleteDrawing(ctx, p.ID, d.ID); err != nil {
			t.Fatal(err)
		}
		evs := drawingEvents(events)
		if len(evs) != 1 || evs[0].Action != app.EventDrawingDeleted || evs[0].Payload.(*app.Drawing).SVG != d.SVG {
			t.Errorf("events = %+v; want one drawing.deleted carrying the drawing", evs)
		}
		_, err = svc.FindDrawing(ctx, p.ID, d.ID)
		wantCode(t, err, app.ENOTFOUND)
		wantCode(t, svc.DeleteDrawing(ctx, p.ID, d.ID), app.ENOTFOUND)
	})

	t.Run("ProjectDeleteTakesDrawings", func(t *testing.T) {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "canvas")
		mustCreateDrawing(t, svc, p.ID, app.DrawingUpdate{})
		if err := svc.DeleteProject(ctx, p.ID); err != nil {
			t.Fatal(err)
		}
		again, err := svc.CreateProject(ctx, app.ProjectCreate{ID: p.ID, ProjectUpdate: app.ProjectUpdate{Name: app.Some("again")}})
		if err != nil {
			t.Fatal(err)
		}
		if ds, err := svc.FindDrawings(ctx, again.ID); err != nil || len(ds) != 0 {
			t.Errorf("a deleted project's drawings came back: %v, %v", ds, err)
		}
	})
}

func TestService_FindDrawings(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	p := mustCreateProject(t, svc, "canvas")
	var want []string
	for range 5 {
		want = append(want, mustCreateDrawing(t, svc, p.ID, app.DrawingUpdate{}).ID)
	}
	ds, err := svc.FindDrawings(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range ds {
		got = append(got, d.ID)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("drawings listed %v; want creation order %v", got, want)
	}
	if st, err := svc.ProjectStats(ctx, p.ID); err != nil || st.Drawings != 5 {
		t.Errorf("stats = %+v, %v; want 5 drawings", st, err)
	}

	tests := []struct {
		name      string
		projectID string
		drawingID string
	}{
		{"ErrNotFoundDrawing", p.ID, uuid.NewString()},
		{"ErrNotFoundNotAUUID", p.ID, "not-a-uuid"},
		{"ErrNotFoundProject", uuid.NewString(), want[0]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := svc.FindDrawing(ctx, tt.projectID, tt.drawingID)
			wantCode(t, err, app.ENOTFOUND)
		})
	}
	t.Run("ErrNotFoundListOfUnknownProject", func(t *testing.T) {
		_, err := svc.FindDrawings(ctx, uuid.NewString())
		wantCode(t, err, app.ENOTFOUND)
	})
}
