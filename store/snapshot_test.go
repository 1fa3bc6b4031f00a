package store

import (
	"errors"
	"path/filepath"
	"testing"

	"nodedesk/app"
)

func TestTx_Snapshots(t *testing.T) {
	s := mustOpenStore(t)
	p, other := mustPutProject(t, s, "lab"), mustPutProject(t, s, "other")
	a := &app.Snapshot{ID: "5a5a5a5a-0000-4000-8000-000000000001", ProjectID: p.ID, Name: "a", Project: p,
		Nodes: []*app.Node{{ID: "11111111-0000-4000-8000-000000000001", ProjectID: p.ID, Type: app.VPCS, Name: "PC1", Console: 5000}}}
	b := &app.Snapshot{ID: "5a5a5a5a-0000-4000-8000-000000000002", ProjectID: other.ID, Name: "b", Project: other}
	mustUpdate(t, s, func(tx app.Tx) error { return tx.PutSnapshot(a) })
	mustUpdate(t, s, func(tx app.Tx) error { return tx.PutSnapshot(b) })
	mustView(t, s, func(tx app.Tx) error {
		ss, err := tx.Snapshots(p.ID)
		if err != nil || len(ss) != 1 || ss[0].Name != "a" || len(ss[0].Nodes) != 1 || ss[0].Nodes[0].Console != 5000 {
			t.Errorf("Snapshots = %+v, %v", ss, err)
		}
		// A snapshot's nodes own no console port: they are not nodes.
		if _, ok, _ := tx.ConsoleOwner(5000); ok {
			t.Error("a snapshot's node owns a console port")
		}
		return nil
	})
	mustUpdate(t, s, func(tx app.Tx) error { return tx.DeleteProject(p.ID) })
	mustView(t, s, func(tx app.Tx) error {
		if ss, _ := tx.Snapshots(p.ID); len(ss) != 0 {
			t.Errorf("a deleted project's snapshots remain: %+v", ss)
		}
		if got, _ := tx.Snapshot(other.ID, b.ID); got == nil {
			t.Error("another project's snapshot is gone")
		}
		return nil
	})
	mustUpdate(t, s, func(tx app.Tx) error { return tx.DeleteSnapshot(other.ID, b.ID) })
	mustView(t, s, func(tx app.Tx) error {
		if got, _ := tx.Snapshot(other.ID, b.ID); got != nil {
			t.Error("a deleted snapshot remains")
		}
		return nil
	})
}

func TestTx_Templates(t *testing.T) {
	path := t.TempDir() + "/nodedesk.db"
	s := mustOpenAt(t, path)
	b := &app.Template{ID: "7e7e7e7e-0000-4000-8000-000000000002", Name: "b", Type: app.VPCS}
	a := &app.Template{ID: "7e7e7e7e-0000-4000-8000-000000000001", Name: "a", Type: app.EthernetSwitch}
	mustUpdate(t, s, func(tx app.Tx) error { return tx.PutTemplate(b) })
	mustUpdate(t, s, func(tx app.Tx) error { return tx.PutTemplate(a) })
	changed := *b
	changed.Seq, changed.Name = 0, "b2"
	mustUpdate(t, s, func(tx app.Tx) error { return tx.PutTemplate(&changed) })
	s.Close()
	s = mustOpenAt(t, path)
	mustView(t, s, func(tx app.Tx) error {
		ts, err := tx.Templates()
		if err != nil || len(ts) != 2 || ts[0].Name != "b2" || ts[1].Name != "a" {
			t.Errorf("Templates = %+v, %v; want b2 (changed, first created) then a", ts, err)
		}
		return nil
	})
	mustUpdate(t, s, func(tx app.Tx) error { return tx.DeleteTemplate(a.ID) })
	mustView(t, s, func(tx app.Tx) error {
		if got, _ := tx.Template(a.ID); got != nil {
			t.Error("a deleted template remains")
		}
		return nil
	})
}

// TestTx_RestoreIntents: a restore's intent survives a reopen of the file,
// ends when deleted, and goes with its project.
func TestTx_RestoreIntents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nodedesk.db")
	s := mustOpenAt(t, path)
	p1, p2 := mustPutProject(t, s, "one"), mustPutProject(t, s, "two")
	mustUpdate(t, s, func(tx app.Tx) error {
		return errors.Join(tx.PutRestoreIntent(p1.ID, "tag1"), tx.PutRestoreIntent(p2.ID, "tag2"))
	})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = mustOpenAt(t, path)
	intents := func() map[string]string {
		var m map[string]string
		mustView(t, s, func(tx app.Tx) (err error) { m, err = tx.RestoreIntents(); return err })
		return m
	}
	if got := intents(); len(got) != 2 || got[p1.ID] != "tag1" || got[p2.ID] != "tag2" {
		t.Fatalf("intents after a reopen = %v", got)
	}
	mustUpdate(t, s, func(tx app.Tx) error {
		return errors.Join(tx.DeleteRestoreIntent(p1.ID), tx.DeleteProject(p2.ID))
	})
	if got := intents(); len(got) != 0 {
		t.Errorf("intents after ending one and deleting the other's project = %v", got)
	}
}
