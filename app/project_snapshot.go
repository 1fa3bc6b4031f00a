package app

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Snapshot is a project's records as they were at one moment: its
// settings, nodes, links and drawings, kept in the store, and the files of
// its folder, kept in the project's folder under snapshots/<snapshot_id>/
// (project_snapshot_files.go). Restoring it puts those records back in one
// transaction, then the files. Its JSON tags are the store's record
// format.
//
// A VPCS node's startup script is a property of the node, so it is in the
// records; the other files of the project's folder are in its files, as
// far as an export carries them (Exportable): captures, the tmp folder,
// logs, hidden files and the snapshots folder are not. A snapshot taken
// before snapshots kept files has no files folder: its restore puts back
// the records and leaves the files as they are.
type Snapshot struct {
	ID        string `json:"snapshot_id"`
	ProjectID string `json:"project_id"`
	Name      string `json:"name"`
	// CreatedAt is seconds since the Unix epoch (UTC), as GNS3 gives it.
	CreatedAt int64      `json:"created_at"`
	Project   *Project   `json:"project"`
	Nodes     []*Node    `json:"nodes"`
	Links     []*Link    `json:"links"`
	Drawings  []*Drawing `json:"drawings"`
}

// Description is GNS3's sentence for a snapshot taken without one.
func (s *Snapshot) Description() string {
	return fmt.Sprintf("Snapshot '%s' taken on %s", s.Name,
		time.Unix(s.CreatedAt, 0).UTC().Format("2006-01-02 at 15:04:05"))
}

// Filename is the file GNS3 would keep the snapshot in; nodedesk keeps it
// in the store and gives the name for clients that show it.
func (s *Snapshot) Filename() string { return s.Name + ".gns3snapshot" }

func snapshotNotFound(id string) error {
	return Errorf(ENOTFOUND, "Snapshot ID %s doesn't exist", id)
}

// frozen returns copies of a project's records as a snapshot keeps them:
// process-run nodes stopped (a restored node has no process) and links
// not capturing (a restored link has no capture running).
func frozen(nodes []*Node, links []*Link, drawings []*Drawing) ([]*Node, []*Link, []*Drawing) {
	ns := make([]*Node, len(nodes))
	for i, n := range nodes {
		c := *n
		nodeRecord.fresh(&c)
		ns[i] = &c
	}
	ls := make([]*Link, len(links))
	for i, l := range links {
		c := *l
		linkRecord.fresh(&c)
		ls[i] = &c
	}
	ds := make([]*Drawing, len(drawings))
	for i, d := range drawings {
		c := *d
		ds[i] = &c
	}
	return ns, ls, ds
}

// CreateSnapshot keeps the project's records as they are now under name,
// which no other snapshot of the project has, and a copy of the files of
// its folder that an export carries. The files are copied before the
// record commits; if it does not, the copy is removed. As GNS3 (whose
// snapshot is an export), it is refused while a node runs: the files a
// running emulator writes would be copied half written. Codes: EINVALID,
// ENOTFOUND, ECONFLICT (name taken, a node runs), EINTERNAL (the files
// could not be copied).
func (s *Service) CreateSnapshot(ctx context.Context, projectID, name string) (*Snapshot, error) {
	if strings.TrimSpace(name) == "" {
		return nil, Invalid("name", "A snapshot needs a name")
	}
	// Refuse what the transaction would refuse before copying anything.
	var pid string
	if err := s.view(func(tx Tx) error {
		p, err := findProject(tx, projectID)
		if err != nil {
			return err
		}
		pid = p.ID
		existing, err := tx.Snapshots(p.ID)
		for _, o := range existing {
			if o.Name == name {
				return Conflict("name", "The snapshot name %s already exists in project %s; choose another name", name, p.Name)
			}
		}
		if err != nil {
			return err
		}
		return refuseRunning(tx, p.ID)
	}); err != nil {
		return nil, err
	}
	id := s.c.NewID()
	s.snapFiles.Lock()
	defer s.snapFiles.Unlock()
	if err := s.takeSnapshotFiles(pid, id); err != nil {
		return nil, err
	}
	var snap *Snapshot
	err := s.update(ctx, func(tx Tx, emit emitFunc) error {
		p, err := findProject(tx, projectID)
		if err != nil {
			return err
		}
		existing, err := tx.Snapshots(p.ID)
		if err != nil {
			return err
		}
		for _, o := range existing {
			if o.Name == name {
				return Conflict("name", "The snapshot name %s already exists in project %s; choose another name", name, p.Name)
			}
		}
		nodes, links, drawings, err := projectRecords(tx, p.ID)
		if err != nil {
			return err
		}
		if err := refuseRunning(tx, p.ID); err != nil {
			return err
		}
		snap = &Snapshot{ID: id, ProjectID: p.ID, Name: name, CreatedAt: time.Now().Unix(), Project: p}
		snap.Nodes, snap.Links, snap.Drawings = frozen(nodes, links, drawings)
		return tx.PutSnapshot(snap)
	})
	if err != nil {
		_ = os.RemoveAll(s.snapshotDir(pid, id))
		return nil, err
	}
	return snap, nil
}

// refuseRunning refuses a snapshot of project pid while one of its nodes
// runs a process (GNS3 2.2.59 answers 409 "Project must be stopped in
// order to export it").
func refuseRunning(tx Tx, pid string) error {
	nodes, err := tx.Nodes(pid)
	if err != nil {
		return err
	}
	var running []string
	for _, n := range nodes {
		if n.Active() {
			running = append(running, n.Name)
		}
	}
	if len(running) == 0 {
		return nil
	}
	return Errorf(ECONFLICT, "Project must be stopped in order to take a snapshot: %s %s running; stop the project's nodes first (Stop and snapshot does both)",
		strings.Join(running, ", "), map[bool]string{true: "is", false: "are"}[len(running) == 1])
}

// FindSnapshots returns a project's snapshots, oldest first (then by
// name), as GNS3 lists them. Codes: ENOTFOUND.
func (s *Service) FindSnapshots(ctx context.Context, projectID string) ([]*Snapshot, error) {
	var out []*Snapshot
	err := s.view(func(tx Tx) error {
		p, err := findProject(tx, projectID)
		if err != nil {
			return err
		}
		out, err = tx.Snapshots(p.ID)
		return err
	})
	slices.SortStableFunc(out, func(a, b *Snapshot) int {
		if a.CreatedAt != b.CreatedAt {
			return int(a.CreatedAt - b.CreatedAt)
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out, err
}

func findSnapshot(tx Tx, projectID, snapshotID string) (*Project, *Snapshot, error) {
	p, err := findProject(tx, projectID)
	if err != nil {
		return nil, nil, err
	}
	sid, ok := canonicalID(snapshotID)
	if !ok {
		return nil, nil, snapshotNotFound(snapshotID)
	}
	snap, err := tx.Snapshot(p.ID, sid)
	if err == nil && snap == nil {
		err = snapshotNotFound(snapshotID)
	}
	return p, snap, err
}

// DeleteSnapshot forgets a snapshot. Its files stay while the project's
// history can bring the record back (an undo of this delete): the folders
// of snapshots that no record and no history entry names are swept after
// the delete, and when the project is opened or closed
// (sweepSnapshotFiles). Codes: ENOTFOUND.
func (s *Service) DeleteSnapshot(ctx context.Context, projectID, snapshotID string) error {
	var pid string
	err := s.update(ctx, func(tx Tx, emit emitFunc) error {
		_, snap, err := findSnapshot(tx, projectID, snapshotID)
		if err != nil {
			return err
		}
		pid = snap.ProjectID
		return tx.DeleteSnapshot(snap.ProjectID, snap.ID)
	})
	if err == nil {
		s.sweepProjectSnapshots(pid)
	}
	return err
}

// RestoreSnapshot replaces the project's settings, nodes, links and
// drawings with the snapshot's, in one transaction, and announces each
// change (the records that go deleted, those that come created, those
// that stay and change updated: restoreEvents; then project.updated and
// snapshot.restored) so that open clients follow.
// The project keeps its name, status and id.
//
// Running nodes are stopped first, as GNS3 closes the project (stopping
// its nodes) before it restores; a node started meanwhile refuses the
// restore (ECONFLICT). A restored node whose console port a node of another project has
// taken since gets the lowest free port instead; one whose UDP ports were
// taken gets new ones at its next start.
//
// Then the files: the snapshot's copy is staged before the records'
// transaction (and dropped if it fails), and after it the project's files
// that an export carries are swapped for the staged ones (stagedRestore.swap:
// all of them or, on failure, none); an intent record committed with the
// records makes the next start finish a swap a crash cut short
// (FinishRestores). Captures, the tmp folder, logs, hidden
// files and the snapshots folder are left alone. A snapshot taken before
// snapshots kept files has no copy: the files are left as they are. The
// history records the restore's records only; an undo of it puts the
// records back, not the files. Codes: ENOTFOUND, ECONFLICT, EINTERNAL (the
// files: staging them fails before anything changed; swapping them fails
// with the records restored and the files as they were).
func (s *Service) RestoreSnapshot(ctx context.Context, projectID, snapshotID string) (*Project, error) {
	if err := s.view(func(tx Tx) error { _, _, err := findSnapshot(tx, projectID, snapshotID); return err }); err != nil {
		return nil, err // nothing stops for a snapshot that is not there
	}
	if err := s.ProjectAction(ctx, projectID, Stop); err != nil {
		return nil, err
	}
	// Hold the lifecycle lock of each node, so that no start is half done
	// (process running, status not yet recorded) while the check is made.
	var ids []string
	if err := s.view(func(tx Tx) error {
		p, err := findProject(tx, projectID)
		if err != nil {
			return err
		}
		nodes, err := tx.Nodes(p.ID)
		for _, n := range nodes {
			ids = append(ids, n.ID)
		}
		return err
	}); err != nil {
		return nil, err
	}
	slices.Sort(ids) // one order for every caller that holds several
	for _, id := range ids {
		s.cancelProvision(id) // no wait for an image's pull: its events provision it again
		defer s.lockNode(id)()
	}
	s.snapFiles.Lock()
	defer s.snapFiles.Unlock()
	var pid, sid string
	if err := s.view(func(tx Tx) error {
		p, snap, err := findSnapshot(tx, projectID, snapshotID)
		if err == nil {
			pid, sid = p.ID, snap.ID
		}
		return err
	}); err != nil {
		return nil, err
	}
	staged, err := s.stageSnapshotFiles(pid, sid)
	if err != nil {
		return nil, err
	}
	var after *Project
	err = s.update(ctx, func(tx Tx, emit emitFunc) error {
		p, snap, err := findSnapshot(tx, projectID, snapshotID)
		if err != nil {
			return err
		}
		nodes, links, drawings, err := projectRecords(tx, p.ID)
		if err != nil {
			return err
		}
		var running []string
		for _, n := range nodes {
			if n.Active() {
				running = append(running, n.Name)
			}
		}
		if len(running) > 0 {
			return Errorf(ECONFLICT, "Cannot restore snapshot %s: node %s of project %s was started while the restore stopped the project's nodes; stop it and restore again",
				snap.Name, strings.Join(running, ", "), p.Name)
		}
		var changes []Event
		collect := func(a EventAction, pid string, payload any) { changes = append(changes, Event{a, pid, payload}) }
		if err := clearProject(tx, collect, p.ID, nodes, links, drawings); err != nil {
			return err
		}
		s.hints.forget(p.ID) // the project's names change
		nodes, links, drawings = frozen(snap.Nodes, snap.Links, snap.Drawings)
		if err := s.putRecords(tx, collect, nodes, links, drawings); err != nil {
			return err
		}
		for _, e := range restoreEvents(changes) {
			emit(e.Action, e.ProjectID, e.Payload)
		}
		settings := *snap.Project
		settings.ID, settings.Name, settings.Filename, settings.Status, settings.Seq = p.ID, p.Name, p.Filename, p.Status, p.Seq
		after = &settings
		if !unchanged(p, after) {
			emit(EventProjectUpdated, p.ID, after)
			if err := tx.PutProject(after); err != nil {
				return err
			}
		}
		emit(EventSnapshotRestored, p.ID, snap)
		if staged != nil { // the files follow, even after a crash (FinishRestores)
			return tx.PutRestoreIntent(p.ID, staged.tag)
		}
		return nil
	})
	if err != nil {
		staged.discard()
		return nil, err
	}
	if staged != nil {
		err := staged.swap()
		if ierr := s.endRestoreIntent(context.WithoutCancel(ctx), pid); ierr != nil {
			s.c.Logger.Error("a snapshot restore's intent record could not be ended; the next start ends it", "project", pid, "err", ierr)
		}
		if err != nil {
			return nil, err
		}
	}
	return after, nil
}

// restoreEvents is how a restore announces its records: changes lists
// each record deleted, then each one put; a record the restore deletes
// and puts back under its id is announced as updated (nothing when it is
// the same), not deleted and created again, for the GNS3 GUI ignores a
// created record it still shows and cannot link to a node it is deleting
// ("Could not find a source or destination item for the link!"). GNS3
// closes the project silently and reopens it, and the GUI reloads the
// project on snapshot.restored (gns3-gui v2.2.59 gns3/project.py:728,
// gns3/topology.py:219). A link whose ends changed is deleted and created,
// so that whoever wires its ends (the data plane) rewires them.
func restoreEvents(changes []Event) []Event {
	type key struct {
		kind string
		id   string
	}
	keyOf := func(payload any) key {
		switch r := payload.(type) {
		case *Node:
			return key{"node", r.ID}
		case *Link:
			return key{"link", r.ID}
		case *Drawing:
			return key{"drawing", r.ID}
		}
		return key{}
	}
	deleted := map[key]any{}
	for _, e := range changes {
		if e.Action == EventNodeDeleted || e.Action == EventLinkDeleted || e.Action == EventDrawingDeleted {
			deleted[keyOf(e.Payload)] = e.Payload
		}
	}
	back := map[key]bool{} // deleted and put back with the same ends
	for _, e := range changes {
		k := keyOf(e.Payload)
		old, was := deleted[k]
		if !was || e.Action == EventNodeDeleted || e.Action == EventLinkDeleted || e.Action == EventDrawingDeleted {
			continue
		}
		if ol, ok := old.(*Link); ok && !sameEnds(ol, e.Payload.(*Link)) {
			continue
		}
		back[k] = true
	}
	out := make([]Event, 0, len(changes))
	for _, e := range changes {
		k := keyOf(e.Payload)
		if !back[k] {
			out = append(out, e)
			continue
		}
		switch e.Action {
		case EventNodeCreated, EventLinkCreated, EventDrawingCreated:
			if !reflect.DeepEqual(deleted[k], e.Payload) {
				out = append(out, Event{updatedAction[e.Action], e.ProjectID, e.Payload})
			}
		}
	}
	return out
}

// updatedAction is the update event of a record kind, by its created one.
var updatedAction = map[EventAction]EventAction{
	EventNodeCreated: EventNodeUpdated, EventLinkCreated: EventLinkUpdated, EventDrawingCreated: EventDrawingUpdated,
}

// sameEnds reports whether two images of a link join the same ports.
func sameEnds(a, b *Link) bool {
	if len(a.Nodes) != len(b.Nodes) {
		return false
	}
	for i := range a.Nodes {
		x, y := a.Nodes[i], b.Nodes[i]
		if x.NodeID != y.NodeID || x.AdapterNumber != y.AdapterNumber || x.PortNumber != y.PortNumber {
			return false
		}
	}
	return true
}

// projectRecords reads what a project holds besides its settings.
func projectRecords(tx Tx, projectID string) ([]*Node, []*Link, []*Drawing, error) {
	nodes, err := tx.Nodes(projectID)
	if err != nil {
		return nil, nil, nil, err
	}
	links, err := tx.Links(projectID)
	if err != nil {
		return nil, nil, nil, err
	}
	drawings, err := tx.Drawings(projectID)
	if err != nil {
		return nil, nil, nil, err
	}
	return nodes, links, drawings, nil
}

// clearProject deletes a project's links, nodes and drawings (as
// projectRecords read them) inside tx, announcing each.
func clearProject(tx Tx, emit emitFunc, projectID string, nodes []*Node, links []*Link, drawings []*Drawing) error {
	for _, l := range links {
		emit(EventLinkDeleted, projectID, l)
		if err := tx.DeleteLink(projectID, l.ID); err != nil {
			return err
		}
	}
	for _, n := range nodes {
		emit(EventNodeDeleted, projectID, n)
		if err := tx.DeleteNode(projectID, n.ID); err != nil {
			return err
		}
	}
	for _, d := range drawings {
		emit(EventDrawingDeleted, projectID, d)
		if err := tx.DeleteDrawing(projectID, d.ID); err != nil {
			return err
		}
	}
	return nil
}

// putRecords writes nodes, then links, then drawings inside tx, announcing
// each. A node's console port that another node owns is replaced by a free
// one; UDP ports another node owns are dropped (claimed anew at start).
func (s *Service) putRecords(tx Tx, emit emitFunc, nodes []*Node, links []*Link, drawings []*Drawing) error {
	for _, n := range nodes {
		fresh := false
		for _, port := range []*int{&n.Console, &n.Aux} {
			if *port == 0 {
				continue
			}
			if _, taken, err := tx.ConsoleOwner(*port); err != nil {
				return err
			} else if taken {
				*port, fresh = 0, true
			}
		}
		if fresh {
			if err := s.claimConsole(tx, n); err != nil {
				return err
			}
		}
		for _, port := range n.UDPPorts {
			if _, taken, err := tx.UDPOwner(port); err != nil {
				return err
			} else if taken {
				n.UDPPorts = nil
				break
			}
		}
		if err := tx.PutNode(n); err != nil {
			return err
		}
		emit(EventNodeCreated, n.ProjectID, n)
	}
	for _, l := range links {
		if err := tx.PutLink(l); err != nil {
			return err
		}
		emit(EventLinkCreated, l.ProjectID, l)
	}
	for _, d := range drawings {
		if err := tx.PutDrawing(d); err != nil {
			return err
		}
		emit(EventDrawingCreated, d.ProjectID, d)
	}
	return nil
}
