package api

import (
	"encoding/json"
	"net/http"

	"nodedesk/app"
)

// diskResize is the body of a resize_disk request (GNS3's).
type diskResize struct {
	Drive  string `json:"drive_name"`
	Extend int    `json:"extend"`
}

// handleResizeDisk grows a stopped node's disk (201, no body, as GNS3
// answers), on the controller path and on the compute path of a type t
// with disks.
func (s *Server) handleResizeDisk(t app.NodeType) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		raw, err := s.body(r)
		if err != nil {
			return err
		}
		var in diskResize
		if err := json.Unmarshal(raw, &in); err != nil {
			return app.Errorf(app.EINVALID, "Invalid resize request: %v", err)
		}
		if err := s.svc.ResizeNodeDisk(r.Context(), nodeRef(r, t), in.Drive, in.Extend); err != nil {
			return err
		}
		w.WriteHeader(http.StatusCreated)
		return nil
	}
}
