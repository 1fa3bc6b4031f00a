package app

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
)

// Links that touch a remote compute are UDP tunnels, made with the calls
// and in the order of GNS3's controller (udp_link.py): a UDP port on each
// side's compute, then the NIO of side 1, then of side 2 (side 1 undone if
// side 2 fails). A side on this nodedesk is a NIO of the in-process
// compute (NIOSpec with the link's id, so that it sits on the port the
// link holds), and carries the link's filters, suspension and capture.
// The Link record is stored as usual, with its Tunnel.

// Tunnel is how a link whose nodes do not both live on this nodedesk is
// carried: one UDP end per side. Its JSON tags are the store's format.
type Tunnel struct {
	Ends [2]TunnelEnd `json:"ends"`
	// Capture is the side whose compute runs the link's capture, when
	// both sides are remote (nil: none, or this nodedesk captures).
	Capture *int `json:"capture,omitempty"`
}

// TunnelEnd is one side of a tunnel: the compute of that side's node, the
// address the other side sends to, and the UDP port it listens on.
type TunnelEnd struct {
	ComputeID string `json:"compute_id"`
	Host      string `json:"host"`
	LPort     int    `json:"lport"`
}

// IsLoopback reports whether host names this machine's loopback ("localhost"
// or a loopback address): the one rule computes and tunnels use.
func IsLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// computeHost is the address a remote compute is reached at.
func (s *Service) computeHost(id string) string {
	s.cmp.mu.Lock()
	defer s.cmp.mu.Unlock()
	if cc := s.cmp.conns[id]; cc != nil {
		return DialHost(cc.c.Host)
	}
	return ""
}

// tunnelHosts is the hosts rule: the address each side of a link is sent
// to. A remote side is its compute's host. This nodedesk, seen from a
// remote compute, is 127.0.0.1 when that compute is on loopback (two
// computes on one host work, where GNS3 finds "no common subnet"), else
// the local address the route to that compute leaves from. Two remote
// computes both on loopback use 127.0.0.1 both ways.
func (s *Service) tunnelHosts(computes [2]string) ([2]string, error) {
	var hosts [2]string
	for i, id := range computes {
		if id != LocalCompute {
			hosts[i] = s.computeHost(id)
		}
	}
	for i, id := range computes {
		if id != LocalCompute {
			continue
		}
		other := hosts[1-i]
		if other == "" || IsLoopback(other) {
			hosts[i] = "127.0.0.1"
			continue
		}
		c, err := net.Dial("udp", net.JoinHostPort(other, "9"))
		if err != nil {
			return hosts, Errorf(ECONFLICT, "No route from this machine to compute host %s: %v", other, err)
		}
		hosts[i] = c.LocalAddr().(*net.UDPAddr).IP.String()
		c.Close()
	}
	if IsLoopback(hosts[0]) && IsLoopback(hosts[1]) {
		hosts = [2]string{"127.0.0.1", "127.0.0.1"}
	}
	return hosts, nil
}

// linkNodesIn returns, inside tx, the two nodes of a link request (nil
// when either is not found: newLinkIn then says why).
func linkNodesIn(tx Tx, projectID string, u LinkUpdate) [2]*Node {
	var ends [2]*Node
	if !u.Nodes.has() || len(u.Nodes.Value) != 2 {
		return ends
	}
	for i, e := range u.Nodes.Value {
		ends[i], _ = findNode(tx, NodeRef{ProjectID: projectID, NodeID: e.NodeID})
	}
	return ends
}

// tunnelled reports whether a link between ends touches a remote compute:
// it is then a UDP tunnel.
func tunnelled(ends [2]*Node) bool {
	return (ends[0] != nil && ends[0].Remote()) || (ends[1] != nil && ends[1].Remote())
}

// createTunnelLink makes link id between ends, which touches a remote
// compute: checked in a transaction that is rolled back, the tunnel made,
// then committed unrecorded (remoteWrite); a failed commit breaks the
// tunnel again.
func (s *Service) createTunnelLink(ctx context.Context, projectID, id string, u LinkUpdate, ends [2]*Node) (*Link, error) {
	var l *Link
	err := s.c.Store.Update(func(tx Tx) error {
		p, err := findProject(tx, projectID)
		if err != nil {
			return err
		}
		if l, err = s.newLinkIn(tx, p.ID, id, u); err != nil {
			return err
		}
		return errPrepared
	})
	if !errors.Is(err, errPrepared) {
		return nil, err
	}
	made := l
	if made.Tunnel, err = s.makeTunnel(ctx, made, ends); err != nil {
		return nil, err
	}
	err = s.updateUnrecorded(ctx, func(tx Tx, emit emitFunc) error { // not undoable: see remoteWrite
		p, err := findProject(tx, projectID)
		if err != nil {
			return err
		}
		if l, err = s.newLinkIn(tx, p.ID, id, u); err != nil {
			return err
		}
		l.Tunnel = made.Tunnel
		emit(EventLinkCreated, l.ProjectID, l)
		return tx.PutLink(l)
	})
	if err != nil {
		s.breakTunnel(context.WithoutCancel(ctx), made, ends) // the link as the tunnel was made for it
		return nil, err
	}
	return l, nil
}

// makeTunnel makes the two sides of l's tunnel between ends: a UDP port on
// each side's compute, then the NIO of side 1, then of side 2.
func (s *Service) makeTunnel(ctx context.Context, l *Link, ends [2]*Node) (*Tunnel, error) {
	computes := [2]string{ends[0].Compute(), ends[1].Compute()}
	hosts, err := s.tunnelHosts(computes)
	if err != nil {
		return nil, err
	}
	t := &Tunnel{}
	release := func() { // this nodedesk's reservations, on a failure (a compute frees its own with the project)
		for i, n := range ends {
			if !n.Remote() && t.Ends[i].LPort != 0 {
				s.releaseUDPPort(context.WithoutCancel(ctx), n.ProjectID, t.Ends[i].LPort)
			}
		}
	}
	for i, n := range ends {
		t.Ends[i] = TunnelEnd{ComputeID: computes[i], Host: hosts[i]}
		if t.Ends[i].LPort, err = s.tunnelPort(ctx, n); err != nil {
			release()
			return nil, err
		}
	}
	for i, n := range ends {
		if err := s.addTunnelNIO(ctx, l, t, i, n, ends); err != nil {
			if i == 1 {
				s.deleteTunnelNIO(context.WithoutCancel(ctx), l, 0, ends[0])
			}
			release()
			return nil, err
		}
	}
	return t, nil
}

// tunnelPort reserves a UDP port on the compute of n.
func (s *Service) tunnelPort(ctx context.Context, n *Node) (int, error) {
	if !n.Remote() {
		return s.ReserveUDPPort(ctx, n.ProjectID)
	}
	if err := s.ensureComputeProject(ctx, n.ComputeID, n.ProjectID); err != nil {
		return 0, err
	}
	return s.compute(n.ComputeID).ReserveUDPPort(ctx, n.ProjectID)
}

// filterSide is the side of l that carries its filters and suspension: the
// local side of a link to a remote compute, else GNS3's filter node (the
// first end whose type CarriesFilters); -1 when none.
func filterSide(t *Tunnel, ends [2]*Node) int {
	for i := range ends {
		if t.Ends[i].ComputeID == LocalCompute {
			return i
		}
	}
	for i, n := range ends {
		if n.Type.CarriesFilters() {
			return i
		}
	}
	return -1
}

// nioSpec is side i's NIO of l: it listens on its own port and sends to
// the other side's host and port.
func nioSpec(l *Link, t *Tunnel, i int, ends [2]*Node) NIOSpec {
	o := 1 - i
	spec := NIOSpec{Type: "nio_udp", LPort: t.Ends[i].LPort, RHost: t.Ends[o].Host, RPort: t.Ends[o].LPort, Filters: map[string]json.RawMessage{}}
	if filterSide(t, ends) == i {
		if f := ActiveFilters(l); f != nil {
			spec.Filters = f
		}
		spec.Suspend = l.Suspend
	}
	return spec
}

func linkEndOf(l *Link, n *Node) LinkEnd {
	for _, e := range l.Nodes {
		if e.NodeID == n.ID {
			return e
		}
	}
	return LinkEnd{}
}

// portOf names the port of n that link end e is on.
func portOf(n *Node, e LinkEnd) PortRef {
	return PortRef{NodeRef: refOf(n), Adapter: e.AdapterNumber, Port: e.PortNumber}
}

// addTunnelNIO makes side i's NIO.
func (s *Service) addTunnelNIO(ctx context.Context, l *Link, t *Tunnel, i int, n *Node, ends [2]*Node) error {
	spec, e := nioSpec(l, t, i, ends), linkEndOf(l, n)
	if !n.Remote() {
		spec.LinkID = l.ID
		_, err := s.AddNIO(ctx, NodeRef{ProjectID: n.ProjectID, NodeID: n.ID}, e.AdapterNumber, e.PortNumber, spec)
		return err
	}
	return s.compute(n.ComputeID).AddNIO(ctx, portOf(n, e), spec)
}

// deleteTunnelNIO removes side i's NIO; one that is gone already, or a
// compute that cannot be reached, is not an error.
func (s *Service) deleteTunnelNIO(ctx context.Context, l *Link, i int, n *Node) {
	e := linkEndOf(l, n)
	var err error
	if !n.Remote() {
		err = s.DeleteNIO(ctx, NodeRef{ProjectID: n.ProjectID, NodeID: n.ID}, e.AdapterNumber, e.PortNumber)
	} else {
		err = s.deleteOnCompute(ctx, n.ComputeID, pendingDelete{kind: deleteNIO, port: portOf(n, e)})
	}
	if err != nil && ErrorCode(err) != ENOTFOUND {
		s.c.Logger.Warn("tunnel side not removed", "link", l.ID, "node", n.Name, "err", err)
	}
}

// breakTunnel removes both sides of l's tunnel, side 1 first.
func (s *Service) breakTunnel(ctx context.Context, l *Link, ends [2]*Node) {
	for i, n := range ends {
		if n != nil {
			s.deleteTunnelNIO(ctx, l, i, n)
		}
	}
}

// tunnelEnds returns the nodes of a tunnelled link, in its order.
func (s *Service) tunnelEnds(l *Link) [2]*Node {
	var ends [2]*Node
	_ = s.view(func(tx Tx) error {
		for i, e := range l.Nodes {
			if i < 2 {
				ends[i], _ = tx.Node(l.ProjectID, e.NodeID)
			}
		}
		return nil
	})
	return ends
}

// breakLinkTunnels removes the tunnels of links before they are deleted.
func (s *Service) breakLinkTunnels(ctx context.Context, links []*Link) {
	for _, l := range links {
		if l.Tunnel != nil {
			s.breakTunnel(ctx, l, s.tunnelEnds(l))
		}
	}
}

// syncTunnelFilters gives a tunnelled link's filter side its filters and
// suspension after a change (GNS3 sends none to a switch or a hub).
func (s *Service) syncTunnelFilters(ctx context.Context, l *Link) error {
	if l.Tunnel == nil {
		return nil
	}
	ends := s.tunnelEnds(l)
	if ends[0] == nil || ends[1] == nil {
		return nil
	}
	i := filterSide(l.Tunnel, ends)
	if i < 0 {
		return nil
	}
	n, spec, e := ends[i], nioSpec(l, l.Tunnel, i, ends), linkEndOf(l, ends[i])
	if !n.Remote() {
		spec.LinkID = l.ID
		_, err := s.UpdateNIO(ctx, NodeRef{ProjectID: n.ProjectID, NodeID: n.ID}, e.AdapterNumber, e.PortNumber, spec)
		return err
	}
	if !n.Type.UpdatesNIO() {
		return nil
	}
	return s.compute(n.ComputeID).UpdateNIO(ctx, portOf(n, e), spec)
}

// alwaysRunning reports whether n's type runs from the moment it exists
// (the node-type table's lifecycle): GNS3 prefers to capture on those, as
// a stop never cuts their capture off.
func alwaysRunning(n *Node) bool { return n.Type.Lifecycle() == AlwaysRunning }

// capturedOnCompute reports whether l's frames can only be captured on a
// remote compute: both of its sides are remote.
func capturedOnCompute(l *Link) bool {
	return l.Tunnel != nil && l.Tunnel.Ends[0].ComputeID != LocalCompute && l.Tunnel.Ends[1].ComputeID != LocalCompute
}

// CapturedOnCompute reports whether l's capture runs on a remote compute
// (its pcap is then streamed from there: StreamComputeCapture).
func (l *Link) CapturedOnCompute() bool { return l.Tunnel != nil && l.Tunnel.Capture != nil }

// captureSide is the side of l a capture runs on, in GNS3's order of
// preference: a started node of an always-running type on this nodedesk,
// then one anywhere, then any started node on this nodedesk, then any
// started node.
func captureSide(ends [2]*Node) (int, error) {
	picks := []func(n *Node) bool{
		func(n *Node) bool { return !n.Remote() && alwaysRunning(n) && n.Status == Started },
		func(n *Node) bool { return alwaysRunning(n) && n.Status == Started },
		func(n *Node) bool { return !n.Remote() && n.Status == Started },
		func(n *Node) bool { return n.Status == Started },
	}
	for _, pick := range picks {
		for i, n := range ends {
			if n != nil && pick(n) {
				return i, nil
			}
		}
	}
	return 0, Errorf(ECONFLICT, "Cannot capture because there is no running device on this link; start one of its nodes first")
}

// startComputeCapture starts a capture of l (both sides remote) on the
// compute of the side captureSide picks, and returns that side.
func (s *Service) startComputeCapture(ctx context.Context, l *Link) (int, error) {
	ends := s.tunnelEnds(l)
	if ends[0] == nil || ends[1] == nil {
		return 0, Errorf(ENOTFOUND, "A node of link %s no longer exists", l.ID)
	}
	i, err := captureSide(ends)
	if err != nil {
		return 0, err
	}
	n := ends[i]
	return i, s.compute(n.ComputeID).StartCapture(ctx, portOf(n, linkEndOf(l, n)), *l.CaptureFileName, l.CaptureDataLinkType)
}

// startCaptureOnCompute starts a capture of a link whose two sides are
// remote: prepared in a transaction that is rolled back, started on the
// compute of captureSide's side (GNS3's start_capture on its port), then
// committed with that side; a failed commit stops it there again.
func (s *Service) startCaptureOnCompute(ctx context.Context, projectID, linkID string, c LinkCapture) (*Link, error) {
	var l *Link
	err := s.c.Store.Update(func(tx Tx) (err error) {
		if l, err = s.prepareCapture(tx, projectID, linkID, c); err != nil {
			return err
		}
		return errPrepared
	})
	if !errors.Is(err, errPrepared) {
		return nil, err
	}
	side, err := s.startComputeCapture(ctx, l)
	if err != nil {
		return nil, err
	}
	err = s.updateUnrecorded(ctx, func(tx Tx, emit emitFunc) error { // the compute holds it: see remoteWrite
		cur, err := findLink(tx, projectID, linkID)
		if err != nil {
			return err
		}
		if cur.Capturing || cur.Tunnel == nil {
			return Errorf(ECONFLICT, "Link %s changed while its capture started; try again", cur.ID)
		}
		after := *cur
		after.Capturing, after.CaptureFileName, after.CaptureFilePath, after.CaptureDataLinkType = true, l.CaptureFileName, l.CaptureFilePath, l.CaptureDataLinkType
		t := *cur.Tunnel
		t.Capture = &side
		after.Tunnel = &t
		l = &after
		emit(EventLinkUpdated, l.ProjectID, l)
		return tx.PutLink(l)
	})
	if err != nil {
		started := *l
		t := *l.Tunnel
		t.Capture = &side
		started.Tunnel = &t
		s.stopComputeCapture(context.WithoutCancel(ctx), &started)
		return nil, err
	}
	return l, nil
}

// stopComputeCapture stops l's capture on its compute; a compute that is
// gone or no longer has it is logged, since the capture stops anyway.
func (s *Service) stopComputeCapture(ctx context.Context, l *Link) {
	if !l.CapturedOnCompute() {
		return
	}
	n := s.tunnelEnds(l)[*l.Tunnel.Capture]
	if n == nil {
		return
	}
	if err := s.compute(n.ComputeID).StopCapture(ctx, portOf(n, linkEndOf(l, n))); err != nil {
		s.c.Logger.Warn("capture not stopped on its compute", "link", l.ID, "compute", n.ComputeID, "err", err)
	}
}

// StreamComputeCapture copies the pcap of a capture that runs on a remote
// compute to w, as the compute streams it, until the capture stops there
// or ctx is done (GNS3's controller proxies the compute's pcap the same
// way). Codes: ECONFLICT (not capturing there, compute unreachable).
func (s *Service) StreamComputeCapture(ctx context.Context, l *Link, w io.Writer) error {
	if !l.Capturing || !l.CapturedOnCompute() {
		return Errorf(ECONFLICT, "Link %s has no capture running on a compute", l.ID)
	}
	n := s.tunnelEnds(l)[*l.Tunnel.Capture]
	if n == nil {
		return Errorf(ENOTFOUND, "A node of link %s no longer exists", l.ID)
	}
	return s.compute(n.ComputeID).StreamPcap(ctx, portOf(n, linkEndOf(l, n)), w)
}
