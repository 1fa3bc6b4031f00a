package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"unicode/utf8"

	"github.com/gorilla/mux"

	"nodedesk/app"
)

// maxBodyBytes bounds a request body.
const maxBodyBytes = 1 << 20

// body reads the request body and checks it against the contract's schema
// for this route. An empty body counts as {} (GNS3 clients send POSTs with
// no body). It returns the raw JSON for decoding into typed values.
func (s *Server) body(r *http.Request) ([]byte, error) {
	raw, err := readLimited(r, maxBodyBytes, app.Errorf(app.EINVALID, "Request body is larger than %d bytes", maxBodyBytes))
	switch {
	case err != nil:
		return nil, err
	case len(raw) == 0:
		raw = []byte("{}")
	case !utf8.Valid(raw):
		return nil, app.Errorf(app.EINVALID, "Request body is not valid UTF-8")
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, err
	}
	if err := checkDuplicateKeys(raw); err != nil {
		return nil, err
	}
	tmpl, _ := mux.CurrentRoute(r).GetPathTemplate()
	if sch := s.contract.requests[r.Method+" "+tmpl]; sch != nil {
		if err := validate(sch, v, "request body", ""); err != nil {
			return nil, err
		}
	}
	return raw, nil
}

// checkDuplicateKeys refuses an object that names a key twice: readers
// disagree on which value counts, so such a body is ambiguous. raw is known
// to be one valid JSON value.
func checkDuplicateKeys(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	type frame struct {
		object bool
		keys   map[string]bool
		key    bool // the next string token is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return app.Errorf(app.EINVALID, "Invalid JSON: %v", err)
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if k, isKey := tok.(string); isKey && top != nil && top.object && top.key {
			if top.keys[k] {
				return app.Errorf(app.EINVALID, "Invalid request body: key %q appears twice in one object", k)
			}
			top.keys[k] = true
			top.key = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, keys: map[string]bool{}, key: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].key = true // a value ended: a key comes next
		}
	}
}

// readBody reads, checks (body) and decodes (decode) a request body into a
// T, and returns the raw JSON too, for the parts whose shape depends on
// what the request names (a node's properties).
func readBody[T any](s *Server, r *http.Request) (T, []byte, error) {
	var in T
	raw, err := s.body(r)
	if err == nil {
		err = decode(raw, &in)
	}
	return in, raw, err
}

// decode fills dst from a body the schema has accepted; what is left to
// fail is a number that does not fit its Go type (1.5 for an integer).
func decode(raw []byte, dst any) error {
	if err := json.Unmarshal(raw, dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return app.Invalid(te.Field, "Invalid request body: %s: %s does not fit %s", te.Field, te.Value, te.Type)
		}
		return app.Errorf(app.EINVALID, "Invalid request body: %v", err)
	}
	return nil
}

// writeJSON writes v as the JSON body of a response.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil { // only a bug can get here: every wire type marshals
		status, b = errorJSON(fmt.Errorf("encoding an answer: %w", err))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// readLimited reads a request body of at most limit bytes; a longer one
// is the tooBig error.
func readLimited(r *http.Request, limit int64, tooBig error) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, limit))
	var over *http.MaxBytesError
	switch {
	case errors.As(err, &over):
		return nil, tooBig
	case err != nil:
		return nil, app.Errorf(app.EINVALID, "Request body could not be read: %v", err)
	}
	return b, nil
}

// noContent answers 204 with no body.
func noContent(w http.ResponseWriter) { w.WriteHeader(http.StatusNoContent) }
