package api

import (
	"net/http"

	"nodedesk/app"
)

// Idle-PC of Dynamips routers: GNS3's compute routes
// (…/dynamips/nodes/{node_id}/idlepc_proposals and …/auto_idlepc) and
// its controller's (…/nodes/{node_id}/dynamips/…), over the Service.

// handleIdlePCProposals answers the idle-PC proposals of a running
// router: a list of "0x<address> [<hits>]".
func (s *Server) handleIdlePCProposals(t app.NodeType) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		props, err := s.svc.IdlePCProposals(r.Context(), nodeRef(r, t))
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, props)
		return nil
	}
}

// handleAutoIdlePC answers an idle-PC value found for a running router:
// {"idlepc": "0x…"}.
func (s *Server) handleAutoIdlePC(t app.NodeType) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		v, err := s.svc.AutoIdlePC(r.Context(), nodeRef(r, t))
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, map[string]string{"idlepc": v})
		return nil
	}
}
