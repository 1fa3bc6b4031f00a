package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"syscall"

	"github.com/gorilla/mux"

	"nodedesk/app"
	"nodedesk/app/gns3file"
)

// GNS3's project files: load a .gns3 of this machine, import a
// .gns3project archive (or a lone .gns3), export one. The format is
// app/gns3file's; the records are made by app.Service.ImportProject.

// gns3Options reads project files with the API's own check of a node's
// properties: the contract's component of its type, then its decoding.
func (s *Server) gns3Options() gns3file.Options {
	return gns3file.Options{Properties: s.properties}
}

// handleProjectLoad opens a .gns3 of this machine, as GNS3's load does for
// a local server (nodedesk always is): 201 with the project, opened.
func (s *Server) handleProjectLoad(w http.ResponseWriter, r *http.Request) error {
	in, _, err := readBody[struct {
		Path string `json:"path"`
	}](s, r)
	if err != nil {
		return err
	}
	p, err := s.loadProject(r.Context(), in.Path)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, s.projectJSON(p))
	return nil
}

// loadProject opens the .gns3 file at path: the project whose own file it
// is, or a new one made from it (POST /v2/projects/load).
func (s *Server) loadProject(ctx context.Context, path string) (*app.Project, error) {
	if p, ok, err := s.svc.OpenProjectFile(ctx, path); err != nil {
		return nil, err
	} else if ok { // a project's own file: the GNS3 GUI reopens a project so
		return p, nil
	}
	imp, err := gns3file.ReadFile(path, s.gns3Options())
	if err != nil {
		return nil, err
	}
	imp.Load = true
	return s.svc.ImportProject(ctx, *imp)
}

// handleProjectImport makes a project, under the path's id, from the raw
// body: a .gns3project archive or, nodedesk's extension for a browser
// upload, a lone .gns3 (JSON). The query's name, if any, is the wanted
// name; its path, which GNS3 honours for a local server, is ignored:
// nodedesk keeps every project in its data folder. 201 with the project.
func (s *Server) handleProjectImport(w http.ResponseWriter, r *http.Request) error {
	p, err := s.importProject(r.Context(), mux.Vars(r)["project_id"], r.URL.Query().Get("name"), r.Body)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, s.projectJSON(p))
	return nil
}

// importProject makes project id, named name ("" keeps the file's), from
// body: a .gns3project archive or a lone .gns3
// (POST /v2/projects/{id}/import).
func (s *Server) importProject(ctx context.Context, id, name string, body io.Reader) (*app.Project, error) {
	lim := gns3file.DefaultLimits
	f, size, err := s.spool(body, lim.ArchiveBytes)
	if err != nil {
		return nil, err
	}
	defer func() {
		f.Close()
		os.Remove(f.Name())
	}()
	head := make([]byte, 2)
	_, _ = f.ReadAt(head, 0)
	var imp *app.ProjectImport
	if gns3file.IsArchive(head) {
		o := s.gns3Options()
		o.Limits.Room = s.svc.ImportRoom()
		imp, err = gns3file.ReadArchive(f, size, o)
	} else {
		imp, err = s.decodeTopology(f, size)
	}
	if err != nil {
		return nil, err
	}
	imp.ID = id
	if name != "" {
		imp.Name = name
	}
	return s.svc.ImportProject(ctx, *imp)
}

// decodeTopology reads a lone .gns3 body.
func (s *Server) decodeTopology(body io.ReaderAt, size int64) (*app.ProjectImport, error) {
	if size > gns3file.MaxTopologyBytes {
		return nil, app.Errorf(app.EINVALID, "A .gns3 file can have at most %d bytes", gns3file.MaxTopologyBytes)
	}
	raw := make([]byte, size)
	if _, err := body.ReadAt(raw, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, app.Errorf(app.EINVALID, "The request body is empty: send a .gns3project archive or a .gns3 file")
	}
	return gns3file.Decode(raw, s.gns3Options())
}

// spool writes a request body of at most limit bytes to a temporary file
// in the projects folder (app.Service.NewUploadFile) (an archive is read at random, and may be large)
// and returns it with its size.
func (s *Server) spool(body io.Reader, limit int64) (*os.File, int64, error) {
	f, err := s.svc.NewUploadFile()
	if err != nil {
		return nil, 0, err
	}
	n, err := io.Copy(f, http.MaxBytesReader(nil, io.NopCloser(body), limit))
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		var over *http.MaxBytesError
		if errors.As(err, &over) {
			return nil, 0, app.Errorf(app.EINVALID, "The request body is larger than %d MiB; nodedesk imports smaller archives (export without images)", limit>>20)
		}
		if errors.Is(err, syscall.ENOSPC) {
			return nil, 0, app.Errorf(app.ECONFLICT, "Not enough disk space for the upload in nodedesk's data folder; free some space and send it again")
		}
		return nil, 0, app.Errorf(app.EINVALID, "Request body could not be read: %v", err)
	}
	return f, n, nil
}

// handleProjectExport answers a .gns3project archive of the project, as
// GNS3 exports one: include_snapshots, reset_mac_addresses (yes/no, also
// true/false or 1/0), compression (zip or none; GNS3's bzip2 and lzma are
// not written), include_images (the images the nodes name, under
// images/<kind>/), keep_compute_ids (accepted and ignored: nodedesk has
// one compute). The archive is streamed as it is written. 409 while a node
// runs.
func (s *Server) handleProjectExport(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	var o gns3file.ExportOptions
	var images bool
	for _, f := range []struct {
		name string
		dst  *bool
	}{{"include_snapshots", &o.Snapshots}, {"reset_mac_addresses", &o.ResetMACAddresses}, {"include_images", &images}, {"keep_compute_ids", nil}} {
		v, err := queryBool(q.Get(f.name), f.name)
		if err != nil {
			return err
		}
		if f.dst != nil {
			*f.dst = v
		}
	}
	switch c := strings.ToLower(q.Get("compression")); c {
	case "", "zip":
	case "none":
		o.Store = true
	default:
		return app.Invalid("compression", "compression %q is not one nodedesk writes; use zip (deflate) or none", c)
	}
	e, err := s.svc.ExportProject(r.Context(), mux.Vars(r)["project_id"], app.ExportContent{Snapshots: o.Snapshots, Images: images})
	if err != nil {
		return err
	}
	lw := &lazyWriter{w: w, header: func(h http.Header) {
		h.Set("Content-Type", "application/gns3project")
		h.Set("Content-Disposition", attachment(e.Project.Name+".gns3project"))
	}}
	if err := gns3file.WriteArchive(lw, e, o); err != nil {
		if !lw.started {
			return err
		}
		s.logger.Error("export failed after it started", "project", e.Project.ID, "err", err)
		panic(http.ErrAbortHandler) // the client sees a broken download, not a broken archive
	}
	return nil
}

// queryBool reads a yes/no query parameter ("" is no).
func queryBool(v, name string) (bool, error) {
	switch strings.ToLower(v) {
	case "yes", "true", "1":
		return true, nil
	case "", "no", "false", "0":
		return false, nil
	}
	return false, app.Invalid(name, "%s is %q; use yes or no", name, v)
}

// lazyWriter writes the answer's headers and 200 status with its first
// byte, so that an error before it can still be a JSON error.
type lazyWriter struct {
	w       http.ResponseWriter
	header  func(http.Header)
	started bool
}

func (l *lazyWriter) Write(p []byte) (int, error) {
	if !l.started {
		l.started = true
		l.header(l.w.Header())
		l.w.WriteHeader(http.StatusOK)
	}
	return l.w.Write(p)
}

// attachment is a Content-Disposition for a download named name: GNS3's
// quoted filename, with RFC 6266's filename* beside a plain-ASCII
// stand-in when the name needs more than ASCII.
func attachment(name string) string {
	plain := strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return '_'
		}
		return r
	}, name)
	if plain == name {
		return `attachment; filename="` + name + `"`
	}
	return `attachment; filename="` + plain + `"; filename*=UTF-8''` + urlPathEscape(name)
}

// urlPathEscape percent-encodes every byte outside RFC 5987's attr-char.
func urlPathEscape(s string) string {
	const ok = "!#$&+-.^_`|~"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(ok, c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
