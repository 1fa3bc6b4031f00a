package api

import (
	"net/http"

	"nodedesk/app"
)

// statuses maps an app error code to its HTTP status: the one place where
// an error becomes a status.
var statuses = map[string]int{
	app.EINVALID:  http.StatusBadRequest,
	app.ENOTFOUND: http.StatusNotFound,
	app.ECONFLICT: http.StatusConflict,
	app.EINTERNAL: http.StatusInternalServerError,
}

// errorBody is GNS3's error shape, which its clients parse.
type errorBody struct {
	Message string `json:"message"`
	Status  int    `json:"status"`
}

// writeError renders err as {"message", "status"}. Internal errors are
// logged in full and shown as a generic sentence.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code := app.ErrorCode(err)
	status, ok := statuses[code]
	if !ok {
		status = http.StatusInternalServerError
	}
	if status == http.StatusInternalServerError {
		s.logger.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	writeStatusError(w, status, app.ErrorMessage(err))
}

// writeStatusError renders an error that has no app code (404 and 405 of
// the router, the guard's refusals).
func writeStatusError(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, errorBody{Message: message, Status: status})
}
