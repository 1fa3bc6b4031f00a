package app

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"
)

// Nodes on a remote compute. nodedesk keeps the controller's record of the
// node in its store, as for any node, and the compute runs it: every
// change that the compute must know is sent to it first, outside any store
// transaction (a compute that does not answer never holds the store), then
// committed; a commit that fails is undone on the compute.
//
// A use case (nodes.go, link.go) states its rule once, as a function of a
// transaction, and says where the change runs second: a change that only
// this nodedesk holds is committed at once; one that a remote compute
// holds too ends its first transaction with errPrepared, before it wrote
// anything, and goes on in these files: prepared, made on the compute,
// then committed unrecorded (remoteWrite).

// errPrepared rolls back a transaction that only prepared a change: what
// it found is for a remote compute to make first.
var errPrepared = errors.New("prepared")

// onRemote reports whether computeID names a remote compute (not this
// nodedesk).
func onRemote(computeID string) bool { return computeID != "" && computeID != LocalCompute }

// refOf names n on its compute.
func refOf(n *Node) NodeRef { return NodeRef{ProjectID: n.ProjectID, NodeID: n.ID, Type: n.Type} }

// ensureComputeProject creates the project on the compute once per
// connection (a compute takes the create of a project it has).
func (s *Service) ensureComputeProject(ctx context.Context, computeID, projectID string) error {
	key := [2]string{computeID, projectID}
	s.cmp.mu.Lock()
	done := s.cmp.projects[key]
	s.cmp.mu.Unlock()
	if done {
		return nil
	}
	var p *Project
	if err := s.view(func(tx Tx) (err error) {
		p, err = findProject(tx, projectID)
		return err
	}); err != nil {
		return err
	}
	if err := s.compute(computeID).CreateProject(ctx, p.ID, p.Name); err != nil {
		return err
	}
	s.cmp.mu.Lock()
	if s.cmp.projects == nil {
		s.cmp.projects = map[[2]string]bool{}
	}
	s.cmp.projects[key] = true
	s.cmp.mu.Unlock()
	return nil
}

// createRemoteNode creates a node on compute computeID: the record is
// made by create in a transaction that is rolled back (name and
// defaults), the node is created on the compute with that id, then the
// record is committed with the status and console the compute gave; a
// failed commit deletes the node on the compute again. A node that exists
// already is returned as it is (create is idempotent).
func (s *Service) createRemoteNode(ctx context.Context, computeID string, create func(Tx) (*Node, error)) (*Node, error) {
	if err := s.connectedCompute(computeID); err != nil {
		return nil, err
	}
	var n *Node
	err := s.c.Store.Update(func(tx Tx) (err error) {
		if n, err = create(tx); err != nil {
			return err
		}
		return errPrepared
	})
	if n != nil {
		s.hints.forget(n.ProjectID)
	}
	switch {
	case errors.Is(err, errUnchanged):
		return n, nil
	case !errors.Is(err, errPrepared):
		return nil, err
	}
	if err := s.makeOnCompute(ctx, n); err != nil {
		return nil, err
	}
	if err := s.commitRemoteNode(ctx, n, "choose another name"); err != nil {
		s.dropRemoteOrphan(ctx, n)
		return nil, err
	}
	return n, nil
}

// makeOnCompute creates n, a record prepared in a transaction that was
// rolled back, on its compute (its project first), and gives n the status
// and console the compute answered. A failed create is deleted there
// again: the compute may have made the node before a timeout or cancel.
func (s *Service) makeOnCompute(ctx context.Context, n *Node) error {
	n.Seq = 0
	if err := s.ensureComputeProject(ctx, n.ComputeID, n.ProjectID); err != nil {
		return err
	}
	ans, err := s.compute(n.ComputeID).CreateNode(ctx, n)
	if err != nil {
		s.dropRemoteOrphan(ctx, n)
		return err
	}
	ans.applyTo(n)
	return nil
}

// commitRemoteNode stores n, which its compute has just made, unrecorded
// (remoteWrite): n was prepared in a transaction that was rolled back, so
// its project must still exist and its name and console port still be
// free (retry ends the refusal of a taken name: what the user should do).
func (s *Service) commitRemoteNode(ctx context.Context, n *Node, retry string) error {
	return s.updateUnrecorded(ctx, func(tx Tx, emit emitFunc) error {
		if _, err := findProject(tx, n.ProjectID); err != nil {
			return err
		}
		if _, taken, err := tx.NodeIDByName(n.ProjectID, n.Name); err != nil || taken {
			if err == nil {
				err = Conflict("name", "Another node of this project is already named %s; %s", n.Name, retry)
			}
			return err
		}
		if n.Console != 0 { // chosen in the rolled-back transaction: still free?
			if err := s.claimConsole(tx, n); err != nil {
				return err
			}
		}
		emit(EventNodeCreated, n.ProjectID, n)
		return tx.PutNode(n)
	})
}

// duplicateRemoteNode copies a remote node on its compute, as GNS3's
// controller does: the copy's record is made in a transaction that is
// rolled back, the copy is created on the same compute, the compute is
// asked to copy the original's data to it (POST …/duplicate with
// destination_node_id), then the copy is committed; any failure deletes
// the copy on the compute again. A node that runs a process is copied
// stopped only (GNS3's rule: its data may be changing).
func (s *Service) duplicateRemoteNode(ctx context.Context, n *Node, x, y int, z Field[int]) (*Node, error) {
	if err := duplicable(n); err != nil {
		return nil, err
	}
	if err := s.connectedCompute(n.ComputeID); err != nil {
		return nil, err
	}
	var c *Node
	err := s.c.Store.Update(func(tx Tx) error {
		orig, err := findNode(tx, refOf(n))
		if err != nil {
			return err
		}
		if c, err = s.copyNodeIn(tx, orig, s.c.NewID(), x, y, z); err != nil {
			return err
		}
		return errPrepared
	})
	s.hints.forget(n.ProjectID)
	if !errors.Is(err, errPrepared) {
		return nil, err
	}
	if err := s.makeOnCompute(ctx, c); err != nil {
		return nil, err
	}
	undo := func() {
		_ = s.compute(c.ComputeID).DeleteNode(context.WithoutCancel(ctx), refOf(c))
	}
	if err := s.compute(n.ComputeID).DuplicateNode(ctx, refOf(n), c.ID); err != nil {
		undo()
		if ErrorCode(err) == ENOTFOUND {
			err = Errorf(ECONFLICT, "Compute %s cannot duplicate a %s node", n.ComputeID, n.Type)
		}
		return nil, err
	}
	if err := s.commitRemoteNode(ctx, c, "try again"); err != nil {
		undo()
		return nil, err
	}
	return c, nil
}

// orphanTimeout bounds the delete of a node a failed create left on its
// compute.
const orphanTimeout = 5 * time.Second

// dropRemoteOrphan deletes on its compute a node whose create failed here,
// whatever ctx became (a node it does not have is fine).
func (s *Service) dropRemoteOrphan(ctx context.Context, n *Node) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), orphanTimeout)
	defer cancel()
	if err := s.compute(n.ComputeID).DeleteNode(ctx, refOf(n)); err != nil && ErrorCode(err) != ENOTFOUND {
		s.c.Logger.Warn("node of a failed create not deleted on its compute", "node", n.Name, "compute", n.ComputeID, "err", err)
	}
}

// computeHolds reports whether a change of a node from before to after is
// its compute's too: its name, console, console type or properties, on a
// remote node; other changes (its place on the canvas, its label) are the
// controller's alone.
func computeHolds(before, after *Node) bool {
	return before.Remote() && (after.Name != before.Name || after.Console != before.Console ||
		after.ConsoleType != before.ConsoleType || !unchanged(after.Properties, before.Properties))
}

// updateRemoteNode makes u, a change its compute holds too
// (computeHolds), to a remote node: after, what u makes of the node, is
// sent to the compute, then u is committed, unrecorded (remoteWrite),
// with the console the compute answered as the node's there; a commit
// that fails is undone on the compute (unforwardNodeUpdate). A node of a
// closed project is changed here only (ReopenComputeProjects sends it).
func (s *Service) updateRemoteNode(ctx context.Context, ref NodeRef, u NodeUpdate, after *Node) (*Node, error) {
	var ans NodeAnswer
	sent := false
	if p, err := s.FindProjectByID(ctx, after.ProjectID); err != nil {
		return nil, err
	} else if p.Status != ProjectClosed {
		if ans, err = s.compute(after.ComputeID).UpdateNode(ctx, after); err != nil {
			return nil, err
		}
		sent = true
	}
	err := s.updateUnrecorded(ctx, func(tx Tx, emit emitFunc) error {
		before, err := findNode(tx, ref)
		if err != nil {
			return err
		}
		if after, err = u.apply(before); err != nil {
			return err
		}
		if ans.Console != nil {
			after.ComputeConsole = *ans.Console // the console the compute now gives it
		}
		return s.changeNodeIn(tx, emit, before, after)
	})
	if err != nil {
		if sent {
			s.unforwardNodeUpdate(context.WithoutCancel(ctx), ref)
		}
		return nil, err
	}
	return after, nil
}

// unforwardNodeUpdate undoes on the compute a change updateRemoteNode
// sent whose commit failed: the compute is sent the node as it is stored.
func (s *Service) unforwardNodeUpdate(ctx context.Context, ref NodeRef) {
	n, err := s.FindNode(ctx, ref)
	if err == nil {
		_, err = s.compute(n.ComputeID).UpdateNode(ctx, n)
	}
	if err != nil {
		s.c.Logger.Warn("remote node change not undone on its compute", "node", ref.NodeID, "err", err)
	}
}

// remoteNodeAction asks the compute to start, stop, suspend or reload a
// remote node and records the status the transition gives.
func (s *Service) remoteNodeAction(ctx context.Context, n *Node, a Action) (*Node, error) {
	if err := s.ensureComputeProject(ctx, n.ComputeID, n.ProjectID); err != nil {
		if a == Stop && errors.Is(err, ErrComputeUnreachable) {
			return n, nil // a compute that is gone stops nothing; its nodes show it
		}
		return nil, err
	}
	var body map[string]json.RawMessage
	if a == Start {
		var err error
		if body, err = s.startBody(ctx, n.Type); err != nil {
			return nil, err
		}
	}
	if err := s.compute(n.ComputeID).NodeAction(ctx, refOf(n), a, body); err != nil {
		if a == Stop && errors.Is(err, ErrComputeUnreachable) {
			return n, nil // a refusal (409, 5xx) is not: the compute still runs it
		}
		return nil, err
	}
	next, _ := n.Type.Lifecycle().transition(n.Status, a)
	return s.recordStatus(ctx, NodeRef{ProjectID: n.ProjectID, NodeID: n.ID}, next, nil)
}

// dropFromComputes deletes on remote computes what they hold of node n,
// which is being deleted with links: the tunnels of those links, then n
// itself if it is remote. A compute that cannot be reached does not keep
// them: they are deleted here alone, and the compute drops them at its
// next heal (deleteOnCompute). It reports whether a compute held any, so
// that the delete is not recorded (remoteWrite).
func (s *Service) dropFromComputes(ctx context.Context, n *Node, links []*Link) bool {
	remote := n.Remote()
	for _, l := range links {
		remote = remote || l.Tunnel != nil
	}
	s.breakLinkTunnels(ctx, links)
	if n.Remote() {
		if err := s.deleteOnCompute(ctx, n.ComputeID, pendingDelete{kind: deleteNode, port: PortRef{NodeRef: refOf(n)}}); err != nil {
			s.c.Logger.Warn("remote node not deleted on its compute", "node", n.Name, "compute", n.ComputeID, "err", err)
		}
	}
	return remote
}

// onComputeEvent follows a compute's notifications, as GNS3's controller
// does: node.updated carries the status of one of its nodes; log.* (a
// compute's message for its user, e.g. a VPCS that stopped by itself) is
// passed on to the streams of its project or, without one, of every open
// project.
func (s *Service) onComputeEvent(cc *computeConn, ev ComputeEvent) {
	switch {
	case ev.Action.ComputeOnly():
		s.relayComputeLog(cc.id, ev)
		return
	case ev.Action != EventNodeUpdated || !ev.Status.Known():
		return // a status nodedesk does not know is not recorded
	}
	e := computeEvent{ref: NodeRef{ProjectID: ev.Node.ProjectID, NodeID: ev.Node.NodeID}, status: ev.Status}
	for { // never waits: the oldest event gives way when the queue is full
		select {
		case cc.events <- e:
			return
		default:
		}
		select {
		case <-cc.events:
			s.c.Logger.Warn("compute event dropped: too many waiting", "compute", cc.id)
		default:
		}
	}
}

// computeEventQueue is how many node events of a compute may wait.
const computeEventQueue = 256

// computeEvent is a node status a compute told.
type computeEvent struct {
	ref    NodeRef
	status Status
}

// handleComputeEvents records the statuses a compute tells, in order, on
// a goroutine of their own: recording one waits for the node's lock,
// which an action holds across its call to the compute.
func (s *Service) handleComputeEvents(cc *computeConn) {
	defer s.cmp.wg.Done()
	for {
		select {
		case <-cc.ctx.Done():
			return
		case e := <-cc.events:
			n, err := s.FindNode(cc.ctx, e.ref)
			if err != nil || n.ComputeID != cc.id || n.Status == e.status {
				continue
			}
			unlock := s.lockNode(n.ID)
			_, _ = s.recordStatus(cc.ctx, e.ref, e.status, nil)
			unlock()
		}
	}
}

// ComputeMessage is a remote compute's log.* notification passed on to a
// project's streams: the compute's event as it sent it.
type ComputeMessage struct {
	ComputeID string
	Event     json.RawMessage
}

// MarshalJSON is the compute's event, unchanged (GNS3's controller passes
// it on so).
func (m *ComputeMessage) MarshalJSON() ([]byte, error) { return m.Event, nil }

// relayComputeLog publishes a compute's log.* on the streams of its
// project, or of every open project when it names none.
func (s *Service) relayComputeLog(computeID string, ev ComputeEvent) {
	projectID := ev.ProjectID
	var projects []string
	_ = s.view(func(tx Tx) error {
		ps, err := tx.Projects()
		for _, p := range ps {
			if (projectID == "" && p.Status != ProjectClosed) || p.ID == projectID {
				projects = append(projects, p.ID)
			}
		}
		return err
	})
	for _, pid := range projects {
		s.publish(ev.Action, pid, &ComputeMessage{ComputeID: computeID, Event: ev.Message})
	}
}

// computeOnThisMachine reports whether a compute is reached on loopback:
// it shares this machine's console ports, so this nodedesk chooses its
// nodes' console ports (from its own free ones) and sends them.
func (s *Service) computeOnThisMachine(id string) bool { return IsLoopback(s.computeHost(id)) }

// NodeShown is what the controller view shows of where a node runs: its
// compute, the host and port of its console, whether its compute is
// connected, and its status (stopped while its compute is lost; the
// recorded status is kept for when it comes back).
type NodeShown struct {
	ComputeID   string
	ConsoleHost string
	Console     int
	Connected   bool
	Status      Status
	Booting     bool // its process runs and has not booted yet (node_boot.go)
}

// ShowNode says where n runs, as the controller view shows it.
func (s *Service) ShowNode(n *Node) NodeShown {
	if !n.Remote() {
		return NodeShown{ComputeID: LocalCompute, ConsoleHost: s.c.ConsoleHost, Console: n.Console, Connected: true, Status: n.Status, Booting: n.Status == Started && s.Booting(n.ID)}
	}
	v := NodeShown{ComputeID: n.ComputeID, Console: cmp.Or(n.ComputeConsole, n.Console), Status: n.Status}
	s.cmp.mu.Lock()
	if cc := s.cmp.conns[n.ComputeID]; cc != nil {
		v.ConsoleHost, v.Connected = cc.c.Host, cc.state.Connected && cc.ready
	}
	s.cmp.mu.Unlock()
	if !v.Connected {
		v.Status = Stopped
	}
	return v
}

// LinkConnected reports whether every compute of a link's nodes is
// connected.
func (s *Service) LinkConnected(l *Link) bool {
	if l.Tunnel == nil {
		return true
	}
	for _, e := range l.Tunnel.Ends {
		if !s.ComputeConnected(e.ComputeID) {
			return false
		}
	}
	return true
}

// deleteComputeProjects deletes a project on every remote compute its
// nodes live on, with their nodes and tunnel ends there (GNS3's controller
// does so before it deletes a project), and removes this nodedesk's sides
// of its tunnels. A compute that cannot be reached keeps its copy; that is
// logged, and the delete goes on.
func (s *Service) deleteComputeProjects(ctx context.Context, projectID string) {
	s.dropTunnelSides(ctx, projectID)
	for _, id := range s.projectComputes(ctx, projectID) {
		if err := s.deleteOnCompute(ctx, id, pendingDelete{kind: deleteProject, port: PortRef{NodeRef: NodeRef{ProjectID: projectID}}}); err != nil {
			s.c.Logger.Warn("project not deleted on a remote compute", "project", projectID, "compute", id, "err", err)
		}
		s.forgetComputeProject(id, projectID)
	}
}

// dropTunnelSides removes this nodedesk's sides of a project's tunnels.
func (s *Service) dropTunnelSides(ctx context.Context, projectID string) {
	links, err := s.FindLinks(ctx, projectID)
	if err != nil {
		return
	}
	for _, l := range links {
		if l.Tunnel == nil {
			continue
		}
		for i, n := range s.tunnelEnds(l) {
			if n != nil && !n.Remote() {
				s.deleteTunnelNIO(ctx, l, i, n)
			}
		}
	}
}

// projectComputes lists the remote computes a project's nodes live on.
func (s *Service) projectComputes(ctx context.Context, projectID string) []string {
	nodes, err := s.FindNodes(ctx, projectID)
	if err != nil {
		return nil
	}
	var out []string
	for _, n := range nodes {
		if n.Remote() && !slices.Contains(out, n.ComputeID) {
			out = append(out, n.ComputeID)
		}
	}
	return out
}

// forgetComputeProject records that a project no longer exists on a
// compute (the next call that needs it creates it again).
func (s *Service) forgetComputeProject(computeID, projectID string) {
	s.cmp.mu.Lock()
	delete(s.cmp.projects, [2]string{computeID, projectID})
	s.cmp.mu.Unlock()
}

// remoteWrite is how a change that a remote compute also holds is
// committed: not recorded in history, since undo and redo replay records
// only and would leave the compute's copy behind (a node or NIO there that
// nodedesk no longer knows, or a record with nothing behind it).
func (s *Service) remoteWrite(remote bool) func(context.Context, func(Tx, emitFunc) error) error {
	if remote {
		return s.updateUnrecorded
	}
	return s.update
}
