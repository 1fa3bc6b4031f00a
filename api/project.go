package api

import (
	"net/http"

	"github.com/gorilla/mux"

	"nodedesk/app"
)

func (s *Server) handleProjectList(w http.ResponseWriter, r *http.Request) error {
	ps, err := s.svc.FindProjects(r.Context())
	if err != nil {
		return err
	}
	out := make([]projectJSON, len(ps))
	for i, p := range ps {
		out[i] = s.projectJSON(p)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) handleProjectCreate(w http.ResponseWriter, r *http.Request) error {
	in, _, err := readBody[app.ProjectCreate](s, r)
	if err != nil {
		return err
	}
	p, err := s.svc.CreateProject(r.Context(), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, s.projectJSON(p))
	return nil
}

func (s *Server) handleProjectGet(w http.ResponseWriter, r *http.Request) error {
	p, err := s.svc.FindProjectByID(r.Context(), mux.Vars(r)["project_id"])
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.projectJSON(p))
	return nil
}

func (s *Server) handleProjectUpdate(w http.ResponseWriter, r *http.Request) error {
	in, _, err := readBody[app.ProjectUpdate](s, r)
	if err != nil {
		return err
	}
	p, err := s.svc.UpdateProject(r.Context(), mux.Vars(r)["project_id"], in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.projectJSON(p))
	return nil
}

func (s *Server) handleProjectDelete(w http.ResponseWriter, r *http.Request) error {
	if err := s.svc.DeleteProject(r.Context(), mux.Vars(r)["project_id"]); err != nil {
		return err
	}
	noContent(w)
	return nil
}

func (s *Server) handleProjectOpen(w http.ResponseWriter, r *http.Request) error {
	p, err := s.svc.OpenProject(r.Context(), mux.Vars(r)["project_id"])
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, s.projectJSON(p))
	return nil
}

func (s *Server) handleProjectClose(w http.ResponseWriter, r *http.Request) error {
	if err := s.svc.CloseProject(r.Context(), mux.Vars(r)["project_id"]); err != nil {
		return err
	}
	noContent(w)
	return nil
}

// handleComputeProjectCreate answers the compute's "create project" call
// that GNS3 controllers (and terraform-provider-gns3) make. nodedesk is
// controller and compute in one, so it names the same project; a project
// that does not exist yet is created.
func (s *Server) handleComputeProjectCreate(w http.ResponseWriter, r *http.Request) error {
	in, _, err := readBody[struct {
		app.ProjectCreate
		Name *string `json:"name"`
	}](s, r)
	if err != nil {
		return err
	}
	p, err := s.svc.FindProjectByID(r.Context(), in.ID)
	if app.ErrorCode(err) == app.ENOTFOUND {
		c := app.ProjectCreate{ID: in.ID}
		c.Variables = in.Variables
		c.Name = app.Some("Project-" + in.ID[:8])
		if in.Name != nil && *in.Name != "" {
			c.Name = app.Some(*in.Name)
		}
		p, err = s.svc.CreateProject(r.Context(), c)
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]any{"name": p.Name, "project_id": p.ID, "variables": p.Variables})
	return nil
}

// handleProjectDuplicate is "Save as": 201 with the copy, as GNS3 answers.
// path, which the GNS3 desktop GUI sends for a local server, is accepted
// and ignored: nodedesk keeps every project in its data folder.
func (s *Server) handleProjectDuplicate(w http.ResponseWriter, r *http.Request) error {
	in, _, err := readBody[struct {
		Name              app.Field[string] `json:"name"`
		ResetMACAddresses bool              `json:"reset_mac_addresses"`
	}](s, r)
	if err != nil {
		return err
	}
	p, err := s.svc.DuplicateProject(r.Context(), mux.Vars(r)["project_id"],
		app.ProjectDuplicate{Name: in.Name, ResetMACAddresses: in.ResetMACAddresses})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, s.projectJSON(p))
	return nil
}
