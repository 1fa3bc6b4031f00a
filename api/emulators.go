package api

import (
	"encoding/json"
	"net/http"
	"strings"

	"nodedesk/app"
)

// The routes and handlers of one emulator or another: QEMU's images and
// tools, Docker's images, Dynamips' images, platforms and idle PC, IOU's
// licence. Every other route serves all node types alike (routes.go).

// emulatorRoutes are the emulators' own routes: tools go before the
// generic /v2/computes/{compute_id}/{emulator}/… routes, which would
// otherwise take them; nodes go with the node routes.
func (s *Server) emulatorRoutes() (tools, nodes []route) {
	tools = []route{
		{"GET", "/v2/compute/qemu/images", s.handleImageList(app.QEMUImages)},
		{"POST", "/v2/compute/qemu/images/{filename}", s.handleImageUpload(app.QEMUImages)},
		{"GET", "/v2/compute/qemu/images/{filename}", s.handleImageDownload(app.QEMUImages)},
		{"GET", "/v2/compute/qemu/binaries", s.handleQEMUBinaries},
		{"GET", "/v2/compute/qemu/img-binaries", s.handleQEMUImgBinaries},
		{"GET", "/v2/compute/qemu/capabilities", s.handleQEMUCapabilities},
		{"POST", "/v2/compute/qemu/img", s.handleQEMUImgCreate},
		{"PUT", "/v2/compute/qemu/img", s.handleQEMUImgResize},
		{"GET", "/v2/compute/docker/images", s.handleDockerImages},
		{"GET", "/v2/computes/{compute_id}/docker/images", s.controllerEmulator("docker", "images", s.handleDockerImages)},
		{"GET", "/v2/computes/{compute_id}/qemu/images", s.controllerQEMU("images", s.handleImageList(app.QEMUImages))},
		{"POST", "/v2/computes/{compute_id}/qemu/images/{filename}", s.handleComputeImageUpload(app.QEMUImages)},
		{"GET", "/v2/computes/{compute_id}/qemu/binaries", s.controllerQEMU("binaries", s.handleQEMUBinaries)},
		{"GET", "/v2/computes/{compute_id}/qemu/img-binaries", s.controllerQEMU("img-binaries", s.handleQEMUImgBinaries)},
		{"GET", "/v2/computes/{compute_id}/qemu/capabilities", s.controllerQEMU("capabilities", s.handleQEMUCapabilities)},
		{"POST", "/v2/computes/{compute_id}/qemu/img", s.handleComputeQEMUImgCreate},
		{"PUT", "/v2/computes/{compute_id}/qemu/img", s.handleComputeQEMUImgResize},
		{"GET", "/v2/compute/dynamips/images", s.handleImageList(app.IOSImages)},
		{"POST", "/v2/compute/dynamips/images/{filename}", s.handleImageUpload(app.IOSImages)},
		{"GET", "/v2/compute/dynamips/images/{filename}", s.handleImageDownload(app.IOSImages)},
		{"GET", "/v2/computes/{compute_id}/dynamips/images", s.controllerEmulator("dynamips", "images", s.handleImageList(app.IOSImages))},
		{"POST", "/v2/computes/{compute_id}/dynamips/images/{filename}", s.handleComputeImageUpload(app.IOSImages)},
		{"GET", "/v2/dynamips/platforms", s.handleDynamipsPlatforms},
		{"POST", "/v2/computes/{compute_id}/auto_idlepc", s.handleImageIdlePC},
		{"GET", "/v2/iou_license", s.handleEmulatorSettings(app.IOU)},
		{"PUT", "/v2/iou_license", s.handleEmulatorSettingsUpdate(app.IOU)},
		{"GET", "/v2/compute/iou/images", s.handleImageList(app.IOUImages)},
		{"POST", "/v2/compute/iou/images/{filename}", s.handleImageUpload(app.IOUImages)},
		{"GET", "/v2/compute/iou/images/{filename}", s.handleImageDownload(app.IOUImages)},
		{"GET", "/v2/computes/{compute_id}/iou/images", s.controllerEmulator("iou", "images", s.handleImageList(app.IOUImages))},
		{"POST", "/v2/computes/{compute_id}/iou/images/{filename}", s.handleComputeImageUpload(app.IOUImages)},
	}
	nodes = []route{
		// Idle-PC of Dynamips routers (app/node_idlepc.go).
		{"GET", "/v2/compute/projects/{project_id}/dynamips/nodes/{node_id}/idlepc_proposals", s.handleIdlePCProposals(app.Dynamips)},
		{"GET", "/v2/compute/projects/{project_id}/dynamips/nodes/{node_id}/auto_idlepc", s.handleAutoIdlePC(app.Dynamips)},
		{"GET", "/v2/projects/{project_id}/nodes/{node_id}/dynamips/idlepc_proposals", s.handleIdlePCProposals("")},
		{"GET", "/v2/projects/{project_id}/nodes/{node_id}/dynamips/auto_idlepc", s.handleAutoIdlePC("")},
	}
	return tools, nodes
}

// handleQEMUBinaries lists the qemu-system programs; archs filters them,
// given as GNS3 takes it (a JSON body {"archs": [...]}, even on a GET)
// or as a query (archs=x86_64,i386 or archs repeated).
func (s *Server) handleQEMUBinaries(w http.ResponseWriter, r *http.Request) error {
	in, _, err := readBody[struct {
		Archs []string `json:"archs"`
	}](s, r)
	if err != nil {
		return err
	}
	archs := in.Archs
	for _, a := range r.URL.Query()["archs"] {
		for _, one := range strings.Split(a, ",") {
			if one = strings.TrimSpace(one); one != "" {
				archs = append(archs, one)
			}
		}
	}
	bins, err := s.svc.QEMUBinaries(r.Context(), archs)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, bins)
	return nil
}

// handleQEMUImgBinaries lists the qemu-img programs.
func (s *Server) handleQEMUImgBinaries(w http.ResponseWriter, r *http.Request) error {
	bins, err := s.svc.QEMUImgBinaries(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, bins)
	return nil
}

// handleQEMUCapabilities says which architectures KVM accelerates here
// (only where a probe guest ran under it) and the acceleration nodes get.
func (s *Server) handleQEMUCapabilities(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, s.svc.QEMUCapabilities(r.Context()))
	return nil
}

// createQEMUImage and resizeQEMUImage do GNS3's POST and PUT qemu/img.
func (s *Server) createQEMUImage(r *http.Request) error {
	in, _, err := readBody[app.QEMUImageSpec](s, r)
	if err != nil {
		return err
	}
	return s.svc.CreateQEMUImage(r.Context(), in)
}

func (s *Server) resizeQEMUImage(r *http.Request) error {
	in, _, err := readBody[app.QEMUImageResize](s, r)
	if err != nil {
		return err
	}
	return s.svc.ResizeQEMUImage(r.Context(), in)
}

// handleQEMUImgCreate makes a disk image with qemu-img: 201 with no body,
// as GNS3 answers.
func (s *Server) handleQEMUImgCreate(w http.ResponseWriter, r *http.Request) error {
	if err := s.createQEMUImage(r); err != nil {
		return err
	}
	w.WriteHeader(http.StatusCreated)
	return nil
}

// handleQEMUImgResize grows a disk image: 201 with no body, as GNS3
// answers.
func (s *Server) handleQEMUImgResize(w http.ResponseWriter, r *http.Request) error {
	if err := s.resizeQEMUImage(r); err != nil {
		return err
	}
	w.WriteHeader(http.StatusCreated)
	return nil
}

// controllerQEMU is a controller form of a compute GET: forwarded to a
// remote compute, else answered by the compute's own handler.
func (s *Server) controllerQEMU(action string, local handlerFunc) handlerFunc {
	return s.controllerEmulator("qemu", action, local)
}

// handleDockerImages lists the Docker Engine's local images.
func (s *Server) handleDockerImages(w http.ResponseWriter, r *http.Request) error {
	imgs, err := s.svc.DockerImages(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, imgs)
	return nil
}

// handleComputeQEMUImgCreate and handleComputeQEMUImgResize are the GNS3
// GUI's disk image wizard through the controller: 200 {}.
func (s *Server) handleComputeQEMUImgCreate(w http.ResponseWriter, r *http.Request) error {
	if err := s.localOnly(r, "qemu-img requests"); err != nil {
		return err
	}
	if err := s.createQEMUImage(r); err != nil {
		return err
	}
	controllerDone(w)
	return nil
}

func (s *Server) handleComputeQEMUImgResize(w http.ResponseWriter, r *http.Request) error {
	if err := s.localOnly(r, "qemu-img requests"); err != nil {
		return err
	}
	if err := s.resizeQEMUImage(r); err != nil {
		return err
	}
	controllerDone(w)
	return nil
}

// handleDynamipsPlatforms describes the router platforms Dynamips nodes
// may have: what the UI offers in their slots.
func (s *Server) handleDynamipsPlatforms(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, app.DynamipsCatalog())
	return nil
}

// handleEmulatorSettings shows the settings of type t's emulator (IOU's
// licence).
func (s *Server) handleEmulatorSettings(t app.NodeType) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		v, err := s.svc.EmulatorSettings(r.Context(), t)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, v)
		return nil
	}
}

// handleEmulatorSettingsUpdate changes some of them and answers 201 with
// them all, as GNS3 does.
func (s *Server) handleEmulatorSettingsUpdate(t app.NodeType) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		in, _, err := readBody[map[string]json.RawMessage](s, r)
		if err != nil {
			return err
		}
		v, err := s.svc.UpdateEmulatorSettings(r.Context(), t, in)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusCreated, v)
		return nil
	}
}
