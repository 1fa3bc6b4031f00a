package api

import (
	"net/http"
	"nodedesk/app"

	"github.com/gorilla/mux"
)

// "Check my lab" (decision 0070): a project's checks file, its runs, lint
// and the wire map. Each handler asks one Service method.

func (s *Server) handleChecksGet(w http.ResponseWriter, r *http.Request) error {
	f, err := s.svc.Checks(r.Context(), mux.Vars(r)["project_id"])
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, f)
	return nil
}

func (s *Server) handleChecksPut(w http.ResponseWriter, r *http.Request) error {
	raw, err := s.body(r)
	if err != nil {
		return err
	}
	f, err := s.svc.PutChecks(r.Context(), mux.Vars(r)["project_id"], raw)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, f)
	return nil
}

func (s *Server) handleChecksRun(w http.ResponseWriter, r *http.Request) error {
	raw, err := s.body(r)
	if err != nil {
		return err
	}
	var req app.CheckRunRequest
	if err := decode(raw, &req); err != nil {
		return err
	}
	run, err := s.svc.RunChecks(r.Context(), mux.Vars(r)["project_id"], req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, run)
	return nil
}

func (s *Server) handleCheckRunGet(w http.ResponseWriter, r *http.Request) error {
	run, err := s.svc.LastCheckRun(r.Context(), mux.Vars(r)["project_id"])
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, run)
	return nil
}

func (s *Server) handleLint(w http.ResponseWriter, r *http.Request) error {
	rep, err := s.svc.Lint(r.Context(), mux.Vars(r)["project_id"])
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rep)
	return nil
}

func (s *Server) handleWireMap(w http.ResponseWriter, r *http.Request) error {
	m, err := s.svc.WireMap(r.Context(), mux.Vars(r)["project_id"])
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, m)
	return nil
}
