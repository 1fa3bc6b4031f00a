package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/gorilla/mux"

	"nodedesk/app"
)

// The compute's NIO operations: the UDP tunnels a GNS3 controller gives a
// node's ports to link it (…/adapters/{a}/ports/{p}/nio) and the UDP ports
// it reserves for them (…/ports/udp).

// nioBody is a NIO as a controller sends it.
type nioBody struct {
	Type    string                     `json:"type"`
	LPort   int                        `json:"lport"`
	RHost   string                     `json:"rhost"`
	RPort   int                        `json:"rport"`
	Filters map[string]json.RawMessage `json:"filters"`
	Suspend bool                       `json:"suspend"`
}

func (b nioBody) spec() app.NIOSpec {
	return app.NIOSpec{Type: b.Type, LPort: b.LPort, RHost: b.RHost, RPort: b.RPort, Filters: b.Filters, Suspend: b.Suspend}
}

// nioJSON is a NIO as GNS3 answers it.
func nioJSON(n *app.NIO) map[string]any {
	f := n.Filters
	if f == nil {
		f = map[string]json.RawMessage{}
	}
	return map[string]any{"type": n.Type, "lport": n.LPort, "rhost": n.RHost, "rport": n.RPort, "filters": f, "suspend": n.Suspend}
}

// portOf reads the adapter and port numbers of a port path.
func portOf(r *http.Request) (adapter, port int, err error) {
	v := mux.Vars(r)
	adapter, errA := strconv.Atoi(v["adapter_number"])
	port, errP := strconv.Atoi(v["port_number"])
	if errA != nil || errP != nil || adapter < 0 || port < 0 {
		return 0, 0, app.Errorf(app.EINVALID, "Adapter %q port %q is not a port number pair", v["adapter_number"], v["port_number"])
	}
	return adapter, port, nil
}

// handleComputeNIOPut is POST …/nio (set, app.Service.AddNIO) and PUT
// …/nio (change filters and suspend, UpdateNIO): both answer 201 with the
// NIO, as GNS3 does.
func (s *Server) handleComputeNIOPut(t app.NodeType, set func(*app.Service, context.Context, app.NodeRef, int, int, app.NIOSpec) (*app.NIO, error)) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		adapter, port, err := portOf(r)
		if err != nil {
			return err
		}
		in, _, err := readBody[nioBody](s, r)
		if err != nil {
			return err
		}
		n, err := set(s.svc, r.Context(), nodeRef(r, t), adapter, port, in.spec())
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusCreated, nioJSON(n))
		return nil
	}
}

func (s *Server) handleComputeNIODelete(t app.NodeType) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		adapter, port, err := portOf(r)
		if err != nil {
			return err
		}
		if err := s.svc.DeleteNIO(r.Context(), nodeRef(r, t), adapter, port); err != nil {
			return err
		}
		noContent(w)
		return nil
	}
}

// handleComputeUDPPort reserves a UDP port for a project's next NIO.
func (s *Server) handleComputeUDPPort(w http.ResponseWriter, r *http.Request) error {
	p, err := s.svc.ReserveUDPPort(r.Context(), mux.Vars(r)["project_id"])
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]int{"udp_port": p})
	return nil
}
