package api

import (
	"net/http"

	"github.com/gorilla/mux"

	"nodedesk/app"
)

// snapshotJSON is a snapshot on the wire, as GNS3 writes it.
type snapshotJSON struct {
	SnapshotID  string `json:"snapshot_id"`
	ProjectID   string `json:"project_id"`
	Name        string `json:"name"`
	CreatedAt   int64  `json:"created_at"`
	Description string `json:"description"`
	Filename    string `json:"filename"`
}

func snapshotJSONOf(s *app.Snapshot) snapshotJSON {
	return snapshotJSON{SnapshotID: s.ID, ProjectID: s.ProjectID, Name: s.Name, CreatedAt: s.CreatedAt,
		Description: s.Description(), Filename: s.Filename()}
}

func (s *Server) handleSnapshotList(w http.ResponseWriter, r *http.Request) error {
	ss, err := s.svc.FindSnapshots(r.Context(), mux.Vars(r)["project_id"])
	if err != nil {
		return err
	}
	out := make([]snapshotJSON, len(ss))
	for i, snap := range ss {
		out[i] = snapshotJSONOf(snap)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) handleSnapshotCreate(w http.ResponseWriter, r *http.Request) error {
	in, _, err := readBody[struct {
		Name string `json:"name"`
	}](s, r)
	if err != nil {
		return err
	}
	snap, err := s.svc.CreateSnapshot(r.Context(), mux.Vars(r)["project_id"], in.Name)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, snapshotJSONOf(snap))
	return nil
}

func (s *Server) handleSnapshotDelete(w http.ResponseWriter, r *http.Request) error {
	v := mux.Vars(r)
	if err := s.svc.DeleteSnapshot(r.Context(), v["project_id"], v["snapshot_id"]); err != nil {
		return err
	}
	noContent(w)
	return nil
}

// handleSnapshotRestore answers 201 with the project, as GNS3 does.
func (s *Server) handleSnapshotRestore(w http.ResponseWriter, r *http.Request) error {
	v := mux.Vars(r)
	p, err := s.svc.RestoreSnapshot(r.Context(), v["project_id"], v["snapshot_id"])
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, s.projectJSON(p))
	return nil
}
