package api

import (
	"io"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"nodedesk/app"
)

// Images, as GNS3 2.2's compute serves them (/v2/compute/<emulator>/images…),
// and the controller's forms the GNS3 GUI calls (/v2/computes/{compute_id}/…):
// for compute local they do the same, answered as GNS3's controller
// answers (200 {} where the compute says 201 or 204); a remote compute is
// asked the GETs, and refuses the rest for now. One set of image handlers
// serves every kind of image (the routes of each are in emulators.go).
// Appliance files are imported at /v2/appliances/import.

// uploadIdle bounds how long an upload may send nothing: the server's
// read timeout bounds whole requests, and an image takes longer.
const uploadIdle = time.Minute

// uploadBody is an upload's request body: each read pushes the
// connection's read deadline uploadIdle ahead, and its Size is the
// request's Content-Length (-1: not given), which UploadImage checks
// before writing.
type uploadBody struct {
	r    io.Reader
	rc   *http.ResponseController
	size int64
}

func (b *uploadBody) Read(p []byte) (int, error) {
	_ = b.rc.SetReadDeadline(time.Now().Add(uploadIdle))
	return b.r.Read(p)
}

// Size is the length the client announced, or -1.
func (b *uploadBody) Size() int64 { return b.size }

// uploadImage streams the request's body into the folder of kind's images.
func (s *Server) uploadImage(w http.ResponseWriter, r *http.Request, kind app.ImageKind) error {
	body := &uploadBody{r: r.Body, rc: http.NewResponseController(w), size: r.ContentLength}
	_, err := s.svc.UploadImage(r.Context(), kind, mux.Vars(r)["filename"], body)
	return err
}

// handleImageList lists kind's images: GNS3's filename, path, md5sum and
// filesize of each, sorted by file name.
func (s *Server) handleImageList(kind app.ImageKind) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		imgs, err := s.svc.Images(r.Context(), kind)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, imgs)
		return nil
	}
}

// handleImageUpload writes one of kind's images from the raw body,
// streamed, and answers 204 as GNS3's compute does.
func (s *Server) handleImageUpload(kind app.ImageKind) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := s.uploadImage(w, r, kind); err != nil {
			return err
		}
		noContent(w)
		return nil
	}
}

// handleImageDownload streams one of kind's images (ranges too).
func (s *Server) handleImageDownload(kind app.ImageKind) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		f, err := s.svc.OpenImage(kind, mux.Vars(r)["filename"])
		if err != nil {
			return err
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		http.ServeContent(w, r, "", fi.ModTime(), f)
		return nil
	}
}

// localOnly lets a controller-form request through for compute local;
// for a remote compute it says the request is not passed on (ENOTFOUND
// for a compute that does not exist).
func (s *Server) localOnly(r *http.Request, what string) error {
	id := mux.Vars(r)["compute_id"]
	if id == app.LocalCompute {
		return nil
	}
	if _, err := s.svc.FindCompute(r.Context(), id); err != nil {
		return err
	}
	return app.Errorf(app.ECONFLICT, "nodedesk does not pass %s on to remote compute %s yet; do it on nodedesk's own compute (local) or on that compute's own API", what, id)
}

// controllerEmulator is the controller form of one of an emulator's
// compute reads (GET /v2/computes/{id}/<emulator>/<action>): forwarded to
// a remote compute, answered by local here.
func (s *Server) controllerEmulator(emulator, action string, local handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if remote, err := s.forwardComputeGet(w, r, app.ComputeQuery{Emulator: emulator, Action: action}); remote || err != nil {
			return err
		}
		return local(w, r)
	}
}

// controllerDone answers a controller form's write as GNS3's controller
// passes the compute's empty answer on: 200 {}.
func controllerDone(w http.ResponseWriter) {
	writeJSON(w, http.StatusOK, map[string]any{})
}

// handleComputeImageUpload is the GNS3 GUI's upload of one of kind's
// images through the controller: 200 {}.
func (s *Server) handleComputeImageUpload(kind app.ImageKind) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := s.localOnly(r, "image uploads"); err != nil {
			return err
		}
		if err := s.uploadImage(w, r, kind); err != nil {
			return err
		}
		controllerDone(w)
		return nil
	}
}

// handleApplianceImport imports a GNS3 appliance file (its JSON as the
// body): 201 with the templates made and the images missing, 200 when no
// version had all its images.
func (s *Server) handleApplianceImport(w http.ResponseWriter, r *http.Request) error {
	raw, err := s.body(r)
	if err != nil {
		return err
	}
	imp, err := s.svc.ImportAppliance(r.Context(), raw)
	if err != nil {
		return err
	}
	ts := make([]map[string]any, len(imp.Templates))
	for i, t := range imp.Templates {
		ts[i] = templateJSONOf(*t)
	}
	status := http.StatusCreated
	if len(ts) == 0 {
		status = http.StatusOK
	}
	writeJSON(w, status, map[string]any{"templates": ts, "missing": imp.Missing})
	return nil
}
