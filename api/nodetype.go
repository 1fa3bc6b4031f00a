package api

import (
	"net/http"

	"nodedesk/app"
)

// handleNodeTypeList describes every node type (nodedesk's own endpoint):
// what the UI needs to know per type, from the one table in app.
func (s *Server) handleNodeTypeList(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, app.NodeTypeInfos())
	return nil
}
