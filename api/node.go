package api

import (
	"encoding/json"
	"net/http"

	"github.com/gorilla/mux"

	"nodedesk/app"
)

// nodeRef reads the node a path names; t is the compute view, if any.
func nodeRef(r *http.Request, t app.NodeType) app.NodeRef {
	v := mux.Vars(r)
	return app.NodeRef{ProjectID: v["project_id"], NodeID: v["node_id"], Type: t}
}

func (s *Server) handleNodeList(w http.ResponseWriter, r *http.Request) error {
	pid := mux.Vars(r)["project_id"]
	if b := s.cache.list(pid); b != nil {
		writeRaw(w, http.StatusOK, b)
		return nil
	}
	gen := s.cache.generation()
	ns, err := s.svc.FindNodes(r.Context(), pid)
	if err != nil {
		return err
	}
	out := make([]nodeJSON, len(ns))
	for i, n := range ns {
		out[i] = s.nodeJSON(n)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	s.cache.putList(gen, pid, b)
	writeRaw(w, http.StatusOK, b)
	return nil
}

func (s *Server) handleNodeGet(w http.ResponseWriter, r *http.Request) error {
	b, err := s.cachedView(r, nodeRef(r, ""))
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, b)
	return nil
}

// handleNodeImages: the images a node names, found or missing (nodedesk's
// extension, for the node's panel).
func (s *Server) handleNodeImages(w http.ResponseWriter, r *http.Request) error {
	ims, err := s.svc.NodeImages(r.Context(), nodeRef(r, ""))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ims)
	return nil
}

// nodeBody is a controller node body: the settable fields, and properties
// whose shape depends on the node's type.
type nodeBody struct {
	app.NodeUpdate
	Properties json.RawMessage `json:"properties"`
}

// properties checks a controller body's "properties" against the schema of
// the node's type and decodes them.
func (s *Server) properties(t app.NodeType, raw json.RawMessage) (app.PropertiesUpdate, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if sch := s.contract.properties[t]; sch != nil {
		v, err := decodeJSON(raw)
		if err != nil {
			return nil, err
		}
		if err := validate(sch, v, "properties for a "+string(t)+" node", "properties"); err != nil {
			return nil, err
		}
	}
	return app.DecodeProperties(t, raw)
}

func (s *Server) handleNodeCreate(w http.ResponseWriter, r *http.Request) error {
	in, _, err := readBody[struct {
		nodeBody
		NodeType   app.NodeType      `json:"node_type"`
		NodeID     string            `json:"node_id"`
		ComputeID  string            `json:"compute_id"`
		TemplateID app.Field[string] `json:"template_id"`
	}](s, r)
	if err != nil {
		return err
	}
	c := app.NodeCreate{Type: in.NodeType, ID: in.NodeID, ComputeID: in.ComputeID, TemplateID: in.TemplateID, NodeUpdate: in.NodeUpdate}
	if c.Properties, err = s.properties(in.NodeType, in.nodeBody.Properties); err != nil {
		return err
	}
	n, err := s.svc.CreateNode(r.Context(), mux.Vars(r)["project_id"], c)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, s.nodeJSON(n))
	return nil
}

func (s *Server) handleNodeUpdate(w http.ResponseWriter, r *http.Request) error {
	in, _, err := readBody[nodeBody](s, r)
	if err != nil {
		return err
	}
	ref := nodeRef(r, "")
	u := in.NodeUpdate
	if raw := in.Properties; len(raw) > 0 && string(raw) != "null" {
		// The schema of properties depends on the node's type, which the
		// service knows once it has read the node.
		u.PropertiesOf = func(t app.NodeType) (app.PropertiesUpdate, error) { return s.properties(t, raw) }
	}
	n, err := s.svc.UpdateNode(r.Context(), ref, u)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.nodeJSON(n))
	return nil
}

func (s *Server) handleNodeDelete(w http.ResponseWriter, r *http.Request) error {
	if err := s.svc.DeleteNode(r.Context(), nodeRef(r, "")); err != nil {
		return err
	}
	noContent(w)
	return nil
}
