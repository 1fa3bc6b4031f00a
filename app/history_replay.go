package app

import (
	"fmt"
	"slices"
)

// replayer puts one entry's images back: plan checks, without writing,
// that the records are as the entry left them and that everything they
// need is free; apply writes and announces them.
type replayer struct {
	s     *Service
	tx    Tx
	pid   string
	from  HistoryStack
	entry *HistoryEntry

	project   *moves[Project]
	nodes     *moves[Node]
	links     *moves[Link]
	drawings  *moves[Drawing]
	snapshots *moves[Snapshot]
	// inNodes and inLinks are the ids of the entry's nodes and links:
	// what they hold now is theirs to give back.
	inNodes, inLinks map[string]bool
	// stopping plans a replay whose running nodes to delete are stopped
	// before it is written.
	stopping bool
}

// move is one record's move in a replay: from cur (nil: absent now) to
// next (nil: deleted).
type move[T any] struct{ cur, next *T }

// moves are the moves of the records of one kind in a replay: the
// entry's changes of that kind, and, once planned, where each goes.
type moves[T any] struct {
	k       *recordKind[T]
	changes []Change[T]
	list    []move[T]
}

// mover is the moves of any kind.
type mover interface {
	plan(r *replayer) error
	remove(tx Tx, projectID string, emit emitFunc) error
	put(tx Tx, projectID string, emit emitFunc) error
}

// conflict is a refusal that names the entry and what is in the way.
func (r *replayer) conflict(format string, args ...any) error {
	return Errorf(ECONFLICT, "Cannot %s \"%s\": %s", r.from.verb(), r.entry.Description, fmt.Sprintf(format, args...))
}

func (r *replayer) plan() error {
	e := r.entry
	var project []Change[Project]
	if e.Project != nil {
		project = []Change[Project]{*e.Project}
	}
	r.project = &moves[Project]{k: &projectRecord, changes: project}
	r.nodes = &moves[Node]{k: &nodeRecord, changes: e.Nodes}
	r.links = &moves[Link]{k: &linkRecord, changes: e.Links}
	r.drawings = &moves[Drawing]{k: &drawingRecord, changes: e.Drawings}
	r.snapshots = &moves[Snapshot]{k: &snapshotRecord, changes: e.Snapshots}
	for _, m := range []mover{r.project, r.nodes, r.links, r.drawings, r.snapshots} {
		if err := m.plan(r); err != nil {
			return err
		}
	}
	r.inNodes, r.inLinks = map[string]bool{}, map[string]bool{}
	for _, c := range e.Nodes {
		r.inNodes[nodeRecord.id(either(c))] = true
	}
	for _, c := range e.Links {
		r.inLinks[linkRecord.id(either(c))] = true
	}
	if err := r.checkProject(); err != nil {
		return err
	}
	for _, st := range r.nodes.list {
		if err := r.checkNode(st); err != nil {
			return err
		}
	}
	for _, st := range r.links.list {
		if err := r.checkLink(st.next); err != nil {
			return err
		}
	}
	return r.checkSnapshots()
}

// either is a change's record, whichever side has it.
func either[T any](c Change[T]) *T {
	if c.After != nil {
		return c.After
	}
	return c.Before
}

// plan checks that each record of the changes is as the entry left it
// and notes its move: to the target image with the runtime of the record
// as it is now (or of a new record, for one brought back).
func (m *moves[T]) plan(r *replayer) error {
	k := m.k
	for _, c := range m.changes {
		expect, target := sides(c, r.from)
		cur, err := k.get(r.tx, r.pid, k.id(either(c)))
		if err != nil {
			return err
		}
		if !k.same(cur, expect) {
			return r.conflict("%s has changed since, outside the history", k.label(either(c)))
		}
		st := move[T]{cur: cur}
		if target != nil {
			next := *target
			if cur != nil {
				k.keepRuntime(&next, cur)
			} else {
				k.fresh(&next)
			}
			st.next = &next
		} else if k.remove == nil {
			return r.conflict("%s cannot be deleted by history", k.label(cur))
		}
		m.list = append(m.list, st)
	}
	return nil
}

// ours reports whether a node's resources go with the entry: it is one of
// the entry's nodes, whose state the replay sets.
func (r *replayer) ours(owner NodeKey) bool {
	return owner.ProjectID == r.pid && r.inNodes[owner.NodeID]
}

func (r *replayer) checkProject() error {
	for _, st := range r.project.list {
		if st.cur.Name == st.next.Name {
			continue
		}
		if err := checkProjectName(r.tx, st.next); err != nil {
			return r.conflict("the project name %s is now used by another project; rename that one, then %s again", st.next.Name, r.from.verb())
		}
	}
	return nil
}

// checkNode checks what a node of the entry needs, or, for one the replay
// deletes, that nothing else holds on to it.
func (r *replayer) checkNode(st move[Node]) error {
	if st.next == nil {
		return r.checkNodeGone(st.cur)
	}
	tx, verb, n := r.tx, r.from.verb(), st.next
	if id, taken, err := tx.NodeIDByName(r.pid, n.Name); err != nil {
		return err
	} else if taken && id != n.ID && !r.inNodes[id] {
		return r.conflict("the name %s is now used by another node of this project; rename that node, then %s again", n.Name, verb)
	}
	for _, port := range []int{n.Console, n.Aux} {
		if port == 0 {
			continue
		}
		if owner, ok, err := tx.ConsoleOwner(port); err != nil {
			return err
		} else if ok && !r.ours(owner) {
			return r.conflict("console port %d is now used by node %s; give that node another port, then %s again", port, ownerWhere(tx, owner, r.pid), verb)
		}
	}
	if st.cur != nil && st.cur.Active() && st.cur.ConsoleType != n.ConsoleType {
		return r.conflict("%s must be stopped to change its console type; stop it, then %s again", n.Name, verb)
	}
	if i, port, owner, err := r.s.takenTunnelPort(tx, st.cur, n); err != nil {
		return err
	} else if i >= 0 && owner != nil {
		return r.conflict("local UDP port %d is now a link port of node %s; %s again once it is free", port, ownerWhere(tx, *owner, r.pid), verb)
	} else if i >= 0 {
		return r.conflict("local UDP port %d is now in use on this machine (another cloud's tunnel or another program); free it, then %s again", port, verb)
	}
	if st.cur == nil {
		if err := r.keepFreeRuntime(n); err != nil {
			return err
		}
	}
	// Links made since on ports the node would lose.
	links, err := tx.NodeLinks(r.pid, n.ID)
	if err != nil {
		return err
	}
	for _, l := range links {
		if r.inLinks[l.ID] {
			continue
		}
		for _, e := range l.Nodes {
			if _, ok := findPort(n, e.AdapterNumber, e.PortNumber); e.NodeID == n.ID && !ok {
				return r.conflict("port %d/%d of %s now has a link (to %s); delete that link, then %s again",
					e.AdapterNumber, e.PortNumber, n.Name, r.otherEnd(l, n.ID), verb)
			}
		}
	}
	return nil
}

// checkNodeGone checks that nothing else holds on to a node the replay
// deletes: it is not running, and no link made since reaches it.
func (r *replayer) checkNodeGone(n *Node) error {
	if n.Active() && !r.stopping {
		return r.conflict("%s is running; stop it, then %s again", n.Name, r.from.verb())
	}
	links, err := r.tx.NodeLinks(r.pid, n.ID)
	if err != nil {
		return err
	}
	for _, l := range links {
		if !r.inLinks[l.ID] {
			return r.conflict("%s is now linked to %s; delete that link, then %s again", n.Name, r.otherEnd(l, n.ID), r.from.verb())
		}
	}
	return nil
}

// keepFreeRuntime drops what a node brought back had claimed to run (UDP
// ports, MAC offset) if another node has claimed it since: it claims new
// ones at its next start, as a restored snapshot's node does.
func (r *replayer) keepFreeRuntime(n *Node) error {
	for _, p := range n.UDPPorts {
		owner, ok, err := r.tx.UDPOwner(p)
		if err != nil {
			return err
		}
		if ok && !r.ours(owner) {
			n.UDPPorts = nil
			break
		}
	}
	if n.Properties.MACOffset == nil {
		return nil
	}
	others, err := r.tx.Nodes(r.pid)
	if err != nil {
		return err
	}
	for _, o := range others {
		if !r.inNodes[o.ID] && o.Properties.MACOffset != nil && *o.Properties.MACOffset == *n.Properties.MACOffset {
			n.Properties.MACOffset = nil
			break
		}
	}
	return nil
}

// nodeAfter is a node as it will be after the replay, or nil.
func (r *replayer) nodeAfter(id string) (*Node, error) {
	for _, st := range r.nodes.list {
		if (st.next != nil && st.next.ID == id) || (st.cur != nil && st.cur.ID == id) {
			return st.next, nil
		}
	}
	return r.tx.Node(r.pid, id)
}

// checkLink checks that a link the replay puts back finds its two ports,
// free.
func (r *replayer) checkLink(l *Link) error {
	if l == nil {
		return nil
	}
	verb := r.from.verb()
	for _, e := range l.Nodes {
		n, err := r.nodeAfter(e.NodeID)
		if err != nil {
			return err
		}
		if n == nil {
			return r.conflict("node %s of the link no longer exists", e.NodeID)
		}
		port, ok := findPort(n, e.AdapterNumber, e.PortNumber)
		if !ok {
			return r.conflict("%s no longer has port %d/%d", n.Name, e.AdapterNumber, e.PortNumber)
		}
		lid, used, err := r.tx.LinkOnPort(r.pid, n.ID, e.AdapterNumber, e.PortNumber)
		if err != nil {
			return err
		}
		if used && lid != l.ID && !r.inLinks[lid] {
			other, err := r.tx.Link(r.pid, lid)
			if err != nil {
				return err
			}
			to := lid
			if other != nil {
				to = r.otherEnd(other, n.ID)
			}
			return r.conflict("port %s of %s is now linked to %s; delete that link, then %s again", port.Name, n.Name, to, verb)
		}
		if err := nioOnPort(r.tx, n, port, l.ID); err != nil {
			return r.conflict("%s", ErrorMessage(err))
		}
	}
	return nil
}

// otherEnd names the node at the other end of l from nodeID.
func (r *replayer) otherEnd(l *Link, nodeID string) string {
	for _, e := range l.Nodes {
		if e.NodeID != nodeID {
			return ownerName(r.tx, NodeKey{ProjectID: r.pid, NodeID: e.NodeID})
		}
	}
	return l.ID
}

func (r *replayer) checkSnapshots() error {
	if len(r.snapshots.list) == 0 {
		return nil
	}
	existing, err := r.tx.Snapshots(r.pid)
	if err != nil {
		return err
	}
	for _, st := range r.snapshots.list {
		if st.next == nil {
			continue
		}
		for _, o := range existing {
			if o.Name == st.next.Name && o.ID != st.next.ID && !slices.ContainsFunc(r.snapshots.list, func(x move[Snapshot]) bool { return x.cur != nil && x.cur.ID == o.ID }) {
				return r.conflict("a snapshot named %s exists again; delete or rename it, then %s again", o.Name, r.from.verb())
			}
		}
	}
	return nil
}

// apply writes the plan: deletions first (links before their nodes), then
// the records put back (nodes before their links), each announced as the
// operation that makes it would announce it.
func (r *replayer) apply(emit emitFunc) error {
	if len(r.nodes.list) > 0 {
		r.s.hints.forget(r.pid) // names come and go
	}
	for _, m := range []mover{r.links, r.nodes, r.drawings, r.snapshots} {
		if err := m.remove(r.tx, r.pid, emit); err != nil {
			return err
		}
	}
	for _, m := range []mover{r.project, r.nodes, r.links, r.drawings, r.snapshots} {
		if err := m.put(r.tx, r.pid, emit); err != nil {
			return err
		}
	}
	return nil
}

func (m *moves[T]) remove(tx Tx, pid string, emit emitFunc) error {
	for _, st := range m.list {
		if st.next != nil || st.cur == nil {
			continue
		}
		if action, payload := m.k.event(st.cur, nil); action != "" {
			emit(action, pid, payload)
		}
		if err := m.k.remove(tx, pid, m.k.id(st.cur)); err != nil {
			return err
		}
	}
	return nil
}

func (m *moves[T]) put(tx Tx, pid string, emit emitFunc) error {
	for _, st := range m.list {
		if st.next == nil {
			continue
		}
		if err := m.k.put(tx, st.next); err != nil {
			return err
		}
		if action, payload := m.k.event(st.cur, st.next); action != "" {
			emit(action, pid, payload)
		}
	}
	return nil
}
