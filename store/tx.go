package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/google/uuid"
	bolt "go.etcd.io/bbolt"

	"nodedesk/app"
)

// tx is one bbolt transaction seen as an app.Tx.
type tx struct {
	b *bolt.Tx
	// read holds the index fields of the node records read or written in
	// this transaction, so that PutNode need not decode the stored record
	// again to move its index entries.
	read map[string]*indexed
	// writes counts what this transaction has written (Writes).
	writes int
}

// bucket is one of the file's buckets in this transaction, as the Tx
// methods see it: reads, and writes that count themselves. It hands out
// no bbolt handle, so every write goes through its Put, Delete and
// NextSequence: a write method of app.Tx is counted by being one
// (store/writes_test.go holds every method to that).
type bucket struct {
	b      *bolt.Bucket
	writes *int
}

// Get reads a key's value (nil when absent).
func (b bucket) Get(key []byte) []byte { return b.b.Get(key) }

// ForEach calls fn for each key, in order.
func (b bucket) ForEach(fn func(k, v []byte) error) error { return b.b.ForEach(fn) }

// Cursor walks the bucket's keys, reading only.
func (b bucket) Cursor() cursor { return cursor{b.b.Cursor()} }

// Put writes a key, counted.
func (b bucket) Put(key, value []byte) error { *b.writes++; return b.b.Put(key, value) }

// Delete removes a key, counted.
func (b bucket) Delete(key []byte) error { *b.writes++; return b.b.Delete(key) }

// NextSequence takes the bucket's next sequence number, counted (the
// number is written with the transaction).
func (b bucket) NextSequence() (uint64, error) { *b.writes++; return b.b.NextSequence() }

// cursor is a bbolt cursor that only reads.
type cursor struct{ c *bolt.Cursor }

func (c cursor) First() (k, v []byte)           { return c.c.First() }
func (c cursor) Last() (k, v []byte)            { return c.c.Last() }
func (c cursor) Next() (k, v []byte)            { return c.c.Next() }
func (c cursor) Prev() (k, v []byte)            { return c.c.Prev() }
func (c cursor) Seek(seek []byte) (k, v []byte) { return c.c.Seek(seek) }

func (t *tx) bucket(name []byte) bucket { return bucket{t.b.Bucket(name), &t.writes} }

// Writes is how many writes the transaction has made so far.
func (t *tx) Writes() int { return t.writes }

func decode[T any](raw []byte) (*T, error) {
	if raw == nil {
		return nil, nil
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("store: damaged record: %w", err)
	}
	return &v, nil
}

func (t *tx) Project(id string) (*app.Project, error) {
	return decode[app.Project](t.bucket(bucketProjects).Get(uuidKey(id)))
}

func (t *tx) HasProject(id string) (bool, error) {
	return t.bucket(bucketProjects).Get(uuidKey(id)) != nil, nil
}

func (t *tx) Projects() ([]*app.Project, error) {
	var ps []*app.Project
	err := t.bucket(bucketProjects).ForEach(func(_, v []byte) error {
		p, err := decode[app.Project](v)
		ps = append(ps, p)
		return err
	})
	sort.Slice(ps, func(i, j int) bool { return ps[i].Seq < ps[j].Seq })
	return ps, err
}

func (t *tx) PutProject(p *app.Project) error {
	b := t.bucket(bucketProjects)
	if p.Seq == 0 {
		seq, err := b.NextSequence()
		if err != nil {
			return err
		}
		p.Seq = seq
	}
	return put(b, uuidKey(p.ID), p)
}

func (t *tx) DeleteProject(id string) error {
	prefix := uuidKey(id)
	var ids []string
	c := t.bucket(bucketNodes).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		nid, _ := uuid.FromBytes(k[16:])
		ids = append(ids, nid.String())
	}
	for _, nid := range ids {
		if err := t.DeleteNode(id, nid); err != nil {
			return err
		}
	}
	if err := t.ReleaseUDPReservations(id); err != nil {
		return err
	}
	if err := t.DeleteRestoreIntent(id); err != nil {
		return err
	}
	for _, b := range [][]byte{bucketLinks, bucketPorts, bucketDrawings, bucketSnapshots, bucketUndo, bucketRedo} {
		if err := deletePrefix(t.bucket(b), prefix); err != nil {
			return err
		}
	}
	return t.bucket(bucketProjects).Delete(prefix)
}

// deletePrefix deletes every key of b that starts with prefix.
func deletePrefix(b bucket, prefix []byte) error {
	var keys [][]byte
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		keys = append(keys, append([]byte(nil), k...))
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) Link(projectID, linkID string) (*app.Link, error) {
	return decode[app.Link](t.bucket(bucketLinks).Get(linkKey(projectID, linkID)))
}

func (t *tx) Links(projectID string) ([]*app.Link, error) {
	return projectRecords(t.bucket(bucketLinks), projectID, func(r *app.Link) uint64 { return r.Seq })
}

// NodeLinks finds a node's links through the link_ports index, whose keys
// for the node's ports share the node's key as prefix.
func (t *tx) NodeLinks(projectID, nodeID string) ([]*app.Link, error) {
	prefix := nodeKey(projectID, nodeID)
	seen := map[string]bool{}
	ls := []*app.Link{}
	c := t.bucket(bucketPorts).Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		lid, _ := uuid.FromBytes(v)
		if seen[lid.String()] {
			continue
		}
		seen[lid.String()] = true
		l, err := t.Link(projectID, lid.String())
		if err != nil {
			return nil, err
		}
		if l != nil {
			ls = append(ls, l)
		}
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].Seq < ls[j].Seq })
	return ls, nil
}

// PutLink writes l and indexes the ports of its ends (which never change).
func (t *tx) PutLink(l *app.Link) error {
	links := t.bucket(bucketLinks)
	key := linkKey(l.ProjectID, l.ID)
	if err := keepSeq(links, key, &l.Seq, func(o *app.Link) uint64 { return o.Seq }); err != nil {
		return err
	}
	for _, e := range l.Nodes {
		if err := t.bucket(bucketPorts).Put(portKey(l.ProjectID, e.NodeID, e.AdapterNumber, e.PortNumber), uuidKey(l.ID)); err != nil {
			return err
		}
	}
	return put(links, key, l)
}

func (t *tx) DeleteLink(projectID, linkID string) error {
	links := t.bucket(bucketLinks)
	key := linkKey(projectID, linkID)
	l, err := decode[app.Link](links.Get(key))
	if err != nil || l == nil {
		return err
	}
	ports := t.bucket(bucketPorts)
	for _, e := range l.Nodes {
		pk := portKey(projectID, e.NodeID, e.AdapterNumber, e.PortNumber)
		if bytes.Equal(ports.Get(pk), uuidKey(linkID)) {
			if err := ports.Delete(pk); err != nil {
				return err
			}
		}
	}
	return links.Delete(key)
}

func (t *tx) Drawing(projectID, drawingID string) (*app.Drawing, error) {
	return decode[app.Drawing](t.bucket(bucketDrawings).Get(recordKey(projectID, drawingID)))
}

func (t *tx) Drawings(projectID string) ([]*app.Drawing, error) {
	return projectRecords(t.bucket(bucketDrawings), projectID, func(r *app.Drawing) uint64 { return r.Seq })
}

// PutDrawing writes d; a new drawing gets the next sequence number, a
// changed one keeps its own.
func (t *tx) PutDrawing(d *app.Drawing) error {
	b := t.bucket(bucketDrawings)
	key := recordKey(d.ProjectID, d.ID)
	if err := keepSeq(b, key, &d.Seq, func(o *app.Drawing) uint64 { return o.Seq }); err != nil {
		return err
	}
	return put(b, key, d)
}

func (t *tx) DeleteDrawing(projectID, drawingID string) error {
	return t.bucket(bucketDrawings).Delete(recordKey(projectID, drawingID))
}

func (t *tx) Snapshot(projectID, snapshotID string) (*app.Snapshot, error) {
	return decode[app.Snapshot](t.bucket(bucketSnapshots).Get(recordKey(projectID, snapshotID)))
}

func (t *tx) Snapshots(projectID string) ([]*app.Snapshot, error) {
	return projectRecords[app.Snapshot](t.bucket(bucketSnapshots), projectID, nil)
}

func (t *tx) PutSnapshot(s *app.Snapshot) error {
	return put(t.bucket(bucketSnapshots), recordKey(s.ProjectID, s.ID), s)
}

func (t *tx) DeleteSnapshot(projectID, snapshotID string) error {
	return t.bucket(bucketSnapshots).Delete(recordKey(projectID, snapshotID))
}

func (t *tx) Template(id string) (*app.Template, error) {
	return decode[app.Template](t.bucket(bucketTemplates).Get(uuidKey(id)))
}

func (t *tx) Templates() ([]*app.Template, error) {
	var ts []*app.Template
	err := t.bucket(bucketTemplates).ForEach(func(_, v []byte) error {
		tp, err := decode[app.Template](v)
		ts = append(ts, tp)
		return err
	})
	sort.Slice(ts, func(i, j int) bool { return ts[i].Seq < ts[j].Seq })
	return ts, err
}

// PutTemplate writes tp; a new template gets the next sequence number, a
// changed one keeps its own.
func (t *tx) PutTemplate(tp *app.Template) error {
	b := t.bucket(bucketTemplates)
	if err := keepSeq(b, uuidKey(tp.ID), &tp.Seq, func(o *app.Template) uint64 { return o.Seq }); err != nil {
		return err
	}
	return put(b, uuidKey(tp.ID), tp)
}

func (t *tx) DeleteTemplate(id string) error {
	return t.bucket(bucketTemplates).Delete(uuidKey(id))
}

func (t *tx) EmulatorSettings(name string) (map[string]json.RawMessage, error) {
	m, err := decode[map[string]json.RawMessage](t.bucket(bucketSettings).Get([]byte(name)))
	if m == nil || err != nil {
		return nil, err
	}
	return *m, nil
}

func (t *tx) PutEmulatorSettings(name string, settings map[string]json.RawMessage) error {
	return put(t.bucket(bucketSettings), []byte(name), settings)
}

func (t *tx) RestoreIntents() (map[string]string, error) {
	intents := map[string]string{}
	c := t.bucket(bucketSettings).Cursor()
	for k, v := c.Seek(prefixRestoreIntent); k != nil && bytes.HasPrefix(k, prefixRestoreIntent); k, v = c.Next() {
		tag, err := decode[string](v)
		if err != nil {
			return nil, err
		}
		intents[string(k[len(prefixRestoreIntent):])] = *tag
	}
	return intents, nil
}

func (t *tx) PutRestoreIntent(projectID, tag string) error {
	return put(t.bucket(bucketSettings), restoreIntentKey(projectID), tag)
}

func (t *tx) DeleteRestoreIntent(projectID string) error {
	return t.bucket(bucketSettings).Delete(restoreIntentKey(projectID))
}

func restoreIntentKey(projectID string) []byte {
	return append(slices.Clone(prefixRestoreIntent), projectID...)
}

func (t *tx) LinkOnPort(projectID, nodeID string, adapter, port int) (string, bool, error) {
	if adapter < 0 || adapter > 65535 || port < 0 || port > 65535 {
		return "", false, nil
	}
	v := t.bucket(bucketPorts).Get(portKey(projectID, nodeID, adapter, port))
	if len(v) != 16 {
		return "", false, nil
	}
	id, _ := uuid.FromBytes(v)
	return id.String(), true, nil
}

func (t *tx) Node(projectID, nodeID string) (*app.Node, error) {
	n, err := decode[app.Node](t.bucket(bucketNodes).Get(nodeKey(projectID, nodeID)))
	if n != nil && t.read != nil {
		t.read[string(nodeKey(projectID, nodeID))] = indexedOf(n)
	}
	return n, err
}

func (t *tx) Nodes(projectID string) ([]*app.Node, error) {
	return projectRecords(t.bucket(bucketNodes), projectID, func(r *app.Node) uint64 { return r.Seq })
}

// PutNode writes n and moves its index entries (console port, UDP ports,
// name, active) from the stored record's values to n's — only those that
// changed, so that a PUT of x and y dirties no index page.
func (t *tx) PutNode(n *app.Node) error {
	nodes := t.bucket(bucketNodes)
	key := nodeKey(n.ProjectID, n.ID)
	raw := nodes.Get(key)
	old := t.read[string(key)]
	if raw != nil && old == nil {
		old = &indexed{}
		if err := json.Unmarshal(raw, old); err != nil {
			return fmt.Errorf("store: damaged record: %w", err)
		}
	}
	if raw == nil {
		old = nil
	}
	if old != nil {
		n.Seq = old.Seq
	} else if n.Seq == 0 {
		seq, err := nodes.NextSequence()
		if err != nil {
			return err
		}
		n.Seq = seq
	}
	next := indexedOf(n)
	if old == nil || !old.same(next) {
		if old != nil {
			if err := t.unindex(old); err != nil {
				return err
			}
		}
		if err := t.index(next); err != nil {
			return err
		}
	}
	if t.read != nil {
		t.read[string(key)] = next
	}
	enc, err := json.Marshal(n)
	if err != nil {
		return err
	}
	if bytes.Equal(enc, raw) {
		return nil // the same record: nothing to write
	}
	return nodes.Put(key, enc)
}

// indexed is the part of a node record that its index entries come from;
// decoding only this is cheaper than decoding the whole record.
type indexed struct {
	ProjectID string       `json:"project_id"`
	ID        string       `json:"node_id"`
	Type      app.NodeType `json:"node_type"`
	Name      string       `json:"name"`
	Console   int          `json:"console,omitempty"`
	Aux       int          `json:"aux,omitempty"`
	Status    app.Status   `json:"status"`
	UDPPorts  []int        `json:"udp_ports,omitempty"`
	Seq       uint64       `json:"seq"`
}

func indexedOf(n *app.Node) *indexed {
	return &indexed{ProjectID: n.ProjectID, ID: n.ID, Type: n.Type, Name: n.Name, Console: n.Console, Aux: n.Aux,
		Status: n.Status, UDPPorts: n.UDPPorts, Seq: n.Seq}
}

func (x *indexed) same(y *indexed) bool {
	return x.Name == y.Name && x.Console == y.Console && x.Aux == y.Aux && x.active() == y.active() && slices.Equal(x.UDPPorts, y.UDPPorts)
}

// consoles are the node's console ports: its console's and its aux
// console's, both owned in one index.
func (x *indexed) consoles() []int {
	var ps []int
	for _, p := range []int{x.Console, x.Aux} {
		if p != 0 {
			ps = append(ps, p)
		}
	}
	return ps
}

// active reports whether the node belongs in the active index (app's
// Node.Active decides).
func (x *indexed) active() bool { return app.Active(x.Type, x.Status) }

// index adds a node's index entries.
func (t *tx) index(n *indexed) error {
	key := nodeKey(n.ProjectID, n.ID)
	for _, port := range n.consoles() {
		if err := t.bucket(bucketConsoles).Put(u16Key(port), key); err != nil {
			return err
		}
	}
	for _, p := range n.UDPPorts {
		if err := t.bucket(bucketUDP).Put(u16Key(p), key); err != nil {
			return err
		}
	}
	if n.active() {
		if err := t.bucket(bucketActive).Put(key, nil); err != nil {
			return err
		}
	}
	return t.bucket(bucketNames).Put(nameKey(n.ProjectID, n.Name), uuidKey(n.ID))
}

// unindex removes a stored node's index entries, if they still point at it.
func (t *tx) unindex(n *indexed) error {
	key := nodeKey(n.ProjectID, n.ID)
	cons := t.bucket(bucketConsoles)
	for _, port := range n.consoles() {
		if bytes.Equal(cons.Get(u16Key(port)), key) {
			if err := cons.Delete(u16Key(port)); err != nil {
				return err
			}
		}
	}
	udp := t.bucket(bucketUDP)
	for _, p := range n.UDPPorts {
		if bytes.Equal(udp.Get(u16Key(p)), key) {
			if err := udp.Delete(u16Key(p)); err != nil {
				return err
			}
		}
	}
	if err := t.bucket(bucketActive).Delete(key); err != nil {
		return err
	}
	names := t.bucket(bucketNames)
	if bytes.Equal(names.Get(nameKey(n.ProjectID, n.Name)), uuidKey(n.ID)) {
		return names.Delete(nameKey(n.ProjectID, n.Name))
	}
	return nil
}

func (t *tx) DeleteNode(projectID, nodeID string) error {
	nodes := t.bucket(bucketNodes)
	key := nodeKey(projectID, nodeID)
	old, err := decode[app.Node](nodes.Get(key))
	if err != nil || old == nil {
		return err
	}
	if err := t.unindex(indexedOf(old)); err != nil {
		return err
	}
	if err := t.deleteNodeNIOs(projectID, nodeID); err != nil {
		return err
	}
	delete(t.read, string(key))
	return nodes.Delete(key)
}

func (t *tx) ConsoleOwner(port int) (app.NodeKey, bool, error) {
	return portOwner(t.bucket(bucketConsoles), port)
}

// UDPOwner returns what holds a UDP port as a node key: a node's pair,
// the node of a NIO, or (NodeID empty) a project's reservation.
func (t *tx) UDPOwner(port int) (app.NodeKey, bool, error) {
	u, taken, err := t.UDPUse(port)
	return app.NodeKey{ProjectID: u.ProjectID, NodeID: u.NodeID}, taken, err
}

// portOwner reads a port index (port -> project + node).
func portOwner(b bucket, port int) (app.NodeKey, bool, error) {
	if port < 1 || port > 65535 {
		return app.NodeKey{}, false, nil
	}
	v := b.Get(u16Key(port))
	if len(v) != 32 {
		return app.NodeKey{}, false, nil
	}
	return keyOf(v), true, nil
}

// keyOf decodes project uuid + node uuid.
func keyOf(k []byte) app.NodeKey {
	pid, _ := uuid.FromBytes(k[:16])
	nid, _ := uuid.FromBytes(k[16:32])
	return app.NodeKey{ProjectID: pid.String(), NodeID: nid.String()}
}

func (t *tx) ActiveNodes() ([]app.NodeKey, error) {
	var keys []app.NodeKey
	err := t.bucket(bucketActive).ForEach(func(k, _ []byte) error {
		keys = append(keys, keyOf(k))
		return nil
	})
	return keys, err
}

func (t *tx) ConsolePorts() ([]int, error) {
	ports := []int{}
	err := t.bucket(bucketConsoles).ForEach(func(k, _ []byte) error {
		ports = append(ports, int(binary.BigEndian.Uint16(k)))
		return nil
	})
	return ports, err
}

func (t *tx) NodeIDByName(projectID, name string) (string, bool, error) {
	v := t.bucket(bucketNames).Get(nameKey(projectID, name))
	if len(v) != 16 {
		return "", false, nil
	}
	id, _ := uuid.FromBytes(v)
	return id.String(), true, nil
}

func put(b bucket, key []byte, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(key, raw)
}

// projectRecords decodes the records of a project in b (keys prefixed by
// its id), in the order seq gives them (key order when seq is nil).
func projectRecords[T any](b bucket, projectID string, seq func(*T) uint64) ([]*T, error) {
	prefix := uuidKey(projectID)
	out := []*T{}
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		r, err := decode[T](v)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if seq != nil {
		sort.Slice(out, func(i, j int) bool { return seq(out[i]) < seq(out[j]) })
	}
	return out, nil
}

// keepSeq gives a record about to be written under key its sequence
// number, when *seq is 0: the stored record's, or the bucket's next for a
// new one.
func keepSeq[T any](b bucket, key []byte, seq *uint64, stored func(*T) uint64) error {
	if *seq != 0 {
		return nil
	}
	old, err := decode[T](b.Get(key))
	switch {
	case err != nil:
		return err
	case old != nil:
		*seq = stored(old)
		return nil
	}
	*seq, err = b.NextSequence()
	return err
}
