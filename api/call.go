package api

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"

	"nodedesk/app"
	"nodedesk/app/gns3file"
)

// The desktop window's door. Its bindings hand each call to Call, which
// serves it in-process through the same router as HTTP: the same contract
// check, the same handler, the same rendering and the same errors, so the
// two doors cannot disagree. (The guard is not in the way: an in-process
// call comes from nodedesk's own window, not from a browser page.)
//
// The window's own actions (a terminal on a console, Wireshark on a
// capture, the project files behind the native dialogs) ask the typed
// questions below instead: the answers are app values and the failures app
// errors, so the window decodes no JSON and rebuilds no error from a body.
// Each runs the same code as its route (ShowNode and FindLink what the node
// and link views are made of; LoadProject, ImportProject and ExportProject
// what the load, import and export routes run).

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

// ShowNode is node ref and where it runs (its console's port and host, as
// its view shows them).
func (s *Server) ShowNode(ctx context.Context, ref app.NodeRef) (n *app.Node, at app.NodeShown, err error) {
	defer s.answered("ShowNode", &err)
	if n, err = s.svc.FindNode(ctx, ref); err != nil {
		return nil, app.NodeShown{}, err
	}
	return n, s.svc.ShowNode(n), nil
}

// FindLink is link linkID of project projectID.
func (s *Server) FindLink(ctx context.Context, projectID, linkID string) (l *app.Link, err error) {
	defer s.answered("FindLink", &err)
	return s.svc.FindLink(ctx, projectID, linkID)
}

// FindProject is project id.
func (s *Server) FindProject(ctx context.Context, id string) (p *app.Project, err error) {
	defer s.answered("FindProject", &err)
	return s.svc.FindProjectByID(ctx, id)
}

// LoadProject opens the .gns3 file at path, as POST /v2/projects/load
// does, and returns the project, opened.
func (s *Server) LoadProject(ctx context.Context, path string) (p *app.Project, err error) {
	defer s.answered("LoadProject", &err)
	return s.loadProject(ctx, path)
}

// ImportProject makes project id from a portable project (a .gns3project
// archive, or a lone .gns3) read from body, named name ("" keeps the
// file's), as POST /v2/projects/{id}/import?name=… does.
func (s *Server) ImportProject(ctx context.Context, id, name string, body io.Reader) (p *app.Project, err error) {
	defer s.answered("ImportProject", &err)
	return s.importProject(ctx, id, name, body)
}

// ExportProject is project id as a .gns3project archive (zip), as GET
// /v2/projects/{id}/export answers it with include_snapshots,
// reset_mac_addresses and include_images; ECONFLICT while a node runs.
// The archive is written to a temporary file of the projects folder (it
// may hold GiBs of images), which closing the answer removes.
func (s *Server) ExportProject(ctx context.Context, id string, snapshots, resetMACs, images bool) (archive io.ReadCloser, err error) {
	defer s.answered("ExportProject", &err)
	e, err := s.svc.ExportProject(ctx, id, app.ExportContent{Snapshots: snapshots, Images: images})
	if err != nil {
		return nil, err
	}
	f, err := s.svc.NewUploadFile()
	if err != nil {
		return nil, err
	}
	err = gns3file.WriteArchive(f, e, gns3file.ExportOptions{Snapshots: snapshots, ResetMACAddresses: resetMACs})
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return removedOnClose{f}, nil
}

// removedOnClose is a temporary file removed when it is closed.
type removedOnClose struct{ *os.File }

func (f removedOnClose) Close() error {
	err := f.File.Close()
	os.Remove(f.Name())
	return err
}

// answered ends a typed question (deferred, with its error): an internal
// error is logged in full, as writeError logs a request's, and a panic
// (a bug) becomes an internal error, as in Call, rather than the end of
// the window.
func (s *Server) answered(question string, err *error) {
	if v := recover(); v != nil {
		s.logger.Error("panic in an in-process call", "call", question, "panic", v)
		*err = fmt.Errorf("panic: %v", v)
		return
	}
	if *err != nil && app.ErrorCode(*err) == app.EINTERNAL {
		s.logger.Error("in-process call failed", "call", question, "err", *err)
	}
}

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
