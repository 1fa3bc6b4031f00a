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
	writeFile(w, b)
	return nil
}

// handleNodeFileWrite writes a file of a node's folder from the raw body
// (any Content-Type: the GNS3 GUI sends application/octet-stream) and
// answers 201 with no body, as GNS3 does.
func (s *Server) handleNodeFileWrite(w http.ResponseWriter, r *http.Request) error {
	b, err := readFileBody(r)
	if err != nil {
		return err
	}
	if err := s.svc.WriteNodeFile(r.Context(), nodeRef(r, ""), mux.Vars(r)["path"], b); err != nil {
		return err
	}
	w.WriteHeader(http.StatusCreated)
	return nil
}

// handleProjectFileGet answers a file of a project's folder as raw bytes.
func (s *Server) handleProjectFileGet(w http.ResponseWriter, r *http.Request) error {
	v := mux.Vars(r)
	b, err := s.svc.ReadProjectFile(r.Context(), v["project_id"], v["path"])
	if err != nil {
		return err
	}
	writeFile(w, b)
	return nil
}

// handleProjectFileWrite writes a file of a project's folder from the raw
// body and answers 201 with no body, as GNS3 does.
func (s *Server) handleProjectFileWrite(w http.ResponseWriter, r *http.Request) error {
	b, err := readFileBody(r)
	if err != nil {
		return err
	}
	v := mux.Vars(r)
	if err := s.svc.WriteProjectFile(r.Context(), v["project_id"], v["path"], b); err != nil {
		return err
	}
	w.WriteHeader(http.StatusCreated)
	return nil
}

// writeFile answers a file's bytes.
func writeFile(w http.ResponseWriter, b []byte) {
	w.Header().Set("Content-Type", "application/octet-stream")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// readFileBody reads the raw body of a file write (any Content-Type: the
// GNS3 GUI sends application/octet-stream), bounded by
// app.MaxNodeFileBytes.
func readFileBody(r *http.Request) ([]byte, error) {
	return readLimited(r, app.MaxNodeFileBytes, app.Errorf(app.EINVALID, "A file written through the API can have at most %d bytes", app.MaxNodeFileBytes))
}
