package api

import (
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
		in, _, err := readBody[diskResize](s, r)
		if err != nil {
			return err
		}
		if err := s.svc.ResizeNodeDisk(r.Context(), nodeRef(r, t), in.Drive, in.Extend); err != nil {
			return err
		}
		w.WriteHeader(http.StatusCreated)
		return nil
	}
}
