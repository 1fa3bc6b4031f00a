package store

import (
	"encoding/binary"
	"fmt"
	"nodedesk/app"

	bolt "go.etcd.io/bbolt"
)

// schemaVersion is the layout this nodedesk writes. Raise it only together
// with a new entry in migrations.
const schemaVersion = 7

// migrations[i] turns a store of schema version i+1 into version i+2. The
// list is append-only; a store newer than schemaVersion is refused.
var migrations = []func(tx *bolt.Tx) error{
	// 1 -> 2: links, and the index of the ports they use.
	func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketLinks, bucketPorts} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	},
	// 2 -> 3: the UDP port index, and the index of process-bound nodes
	// that are not stopped, built from the node records.
	func(tx *bolt.Tx) error {
		udp, err := tx.CreateBucketIfNotExists(bucketUDP)
		if err != nil {
			return err
		}
		active, err := tx.CreateBucketIfNotExists(bucketActive)
		if err != nil {
			return err
		}
		return tx.Bucket(bucketNodes).ForEach(func(k, v []byte) error {
			n, err := decode[app.Node](v)
			if err != nil {
				return err
			}
			for _, p := range n.UDPPorts {
				if err := udp.Put(u16Key(p), k); err != nil {
					return err
				}
			}
			if indexedOf(n).active() {
				return active.Put(k, nil)
			}
			return nil
		})
	},
	// 3 -> 4: the drawings of the canvas, and the controller's settings.
	func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketDrawings, bucketSettings} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	},
	// 4 -> 5: project snapshots, and user templates.
	func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketSnapshots, bucketTemplates} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	},
	// 5 -> 6: the undo and redo stacks of each project's history (empty:
	// history starts with the first change after the upgrade).
	func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketUndo, bucketRedo} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	},
	// 6 -> 7: the UDP tunnels (NIOs) a GNS3 controller gives node ports when
	// nodedesk is its compute, and the remote computes nodedesk drives
	// (both empty after the upgrade).
	func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketNIOs, bucketComputes} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	},
}

// migrate brings the store to schemaVersion: it lays out a new (empty)
// file, upgrades an older one, and refuses a file that is not a nodedesk
// store or was written by a newer nodedesk.
func migrate(db *bolt.DB, path string) error {
	return db.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if meta == nil {
			foreign := false
			_ = tx.ForEach(func([]byte, *bolt.Bucket) error { foreign = true; return nil })
			if foreign {
				return fmt.Errorf("%s is a bbolt file but not a nodedesk store; choose another file with --db", path)
			}
			for _, b := range allBuckets {
				if _, err := tx.CreateBucket(b); err != nil {
					return err
				}
			}
			return tx.Bucket(bucketMeta).Put(keySchemaVersion, u64(schemaVersion))
		}
		raw := meta.Get(keySchemaVersion)
		if len(raw) != 8 {
			return fmt.Errorf("%s has no valid schema version; it is damaged or not a nodedesk store", path)
		}
		v := binary.BigEndian.Uint64(raw)
		if v > schemaVersion {
			return fmt.Errorf("%s was written by a newer nodedesk (store schema %d; this version knows up to %d); upgrade nodedesk", path, v, schemaVersion)
		}
		for ; v < schemaVersion; v++ {
			if err := migrations[v-1](tx); err != nil {
				return fmt.Errorf("migrating %s from schema %d: %w", path, v, err)
			}
		}
		return meta.Put(keySchemaVersion, u64(schemaVersion))
	})
}
