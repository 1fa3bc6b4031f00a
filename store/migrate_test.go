package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	bolt "go.etcd.io/bbolt"

	"nodedesk/app"
)

// TestMigrate_V1 opens a store as schema 1 wrote it (no links) and finds it
// upgraded: records intact, links usable, version raised.
func TestMigrate_V1(t *testing.T) {
	p := &app.Project{ID: "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", Name: "old", Seq: 1}
	s := mustOpenAt(t, writeOldStore(t, 1, [][]byte{bucketMeta, bucketProjects, bucketNodes, bucketConsoles, bucketNames}, func(put putFunc) error {
		return put(bucketProjects, uuidKey(p.ID), p)
	}))
	mustView(t, s, func(tx app.Tx) error {
		got, err := tx.Project(p.ID)
		if err != nil || got == nil || got.Name != "old" {
			t.Errorf("project after migration: %v, %v", got, err)
		}
		ls, err := tx.Links(p.ID)
		if err != nil || len(ls) != 0 {
			t.Errorf("links after migration: %v, %v", ls, err)
		}
		return nil
	})
	mustUpdate(t, s, func(tx app.Tx) error {
		return tx.PutLink(&app.Link{ID: "11111111-2222-4333-8444-555555555555", ProjectID: p.ID,
			Nodes: []app.LinkEnd{{NodeID: "11111111-2222-4333-8444-000000000001"}, {NodeID: "11111111-2222-4333-8444-000000000002", PortNumber: 1}}})
	})
	wantSchemaVersion(t, s)
}

// TestMigrate_V2 opens a store as schema 2 wrote it, with nodes and a link,
// and finds the schema 3 indexes built from the records: the UDP ports of
// every node that has them, and the active index holding exactly the
// process-run nodes that are not stopped. Records and links are intact.
func TestMigrate_V2(t *testing.T) {
	pid := "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"
	running := &app.Node{ID: "11111111-0000-4000-8000-000000000001", ProjectID: pid, Type: app.VPCS, Name: "PC1",
		Console: 5000, ConsoleType: app.ConsoleTelnet, Status: app.Started, UDPPorts: []int{20000, 20001}, Seq: 1}
	stopped := &app.Node{ID: "11111111-0000-4000-8000-000000000002", ProjectID: pid, Type: app.VPCS, Name: "PC2",
		Console: 5001, ConsoleType: app.ConsoleTelnet, Status: app.Stopped, UDPPorts: []int{20002, 20003}, Seq: 2}
	sw := &app.Node{ID: "11111111-0000-4000-8000-000000000003", ProjectID: pid, Type: app.EthernetSwitch, Name: "Switch1",
		Status: app.Started, Properties: app.Properties{SwitchPorts: []app.SwitchPort{{Name: "e0", Type: "access", VLAN: 1}}}, Seq: 3}
	link := &app.Link{ID: "22222222-0000-4000-8000-000000000001", ProjectID: pid, LinkType: "ethernet",
		Nodes: []app.LinkEnd{{NodeID: running.ID}, {NodeID: sw.ID}}, Seq: 1}
	path := writeOldStore(t, 2, [][]byte{bucketMeta, bucketProjects, bucketNodes, bucketConsoles, bucketNames, bucketLinks, bucketPorts}, func(put putFunc) error {
		err := errors.Join(
			put(bucketProjects, uuidKey(pid), &app.Project{ID: pid, Name: "old", Seq: 1}),
			put(bucketLinks, linkKey(pid, link.ID), link),
			put(bucketPorts, portKey(pid, running.ID, 0, 0), uuidKey(link.ID)),
			put(bucketPorts, portKey(pid, sw.ID, 0, 0), uuidKey(link.ID)))
		for _, n := range []*app.Node{running, stopped, sw} {
			err = errors.Join(err, put(bucketNodes, nodeKey(pid, n.ID), n), put(bucketNames, nameKey(pid, n.Name), uuidKey(n.ID)))
			if n.Console != 0 {
				err = errors.Join(err, put(bucketConsoles, u16Key(n.Console), nodeKey(pid, n.ID)))
			}
		}
		return err
	})

	s := mustOpenAt(t, path)
	mustView(t, s, func(tx app.Tx) error {
		for port, want := range map[int]string{20000: running.ID, 20001: running.ID, 20002: stopped.ID, 20003: stopped.ID} {
			if k, ok, err := tx.UDPOwner(port); err != nil || !ok || k.NodeID != want || k.ProjectID != pid {
				t.Errorf("UDP port %d owned by %v (%v, %v), want %s", port, k, ok, err, want)
			}
		}
		if _, ok, _ := tx.UDPOwner(20004); ok {
			t.Error("UDP port 20004 has an owner, but no node has it")
		}
		active, err := tx.ActiveNodes()
		if err != nil || len(active) != 1 || active[0].NodeID != running.ID {
			t.Errorf("active nodes %v (%v), want only the started VPCS %s", active, err, running.ID)
		}
		if lid, used, err := tx.LinkOnPort(pid, sw.ID, 0, 0); err != nil || !used || lid != link.ID {
			t.Errorf("switch port 0 link %q (%v, %v), want %s", lid, used, err, link.ID)
		}
		ls, err := tx.NodeLinks(pid, running.ID)
		if err != nil || len(ls) != 1 || ls[0].ID != link.ID {
			t.Errorf("PC1's links %v (%v)", ls, err)
		}
		for _, want := range []*app.Node{running, stopped, sw} {
			got, err := tx.Node(pid, want.ID)
			if err != nil || got == nil || got.Name != want.Name || got.Status != want.Status || !slices.Equal(got.UDPPorts, want.UDPPorts) {
				t.Errorf("node %s after migration: %+v (%v)", want.Name, got, err)
			}
		}
		return nil
	})
}

// TestMigrate_V3 opens a store as schema 3 wrote it (no drawings, no
// settings) and finds it upgraded: records intact, drawings and the IOU
// license setting usable, version raised.
func TestMigrate_V3(t *testing.T) {
	p := &app.Project{ID: "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", Name: "old", Seq: 1}
	s := mustOpenAt(t, writeOldStore(t, 3, [][]byte{bucketMeta, bucketProjects, bucketNodes, bucketConsoles, bucketNames, bucketLinks, bucketPorts, bucketUDP, bucketActive}, func(put putFunc) error {
		return put(bucketProjects, uuidKey(p.ID), p)
	}))
	d := &app.Drawing{ID: "dddddddd-0000-4000-8000-000000000001", ProjectID: p.ID, SVG: "<svg></svg>"}
	mustUpdate(t, s, func(tx app.Tx) error {
		if ds, err := tx.Drawings(p.ID); err != nil || len(ds) != 0 {
			t.Errorf("drawings after migration: %v, %v", ds, err)
		}
		if l, err := tx.EmulatorSettings("iou_license"); err != nil || l != nil {
			t.Errorf("IOU license after migration: %v, %v", l, err)
		}
		return errors.Join(tx.PutDrawing(d), tx.PutEmulatorSettings("iou_license", map[string]json.RawMessage{"license_check": json.RawMessage("true")}))
	})
	mustView(t, s, func(tx app.Tx) error {
		if got, err := tx.Project(p.ID); err != nil || got == nil || got.Name != "old" {
			t.Errorf("project after migration: %v, %v", got, err)
		}
		if got, err := tx.Drawing(p.ID, d.ID); err != nil || got == nil {
			t.Errorf("drawing after migration: %v, %v", got, err)
		}
		return nil
	})
	wantSchemaVersion(t, s)
}

// TestMigrate_V4 opens a store as schema 4 wrote it (no snapshots) and
// finds it upgraded: records intact, snapshots usable, version raised.
func TestMigrate_V4(t *testing.T) {
	p := &app.Project{ID: "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", Name: "old", Seq: 1}
	s := mustOpenAt(t, writeOldStore(t, 4, [][]byte{bucketMeta, bucketProjects, bucketNodes, bucketConsoles, bucketNames, bucketLinks, bucketPorts, bucketUDP, bucketActive, bucketDrawings, bucketSettings}, func(put putFunc) error {
		return put(bucketProjects, uuidKey(p.ID), p)
	}))
	snap := &app.Snapshot{ID: "5a5a5a5a-0000-4000-8000-000000000001", ProjectID: p.ID, Name: "before", CreatedAt: 1700000000, Project: p}
	mustUpdate(t, s, func(tx app.Tx) error {
		if ss, err := tx.Snapshots(p.ID); err != nil || len(ss) != 0 {
			t.Errorf("snapshots after migration: %v, %v", ss, err)
		}
		return tx.PutSnapshot(snap)
	})
	mustView(t, s, func(tx app.Tx) error {
		if got, err := tx.Project(p.ID); err != nil || got == nil || got.Name != "old" {
			t.Errorf("project after migration: %v, %v", got, err)
		}
		if got, err := tx.Snapshot(p.ID, snap.ID); err != nil || got == nil || got.Name != "before" || got.Project.Name != "old" {
			t.Errorf("snapshot after migration: %v, %v", got, err)
		}
		return nil
	})
	wantSchemaVersion(t, s)
	if err := s.db.View(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketTemplates) == nil {
			t.Error("no templates bucket after migration")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestMigrate_V5 opens a store as schema 5 wrote it (no history) and finds
// it upgraded: records intact, both history stacks empty and usable,
// version raised.
func TestMigrate_V5(t *testing.T) {
	p := &app.Project{ID: "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", Name: "old", Seq: 1}
	s := mustOpenAt(t, writeOldStore(t, 5, [][]byte{bucketMeta, bucketProjects, bucketNodes, bucketConsoles, bucketNames, bucketLinks, bucketPorts, bucketUDP, bucketActive, bucketDrawings, bucketSettings, bucketSnapshots, bucketTemplates}, func(put putFunc) error {
		return put(bucketProjects, uuidKey(p.ID), p)
	}))
	mustUpdate(t, s, func(tx app.Tx) error {
		for _, st := range []app.HistoryStack{app.UndoStack, app.RedoStack} {
			if es, err := tx.History(p.ID, st); err != nil || len(es) != 0 {
				t.Errorf("history after migration: %v, %v", es, err)
			}
		}
		return tx.PushHistory(app.UndoStack, &app.HistoryEntry{ID: "e", ProjectID: p.ID, Description: "Changed project settings"}, app.MaxHistory)
	})
	mustView(t, s, func(tx app.Tx) error {
		if got, err := tx.Project(p.ID); err != nil || got == nil || got.Name != "old" {
			t.Errorf("project after migration: %v, %v", got, err)
		}
		if e, err := tx.HistoryTop(p.ID, app.UndoStack); err != nil || e == nil || e.Description != "Changed project settings" {
			t.Errorf("history entry after migration: %v, %v", e, err)
		}
		return nil
	})
	wantSchemaVersion(t, s)
}

// TestMigrate_V6 opens a schema-6 store: its projects are kept and the
// NIO and compute buckets of schema 7 exist, empty.
func TestMigrate_V6(t *testing.T) {
	p := &app.Project{ID: "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", Name: "old", Seq: 1}
	s := mustOpenAt(t, writeOldStore(t, 6, [][]byte{bucketMeta, bucketProjects, bucketNodes, bucketConsoles, bucketNames, bucketLinks, bucketPorts, bucketUDP, bucketActive, bucketDrawings, bucketSettings, bucketSnapshots, bucketTemplates, bucketUndo, bucketRedo}, func(put putFunc) error {
		return put(bucketProjects, uuidKey(p.ID), p)
	}))
	mustView(t, s, func(tx app.Tx) error {
		if got, err := tx.Project(p.ID); err != nil || got == nil || got.Name != "old" {
			t.Errorf("project after migration: %v, %v", got, err)
		}
		return nil
	})
	if err := s.db.View(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketNIOs, bucketComputes} {
			if bk := tx.Bucket(b); bk == nil || bk.Stats().KeyN != 0 {
				t.Errorf("bucket %s after migration: %v", b, bk)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	wantSchemaVersion(t, s)
}

// putFunc stores v (JSON, or raw bytes as given) under key k of bucket b.
type putFunc func(b, k []byte, v any) error

// writeOldStore writes a store file as schema version wrote it: the
// buckets that version had, the records fill puts, and the version key.
// It returns the file's path, closed.
func writeOldStore(t *testing.T, version uint64, buckets [][]byte, fill func(put putFunc) error) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range buckets {
			if _, err := tx.CreateBucket(b); err != nil {
				return err
			}
		}
		put := func(b, k []byte, v any) error {
			raw, ok := v.([]byte)
			if !ok {
				raw, _ = json.Marshal(v)
			}
			return tx.Bucket(b).Put(k, raw)
		}
		if err := fill(put); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keySchemaVersion, binary.BigEndian.AppendUint64(nil, version))
	})
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// wantSchemaVersion checks that s is at the current schema version.
func wantSchemaVersion(t *testing.T, s *Store) {
	t.Helper()
	if err := s.db.View(func(tx *bolt.Tx) error {
		if v := binary.BigEndian.Uint64(tx.Bucket(bucketMeta).Get(keySchemaVersion)); v != schemaVersion {
			t.Errorf("schema version %d after migration, want %d", v, schemaVersion)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
