package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// History: undo and redo of a project's changes. Every committed write is
// recorded where it is written (record.go): the records of a project it
// touched, each as it was before and as it is after, make one entry of
// the project's undo stack, in the same transaction as the change. Undo
// puts the before-images back in one new write and moves the entry to the
// redo stack; redo does the opposite. What running a lab changes (a
// node's status, a capture, the ports a process claimed) is runtime, not
// history: it is never recorded, and undo and redo leave it as it is.

// MaxHistory bounds a project's undo stack: a change beyond it drops the
// oldest entry.
const MaxHistory = 500

// HistoryStack names one of a project's two stacks of entries.
type HistoryStack int

// The two stacks.
const (
	UndoStack HistoryStack = iota // the changes undo takes back, newest on top
	RedoStack                     // the changes undone, newest on top; a new change empties it
)

// Origin says through which door a change came.
type Origin string

// The origins of a change.
const (
	OriginAPI     Origin = "api"     // a REST client that did not say otherwise
	OriginBrowser Origin = "browser" // nodedesk's page in a browser
	OriginWindow  Origin = "window"  // nodedesk's desktop window
)

// MaxGestureLen bounds a gesture id.
const MaxGestureLen = 100

// Source is where a change comes from: its door, and the gesture of the
// user it is part of. Consecutive changes of one project with the same
// gesture id are one history entry (a drag of several nodes is several
// requests and one undo).
type Source struct {
	Origin  Origin
	Gesture string
}

// ParseSource checks an origin and a gesture id as a door received them;
// an empty origin is OriginAPI. Codes: EINVALID.
func ParseSource(origin, gesture string) (Source, error) {
	src := Source{Origin: Origin(origin), Gesture: gesture}
	switch src.Origin {
	case "":
		src.Origin = OriginAPI
	case OriginAPI, OriginBrowser, OriginWindow:
	default:
		return Source{}, Errorf(EINVALID, "Unknown origin %q: say browser or window, or leave it out for a REST client", origin)
	}
	if len(gesture) > MaxGestureLen || strings.ContainsFunc(gesture, func(r rune) bool { return r < 0x21 || r > 0x7e }) {
		return Source{}, Errorf(EINVALID, "A gesture id is at most %d printable ASCII characters without spaces", MaxGestureLen)
	}
	return src, nil
}

type sourceKey struct{}

// WithSource returns ctx carrying the source of the changes made under it.
func WithSource(ctx context.Context, src Source) context.Context {
	return context.WithValue(ctx, sourceKey{}, src)
}

// SourceOf returns the source ctx carries: a REST client's, without a
// gesture, when it carries none.
func SourceOf(ctx context.Context) Source {
	src, _ := ctx.Value(sourceKey{}).(Source)
	if src.Origin == "" {
		src.Origin = OriginAPI
	}
	return src
}

// HistoryEntry is one change of a project as undo takes it back: the
// project's records it touched, each before and after. Its JSON tags are
// the store's record format.
type HistoryEntry struct {
	ID          string `json:"entry_id"`
	ProjectID   string `json:"project_id"`
	Description string `json:"description"`
	// Time is when the change was committed (its last write, for a
	// gesture).
	Time    time.Time `json:"time"`
	Origin  Origin    `json:"origin"`
	Gesture string    `json:"gesture,omitempty"`
	// Restored names the snapshot a restore put back, for the
	// description.
	Restored  string             `json:"restored,omitempty"`
	Project   *Change[Project]   `json:"project,omitempty"`
	Nodes     []Change[Node]     `json:"nodes,omitempty"`
	Links     []Change[Link]     `json:"links,omitempty"`
	Drawings  []Change[Drawing]  `json:"drawings,omitempty"`
	Snapshots []Change[Snapshot] `json:"snapshots,omitempty"`
	// Seq is the entry's place in its stack; the store assigns it.
	Seq uint64 `json:"-"`
}

// Change is one record as a change found it (Before; nil: the change
// created it) and left it (After; nil: the change deleted it).
type Change[T any] struct {
	Before *T `json:"before"`
	After  *T `json:"after"`
}

// empty reports whether an entry changes nothing.
func (e *HistoryEntry) empty() bool {
	return e.Project == nil && len(e.Nodes) == 0 && len(e.Links) == 0 && len(e.Drawings) == 0 && len(e.Snapshots) == 0
}

// HistoryState is the payload of a history.updated event: what undo and
// redo would take now (nil: nothing).
type HistoryState struct {
	ProjectID  string
	Undo, Redo *HistoryEntry
}

// History is a project's two stacks, newest first.
type History struct {
	Undo, Redo []*HistoryEntry
}

// FindHistory returns a project's history. Codes: ENOTFOUND.
func (s *Service) FindHistory(ctx context.Context, projectID string) (*History, error) {
	h := &History{}
	err := s.view(func(tx Tx) error {
		p, err := findProject(tx, projectID)
		if err != nil {
			return err
		}
		if h.Undo, err = tx.History(p.ID, UndoStack); err != nil {
			return err
		}
		h.Redo, err = tx.History(p.ID, RedoStack)
		return err
	})
	if err != nil {
		return nil, err
	}
	return h, nil
}

// Undo takes back the newest change of a project's history, in one write
// that is announced as the changes it makes (node.created, link.deleted,
// …), and returns its entry, which redo can make again. The records come
// back as they were, with the same ids, names, console ports and links;
// what running changes stays as it is now (a node brought back is
// stopped). Nodes the undo deletes are stopped first, as deleting them
// does. If something the records need is no longer free (a console port,
// a name, a port linked since) nothing changes and the conflict names it.
// Codes: ENOTFOUND, ECONFLICT (nothing to undo, something in the way).
func (s *Service) Undo(ctx context.Context, projectID string) (*HistoryEntry, error) {
	return s.replay(ctx, projectID, UndoStack)
}

// Redo makes again the change undo took back last. Codes: as Undo's.
func (s *Service) Redo(ctx context.Context, projectID string) (*HistoryEntry, error) {
	return s.replay(ctx, projectID, RedoStack)
}

// verb is what taking an entry from the stack does.
func (st HistoryStack) verb() string {
	if st == RedoStack {
		return "redo"
	}
	return "undo"
}

// other is the stack an entry taken from st goes to.
func (st HistoryStack) other() HistoryStack { return 1 - st }

// sides are the images a replay from st expects to find and puts back.
func sides[T any](c Change[T], st HistoryStack) (expect, target *T) {
	if st == RedoStack {
		return c.Before, c.After
	}
	return c.After, c.Before
}

// replay takes the top entry of a project's stack from and puts its
// images back.
func (s *Service) replay(ctx context.Context, projectID string, from HistoryStack) (*HistoryEntry, error) {
	// Nodes the replay deletes stop first, as DeleteNode stops them; the
	// write refuses one that runs again by then.
	var running []NodeRef
	if err := s.view(func(tx Tx) error {
		p, err := findProject(tx, projectID)
		if err != nil {
			return err
		}
		e, err := tx.HistoryTop(p.ID, from)
		if err != nil || e == nil {
			return err
		}
		for _, c := range e.Nodes {
			if _, target := sides(c, from); target == nil {
				n, err := tx.Node(p.ID, nodeRecord.id(either(c)))
				if err != nil {
					return err
				}
				if n != nil && n.Active() {
					running = append(running, NodeRef{ProjectID: p.ID, NodeID: n.ID})
				}
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	for _, ref := range running {
		if _, err := s.NodeAction(ctx, ref, Stop); err != nil && ErrorCode(err) != ENOTFOUND {
			return nil, err
		}
	}
	var done *HistoryEntry
	err := s.submit(&write{fn: func(tx Tx, emit emitFunc) error {
		p, err := findProject(tx, projectID)
		if err != nil {
			return err
		}
		e, err := tx.HistoryTop(p.ID, from)
		if err != nil {
			return err
		}
		if e == nil {
			return Errorf(ECONFLICT, "Nothing to %s in project %s", from.verb(), p.Name)
		}
		r := &replayer{s: s, tx: tx, pid: p.ID, from: from, entry: e}
		if err := r.plan(); err != nil {
			return err
		}
		if err := r.apply(emit); err != nil {
			return err
		}
		if err := tx.PopHistory(p.ID, from); err != nil {
			return err
		}
		moved := *e
		moved.Seq = 0
		if err := tx.PushHistory(from.other(), &moved, MaxHistory); err != nil {
			return err
		}
		done = &moved
		next, err := tx.HistoryTop(p.ID, from)
		if err != nil {
			return err
		}
		state := &HistoryState{ProjectID: p.ID, Undo: next, Redo: &moved}
		if from == RedoStack {
			state.Undo, state.Redo = &moved, next
		}
		emit(EventHistoryUpdated, p.ID, state)
		return nil
	}})
	if err != nil {
		return nil, err
	}
	return done, nil
}

// replayer puts one entry's images back: plan checks, without writing,
// that the records are as the entry left them and that everything they
// need is free; apply writes and announces them.
type replayer struct {
	s     *Service
	tx    Tx
	pid   string
	from  HistoryStack
	entry *HistoryEntry

	project   []move[Project]
	nodes     []move[Node]
	links     []move[Link]
	drawings  []move[Drawing]
	snapshots []move[Snapshot]
	// inNodes and inLinks are the ids of the entry's nodes and links:
	// what they hold now is theirs to give back.
	inNodes, inLinks map[string]bool
}

// step is one record's move in a replay: from cur (nil: absent now) to
// next (nil: deleted).
type move[T any] struct{ cur, next *T }

// conflict is a refusal that names the entry and what is in the way.
func (r *replayer) conflict(format string, args ...any) error {
	return Errorf(ECONFLICT, "Cannot %s \"%s\": %s", r.from.verb(), r.entry.Description, fmt.Sprintf(format, args...))
}

func (r *replayer) plan() (err error) {
	e := r.entry
	if e.Project != nil {
		if r.project, err = planKind(r, &projectRecord, []Change[Project]{*e.Project}); err != nil {
			return err
		}
	}
	if r.nodes, err = planKind(r, &nodeRecord, e.Nodes); err != nil {
		return err
	}
	if r.links, err = planKind(r, &linkRecord, e.Links); err != nil {
		return err
	}
	if r.drawings, err = planKind(r, &drawingRecord, e.Drawings); err != nil {
		return err
	}
	if r.snapshots, err = planKind(r, &snapshotRecord, e.Snapshots); err != nil {
		return err
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
	for _, st := range r.nodes {
		if err := r.checkNode(st); err != nil {
			return err
		}
	}
	for _, st := range r.links {
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

// planKind checks that each record of cs is as the entry left it and
// returns its step: the target image with the runtime of the record as it
// is now (or of a new record, for one brought back).
func planKind[T any](r *replayer, k *recordKind[T], cs []Change[T]) ([]move[T], error) {
	moves := make([]move[T], 0, len(cs))
	for _, c := range cs {
		expect, target := sides(c, r.from)
		cur, err := k.get(r.tx, r.pid, k.id(either(c)))
		if err != nil {
			return nil, err
		}
		if !k.same(cur, expect) {
			return nil, r.conflict("%s has changed since, outside the history", k.label(either(c)))
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
			return nil, r.conflict("%s cannot be deleted by history", k.label(cur))
		}
		moves = append(moves, st)
	}
	return moves, nil
}

// ours reports whether a node's resources go with the entry: it is one of
// the entry's nodes, whose state the replay sets.
func (r *replayer) ours(owner NodeKey) bool {
	return owner.ProjectID == r.pid && r.inNodes[owner.NodeID]
}

func (r *replayer) checkProject() error {
	for _, st := range r.project {
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
	tx, verb := r.tx, r.from.verb()
	if st.next == nil {
		if st.cur.Active() {
			return r.conflict("%s is running; stop it, then %s again", st.cur.Name, verb)
		}
		links, err := tx.NodeLinks(r.pid, st.cur.ID)
		if err != nil {
			return err
		}
		for _, l := range links {
			if !r.inLinks[l.ID] {
				return r.conflict("%s is now linked to %s; delete that link, then %s again", st.cur.Name, r.otherEnd(l, st.cur.ID), verb)
			}
		}
		return nil
	}
	n := st.next
	if id, taken, err := tx.NodeIDByName(r.pid, n.Name); err != nil {
		return err
	} else if taken && id != n.ID && !r.inNodes[id] {
		return r.conflict("the name %s is now used by another node of this project; rename that node, then %s again", n.Name, verb)
	}
	if n.Console != 0 {
		if owner, ok, err := tx.ConsoleOwner(n.Console); err != nil {
			return err
		} else if ok && !r.ours(owner) {
			return r.conflict("console port %d is now used by node %s; give that node another port, then %s again", n.Console, ownerWhere(tx, owner, r.pid), verb)
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
	for _, st := range r.nodes {
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
	if len(r.snapshots) == 0 {
		return nil
	}
	existing, err := r.tx.Snapshots(r.pid)
	if err != nil {
		return err
	}
	for _, st := range r.snapshots {
		if st.next == nil {
			continue
		}
		for _, o := range existing {
			if o.Name == st.next.Name && o.ID != st.next.ID && !slices.ContainsFunc(r.snapshots, func(x move[Snapshot]) bool { return x.cur != nil && x.cur.ID == o.ID }) {
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
	tx, pid := r.tx, r.pid
	if err := removeAll(tx, &linkRecord, pid, r.links, emit); err != nil {
		return err
	}
	if err := removeAll(tx, &nodeRecord, pid, r.nodes, emit); err != nil {
		return err
	}
	if err := removeAll(tx, &drawingRecord, pid, r.drawings, emit); err != nil {
		return err
	}
	if err := removeAll(tx, &snapshotRecord, pid, r.snapshots, emit); err != nil {
		return err
	}
	if len(r.nodes) > 0 {
		r.s.hints.forget(pid) // names come and go
	}
	if err := putAll(tx, &projectRecord, pid, r.project, emit); err != nil {
		return err
	}
	if err := putAll(tx, &nodeRecord, pid, r.nodes, emit); err != nil {
		return err
	}
	if err := putAll(tx, &linkRecord, pid, r.links, emit); err != nil {
		return err
	}
	if err := putAll(tx, &drawingRecord, pid, r.drawings, emit); err != nil {
		return err
	}
	return putAll(tx, &snapshotRecord, pid, r.snapshots, emit)
}

func removeAll[T any](tx Tx, k *recordKind[T], pid string, moves []move[T], emit emitFunc) error {
	for _, st := range moves {
		if st.next != nil || st.cur == nil {
			continue
		}
		if action, payload := k.event(st.cur, nil); action != "" {
			emit(action, pid, payload)
		}
		if err := k.remove(tx, pid, k.id(st.cur)); err != nil {
			return err
		}
	}
	return nil
}

func putAll[T any](tx Tx, k *recordKind[T], pid string, moves []move[T], emit emitFunc) error {
	for _, st := range moves {
		if st.next == nil {
			continue
		}
		if err := k.put(tx, st.next); err != nil {
			return err
		}
		if action, payload := k.event(st.cur, st.next); action != "" {
			emit(action, pid, payload)
		}
	}
	return nil
}
