package store

import (
	"testing"

	"nodedesk/app"
)

func TestTx_Links(t *testing.T) {
	s := mustOpenStore(t)
	p := mustPutProject(t, s, "lab")
	a, b := mustPutNode(t, s, p, "a", 0), mustPutNode(t, s, p, "b", 0)
	l := &app.Link{ID: "11111111-2222-4333-8444-555555555555", ProjectID: p.ID,
		Nodes: []app.LinkEnd{{NodeID: a.ID, PortNumber: 0}, {NodeID: b.ID, AdapterNumber: 1, PortNumber: 2}}}
	mustUpdate(t, s, func(tx app.Tx) error { return tx.PutLink(l) })
	mustView(t, s, func(tx app.Tx) error {
		if id, ok, _ := tx.LinkOnPort(p.ID, b.ID, 1, 2); !ok || id != l.ID {
			t.Errorf("LinkOnPort(b 1/2) = %q %v", id, ok)
		}
		if _, ok, _ := tx.LinkOnPort(p.ID, b.ID, 0, 2); ok {
			t.Error("LinkOnPort(b 0/2) found a link")
		}
		if ls, _ := tx.NodeLinks(p.ID, a.ID); len(ls) != 1 || ls[0].ID != l.ID {
			t.Errorf("NodeLinks(a) = %v", ls)
		}
		return nil
	})
	mustUpdate(t, s, func(tx app.Tx) error { return tx.DeleteLink(p.ID, l.ID) })
	mustView(t, s, func(tx app.Tx) error {
		if _, ok, _ := tx.LinkOnPort(p.ID, a.ID, 0, 0); ok {
			t.Error("a deleted link still holds its port")
		}
		return nil
	})
	mustUpdate(t, s, func(tx app.Tx) error { return tx.PutLink(l) })
	mustUpdate(t, s, func(tx app.Tx) error { return tx.DeleteProject(p.ID) })
	mustView(t, s, func(tx app.Tx) error {
		if got, _ := tx.Link(p.ID, l.ID); got != nil {
			t.Error("a deleted project's link remains")
		}
		if _, ok, _ := tx.LinkOnPort(p.ID, a.ID, 0, 0); ok {
			t.Error("a deleted project's link still holds its port")
		}
		return nil
	})
}
