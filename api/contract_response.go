package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// CheckResponse reports how an answer of this server breaks openapi.json,
// or nil if it keeps it: the status must be documented for the operation
// (or be one any operation may give), the body must match its schema,
// errors must be {"message","status"} JSON whose status is the HTTP one,
// and a 204 must have no body. An answer of no operation (an unknown
// route, a guard's refusal) must still be a JSON error. path may carry a
// query. Requests are checked by the server itself; this is the other
// half, for tests: the API's own and the lab's (api/labtest) call it on
// every answer they get.
func (s *Server) CheckResponse(method, path string, status int, header http.Header, body []byte) error {
	if method == http.MethodHead {
		return nil
	}
	if status == http.StatusNoContent {
		if len(body) != 0 {
			return fmt.Errorf("%s %s: 204 with a body: %q", method, path, body)
		}
		return nil
	}
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	op := s.contract.operationFor(method, path)
	schema, done, err := responseSchema(op, method, path, status, header, body)
	if done {
		return err
	}
	return s.contract.checkJSONAnswer(method, path, status, header, body, schema)
}

// operationFor is the operation of openapi.json that answers method on
// path (without its query); nil when none does.
func (c *contract) operationFor(method, path string) map[string]any {
	paths, _ := c.doc["paths"].(map[string]any)
	for tmpl := range paths {
		// A literal segment and a parameter may both match
		// (/v2/projects/load and /v2/projects/{project_id}): the
		// template with this method's operation is the one.
		if templateRegexp(tmpl).MatchString(path) {
			if op := c.operation(method, tmpl); op != nil {
				return op
			}
		}
	}
	return nil
}

// responseSchema is the name of the schema op documents for an answer of
// status ("Error" for every error, "" for none). done is set when the
// answer is judged already (err says how it breaks the contract): a status
// op does not document, a documented answer without a body, a body of
// another media type than JSON, or a success of no operation.
func responseSchema(op map[string]any, method, path string, status int, header http.Header, body []byte) (schema string, done bool, err error) {
	if op != nil {
		responses, _ := op["responses"].(map[string]any)
		resp, ok := responses[strconv.Itoa(status)].(map[string]any)
		if !ok && !crossCutting[status] {
			return "", true, fmt.Errorf("%s %s answered %d, which openapi.json does not document: %s", method, path, status, body)
		}
		if ok && resp["content"] == nil && len(body) == 0 {
			return "", true, nil // documented without a body (GNS3's 201 of a node file write)
		}
		if ok {
			schema = schemaRef(resp)
			if content, _ := resp["content"].(map[string]any); content != nil && content["application/json"] == nil {
				var errs []error
				for media := range content {
					if ct := header.Get("Content-Type"); ct != media {
						errs = append(errs, fmt.Errorf("%s %s: Content-Type %q, want %s", method, path, ct, media))
					}
				}
				return "", true, errors.Join(errs...)
			}
		}
	} else if status < 400 {
		return "", true, fmt.Errorf("%s %s: %d from an undocumented operation", method, path, status)
	}
	if status >= 400 {
		schema = "Error"
	}
	return schema, false, nil
}

// checkJSONAnswer checks a JSON answer: its Content-Type, its body against
// schema (none when ""), and an error body's status against the HTTP one.
func (c *contract) checkJSONAnswer(method, path string, status int, header http.Header, body []byte, schema string) error {
	var errs []error
	if got := header.Get("Content-Type"); got != "application/json" {
		errs = append(errs, fmt.Errorf("%s %s: Content-Type %q, want application/json", method, path, got))
	}
	if schema == "" {
		return errors.Join(errs...)
	}
	v, err := decodeJSON(body)
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("%s %s: body is not JSON: %v: %s", method, path, err, body))...)
	}
	sch, err := c.component(schema)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	if err := sch.Validate(v); err != nil {
		errs = append(errs, fmt.Errorf("%s %s: %d body breaks schema %s: %v\n%s", method, path, status, schema, err, body))
	}
	if status >= 400 {
		if m, _ := v.(map[string]any); m["status"] != json.Number(strconv.Itoa(status)) {
			errs = append(errs, fmt.Errorf("%s %s: error body status %v, HTTP status %d", method, path, m["status"], status))
		}
	}
	return errors.Join(errs...)
}

// crossCutting are statuses any operation may answer, outside its own
// description: the guard's 401 and 403, the router's 405, a recovered panic's 500.
var crossCutting = map[int]bool{http.StatusUnauthorized: true, http.StatusForbidden: true, http.StatusMethodNotAllowed: true, http.StatusInternalServerError: true}

// templateRegexps caches templateRegexp's answers.
var templateRegexps sync.Map

// templateRegexp matches the paths of an OpenAPI path template.
func templateRegexp(tmpl string) *regexp.Regexp {
	if re, ok := templateRegexps.Load(tmpl); ok {
		return re.(*regexp.Regexp)
	}
	segs := strings.Split(tmpl, "/")
	for i, seg := range segs {
		if seg == "{path}" || seg == "{filename}" { // a node file's path, an image's name span segments
			segs[i] = ".+"
		} else if strings.HasPrefix(seg, "{") {
			segs[i] = "[^/]+"
		} else {
			segs[i] = regexp.QuoteMeta(seg)
		}
	}
	re := regexp.MustCompile("^" + strings.Join(segs, "/") + "$")
	templateRegexps.Store(tmpl, re)
	return re
}
