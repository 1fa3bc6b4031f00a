package api

import (
	"errors"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"nodedesk/app"
)

// The compute views: /v2/compute/projects/{project_id}/<type>/nodes/...
// They act on the same stored node as the controller view; a body's
// type-specific fields sit at its top level.

// computeField moves an error's field path from the controller form
// ("properties.ports_mapping.0.vlan") to the compute form, where the
// properties sit at the top level.
func computeField(err error) error {
	var e *app.Error
	if errors.As(err, &e) && strings.HasPrefix(e.Field, "properties") {
		c := *e
		c.Field = strings.TrimPrefix(strings.TrimPrefix(e.Field, "properties"), ".")
		return &c
	}
	return err
}

func (s *Server) handleComputeNodeCreate(t app.NodeType) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		raw, err := s.body(r)
		if err != nil {
			return err
		}
		var in struct {
			app.NodeUpdate
			NodeID string `json:"node_id"`
		}
		if err := decode(raw, &in); err != nil {
			return err
		}
		c := app.NodeCreate{Type: t, ID: in.NodeID, NodeUpdate: in.NodeUpdate, ReplaceTakenConsole: true}
		if c.Properties, err = app.DecodeProperties(t, raw); err != nil {
			return err
		}
		n, err := s.svc.CreateNode(r.Context(), mux.Vars(r)["project_id"], c)
		if err != nil {
			return computeField(err)
		}
		writeJSON(w, http.StatusCreated, s.computeJSON(n))
		return nil
	}
}

func (s *Server) handleComputeNodeGet(t app.NodeType) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		b, err := s.cachedView(r, nodeRef(r, t))
		if err != nil {
			return err
		}
		writeRaw(w, http.StatusOK, b)
		return nil
	}
}

func (s *Server) handleComputeNodeUpdate(t app.NodeType) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		raw, err := s.body(r)
		if err != nil {
			return err
		}
		var u app.NodeUpdate
		if err := decode(raw, &u); err != nil {
			return err
		}
		if u.Properties, err = app.DecodeProperties(t, raw); err != nil {
			return err
		}
		n, err := s.svc.UpdateNode(r.Context(), nodeRef(r, t), u)
		if err != nil {
			return computeField(err)
		}
		writeJSON(w, http.StatusOK, s.computeJSON(n))
		return nil
	}
}

func (s *Server) handleComputeNodeDelete(t app.NodeType) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := s.svc.DeleteNode(r.Context(), nodeRef(r, t)); err != nil {
			return err
		}
		noContent(w)
		return nil
	}
}
