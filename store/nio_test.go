package store

import (
	"testing"

	"nodedesk/app"
)

// NIOs share the UDP index with VPCS pairs and reservations: an lport is
// held by exactly one of them, and freed with what held it.
func TestTx_NIOs(t *testing.T) {
	s := mustOpenStore(t)
	p := mustPutProject(t, s, "lab")
	a := mustPutNode(t, s, p, "a", 0)
	use := func(port int) (app.UDPUse, bool) {
		var u app.UDPUse
		var ok bool
		mustView(t, s, func(tx app.Tx) error { u, ok, _ = tx.UDPUse(port); return nil })
		return u, ok
	}
	mustUpdate(t, s, func(tx app.Tx) error { return tx.ReserveUDP(p.ID, 20001) })
	if u, ok := use(20001); !ok || u.ProjectID != p.ID || u.NodeID != "" || u.NIO {
		t.Fatalf("reservation: %+v %v", u, ok)
	}
	n := &app.NIO{ProjectID: p.ID, NodeID: a.ID, AdapterNumber: 1, PortNumber: 2, Type: "nio_udp", LPort: 20001, RHost: "127.0.0.1", RPort: 20002}
	mustUpdate(t, s, func(tx app.Tx) error { return tx.PutNIO(n) })
	if u, ok := use(20001); !ok || !u.NIO || u.NodeID != a.ID || u.Adapter != 1 || u.Port != 2 {
		t.Fatalf("a NIO's lport: %+v %v", u, ok)
	}
	mustView(t, s, func(tx app.Tx) error {
		if o, ok, _ := tx.UDPOwner(20001); !ok || o.NodeID != a.ID {
			t.Errorf("UDPOwner of a NIO's lport = %+v %v", o, ok)
		}
		return nil
	})
	// Replaced with another lport: the old one is free.
	m := *n
	m.LPort = 20003
	mustUpdate(t, s, func(tx app.Tx) error { return tx.PutNIO(&m) })
	if _, ok := use(20001); ok {
		t.Error("the replaced NIO's lport is still held")
	}
	mustView(t, s, func(tx app.Tx) error {
		if got, _ := tx.NIOs(p.ID); len(got) != 1 || got[0].LPort != 20003 {
			t.Errorf("NIOs = %v", got)
		}
		return nil
	})
	mustUpdate(t, s, func(tx app.Tx) error { return tx.DeleteNIO(p.ID, a.ID, 1, 2) })
	if _, ok := use(20003); ok {
		t.Error("a deleted NIO's lport is still held")
	}
	// A node's deletion takes its NIOs; a project's, its reservations.
	mustUpdate(t, s, func(tx app.Tx) error { return tx.PutNIO(n) })
	mustUpdate(t, s, func(tx app.Tx) error { return tx.ReserveUDP(p.ID, 20005) })
	mustUpdate(t, s, func(tx app.Tx) error { return tx.DeleteNode(p.ID, a.ID) })
	mustView(t, s, func(tx app.Tx) error {
		if got, _ := tx.NIO(p.ID, a.ID, 1, 2); got != nil {
			t.Error("a deleted node's NIO remains")
		}
		return nil
	})
	if _, ok := use(20001); ok {
		t.Error("a deleted node's NIO still holds its lport")
	}
	mustUpdate(t, s, func(tx app.Tx) error { return tx.DeleteProject(p.ID) })
	if _, ok := use(20005); ok {
		t.Error("a deleted project's reservation remains")
	}
}
