package store

import (
	"encoding/json"
	"testing"

	"nodedesk/app"
)

func TestTx_Drawings(t *testing.T) {
	s := mustOpenStore(t)
	p, other := mustPutProject(t, s, "lab"), mustPutProject(t, s, "other")
	first := &app.Drawing{ID: "dddddddd-0000-4000-8000-000000000002", ProjectID: p.ID, SVG: "<svg></svg>", Z: 2}
	second := &app.Drawing{ID: "dddddddd-0000-4000-8000-000000000001", ProjectID: p.ID, SVG: "<svg/>", Rotation: 90}
	elsewhere := &app.Drawing{ID: "dddddddd-0000-4000-8000-000000000003", ProjectID: other.ID, SVG: "x.png"}
	for _, d := range []*app.Drawing{first, second, elsewhere} {
		mustUpdate(t, s, func(tx app.Tx) error { return tx.PutDrawing(d) })
	}
	// A change keeps the drawing's place in creation order.
	moved := *first
	moved.Seq, moved.X = 0, 100
	mustUpdate(t, s, func(tx app.Tx) error { return tx.PutDrawing(&moved) })
	mustView(t, s, func(tx app.Tx) error {
		ds, err := tx.Drawings(p.ID)
		if err != nil || len(ds) != 2 || ds[0].ID != first.ID || ds[1].ID != second.ID || ds[0].X != 100 {
			t.Errorf("Drawings = %+v (%v), want first (moved) then second", ds, err)
		}
		if d, _ := tx.Drawing(p.ID, elsewhere.ID); d != nil {
			t.Error("a drawing of another project is found in this one")
		}
		return nil
	})
	mustUpdate(t, s, func(tx app.Tx) error { return tx.DeleteDrawing(p.ID, second.ID) })
	mustView(t, s, func(tx app.Tx) error {
		if d, _ := tx.Drawing(p.ID, second.ID); d != nil {
			t.Errorf("a deleted drawing is found: %+v", d)
		}
		if ds, _ := tx.Drawings(p.ID); len(ds) != 1 {
			t.Errorf("Drawings after deleting one of two = %+v, want one", ds)
		}
		return nil
	})
	mustUpdate(t, s, func(tx app.Tx) error { return tx.DeleteProject(p.ID) })
	mustView(t, s, func(tx app.Tx) error {
		if ds, _ := tx.Drawings(p.ID); len(ds) != 0 {
			t.Errorf("a deleted project's drawings remain: %+v", ds)
		}
		if d, _ := tx.Drawing(other.ID, elsewhere.ID); d == nil || d.SVG != "x.png" {
			t.Errorf("another project's drawing = %+v, want it kept", d)
		}
		return nil
	})
}

// TestTx_EmulatorSettings: an emulator's settings are kept under their
// name, as given, across a reopening; a name never saved has none.
func TestTx_EmulatorSettings(t *testing.T) {
	path := t.TempDir() + "/nodedesk.db"
	s := mustOpenAt(t, path)
	mustView(t, s, func(tx app.Tx) error {
		if l, err := tx.EmulatorSettings("iou_license"); l != nil || err != nil {
			t.Errorf("settings of a new store = %v, %v; want none", l, err)
		}
		return nil
	})
	mustUpdate(t, s, func(tx app.Tx) error {
		return tx.PutEmulatorSettings("iou_license", map[string]json.RawMessage{"iourc_content": json.RawMessage(`"[license]\nhost = 0123;\n"`)})
	})
	s.Close()
	s = mustOpenAt(t, path)
	mustView(t, s, func(tx app.Tx) error {
		if l, err := tx.EmulatorSettings("iou_license"); err != nil || string(l["iourc_content"]) != `"[license]\nhost = 0123;\n"` || len(l) != 1 {
			t.Errorf("settings after reopening = %v, %v", l, err)
		}
		if l, err := tx.EmulatorSettings("other"); err != nil || l != nil {
			t.Errorf("settings under another name = %v, %v; want none", l, err)
		}
		return nil
	})
}
