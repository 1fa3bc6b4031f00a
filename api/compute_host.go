package api

import (
	"net/http"

	"github.com/gorilla/mux"

	"nodedesk/app"
)

// The compute's project, capture and host operations a GNS3 controller
// calls besides nodes and NIOs (issue15-design C.3).

// computeProjectJSON is a project as a GNS3 compute answers it.
func computeProjectJSON(p *app.Project) map[string]any {
	v := p.Variables
	if v == nil {
		v = []app.Variable{}
	}
	return map[string]any{"name": p.Name, "project_id": p.ID, "variables": v}
}

// handleComputeProjectUpdate sets a project's variables (the only field
// a controller sends a compute).
func (s *Server) handleComputeProjectUpdate(w http.ResponseWriter, r *http.Request) error {
	in, _, err := readBody[struct {
		Variables app.Field[[]app.Variable] `json:"variables"`
	}](s, r)
	if err != nil {
		return err
	}
	p, err := s.svc.UpdateProject(r.Context(), mux.Vars(r)["project_id"], app.ProjectUpdate{Variables: in.Variables})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, computeProjectJSON(p))
	return nil
}

// handleComputeProjectClose is a controller closing a project on this
// compute (204).
func (s *Server) handleComputeProjectClose(w http.ResponseWriter, r *http.Request) error {
	if err := s.svc.CloseComputeProject(r.Context(), mux.Vars(r)["project_id"]); err != nil {
		return err
	}
	noContent(w)
	return nil
}

// handleComputeProjectDelete deletes a project on this compute (204).
func (s *Server) handleComputeProjectDelete(w http.ResponseWriter, r *http.Request) error {
	if err := s.svc.DeleteProject(r.Context(), mux.Vars(r)["project_id"]); err != nil {
		return err
	}
	noContent(w)
	return nil
}

// handleComputeCaptureStart starts a capture on a port's NIO: 200
// {pcap_file_path}, as GNS3 answers.
func (s *Server) handleComputeCaptureStart(t app.NodeType) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		adapter, port, err := portOf(r)
		if err != nil {
			return err
		}
		in, _, err := readBody[app.LinkCapture](s, r)
		if err != nil {
			return err
		}
		n, err := s.svc.StartNIOCapture(r.Context(), nodeRef(r, t), adapter, port, in)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, map[string]string{"pcap_file_path": *n.CaptureFilePath})
		return nil
	}
}

// handleComputeCaptureStop stops a port's capture (204).
func (s *Server) handleComputeCaptureStop(t app.NodeType) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		adapter, port, err := portOf(r)
		if err != nil {
			return err
		}
		if _, err := s.body(r); err != nil {
			return err
		}
		if err := s.svc.StopNIOCapture(r.Context(), nodeRef(r, t), adapter, port); err != nil {
			return err
		}
		noContent(w)
		return nil
	}
}

// handleComputePcap streams a port's running capture, as the link's pcap
// does (FollowCapture): what the file holds, then what is written, until
// the capture stops.
func (s *Server) handleComputePcap(t app.NodeType) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		adapter, port, err := portOf(r)
		if err != nil {
			return err
		}
		n, err := s.svc.FindNIO(r.Context(), nodeRef(r, t), adapter, port)
		if err != nil {
			return err
		}
		if !n.Capturing {
			return app.Errorf(app.ECONFLICT, "Port %d/%d is not capturing; start a capture first", adapter, port)
		}
		return s.followCapture(w, r, n.WireID())
	}
}

// handleComputeDuplicate completes a node copy the controller made: 201
// with the copy's compute view.
func (s *Server) handleComputeDuplicate(t app.NodeType) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		in, _, err := readBody[struct {
			DestinationNodeID string `json:"destination_node_id"`
		}](s, r)
		if err != nil {
			return err
		}
		n, err := s.svc.DuplicateComputeNode(r.Context(), nodeRef(r, t), in.DestinationNodeID)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusCreated, s.computeJSON(n))
		return nil
	}
}

// handleComputeFiles lists a project's files with their MD5 sums, for a
// controller's export.
func (s *Server) handleComputeFiles(w http.ResponseWriter, r *http.Request) error {
	files, err := s.svc.ListComputeFiles(r.Context(), mux.Vars(r)["project_id"])
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, files)
	return nil
}

// handleComputeInterfaces lists this machine's network interfaces.
func (s *Server) handleComputeInterfaces(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, s.svc.NetworkInterfaces())
	return nil
}

// handleComputeNetworkPorts lists the console and UDP ports in use and
// their ranges.
func (s *Server) handleComputeNetworkPorts(w http.ResponseWriter, r *http.Request) error {
	consoles, err := s.svc.ConsolePorts(r.Context())
	if err != nil {
		return err
	}
	udp, err := s.svc.UsedUDPPorts(r.Context())
	if err != nil {
		return err
	}
	rg := s.svc.UDPPorts()
	writeJSON(w, http.StatusOK, map[string]any{
		"console_port_range": []int{app.ConsolePortMin, app.ConsolePortMax}, "console_ports": consoles,
		"udp_port_range": []int{rg.From, rg.To}, "udp_ports": udp,
	})
	return nil
}
