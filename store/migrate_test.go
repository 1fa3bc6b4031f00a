package store

import (
	"encoding/binary"
	"encoding/json"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	"nodedesk/app"
)

// TestMigrate_V1 opens a store as schema 1 wrote it (no links) and finds it
// upgraded: records intact, links usable, version raised.
func TestMigrate_V1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &app.Project{ID: "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", Name: "old", Seq: 1}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketMeta, bucketProjects, bucketNodes, bucketConsoles, bucketNames} {
			if _, err := tx.CreateBucket(b); err != nil {
				return err
			}
		}
		raw, _ := json.Marshal(p)
		if err := tx.Bucket(bucketProjects).Put(uuidKey(p.ID), raw); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keySchemaVersion, binary.BigEndian.AppendUint64(nil, 1))
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	s := mustOpenAt(t, path)
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
	if err := s.db.View(func(tx *bolt.Tx) error {
		if v := binary.BigEndian.Uint64(tx.Bucket(bucketMeta).Get(keySchemaVersion)); v != schemaVersion {
			t.Errorf("schema version %d after migration, want %d", v, schemaVersion)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
