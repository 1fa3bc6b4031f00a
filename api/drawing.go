package api

import (
	"net/http"

	"github.com/gorilla/mux"

	"nodedesk/app"
)

// drawingJSON is a drawing on the wire, as GNS3 writes it. SVG is nil
// only in a drawing.updated event whose svg did not change.
type drawingJSON struct {
	DrawingID string  `json:"drawing_id"`
	ProjectID string  `json:"project_id"`
	SVG       *string `json:"svg,omitempty"`
	X         int     `json:"x"`
	Y         int     `json:"y"`
	Z         int     `json:"z"`
	Locked    bool    `json:"locked"`
	Rotation  int     `json:"rotation"`
}

func drawingJSONOf(d *app.Drawing, withSVG bool) drawingJSON {
	out := drawingJSON{DrawingID: d.ID, ProjectID: d.ProjectID, X: d.X, Y: d.Y, Z: d.Z, Locked: d.Locked, Rotation: d.Rotation}
	if withSVG {
		out.SVG = &d.SVG
	}
	return out
}

func (s *Server) handleDrawingList(w http.ResponseWriter, r *http.Request) error {
	ds, err := s.svc.FindDrawings(r.Context(), mux.Vars(r)["project_id"])
	if err != nil {
		return err
	}
	out := make([]drawingJSON, len(ds))
	for i, d := range ds {
		out[i] = drawingJSONOf(d, true)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) handleDrawingCreate(w http.ResponseWriter, r *http.Request) error {
	in, _, err := readBody[app.DrawingUpdate](s, r)
	if err != nil {
		return err
	}
	d, err := s.svc.CreateDrawing(r.Context(), mux.Vars(r)["project_id"], in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, drawingJSONOf(d, true))
	return nil
}

func (s *Server) handleDrawingGet(w http.ResponseWriter, r *http.Request) error {
	v := mux.Vars(r)
	d, err := s.svc.FindDrawing(r.Context(), v["project_id"], v["drawing_id"])
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, drawingJSONOf(d, true))
	return nil
}

// handleDrawingUpdate answers 201, as GNS3 does.
func (s *Server) handleDrawingUpdate(w http.ResponseWriter, r *http.Request) error {
	in, _, err := readBody[app.DrawingUpdate](s, r)
	if err != nil {
		return err
	}
	v := mux.Vars(r)
	d, err := s.svc.UpdateDrawing(r.Context(), v["project_id"], v["drawing_id"], in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, drawingJSONOf(d, true))
	return nil
}

func (s *Server) handleDrawingDelete(w http.ResponseWriter, r *http.Request) error {
	v := mux.Vars(r)
	if err := s.svc.DeleteDrawing(r.Context(), v["project_id"], v["drawing_id"]); err != nil {
		return err
	}
	noContent(w)
	return nil
}
