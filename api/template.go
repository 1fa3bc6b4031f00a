package api

import (
	"net/http"

	"github.com/gorilla/mux"

	"nodedesk/app"
)

func (s *Server) handleTemplateList(w http.ResponseWriter, r *http.Request) error {
	ts, err := s.svc.FindTemplates(r.Context())
	if err != nil {
		return err
	}
	out := make([]map[string]any, len(ts))
	for i, t := range ts {
		out[i] = templateJSONOf(t)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) handleTemplateGet(w http.ResponseWriter, r *http.Request) error {
	t, err := s.svc.FindTemplateByID(r.Context(), mux.Vars(r)["template_id"])
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, templateJSONOf(*t))
	return nil
}

func (s *Server) handleTemplateCreate(w http.ResponseWriter, r *http.Request) error {
	in, _, err := readBody[app.TemplateSettings](s, r)
	if err != nil {
		return err
	}
	t, err := s.svc.CreateTemplate(r.Context(), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, templateJSONOf(*t))
	return nil
}

// handleTemplateUpdate answers 200, as GNS3 does.
func (s *Server) handleTemplateUpdate(w http.ResponseWriter, r *http.Request) error {
	in, _, err := readBody[app.TemplateSettings](s, r)
	if err != nil {
		return err
	}
	t, err := s.svc.UpdateTemplate(r.Context(), mux.Vars(r)["template_id"], in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, templateJSONOf(*t))
	return nil
}

func (s *Server) handleTemplateDelete(w http.ResponseWriter, r *http.Request) error {
	if err := s.svc.DeleteTemplate(r.Context(), mux.Vars(r)["template_id"]); err != nil {
		return err
	}
	noContent(w)
	return nil
}

// handleTemplateUsage answers how many nodes, in how many projects, were
// made from a template (nodedesk's own: asked before a delete).
func (s *Server) handleTemplateUsage(w http.ResponseWriter, r *http.Request) error {
	u, err := s.svc.TemplateUsage(r.Context(), mux.Vars(r)["template_id"])
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, u)
	return nil
}

func (s *Server) handleTemplateDuplicate(w http.ResponseWriter, r *http.Request) error {
	t, err := s.svc.DuplicateTemplate(r.Context(), mux.Vars(r)["template_id"])
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, templateJSONOf(*t))
	return nil
}

// handleTemplateNodeCreate is how gns3fy, Ansible and both GNS3 GUIs create
// nodes: POST /v2/projects/{project_id}/templates/{template_id}.
func (s *Server) handleTemplateNodeCreate(w http.ResponseWriter, r *http.Request) error {
	in, _, err := readBody[struct {
		X         int               `json:"x"`
		Y         int               `json:"y"`
		Name      app.Field[string] `json:"name"`
		ComputeID app.Field[string] `json:"compute_id"`
	}](s, r)
	if err != nil {
		return err
	}
	v := mux.Vars(r)
	n, err := s.svc.CreateNodeFromTemplate(r.Context(), v["project_id"], v["template_id"],
		app.TemplateUse{X: in.X, Y: in.Y, Name: in.Name, ComputeID: in.ComputeID})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, s.nodeJSON(n))
	return nil
}
