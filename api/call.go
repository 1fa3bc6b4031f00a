package api

import (
	"bytes"
	"context"
	"fmt"
	"net/http"

	"nodedesk/app"
)

// The desktop window's door. Its bindings hand each call to Call, which
// serves it in-process through the same router as HTTP: the same contract
// check, the same handler, the same rendering and the same errors, so the
// two doors cannot disagree. (The guard is not in the way: an in-process
// call comes from nodedesk's own window, not from a browser page.)

// Call serves one API request in-process and returns its status and JSON
// body.
func (s *Server) Call(ctx context.Context, method, path string, body []byte) (int, []byte) {
	req, err := http.NewRequestWithContext(ctx, method, path, bytes.NewReader(body))
	if err != nil {
		return errorJSON(app.Errorf(app.EINVALID, "Invalid request path %q: %v", path, err))
	}
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	func() {
		defer func() {
			if v := recover(); v != nil {
				s.logger.Error("panic in an in-process call", "method", method, "path", path, "panic", v)
				status, body := errorJSON(fmt.Errorf("panic: %v", v))
				rec.status, rec.body = status, *bytes.NewBuffer(body)
			}
		}()
		s.guard.next.ServeHTTP(rec, req)
	}()
	return rec.status, rec.body.Bytes()
}

// RenderEvent is the wire form of an event's payload, as the notification
// streams send it.
func (s *Server) RenderEvent(e app.Event) any { return s.eventJSON(e) }

// recorder is a minimal in-memory http.ResponseWriter.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
	wrote  bool
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if !r.wrote {
		r.status, r.wrote = status, true
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.body.Write(b)
}
