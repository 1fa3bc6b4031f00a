package api

import (
	"net/http"

	"github.com/gorilla/mux"

	"nodedesk/app"
)

// handlerFunc is a handler that returns its error for writeError to render.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// routes is the whole /v2 surface in one place. Every route must be an
// operation of openapi.json (register fails otherwise).
func (s *Server) routes() (*mux.Router, error) {
	r := mux.NewRouter()
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeStatusError(w, http.StatusNotFound, "No such API endpoint: "+r.URL.Path)
	})
	r.MethodNotAllowedHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeStatusError(w, http.StatusMethodNotAllowed, "Method "+r.Method+" is not allowed on "+r.URL.Path)
	})

	type route struct {
		method, path string
		h            handlerFunc
	}
	routes := []route{
		{"GET", "/v2/version", s.handleVersion},
		{"GET", "/v2/openapi.json", s.handleOpenAPI},
		{"GET", "/v2/computes", s.handleComputeList},
		{"GET", "/v2/computes/{compute_id}", s.handleComputeGet},

		{"GET", "/v2/projects", s.handleProjectList},
		{"POST", "/v2/projects", s.handleProjectCreate},
		{"GET", "/v2/projects/{project_id}", s.handleProjectGet},
		{"PUT", "/v2/projects/{project_id}", s.handleProjectUpdate},
		{"DELETE", "/v2/projects/{project_id}", s.handleProjectDelete},
		{"POST", "/v2/projects/{project_id}/open", s.handleProjectOpen},
		{"POST", "/v2/projects/{project_id}/close", s.handleProjectClose},

		{"GET", "/v2/projects/{project_id}/nodes", s.handleNodeList},
		{"POST", "/v2/projects/{project_id}/nodes", s.handleNodeCreate},
		{"GET", "/v2/projects/{project_id}/nodes/{node_id}", s.handleNodeGet},
		{"PUT", "/v2/projects/{project_id}/nodes/{node_id}", s.handleNodeUpdate},
		{"DELETE", "/v2/projects/{project_id}/nodes/{node_id}", s.handleNodeDelete},

		{"POST", "/v2/compute/projects", s.handleComputeProjectCreate},
	}
	for _, t := range app.ComputeTypes {
		base := "/v2/compute/projects/{project_id}/" + string(t) + "/nodes"
		routes = append(routes,
			route{"POST", base, s.handleComputeNodeCreate(t)},
			route{"GET", base + "/{node_id}", s.handleComputeNodeGet(t)},
			route{"PUT", base + "/{node_id}", s.handleComputeNodeUpdate(t)},
			route{"DELETE", base + "/{node_id}", s.handleComputeNodeDelete(t)},
		)
	}
	for _, rt := range routes {
		if err := s.contract.register(rt.method, rt.path); err != nil {
			return nil, err
		}
		h := rt.h
		r.Path(rt.path).Methods(rt.method).HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := h(w, r); err != nil {
				s.writeError(w, r, err)
			}
		})
	}
	return r, nil
}
