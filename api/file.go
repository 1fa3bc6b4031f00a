package api

import (
	"net/http"

	"github.com/gorilla/mux"

	"nodedesk/app"
)

// handleNodeFileGet answers a file of a node's folder as raw bytes.
func (s *Server) handleNodeFileGet(w http.ResponseWriter, r *http.Request) error {
	b, err := s.svc.ReadNodeFile(r.Context(), nodeRef(r, ""), mux.Vars(r)["path"])
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
	return nil
}

// handleNodeFileWrite writes a file of a node's folder from the raw body
// (any Content-Type: the GNS3 GUI sends application/octet-stream) and
// answers 201 with no body, as GNS3 does.
func (s *Server) handleNodeFileWrite(w http.ResponseWriter, r *http.Request) error {
	b, err := readLimited(r, app.MaxNodeFileBytes, app.Errorf(app.EINVALID, "A node file can have at most %d bytes", app.MaxNodeFileBytes))
	if err != nil {
		return err
	}
	if err := s.svc.WriteNodeFile(r.Context(), nodeRef(r, ""), mux.Vars(r)["path"], b); err != nil {
		return err
	}
	w.WriteHeader(http.StatusCreated)
	return nil
}
