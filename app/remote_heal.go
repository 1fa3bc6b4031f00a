package app

import (
	"context"
	"errors"
	"slices"
	"time"
)

// Loss and heal of a remote compute. When its connection is lost, its
// nodes and the links touching it are shown so (node.updated, link.updated:
// ShowNode, LinkConnected); nothing waits for it, since every call to it
// is refused at once while it is not connected. When it comes back (or
// first connects after nodedesk started), it is healed: every project
// with nodes on it is created there again, then those nodes (same
// node_id: idempotent on GNS3 and nodedesk computes), then the tunnels of
// the links touching it, with fresh ports, and the nodes recorded as
// started are started again.

// healTimeout bounds one heal.
const healTimeout = 2 * time.Minute

// computeConnectionChanged shows a compute's loss or return on its nodes
// and links, and heals a compute that came back.
func (s *Service) computeConnectionChanged(id string, connected bool) {
	if connected {
		s.cmp.mu.Lock()
		cc := s.cmp.conns[id]
		if cc == nil || s.cmp.closed {
			s.cmp.mu.Unlock()
			return
		}
		s.cmp.wg.Add(1) // CloseComputes waits for it
		s.cmp.mu.Unlock()
		go func() {
			defer s.cmp.wg.Done()
			cc.healMu.Lock() // one heal at a time per compute
			defer cc.healMu.Unlock()
			s.healCompute(cc.ctx, id)
		}()
		return
	}
	s.showCompute(id)
}

// showCompute publishes node.updated for every node on the compute and
// link.updated for every link touching it, so that clients show its state.
func (s *Service) showCompute(id string) {
	var nodes []*Node
	var links []*Link
	_ = s.view(func(tx Tx) (err error) {
		if nodes, err = nodesOnCompute(tx, id); err != nil {
			return err
		}
		links, err = tunnelsOnCompute(tx, id)
		return err
	})
	for _, n := range nodes {
		s.publish(EventNodeUpdated, n.ProjectID, n)
	}
	for _, l := range links {
		s.publish(EventLinkUpdated, l.ProjectID, l)
	}
}

// tunnelsOnCompute lists the tunnelled links with a side on compute id.
func tunnelsOnCompute(tx Tx, id string) ([]*Link, error) {
	ps, err := tx.Projects()
	if err != nil {
		return nil, err
	}
	var out []*Link
	for _, p := range ps {
		ls, err := tx.Links(p.ID)
		if err != nil {
			return nil, err
		}
		for _, l := range ls {
			if l.Tunnel != nil && (l.Tunnel.Ends[0].ComputeID == id || l.Tunnel.Ends[1].ComputeID == id) {
				out = append(out, l)
			}
		}
	}
	return out, nil
}

// healCompute makes again on a compute that came back what nodedesk
// records on it, for the projects that are open (a closed project is made
// there again when it is opened: ReopenComputeProjects). Each step's
// failure is logged and the heal goes on; it stops when parent is
// cancelled (the connection dropped).
func (s *Service) healCompute(parent context.Context, id string) {
	if parent.Err() != nil {
		return // dropped while it waited for the heal before it
	}
	ctx, cancel := context.WithTimeout(parent, healTimeout)
	defer cancel()
	defer func() { // whatever could be made again was: its nodes show connected
		if parent.Err() != nil {
			return // dropped: a later connection has its own heal
		}
		s.setComputeReady(id)
		s.showCompute(id)
	}()
	var nodes []*Node
	var links []*Link
	if err := s.view(func(tx Tx) (err error) {
		if nodes, err = nodesOnCompute(tx, id); err != nil {
			return err
		}
		if links, err = tunnelsOnCompute(tx, id); err != nil {
			return err
		}
		nodes, links, err = inOpenProjects(tx, nodes, links)
		return err
	}); err != nil {
		s.c.Logger.Warn("compute not healed", "compute", id, "err", err)
		return
	}
	s.drainPendingDeletes(ctx, id)
	s.remakeOnComputes(ctx, nodes, links, false)
}

// inOpenProjects keeps the nodes and links of open projects.
func inOpenProjects(tx Tx, nodes []*Node, links []*Link) ([]*Node, []*Link, error) {
	open := map[string]bool{}
	isOpen := func(pid string) (bool, error) {
		if v, ok := open[pid]; ok {
			return v, nil
		}
		p, err := tx.Project(pid)
		if err != nil {
			return false, err
		}
		open[pid] = p != nil && p.Status != ProjectClosed
		return open[pid], nil
	}
	var ns []*Node
	var ls []*Link
	for _, n := range nodes {
		if ok, err := isOpen(n.ProjectID); err != nil {
			return nil, nil, err
		} else if ok {
			ns = append(ns, n)
		}
	}
	for _, l := range links {
		if ok, err := isOpen(l.ProjectID); err != nil {
			return nil, nil, err
		} else if ok {
			ls = append(ls, l)
		}
	}
	return ns, ls, nil
}

// remakeOnComputes is the one way nodedesk makes again on remote computes
// what it records there: the projects and nodes (same ids), then the
// tunnels with fresh ports, then the nodes recorded as started are
// started again. It serves a compute that came back (healCompute) and a
// project opened again (ReopenComputeProjects, which also resends each
// node as recorded: it may have changed while the project was closed). Each step's failure is
// logged and the rest goes on.
func (s *Service) remakeOnComputes(ctx context.Context, nodes []*Node, links []*Link, resend bool) {
	for _, n := range nodes {
		err := s.healNode(ctx, n)
		if err == nil && resend { // a compute that kept the node gets its changes since
			_, err = s.compute(n.ComputeID).UpdateNode(ctx, n)
		}
		if err != nil {
			s.c.Logger.Warn("node not made again on its compute", "node", n.Name, "compute", n.ComputeID, "err", err)
		}
	}
	for _, l := range links {
		if err := s.healTunnel(ctx, l); err != nil {
			s.c.Logger.Warn("link tunnel not made again", "link", l.ID, "err", err)
		}
	}
	for _, n := range nodes {
		if n.Status == Stopped || n.Type.Lifecycle() != ProcessRun {
			continue
		}
		c := s.compute(n.ComputeID)
		body, err := s.startBody(ctx, n.Type)
		if err == nil {
			err = c.NodeAction(ctx, refOf(n), Start, body)
		}
		if err == nil && n.Status == Suspended {
			err = c.NodeAction(ctx, refOf(n), Suspend, nil)
		}
		if err != nil {
			s.c.Logger.Warn("node not started again on its compute", "node", n.Name, "compute", n.ComputeID, "err", err)
		}
	}
}

// ReopenComputeProjects makes an opened project's remote nodes and
// tunnels again on their computes, as GNS3's controller does when it
// opens a project. A compute that is not connected is skipped (it is
// healed when it connects).
func (s *Service) ReopenComputeProjects(ctx context.Context, projectID string) {
	var ns []*Node
	var ls []*Link
	if err := s.view(func(tx Tx) (err error) {
		if ns, err = tx.Nodes(projectID); err != nil {
			return err
		}
		ls, err = tx.Links(projectID)
		return err
	}); err != nil {
		s.c.Logger.Warn("project not made again on its computes", "project", projectID, "err", err)
		return
	}
	var nodes []*Node
	var links []*Link
	for _, n := range ns {
		if n.Remote() && s.ComputeConnected(n.ComputeID) {
			nodes = append(nodes, n)
		}
	}
	for _, l := range ls {
		if l.Tunnel != nil && s.LinkConnected(l) {
			links = append(links, l)
		}
	}
	s.remakeOnComputes(ctx, nodes, links, true)
}

// closeComputeProjects closes a project on every remote compute its nodes
// live on (as GNS3's controller does: the compute drops its NIOs and
// stops its nodes) and removes this nodedesk's
// sides of its tunnels. A compute that cannot be reached is logged and
// skipped.
func (s *Service) closeComputeProjects(ctx context.Context, projectID string) {
	s.dropTunnelSides(ctx, projectID)
	for _, id := range s.projectComputes(ctx, projectID) {
		if err := s.compute(id).CloseProject(ctx, projectID); err != nil && ErrorCode(err) != ENOTFOUND {
			s.c.Logger.Warn("project not closed on a remote compute", "project", projectID, "compute", id, "err", err)
		}
		s.forgetComputeProject(id, projectID)
	}
}

// healNode creates a remote node again on its compute (the compute
// answers the node it has when it has it) and keeps the console it gives.
// A node deleted meanwhile is not made again (or is deleted again, if it
// went while it was being made).
func (s *Service) healNode(ctx context.Context, n *Node) error {
	ref := NodeRef{ProjectID: n.ProjectID, NodeID: n.ID}
	if _, err := s.FindNode(ctx, ref); ErrorCode(err) == ENOTFOUND {
		return nil
	}
	if err := s.ensureComputeProject(ctx, n.ComputeID, n.ProjectID); err != nil {
		return err
	}
	ans, err := s.compute(n.ComputeID).CreateNode(ctx, n)
	if err != nil {
		return err
	}
	if _, err := s.FindNode(ctx, ref); ErrorCode(err) == ENOTFOUND {
		s.dropRemoteOrphan(ctx, n)
		return nil
	}
	if ans.Console == nil || *ans.Console == n.ComputeConsole {
		return nil
	}
	return s.updateUnrecorded(ctx, func(tx Tx, emit emitFunc) error {
		cur, err := tx.Node(n.ProjectID, n.ID)
		if err != nil || cur == nil || cur.ComputeConsole == *ans.Console {
			return cmpErr(err, errUnchanged)
		}
		c := *cur
		c.ComputeConsole = *ans.Console
		emit(EventNodeUpdated, c.ProjectID, &c)
		return tx.PutNode(&c)
	})
}

// healTunnel makes a link's tunnel again with fresh ports: the old sides
// are removed first (errors ignored), then the tunnel is made and stored.
// A capture that ran on a compute's side ended with that side.
func (s *Service) healTunnel(ctx context.Context, l *Link) error {
	ends := s.tunnelEnds(l)
	if ends[0] == nil || ends[1] == nil {
		return nil
	}
	s.breakTunnel(ctx, l, ends)
	t, err := s.makeTunnel(ctx, l, ends)
	if err != nil {
		return err
	}
	gone := false
	defer func() {
		if gone { // deleted meanwhile: the tunnel just made goes too
			made := *l
			made.Tunnel = t
			s.breakTunnel(context.WithoutCancel(ctx), &made, ends)
		}
	}()
	return s.updateUnrecorded(ctx, func(tx Tx, emit emitFunc) error {
		gone = false
		cur, err := tx.Link(l.ProjectID, l.ID)
		if err != nil || cur == nil {
			gone = err == nil
			return cmpErr(err, errUnchanged)
		}
		c := *cur
		if cur.CapturedOnCompute() {
			c.Capturing = false // it ran on a NIO that is gone: the capture ended there
		}
		c.Tunnel = t
		emit(EventLinkUpdated, c.ProjectID, &c)
		return tx.PutLink(&c)
	})
}

// cmpErr is err if set, else def.
func cmpErr(err, def error) error {
	if err != nil {
		return err
	}
	return def
}

// pendingDelete is a delete sent to a compute: of a project, of a node,
// or of the NIO on a node's port. One that could not reach its compute is
// kept for the compute's next heal (deleteOnCompute).
type pendingDelete struct {
	kind deleteKind
	// port names what goes: its project (deleteProject), its node
	// (deleteNode) or itself (deleteNIO).
	port PortRef
}

// deleteKind is what a pendingDelete deletes.
type deleteKind int

// The deletes a compute may miss.
const (
	deleteProject deleteKind = iota
	deleteNode
	deleteNIO
)

// sendTo sends d to compute c.
func (d pendingDelete) sendTo(ctx context.Context, c ComputeClient) error {
	switch d.kind {
	case deleteProject:
		return c.DeleteProject(ctx, d.port.ProjectID)
	case deleteNode:
		return c.DeleteNode(ctx, d.port.NodeRef)
	default:
		return c.RemoveNIO(ctx, d.port)
	}
}

// logAttrs say what d deletes, for a log line.
func (d pendingDelete) logAttrs() []any {
	switch d.kind {
	case deleteProject:
		return []any{"project", d.port.ProjectID}
	case deleteNode:
		return []any{"project", d.port.ProjectID, "node", d.port.NodeID}
	default:
		return []any{"project", d.port.ProjectID, "node", d.port.NodeID, "adapter", d.port.Adapter, "port", d.port.Port}
	}
}

// deleteOnCompute sends d to compute id. What the compute no longer has is
// deleted; a compute that cannot be reached does not keep it either: d is
// kept for its next heal. Either is no error.
func (s *Service) deleteOnCompute(ctx context.Context, id string, d pendingDelete) error {
	err := d.sendTo(ctx, s.compute(id))
	if err == nil || ErrorCode(err) == ENOTFOUND || s.deleteLater(id, d, err) {
		return nil
	}
	return err
}

// deleteLater keeps d for compute id's next heal when err says the
// compute could not be reached; it reports whether it did.
func (s *Service) deleteLater(id string, d pendingDelete, err error) bool {
	if !errors.Is(err, ErrComputeUnreachable) {
		return false
	}
	s.cmp.mu.Lock()
	defer s.cmp.mu.Unlock()
	if s.cmp.pending == nil {
		s.cmp.pending = map[string][]pendingDelete{}
	}
	if !slices.Contains(s.cmp.pending[id], d) {
		s.cmp.pending[id] = append(s.cmp.pending[id], d)
	}
	return true
}

// drainPendingDeletes deletes on compute id what was deleted here while it
// could not be reached; what fails again is kept for the next heal.
func (s *Service) drainPendingDeletes(ctx context.Context, id string) {
	s.cmp.mu.Lock()
	ds := s.cmp.pending[id]
	delete(s.cmp.pending, id)
	s.cmp.mu.Unlock()
	for _, d := range ds {
		if err := s.deleteOnCompute(ctx, id, d); err != nil {
			s.c.Logger.Warn("delete not made on a compute that came back", append([]any{"compute", id, "err", err}, d.logAttrs()...)...)
		}
	}
}
