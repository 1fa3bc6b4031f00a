package api

import (
	"net/http"
	"sort"
	"strings"

	"github.com/gorilla/mux"

	"nodedesk/app"
)

// handlerFunc is a handler that returns its error for writeError to render.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// route is one operation: its method, its path and its handler.
type route struct {
	method, path string
	h            handlerFunc
}

// routes is the whole /v2 surface in one place (the emulators' own
// routes in emulators.go). Every route must be an
// operation of openapi.json (register fails otherwise).
func (s *Server) routes() (*mux.Router, error) {
	r := mux.NewRouter()
	ui := s.uiHandler()
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v2" && !strings.HasPrefix(r.URL.Path, "/v2/") && !strings.HasPrefix(r.URL.Path, "/v1/") {
			ui.ServeHTTP(w, r) // the browser UI
			return
		}
		writeRefusal(w, app.Errorf(app.ENOTFOUND, "No such API endpoint: %s", r.URL.Path))
	})
	r.MethodNotAllowedHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v2/compute/") { // a GNS3 controller takes a 405 for its own failure (a 500)
			writeRefusal(w, app.Errorf(app.ENOTFOUND, "%s %s not found", r.Method, r.URL.Path))
			return
		}
		writeRefusal(w, methodNotAllowed(r))
	})

	routes := []route{
		{"GET", "/v2/version", s.handleVersion},
		{"POST", "/v2/version", s.handleVersionCheck},
		{"GET", "/v2/leftovers", s.handleLeftovers},
		{"DELETE", "/v2/leftovers", s.handleLeftoversDismiss},
		{"GET", "/v2/openapi.json", s.handleOpenAPI},
		{"GET", "/v2/computes", s.handleComputeList},
		{"GET", "/v2/computes/{compute_id}", s.handleComputeGet},
		{"POST", "/v2/computes", s.handleComputeCreate},
		{"PUT", "/v2/computes/{compute_id}", s.handleComputeUpdate},
		{"DELETE", "/v2/computes/{compute_id}", s.handleComputeDelete},
		{"GET", "/v2/computes/{compute_id}/ports", s.handleComputePorts},
	}
	// The emulators' own routes (api/emulators.go), before the generic
	// {emulator} routes below, which mux would otherwise match first.
	tools, nodes := s.emulatorRoutes()
	routes = append(routes, tools...)
	routes = append(routes, []route{
		{"POST", "/v2/appliances/import", s.handleApplianceImport},
		{"GET", "/v2/computes/{compute_id}/{emulator}/images", s.handleComputeImages},
		{"GET", "/v2/computes/{compute_id}/network/interfaces", s.handleComputeNetworkInterfacesOf},
		{"GET", "/v2/computes/{compute_id}/{emulator}/{action}", s.handleComputeForwardGet},
		{"GET", "/v2/compute/capabilities", s.handleCapabilities},
		{"GET", "/v2/notifications", s.handleNotificationStream},
		{"GET", "/v2/notifications/ws", s.handleNotificationWS},
		{"GET", "/v2/templates", s.handleTemplateList},
		{"GET", "/v2/node_types", s.handleNodeTypeList},
		{"GET", "/v2/templates/{template_id}", s.handleTemplateGet},
		{"POST", "/v2/templates", s.handleTemplateCreate},
		{"PUT", "/v2/templates/{template_id}", s.handleTemplateUpdate},
		{"DELETE", "/v2/templates/{template_id}", s.handleTemplateDelete},
		{"POST", "/v2/templates/{template_id}/duplicate", s.handleTemplateDuplicate},
		{"GET", "/v2/templates/{template_id}/usage", s.handleTemplateUsage},
		{"GET", "/v2/symbols", s.handleSymbolList},
		{"GET", "/v2/symbols/{symbol_id}/raw", s.handleSymbolRaw},
		{"GET", "/v2/settings", s.handleEmptyObject},
		{"GET", "/v2/statistics", s.handleEmptyObject},
		{"GET", "/v2/appliances", s.handleEmptyList},
		{"GET", "/v2/gns3vm", s.handleGNS3VM},
		{"GET", "/v2/gns3vm/engines", s.handleGNS3VMEngines},
		{"GET", "/v2/gns3vm/engines/{engine}/vms", s.handleGNS3VMEngineVMs},

		{"GET", "/v2/projects", s.handleProjectList},
		{"POST", "/v2/projects", s.handleProjectCreate},
		{"GET", "/v2/projects/{project_id}", s.handleProjectGet},
		{"PUT", "/v2/projects/{project_id}", s.handleProjectUpdate},
		{"DELETE", "/v2/projects/{project_id}", s.handleProjectDelete},
		{"POST", "/v2/projects/{project_id}/open", s.handleProjectOpen},
		{"POST", "/v2/projects/{project_id}/close", s.handleProjectClose},
		{"POST", "/v2/projects/{project_id}/duplicate", s.handleProjectDuplicate},
		{"GET", "/v2/projects/{project_id}/checks", s.handleChecksGet},
		{"PUT", "/v2/projects/{project_id}/checks", s.handleChecksPut},
		{"POST", "/v2/projects/{project_id}/checks/run", s.handleChecksRun},
		{"GET", "/v2/projects/{project_id}/checks/run", s.handleCheckRunGet},
		{"GET", "/v2/projects/{project_id}/lint", s.handleLint},
		{"GET", "/v2/projects/{project_id}/wiremap", s.handleWireMap},
		{"GET", "/v2/projects/{project_id}/history", s.handleHistoryGet},
		{"POST", "/v2/projects/{project_id}/undo", s.handleUndo},
		{"POST", "/v2/projects/{project_id}/redo", s.handleRedo},
		{"POST", "/v2/projects/load", s.handleProjectLoad},
		{"POST", "/v2/projects/{project_id}/import", s.handleProjectImport},
		{"GET", "/v2/projects/{project_id}/export", s.handleProjectExport},
		{"GET", "/v2/projects/{project_id}/files/{path}", s.handleProjectFileGet},
		{"POST", "/v2/projects/{project_id}/files/{path}", s.handleProjectFileWrite},
		{"GET", "/v2/projects/{project_id}/stats", s.handleProjectStats},
		{"GET", "/v2/projects/{project_id}/drawings", s.handleDrawingList},
		{"POST", "/v2/projects/{project_id}/drawings", s.handleDrawingCreate},
		{"GET", "/v2/projects/{project_id}/drawings/{drawing_id}", s.handleDrawingGet},
		{"PUT", "/v2/projects/{project_id}/drawings/{drawing_id}", s.handleDrawingUpdate},
		{"DELETE", "/v2/projects/{project_id}/drawings/{drawing_id}", s.handleDrawingDelete},
		{"GET", "/v2/projects/{project_id}/snapshots", s.handleSnapshotList},
		{"POST", "/v2/projects/{project_id}/snapshots", s.handleSnapshotCreate},
		{"DELETE", "/v2/projects/{project_id}/snapshots/{snapshot_id}", s.handleSnapshotDelete},
		{"POST", "/v2/projects/{project_id}/snapshots/{snapshot_id}/restore", s.handleSnapshotRestore},
		{"GET", "/v2/projects/{project_id}/notifications", s.handleNotificationStream},
		{"GET", "/v2/projects/{project_id}/notifications/ws", s.handleNotificationWS},
		{"POST", "/v2/projects/{project_id}/templates/{template_id}", s.handleTemplateNodeCreate},

		{"GET", "/v2/projects/{project_id}/links", s.handleLinkList},
		{"POST", "/v2/projects/{project_id}/links", s.handleLinkCreate},
		{"GET", "/v2/projects/{project_id}/links/{link_id}", s.handleLinkGet},
		{"PUT", "/v2/projects/{project_id}/links/{link_id}", s.handleLinkUpdate},
		{"DELETE", "/v2/projects/{project_id}/links/{link_id}", s.handleLinkDelete},
		{"GET", "/v2/projects/{project_id}/links/{link_id}/available_filters", s.handleLinkFilters},
		{"POST", "/v2/projects/{project_id}/links/{link_id}/start_capture", s.handleLinkCaptureStart},
		{"POST", "/v2/projects/{project_id}/links/{link_id}/stop_capture", s.handleLinkCaptureStop},
		{"GET", "/v2/projects/{project_id}/links/{link_id}/pcap", s.handleLinkPcap},
		{"GET", "/v2/projects/{project_id}/nodes/{node_id}/links", s.handleNodeLinks},
		{"GET", "/v2/projects/{project_id}/nodes/{node_id}/images", s.handleNodeImages},
		{"GET", "/v2/projects/{project_id}/nodes/{node_id}/console/ws", s.handleConsoleWS("")},
		{"GET", "/v2/projects/{project_id}/nodes/{node_id}/console/vnc", s.handleConsoleVNC()},
		{"GET", "/v2/projects/{project_id}/nodes/{node_id}/console/aux/ws", s.handleAuxWS},
		{"POST", "/v2/projects/{project_id}/nodes/{node_id}/console/reset", s.handleConsoleReset},
		{"POST", "/v2/projects/{project_id}/nodes/{node_id}/resize_disk", s.handleResizeDisk("")},
		{"POST", "/v2/projects/{project_id}/nodes/console/reset", s.handleProjectConsoleReset},
		{"POST", "/v2/projects/{project_id}/nodes/{node_id}/duplicate", s.handleNodeDuplicate},
		{"GET", "/v2/projects/{project_id}/nodes/{node_id}/files/{path}", s.handleNodeFileGet},
		{"POST", "/v2/projects/{project_id}/nodes/{node_id}/files/{path}", s.handleNodeFileWrite},

		{"GET", "/v2/projects/{project_id}/nodes", s.handleNodeList},
		{"POST", "/v2/projects/{project_id}/nodes", s.handleNodeCreate},
		{"GET", "/v2/projects/{project_id}/nodes/{node_id}", s.handleNodeGet},
		{"PUT", "/v2/projects/{project_id}/nodes/{node_id}", s.handleNodeUpdate},
		{"DELETE", "/v2/projects/{project_id}/nodes/{node_id}", s.handleNodeDelete},

		{"POST", "/v2/compute/projects", s.handleComputeProjectCreate},
		{"POST", "/v2/compute/projects/{project_id}/ports/udp", s.handleComputeUDPPort},
		{"PUT", "/v2/compute/projects/{project_id}", s.handleComputeProjectUpdate},
		{"DELETE", "/v2/compute/projects/{project_id}", s.handleComputeProjectDelete},
		{"POST", "/v2/compute/projects/{project_id}/close", s.handleComputeProjectClose},
		{"GET", "/v2/compute/notifications/ws", s.handleNotificationWS},
		{"GET", "/v2/compute/network/interfaces", s.handleComputeInterfaces},
		{"GET", "/v2/compute/projects/{project_id}/files", s.handleComputeFiles},
		{"GET", "/v2/compute/projects/{project_id}/files/{path}", s.handleProjectFileGet},
		{"GET", "/v2/compute/network/ports", s.handleComputeNetworkPorts},
		{"GET", "/v2/compute/{emulator}/images", s.handleEmptyList},
	}...)
	routes = append(routes, nodes...)
	for _, a := range app.Actions {
		routes = append(routes,
			route{"POST", "/v2/projects/{project_id}/nodes/{node_id}/" + string(a), s.handleNodeAction(a)},
			route{"POST", "/v2/projects/{project_id}/nodes/" + string(a), s.handleProjectAction(a)},
		)
	}
	for _, t := range app.ComputeTypes {
		base := "/v2/compute/projects/{project_id}/" + string(t) + "/nodes"
		routes = append(routes,
			route{"POST", base, s.handleComputeNodeCreate(t)},
			route{"GET", base + "/{node_id}", s.handleComputeNodeGet(t)},
			route{"PUT", base + "/{node_id}", s.handleComputeNodeUpdate(t)},
			route{"DELETE", base + "/{node_id}", s.handleComputeNodeDelete(t)},
			route{"GET", base + "/{node_id}/console/ws", s.handleConsoleWS(t)},
			route{"POST", base + "/{node_id}/adapters/{adapter_number}/ports/{port_number}/nio", s.handleComputeNIOPut(t, (*app.Service).AddNIO)},
			route{"PUT", base + "/{node_id}/adapters/{adapter_number}/ports/{port_number}/nio", s.handleComputeNIOPut(t, (*app.Service).UpdateNIO)},
			route{"DELETE", base + "/{node_id}/adapters/{adapter_number}/ports/{port_number}/nio", s.handleComputeNIODelete(t)},
			route{"POST", base + "/{node_id}/adapters/{adapter_number}/ports/{port_number}/start_capture", s.handleComputeCaptureStart(t)},
			route{"POST", base + "/{node_id}/adapters/{adapter_number}/ports/{port_number}/stop_capture", s.handleComputeCaptureStop(t)},
			route{"GET", base + "/{node_id}/adapters/{adapter_number}/ports/{port_number}/pcap", s.handleComputePcap(t)},
			route{"POST", base + "/{node_id}/console/reset", s.handleConsoleReset},
			route{"POST", base + "/{node_id}/duplicate", s.handleComputeDuplicate(t)},
		)
		for _, a := range app.Actions {
			routes = append(routes, route{"POST", base + "/{node_id}/" + string(a), s.handleComputeNodeAction(t, a)})
		}
		if len(t.Drives()) > 0 {
			routes = append(routes, route{"POST", base + "/{node_id}/resize_disk", s.handleResizeDisk(t)})
		}
	}
	// gorilla/mux tries routes in order, one regexp each: the node routes,
	// which clients call most, go first (measured with make bench).
	sort.SliceStable(routes, func(i, j int) bool { return hot(routes[i].path) && !hot(routes[j].path) })
	for _, rt := range routes {
		if err := s.contract.register(rt.method, rt.path); err != nil {
			return nil, err
		}
		h := rt.h
		// A symbol id (":/symbols/computer.svg") and a node file's path
		// (configs/startup.vpc) span path segments.
		path := strings.Replace(rt.path, "{symbol_id}", "{symbol_id:.+}", 1)
		path = strings.Replace(path, "{path}", "{path:.+}", 1)
		path = strings.Replace(path, "{filename}", "{filename:.+}", 1) // an image in a subfolder
		r.Path(path).Methods(rt.method).HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r, err := withSource(r)
			if err == nil {
				err = h(w, r)
			}
			if err != nil {
				s.writeError(w, r, err)
			}
		})
	}
	return r, nil
}

// hot reports whether a route is one of a node's own (controller or
// compute view).
func hot(path string) bool { return strings.HasSuffix(path, "/nodes/{node_id}") }
