package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// NIOs: nodedesk as a GNS3 compute. A GNS3 controller links every pair of
// nodes, even two on one compute, by giving each end a nio_udp: the node's
// port sends its frames to rhost:rport and hears them on lport. A NIO is
// runtime wiring a controller sets, like a node's status: it is stored (so
// a restart keeps the lab wired) but never recorded in history, never shown
// as a link, and its events (nio.*) reach the data plane only.

// NIO is a node port whose frames go through a UDP tunnel: GNS3's nio_udp,
// given by a controller. Its JSON tags are the store's record format.
type NIO struct {
	ProjectID     string                     `json:"project_id"`
	NodeID        string                     `json:"node_id"`
	AdapterNumber int                        `json:"adapter_number"`
	PortNumber    int                        `json:"port_number"`
	Type          string                     `json:"type"` // "nio_udp"
	LPort         int                        `json:"lport"`
	RHost         string                     `json:"rhost"`
	RPort         int                        `json:"rport"`
	Filters       map[string]json.RawMessage `json:"filters,omitempty"`
	Suspend       bool                       `json:"suspend"`
	// LinkID is set when nodedesk's own controller made the NIO for one of
	// its links (a link to a remote compute); empty when a GNS3 controller
	// did.
	LinkID string `json:"link_id,omitempty"`
	// A packet capture of the NIO's frames, as a link's (Link.Capturing).
	Capturing           bool    `json:"capturing,omitempty"`
	CaptureFileName     *string `json:"capture_file_name,omitempty"`
	CaptureFilePath     *string `json:"capture_file_path,omitempty"`
	CaptureDataLinkType string  `json:"capture_data_link_type,omitempty"`
}

// NIOSpec is what a controller asks for.
type NIOSpec struct {
	Type    string
	LPort   int
	RHost   string
	RPort   int
	Filters map[string]json.RawMessage
	Suspend bool
	LinkID  string
}

// NIOTypeUDP is the one NIO type nodedesk carries.
const NIOTypeUDP = "nio_udp"

// WireID names the NIO's wire in the data plane (and its capture): one per
// port of a node.
func (n *NIO) WireID() string {
	return fmt.Sprintf("nio:%s:%d:%d", n.NodeID, n.AdapterNumber, n.PortNumber)
}

// ActiveNIOFilters is what the data plane applies to a NIO's frames: its
// filters, or, suspended, a filter that drops every frame (as a link's,
// ActiveFilters).
func ActiveNIOFilters(n *NIO) map[string]json.RawMessage {
	return ActiveFilters(&Link{Suspend: n.Suspend, Filters: n.Filters})
}

// PortRange is a range of ports, both ends included.
type PortRange struct{ From, To int }

// DefaultUDPPorts is the range UDP ports are allocated from when none is
// configured: GNS3's.
var DefaultUDPPorts = PortRange{From: 20000, To: 30000}

// ParsePortRange reads "FROM-TO" (1 ≤ FROM < TO ≤ 65535).
func ParsePortRange(s string) (PortRange, error) {
	from, to, ok := strings.Cut(strings.TrimSpace(s), "-")
	a, errA := strconv.Atoi(strings.TrimSpace(from))
	b, errB := strconv.Atoi(strings.TrimSpace(to))
	if !ok || errA != nil || errB != nil || a < 1 || b > 65535 || a >= b {
		return PortRange{}, fmt.Errorf("UDP port range %q is not FROM-TO with 1 ≤ FROM < TO ≤ 65535 (for example 20000-30000)", s)
	}
	return PortRange{From: a, To: b}, nil
}

// String is r as ParsePortRange reads it: "FROM-TO".
func (r PortRange) String() string { return fmt.Sprintf("%d-%d", r.From, r.To) }

// Contains reports whether p is in r.
func (r PortRange) Contains(p int) bool { return p >= r.From && p <= r.To }

// UDPPorts is the range this nodedesk allocates UDP ports from: VPCS
// pairs, ports/udp reservations, and the lports of NIOs.
func (s *Service) UDPPorts() PortRange { return s.c.UDPPorts }

// UDPUse is what holds a UDP port of the udp_ports index.
type UDPUse struct {
	ProjectID string
	// NodeID is the node whose UDP pair or NIO holds the port; empty for a
	// reservation of the project (ports/udp) that no NIO uses yet.
	NodeID string
	// NIO is true when the port is the lport of the NIO on port
	// Adapter/Port of the node.
	NIO           bool
	Adapter, Port int
}

// udpPortFree is the one test of a UDP port being free for a new use:
// nothing of this nodedesk holds it (the udp_ports index: VPCS pairs, NIO
// lports, reservations, cloud tunnels) and no program of this machine has
// it bound. The checks of a port a client names (checkNIOLPort,
// takenTunnelPort) ask the same two things, to say who holds it.
func (s *Service) udpPortFree(tx Tx, port int) (bool, error) {
	_, taken, err := tx.UDPUse(port)
	if err != nil || taken {
		return false, err
	}
	return s.c.PortFree("udp", port), nil
}

// ReserveUDPPort reserves for a project the first UDP port of the range
// that nothing of this nodedesk holds and no program of this machine has
// bound (GNS3's POST …/ports/udp): a NIO of the project may then take it
// as its lport. Codes: ENOTFOUND (project), ECONFLICT (none free).
func (s *Service) ReserveUDPPort(ctx context.Context, projectID string) (int, error) {
	var port int
	err := s.updateUnrecorded(ctx, func(tx Tx, _ emitFunc) error {
		p, err := findProject(tx, projectID)
		if err != nil {
			return err
		}
		r := s.c.UDPPorts
		for c := r.From; c <= r.To; c++ {
			free, err := s.udpPortFree(tx, c)
			if err != nil {
				return err
			}
			if free {
				port = c
				return tx.ReserveUDP(p.ID, c)
			}
		}
		return Errorf(ECONFLICT, "No UDP port is free in %d–%d", r.From, r.To)
	})
	return port, err
}

// releaseUDPPort frees a reservation of a project that no NIO took (a
// tunnel that could not be made); a failure is logged.
func (s *Service) releaseUDPPort(ctx context.Context, projectID string, port int) {
	err := s.updateUnrecorded(ctx, func(tx Tx, _ emitFunc) error { return tx.ReleaseUDPReservation(projectID, port) })
	if err != nil {
		s.c.Logger.Warn("UDP port reservation not released", "port", port, "err", err)
	}
}

// findNIO reads a node and the NIO of one of its ports (nil when the port
// has none). Codes: ENOTFOUND (project, node).
func findNIO(tx Tx, ref NodeRef, adapter, port int) (*Node, *NIO, error) {
	n, err := findNode(tx, ref)
	if err != nil {
		return nil, nil, err
	}
	nio, err := tx.NIO(n.ProjectID, n.ID, adapter, port)
	return n, nio, err
}

// nioNotFound is the error for a port without a NIO.
func nioNotFound(n *Node, adapter, port int) error {
	return Errorf(ENOTFOUND, "Node %s has no NIO on adapter %d port %d", n.Name, adapter, port)
}

// nioResolveTimeout bounds the resolution of a NIO's rhost.
const nioResolveTimeout = 5 * time.Second

// checkNIOSpec checks what does not need the store: the type, ports, the
// remote host (resolved, within the request and nioResolveTimeout) and
// the filters, which it returns normalized.
func (s *Service) checkNIOSpec(ctx context.Context, in NIOSpec) (map[string]json.RawMessage, error) {
	switch {
	case in.Type == "":
		return nil, Invalid("type", "A NIO needs a type: nio_udp")
	case in.Type != NIOTypeUDP:
		return nil, Conflict("type", "NIO of type %s is not supported", in.Type)
	case !s.c.UDPPorts.Contains(in.LPort):
		return nil, Invalid("lport", "Local UDP port %d is outside this compute's range %d–%d; reserve one with POST …/ports/udp", in.LPort, s.c.UDPPorts.From, s.c.UDPPorts.To)
	case in.RPort < 1 || in.RPort > 65535:
		return nil, Invalid("rport", "Remote UDP port %d is not a port (1–65535)", in.RPort)
	case in.RHost == "":
		return nil, Invalid("rhost", "A nio_udp needs rhost, the address of the other end")
	}
	if net.ParseIP(in.RHost) == nil {
		rctx, cancel := context.WithTimeout(ctx, nioResolveTimeout)
		_, err := net.DefaultResolver.LookupHost(rctx, in.RHost)
		cancel()
		if err != nil {
			return nil, Invalid("rhost", "Remote host %s cannot be resolved: %v", in.RHost, err)
		}
	}
	f, err := NormalizeFilters(in.Filters)
	if err != nil {
		return nil, err
	}
	if len(f) == 0 {
		f = nil
	}
	return f, nil
}

// AddNIO gives port adapter/port of a node a NIO (GNS3's POST …/nio),
// replacing the one it has, if any. Codes: ENOTFOUND (project, node),
// EINVALID (no such port, type missing, lport outside the range, rhost
// unresolvable, filters), ECONFLICT (another type than nio_udp, the port
// linked, lport held by something else).
func (s *Service) AddNIO(ctx context.Context, ref NodeRef, adapter, port int, in NIOSpec) (*NIO, error) {
	filters, err := s.checkNIOSpec(ctx, in)
	if err != nil {
		return nil, err
	}
	var out *NIO
	err = s.updateUnrecorded(ctx, func(tx Tx, emit emitFunc) error {
		n, err := findNode(tx, ref)
		if err != nil {
			return err
		}
		p, ok := findPort(n, adapter, port)
		if !ok {
			return Errorf(EINVALID, "%s has no port %d/%d; see its ports array", n.Name, adapter, port)
		}
		if err := checkPortFree(tx, n, p, in.LinkID, true); err != nil {
			return err
		}
		old, err := tx.NIO(n.ProjectID, n.ID, adapter, port)
		if err != nil {
			return err
		}
		if old == nil || old.LPort != in.LPort {
			if err := s.checkNIOLPort(tx, n.ProjectID, in.LPort); err != nil {
				return err
			}
		}
		out = &NIO{ProjectID: n.ProjectID, NodeID: n.ID, AdapterNumber: adapter, PortNumber: port,
			Type: in.Type, LPort: in.LPort, RHost: in.RHost, RPort: in.RPort, Filters: filters,
			Suspend: in.Suspend, LinkID: in.LinkID}
		action := EventNIOCreated
		if old != nil { // a capture under way goes on
			action = EventNIOUpdated
			out.Capturing, out.CaptureFileName, out.CaptureFilePath, out.CaptureDataLinkType =
				old.Capturing, old.CaptureFileName, old.CaptureFilePath, old.CaptureDataLinkType
		}
		if err := tx.PutNIO(out); err != nil {
			return err
		}
		emit(action, out.ProjectID, out)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// checkNIOLPort refuses, inside tx, an lport that a new NIO of project
// projectID may not take: held by anything of this nodedesk but a
// reservation of that project, or bound by a program of this machine.
func (s *Service) checkNIOLPort(tx Tx, projectID string, lport int) error {
	u, taken, err := tx.UDPUse(lport)
	switch {
	case err != nil:
		return err
	case taken && u.NodeID == "" && u.ProjectID == projectID:
		return nil // reserved for it by ports/udp
	case taken && u.NodeID != "":
		return Conflict("lport", "Local UDP port %d is used by node %s; reserve a port with POST …/ports/udp", lport, ownerWhere(tx, NodeKey{ProjectID: u.ProjectID, NodeID: u.NodeID}, projectID))
	case taken:
		return Conflict("lport", "Local UDP port %d is reserved by another project; reserve a port with POST …/ports/udp", lport)
	case !s.c.PortFree("udp", lport):
		return Conflict("lport", "Local UDP port %d is in use on this machine (a cloud's tunnel or another program); reserve a port with POST …/ports/udp", lport)
	}
	return nil
}

// checkPortFree is the one rule of a port's use: a port carries one link
// or one NIO. For a new link (linkID its id, forNIO false), a port that a
// link or a NIO not made for that link holds is refused; for a new NIO
// (forNIO true), a port that a link other than linkID holds is refused (a
// NIO the port has is replaced).
func checkPortFree(tx Tx, n *Node, p Port, linkID string, forNIO bool) error {
	lid, used, err := tx.LinkOnPort(n.ProjectID, n.ID, p.AdapterNumber, p.PortNumber)
	if err != nil {
		return err
	}
	if used && (lid != linkID || linkID == "") {
		return Errorf(ECONFLICT, "Port %s of %s is already used by link %s; delete that link first", p.Name, n.Name, lid)
	}
	if forNIO {
		return nil
	}
	return nioOnPort(tx, n, p, linkID)
}

// nioOnPort refuses port p of n to link linkID when a NIO not made for
// that link holds it.
func nioOnPort(tx Tx, n *Node, p Port, linkID string) error {
	nio, err := tx.NIO(n.ProjectID, n.ID, p.AdapterNumber, p.PortNumber)
	if err != nil {
		return err
	}
	if nio != nil && (nio.LinkID == "" || nio.LinkID != linkID) {
		return Errorf(ECONFLICT, "Port %s of %s carries a UDP tunnel (NIO) a GNS3 controller set; delete it on that controller first", p.Name, n.Name)
	}
	return nil
}

// UpdateNIO changes the filters and suspension of the NIO on a port
// (GNS3's PUT …/nio); the tunnel itself stays. Codes: ENOTFOUND (project,
// node, no NIO on the port), EINVALID (filters).
func (s *Service) UpdateNIO(ctx context.Context, ref NodeRef, adapter, port int, in NIOSpec) (*NIO, error) {
	filters, err := NormalizeFilters(in.Filters)
	if err != nil {
		return nil, err
	}
	if len(filters) == 0 {
		filters = nil
	}
	var out *NIO
	err = s.updateUnrecorded(ctx, func(tx Tx, emit emitFunc) error {
		n, nio, err := findNIO(tx, ref, adapter, port)
		if err != nil {
			return err
		} else if nio == nil {
			return nioNotFound(n, adapter, port)
		}
		out = nio
		out.Filters, out.Suspend = filters, in.Suspend
		if err := tx.PutNIO(out); err != nil {
			return err
		}
		emit(EventNIOUpdated, out.ProjectID, out)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DeleteNIO removes the NIO of a port and frees its lport (GNS3's DELETE
// …/nio). Codes: ENOTFOUND (project, node, no NIO on the port).
func (s *Service) DeleteNIO(ctx context.Context, ref NodeRef, adapter, port int) error {
	return s.updateUnrecorded(ctx, func(tx Tx, emit emitFunc) error {
		n, nio, err := findNIO(tx, ref, adapter, port)
		if err != nil {
			return err
		} else if nio == nil {
			return nioNotFound(n, adapter, port)
		}
		if err := tx.DeleteNIO(n.ProjectID, n.ID, adapter, port); err != nil {
			return err
		}
		emit(EventNIODeleted, nio.ProjectID, nio)
		return nil
	})
}

// FindNIOs returns a project's NIOs. Codes: ENOTFOUND (project).
func (s *Service) FindNIOs(ctx context.Context, projectID string) ([]*NIO, error) {
	var out []*NIO
	err := s.view(func(tx Tx) error {
		p, err := findProject(tx, projectID)
		if err != nil {
			return err
		}
		out, err = tx.NIOs(p.ID)
		return err
	})
	return out, err
}

// FindNIO returns the NIO of a port. Codes: ENOTFOUND (project, node, no
// NIO on the port).
func (s *Service) FindNIO(ctx context.Context, ref NodeRef, adapter, port int) (*NIO, error) {
	var out *NIO
	err := s.view(func(tx Tx) error {
		n, nio, err := findNIO(tx, ref, adapter, port)
		if err == nil && nio == nil {
			err = nioNotFound(n, adapter, port)
		}
		out = nio
		return err
	})
	return out, err
}
