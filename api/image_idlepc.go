package api

import (
	"net/http"

	"nodedesk/app"
)

// handleImageIdlePC finds an idle-PC value for an IOS image, as GNS3's
// controller does for the GUI's IOS router wizard
// (POST /v2/computes/{compute_id}/auto_idlepc): {"idlepc": "0x…"}.
func (s *Server) handleImageIdlePC(w http.ResponseWriter, r *http.Request) error {
	if err := s.localOnly(r, "an image's idle-PC search"); err != nil {
		return err
	}
	in, _, err := readBody[app.ImageIdlePC](s, r)
	if err != nil {
		return err
	}
	v, err := s.svc.FindImageIdlePC(r.Context(), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"idlepc": v})
	return nil
}
