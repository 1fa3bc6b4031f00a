package api

import (
	"encoding/json"
	"net/http"

	"nodedesk/app"
)

// statuses maps an app error code to its HTTP status: the one table where an
// error becomes a status. A code missing here is a 500.
var statuses = map[app.Code]int{
	app.EINVALID:      http.StatusBadRequest,
	app.EUNAUTHORIZED: http.StatusUnauthorized,
	app.EFORBIDDEN:    http.StatusForbidden,
	app.ENOTFOUND:     http.StatusNotFound,
	app.EMETHOD:       http.StatusMethodNotAllowed,
	app.ECONFLICT:     http.StatusConflict,
	app.EINTERNAL:     http.StatusInternalServerError,
}

// errorBody is every error answer: GNS3's {"message", "status"}, which its
// clients parse, plus nodedesk's code and, when the fault is in one field,
// that field's path in the request body ("properties.ports_mapping.3.vlan").
// The UI reads code and field, never the wording.
type errorBody struct {
	Message string   `json:"message"`
	Status  int      `json:"status"`
	Code    app.Code `json:"code"`
	Field   string   `json:"field,omitempty"`
}

// errorOf is the body and status of err. Internal errors show
// app.InternalMessage; their details are for the log only.
func errorOf(err error) (int, errorBody) {
	code := app.ErrorCode(err)
	status, ok := statuses[code]
	if !ok {
		code, status = app.EINTERNAL, http.StatusInternalServerError
	}
	return status, errorBody{Message: app.ErrorMessage(err), Status: status, Code: code, Field: app.ErrorField(err)}
}

// writeError renders err: the one place an error becomes an answer. Internal
// errors are logged in full.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	if app.ErrorCode(err) == app.EINTERNAL {
		s.logger.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	writeRefusal(w, err)
}

// writeRefusal renders an error met outside a handler (the guard, the
// router's 404 and 405), where no request log line is wanted.
func writeRefusal(w http.ResponseWriter, err error) {
	status, body := errorOf(err)
	writeJSON(w, status, body)
}

// methodNotAllowed is the 405 of a path served with other methods.
func methodNotAllowed(r *http.Request) error {
	return app.Errorf(app.EMETHOD, "Method %s is not allowed on %s", r.Method, r.URL.Path)
}

// errorJSON is the encoded body of err, for the places that cannot return
// an error to writeError (a recovered panic, an encoding failure).
func errorJSON(err error) (int, []byte) {
	status, body := errorOf(err)
	b, _ := json.Marshal(body) // strings and ints always encode
	return status, b
}
