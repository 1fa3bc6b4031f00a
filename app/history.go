package app

import (
	"context"
	"strings"
	"time"
)

// History: undo and redo of a project's changes. Every committed write is
// recorded where it is written (history_record.go): the records of a project it
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
	// A first plan, in a read, refuses what is in the way before anything
	// happens; then the nodes the replay deletes stop first, as DeleteNode
	// stops them (the write refuses one that runs again by then).
	var running []NodeRef
	if err := s.view(func(tx Tx) error {
		r, err := s.newReplayer(tx, projectID, from)
		if err != nil {
			return err
		}
		r.stopping = true
		if err := r.plan(); err != nil {
			return err
		}
		for _, st := range r.nodes.list {
			if st.next == nil && st.cur.Active() {
				running = append(running, NodeRef{ProjectID: r.pid, NodeID: st.cur.ID})
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
	var gone, back []*Node // the nodes it deletes and brings back, for their folders
	var pid string
	w := &write{fn: func(tx Tx, emit emitFunc) error {
		r, err := s.newReplayer(tx, projectID, from)
		if err != nil {
			return err
		}
		if err := r.plan(); err != nil {
			return err
		}
		if err := r.apply(emit); err != nil {
			return err
		}
		pid, gone, back = r.pid, nil, nil
		for _, st := range r.nodes.list {
			switch {
			case st.cur == nil:
				back = append(back, st.next)
			case st.next == nil:
				gone = append(gone, st.cur)
			}
		}
		if err := tx.PopHistory(r.pid, from); err != nil {
			return err
		}
		moved := *r.entry
		moved.Seq = 0
		if err := tx.PushHistory(from.other(), &moved, MaxHistory); err != nil {
			return err
		}
		done = &moved
		next, err := tx.HistoryTop(r.pid, from)
		if err != nil {
			return err
		}
		state := &HistoryState{ProjectID: r.pid, Undo: next, Redo: &moved}
		if from == RedoStack {
			state.Undo, state.Redo = &moved, next
		}
		emit(EventHistoryUpdated, r.pid, state)
		return nil
	}}
	// The folders of nodes brought back are in place before their
	// containers are made again (provisionAfter).
	w.committed = func() {
		for _, n := range back {
			s.bringBackNodeFolder(n)
		}
	}
	if err := s.submit(w); err != nil {
		return nil, err
	}
	for _, n := range gone {
		s.awaitProvision(ctx, n) // a Docker node's container goes first, as at its delete
		s.trashNodeFolder(n)
	}
	s.sweepNodeTrash(pid) // the other stack's bound may have dropped an entry
	return done, nil
}

// newReplayer is the replay of the entry on top of a project's stack from.
// Codes: ENOTFOUND, ECONFLICT (the stack is empty).
func (s *Service) newReplayer(tx Tx, projectID string, from HistoryStack) (*replayer, error) {
	p, err := findProject(tx, projectID)
	if err != nil {
		return nil, err
	}
	e, err := tx.HistoryTop(p.ID, from)
	if err != nil {
		return nil, err
	}
	if e == nil {
		return nil, Errorf(ECONFLICT, "Nothing to %s in project %s", from.verb(), p.Name)
	}
	return &replayer{s: s, tx: tx, pid: p.ID, from: from, entry: e}, nil
}
