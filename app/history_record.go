package app

import (
	"encoding/json"
	"reflect"
	"slices"
	"time"
)

// Recording history at the write path. A write that update runs records
// itself: it runs against a recorder, which notes the before-image of each
// record of a project the write puts or deletes; once the write has
// succeeded, the after-images are read in the same transaction and each
// project's changes become one entry of its undo stack. So nothing a use
// case does has to remember history, and a change and its entry commit
// together (or not at all).

// kind is what history needs to know of one kind of a project's records.
type recordKind[T any] struct {
	get    func(tx Tx, projectID, id string) (*T, error)
	put    func(tx Tx, r *T) error
	remove func(tx Tx, projectID, id string) error // nil: history never deletes one
	id     func(r *T) string
	label  func(r *T) string // how a message names it
	// runtime copies the fields that running a lab changes, which history
	// neither records nor restores, from src to dst; nil: none.
	runtime func(dst, src *T)
	// freshen gives a record brought back the runtime of a new one (a node
	// stopped, a link not capturing); nil: nothing to do.
	freshen func(r *T)
	// event is what announces a change from cur to next (either may be
	// nil); "" for none.
	event func(cur, next *T) (EventAction, any)
}

func (k *recordKind[T]) keepRuntime(dst, src *T) {
	if k.runtime != nil {
		k.runtime(dst, src)
	}
}

func (k *recordKind[T]) fresh(r *T) {
	if k.freshen != nil {
		k.freshen(r)
	}
}

// same reports whether two images of a record are the same but for their
// runtime; nil (no record) is the same only as nil.
func (k *recordKind[T]) same(a, b *T) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	c := *a
	k.keepRuntime(&c, b)
	return reflect.DeepEqual(&c, b)
}

// lifeEvents announces a record's creation, change and deletion with
// itself as payload (the record as it is after, or before a deletion).
func lifeEvents[T any](created, updated, deleted EventAction) func(cur, next *T) (EventAction, any) {
	return func(cur, next *T) (EventAction, any) {
		switch {
		case cur == nil:
			return created, next
		case next == nil:
			return deleted, cur
		default:
			return updated, next
		}
	}
}

var projectRecord = recordKind[Project]{
	get:     func(tx Tx, _, id string) (*Project, error) { return tx.Project(id) },
	put:     func(tx Tx, p *Project) error { return tx.PutProject(p) },
	id:      func(p *Project) string { return p.ID },
	label:   func(*Project) string { return "the project's settings" },
	runtime: func(dst, src *Project) { dst.Status, dst.Closure = src.Status, src.Closure },
	event: func(_, next *Project) (EventAction, any) {
		return EventProjectUpdated, next
	},
}

var nodeRecord = recordKind[Node]{
	get:    func(tx Tx, pid, id string) (*Node, error) { return tx.Node(pid, id) },
	put:    func(tx Tx, n *Node) error { return tx.PutNode(n) },
	remove: func(tx Tx, pid, id string) error { return tx.DeleteNode(pid, id) },
	id:     func(n *Node) string { return n.ID },
	label:  func(n *Node) string { return "node " + n.Name },
	// Its status and command line, the UDP ports and MAC offset its
	// process claimed at its first start, and what its runner made for it.
	runtime: func(dst, src *Node) {
		dst.Status, dst.CommandLine, dst.UDPPorts = src.Status, src.CommandLine, src.UDPPorts
		dst.Properties.MACOffset, dst.Properties.Provisioned = src.Properties.MACOffset, src.Properties.Provisioned
	},
	freshen: func(n *Node) {
		if n.Active() {
			n.Status = Stopped // a node brought back has no process
		}
		n.Properties.Provisioned = "" // nor a container: it is made again (node_provision.go)
	},
	event: lifeEvents[Node](EventNodeCreated, EventNodeUpdated, EventNodeDeleted),
}

var linkRecord = recordKind[Link]{
	get:    func(tx Tx, pid, id string) (*Link, error) { return tx.Link(pid, id) },
	put:    func(tx Tx, l *Link) error { return tx.PutLink(l) },
	remove: func(tx Tx, pid, id string) error { return tx.DeleteLink(pid, id) },
	id:     func(l *Link) string { return l.ID },
	label:  func(l *Link) string { return "link " + l.ID },
	// Its packet capture.
	runtime: func(dst, src *Link) {
		dst.Capturing, dst.CaptureFileName, dst.CaptureFilePath, dst.CaptureDataLinkType =
			src.Capturing, src.CaptureFileName, src.CaptureFilePath, src.CaptureDataLinkType
	},
	freshen: func(l *Link) { l.Capturing = false }, // a link brought back captures nothing
	event:   lifeEvents[Link](EventLinkCreated, EventLinkUpdated, EventLinkDeleted),
}

var drawingRecord = recordKind[Drawing]{
	get:    func(tx Tx, pid, id string) (*Drawing, error) { return tx.Drawing(pid, id) },
	put:    func(tx Tx, d *Drawing) error { return tx.PutDrawing(d) },
	remove: func(tx Tx, pid, id string) error { return tx.DeleteDrawing(pid, id) },
	id:     func(d *Drawing) string { return d.ID },
	label:  func(d *Drawing) string { return "drawing " + d.ID },
	event: func(cur, next *Drawing) (EventAction, any) {
		if cur != nil && next != nil {
			return EventDrawingUpdated, &DrawingChanged{Drawing: next, SVGChanged: cur.SVG != next.SVG}
		}
		return lifeEvents[Drawing](EventDrawingCreated, "", EventDrawingDeleted)(cur, next)
	},
}

var snapshotRecord = recordKind[Snapshot]{
	get:    func(tx Tx, pid, id string) (*Snapshot, error) { return tx.Snapshot(pid, id) },
	put:    func(tx Tx, s *Snapshot) error { return tx.PutSnapshot(s) },
	remove: func(tx Tx, pid, id string) error { return tx.DeleteSnapshot(pid, id) },
	id:     func(s *Snapshot) string { return s.ID },
	label:  func(s *Snapshot) string { return "snapshot " + s.Name },
	// Taking or deleting a snapshot announces nothing (as in GNS3).
	event: func(_, _ *Snapshot) (EventAction, any) { return "", nil },
}

// recordRef names one record of a project.
type recordRef struct{ projectID, id string }

// tracker holds the before-images of the records of one kind a write
// touched, in the order it first touched them.
type tracker[T any] struct {
	k      *recordKind[T]
	refs   []recordRef
	before map[recordRef]*T // nil: the record did not exist
	// read keeps, as JSON, the records the write read before it touched
	// them: touch takes its before-image from there rather than reading
	// the record again.
	read map[recordRef][]byte
}

// saw keeps what the write read of a record it has not touched yet.
func (t *tracker[T]) saw(projectID, id string, r *T) {
	ref := recordRef{projectID, id}
	if _, touched := t.before[ref]; touched || r == nil {
		return
	}
	if _, ok := t.read[ref]; ok {
		return
	}
	if b, err := json.Marshal(r); err == nil {
		if t.read == nil {
			t.read = map[recordRef][]byte{}
		}
		t.read[ref] = b
	}
}

func (t *tracker[T]) touch(tx Tx, projectID, id string) error {
	ref := recordRef{projectID, id}
	if _, seen := t.before[ref]; seen {
		return nil
	}
	var b *T
	if raw, ok := t.read[ref]; ok {
		b = new(T)
		if err := json.Unmarshal(raw, b); err != nil {
			return err
		}
	} else if r, err := t.k.get(tx, projectID, id); err != nil {
		return err
	} else {
		b = r
	}
	if t.before == nil {
		t.before = map[recordRef]*T{}
	}
	t.before[ref] = b
	t.refs = append(t.refs, ref)
	return nil
}

// changes returns the changes of a project's records, read as they are
// now; a record that is as it was but for its runtime changed nothing.
func (t *tracker[T]) changes(tx Tx, projectID string) ([]Change[T], error) {
	var out []Change[T]
	for _, ref := range t.refs {
		if ref.projectID != projectID {
			continue
		}
		after, err := t.k.get(tx, projectID, ref.id)
		if err != nil {
			return nil, err
		}
		if before := t.before[ref]; !t.k.same(before, after) {
			out = append(out, Change[T]{Before: before, After: after})
		}
	}
	return out, nil
}

// recorder is the Tx a recorded write runs against.
type recorder struct {
	Tx
	projects  tracker[Project]
	nodes     tracker[Node]
	links     tracker[Link]
	drawings  tracker[Drawing]
	snapshots tracker[Snapshot]
	// touched lists the projects whose records the write touched; born
	// and gone, those it created or deleted, which are no part of their
	// own history.
	touched    []string
	born, gone map[string]bool
}

func newRecorder(tx Tx) *recorder {
	return &recorder{Tx: tx, projects: tracker[Project]{k: &projectRecord}, nodes: tracker[Node]{k: &nodeRecord},
		links: tracker[Link]{k: &linkRecord}, drawings: tracker[Drawing]{k: &drawingRecord},
		snapshots: tracker[Snapshot]{k: &snapshotRecord}}
}

// mark adds id to a set, made on first use (most writes need none).
func mark(set *map[string]bool, id string) {
	if *set == nil {
		*set = map[string]bool{}
	}
	(*set)[id] = true
}

// note records the before-image of a record, then writes it.
func note[T any](r *recorder, t *tracker[T], projectID, id string, write func() error) error {
	if !slices.Contains(r.touched, projectID) {
		r.touched = append(r.touched, projectID)
	}
	if err := t.touch(r.Tx, projectID, id); err != nil {
		return err
	}
	return write()
}

func (r *recorder) PutProject(p *Project) error {
	return note(r, &r.projects, p.ID, p.ID, func() error {
		if r.projects.before[recordRef{p.ID, p.ID}] == nil {
			mark(&r.born, p.ID)
		}
		return r.Tx.PutProject(p)
	})
}

func (r *recorder) DeleteProject(id string) error {
	mark(&r.gone, id)
	return r.Tx.DeleteProject(id)
}

// Node reads a node; its first read in a write is its before-image, if
// the write then changes it.
func (r *recorder) Node(projectID, nodeID string) (*Node, error) {
	n, err := r.Tx.Node(projectID, nodeID)
	if err == nil {
		r.nodes.saw(projectID, nodeID, n)
	}
	return n, err
}

func (r *recorder) PutNode(n *Node) error {
	return note(r, &r.nodes, n.ProjectID, n.ID, func() error { return r.Tx.PutNode(n) })
}

func (r *recorder) DeleteNode(pid, id string) error {
	return note(r, &r.nodes, pid, id, func() error { return r.Tx.DeleteNode(pid, id) })
}

func (r *recorder) PutLink(l *Link) error {
	return note(r, &r.links, l.ProjectID, l.ID, func() error { return r.Tx.PutLink(l) })
}

func (r *recorder) DeleteLink(pid, id string) error {
	return note(r, &r.links, pid, id, func() error { return r.Tx.DeleteLink(pid, id) })
}

func (r *recorder) PutDrawing(d *Drawing) error {
	return note(r, &r.drawings, d.ProjectID, d.ID, func() error { return r.Tx.PutDrawing(d) })
}

func (r *recorder) DeleteDrawing(pid, id string) error {
	return note(r, &r.drawings, pid, id, func() error { return r.Tx.DeleteDrawing(pid, id) })
}

func (r *recorder) PutSnapshot(sn *Snapshot) error {
	return note(r, &r.snapshots, sn.ProjectID, sn.ID, func() error { return r.Tx.PutSnapshot(sn) })
}

func (r *recorder) DeleteSnapshot(pid, id string) error {
	return note(r, &r.snapshots, pid, id, func() error { return r.Tx.DeleteSnapshot(pid, id) })
}

// entry returns the change a write made to a project, or nil if it
// changed none of its records but for their runtime.
func (r *recorder) entry(projectID string) (*HistoryEntry, error) {
	if r.born[projectID] || r.gone[projectID] {
		return nil, nil
	}
	e := &HistoryEntry{ProjectID: projectID}
	ps, err := r.projects.changes(r.Tx, projectID)
	if err != nil {
		return nil, err
	}
	if len(ps) > 0 {
		e.Project = &ps[0]
	}
	if e.Nodes, err = r.nodes.changes(r.Tx, projectID); err != nil {
		return nil, err
	}
	if e.Links, err = r.links.changes(r.Tx, projectID); err != nil {
		return nil, err
	}
	if e.Drawings, err = r.drawings.changes(r.Tx, projectID); err != nil {
		return nil, err
	}
	if e.Snapshots, err = r.snapshots.changes(r.Tx, projectID); err != nil {
		return nil, err
	}
	if e.empty() {
		return nil, nil
	}
	return e, nil
}

// record adds what a successful write changed to the history of each
// project it touched, inside its transaction: one entry per project, or,
// for the next write of the same gesture, the entry of the gesture grown.
// A new entry empties the redo stack. events are the write's, and the
// announcement of each project's new history joins them; dropped gets the
// projects whose history lost entries (an emptied redo stack, the oldest
// entry beyond MaxHistory), whose trash may then go (sweepNodeTrash).
func (s *Service) record(tx Tx, r *recorder, src Source, events *[]Event, dropped *[]string) error {
	for _, pid := range r.touched {
		e, err := r.entry(pid)
		if err != nil {
			return err
		}
		if e == nil {
			continue
		}
		for _, ev := range *events {
			if snap, ok := ev.Payload.(*Snapshot); ok && ev.Action == EventSnapshotRestored && ev.ProjectID == pid {
				e.Restored = snap.Name
			}
		}
		e.Time, e.Origin, e.Gesture = time.Now().UTC(), src.Origin, src.Gesture
		var top *HistoryEntry
		if src.Gesture != "" {
			if top, err = tx.HistoryTop(pid, UndoStack); err != nil {
				return err
			}
		}
		if top != nil && top.Gesture == src.Gesture {
			e = merged(top, e)
		} else {
			e.ID = s.c.NewID()
		}
		if redo, err := tx.HistoryTop(pid, RedoStack); err != nil {
			return err
		} else if redo != nil {
			*dropped = append(*dropped, pid)
			if err := tx.ClearHistory(pid, RedoStack); err != nil {
				return err
			}
		}
		state := &HistoryState{ProjectID: pid, Undo: e}
		if e.empty() { // the gesture put everything back as it was
			*dropped = append(*dropped, pid)
			if err := tx.PopHistory(pid, UndoStack); err != nil {
				return err
			}
			if state.Undo, err = tx.HistoryTop(pid, UndoStack); err != nil {
				return err
			}
		} else {
			if e.Description, err = describeIn(tx, e); err != nil {
				return err
			}
			if err := tx.PushHistory(UndoStack, e, MaxHistory); err != nil {
				return err
			}
			if e.Seq > MaxHistory && (top == nil || top.ID != e.ID) { // a new entry: the oldest went
				*dropped = append(*dropped, pid)
			}
		}
		*events = append(*events, Event{Action: EventHistoryUpdated, ProjectID: pid, Payload: state})
	}
	return nil
}

// merged is the entry of a gesture grown by its next write e: each record
// from as the gesture found it to as e left it; a record the gesture left
// as it found it is no longer part of it. It takes top's place (id, seq,
// origin) and e's time.
func merged(top, e *HistoryEntry) *HistoryEntry {
	m := *e
	m.ID, m.Seq, m.Origin = top.ID, top.Seq, top.Origin
	if m.Restored == "" {
		m.Restored = top.Restored
	}
	var ps []Change[Project]
	if top.Project != nil {
		ps = append(ps, *top.Project)
	}
	if e.Project != nil {
		ps = mergeChanges(&projectRecord, ps, []Change[Project]{*e.Project})
	}
	m.Project = nil
	if len(ps) > 0 {
		m.Project = &ps[0]
	}
	m.Nodes = mergeChanges(&nodeRecord, top.Nodes, e.Nodes)
	m.Links = mergeChanges(&linkRecord, top.Links, e.Links)
	m.Drawings = mergeChanges(&drawingRecord, top.Drawings, e.Drawings)
	m.Snapshots = mergeChanges(&snapshotRecord, top.Snapshots, e.Snapshots)
	return &m
}

func mergeChanges[T any](k *recordKind[T], old, next []Change[T]) []Change[T] {
	out := append([]Change[T](nil), old...)
	for _, c := range next {
		i := -1
		for j := range out {
			if k.id(either(out[j])) == k.id(either(c)) {
				i = j
				break
			}
		}
		if i < 0 {
			out = append(out, c)
			continue
		}
		out[i].After = c.After
	}
	kept := out[:0]
	for _, c := range out {
		if !k.same(c.Before, c.After) {
			kept = append(kept, c)
		}
	}
	return kept
}
