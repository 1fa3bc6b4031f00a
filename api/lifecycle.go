package api

import (
	"encoding/json"
	"net/http"

	"github.com/gorilla/mux"

	"nodedesk/app"
)

// Lifecycle calls: start, stop, suspend, reload — for one node (200 with
// the node), for a whole project (204), and under the compute paths (204,
// except a VPCS start, which answers with the node as GNS3's compute does).
// Their optional body is accepted and ignored.

func (s *Server) handleNodeAction(a app.Action) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if _, err := s.body(r); err != nil {
			return err
		}
		n, err := s.svc.NodeAction(r.Context(), nodeRef(r, ""), a)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, s.nodeJSON(n))
		return nil
	}
}

func (s *Server) handleProjectAction(a app.Action) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if _, err := s.body(r); err != nil {
			return err
		}
		if err := s.svc.ProjectAction(r.Context(), mux.Vars(r)["project_id"], a); err != nil {
			return err
		}
		noContent(w)
		return nil
	}
}

func (s *Server) handleComputeNodeAction(t app.NodeType, a app.Action) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		raw, err := s.body(r)
		if err != nil {
			return err
		}
		if a == app.Start && t.HasSettings() {
			if err := s.takeStartSettings(r, t, raw); err != nil {
				return err
			}
		}
		n, err := s.svc.NodeAction(r.Context(), nodeRef(r, t), a)
		if err != nil {
			return err
		}
		if a == app.Start && t.ComputeStartShowsNode() {
			writeJSON(w, http.StatusOK, s.computeJSON(n))
			return nil
		}
		noContent(w)
		return nil
	}
}

func (s *Server) handleNodeDuplicate(w http.ResponseWriter, r *http.Request) error {
	in, _, err := readBody[struct {
		X int            `json:"x"`
		Y int            `json:"y"`
		Z app.Field[int] `json:"z"`
	}](s, r)
	if err != nil {
		return err
	}
	n, err := s.svc.DuplicateNode(r.Context(), nodeRef(r, ""), in.X, in.Y, in.Z)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, s.nodeJSON(n))
	return nil
}

// takeStartSettings keeps what a GNS3 controller sends with a start of a
// node whose emulator has settings of its own (IOU's licence, sent with
// every start) as this compute's settings, so that the start checks what
// the controller holds; a null value is left as it is, as GNS3's compute
// ignores it.
func (s *Server) takeStartSettings(r *http.Request, t app.NodeType, raw []byte) error {
	var in map[string]json.RawMessage
	if err := json.Unmarshal(raw, &in); err != nil {
		return app.Errorf(app.EINVALID, "Invalid request body: %v", err)
	}
	for k, v := range in {
		if string(v) == "null" {
			delete(in, k)
		}
	}
	if len(in) == 0 {
		return nil
	}
	_, err := s.svc.UpdateEmulatorSettings(r.Context(), t, in)
	return err
}
