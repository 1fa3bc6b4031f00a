package labtest

import (
	"fmt"
	"strings"
	"testing"

	"nodedesk/app"
	"nodedesk/app/kit"
)

// TestHistory_TunnelPortTaken: with the data plane binding tunnels, an
// undo that brings back a cloud whose tunnel's local port another
// project's cloud took since is refused; an undo that keeps a cloud's
// tunnel (its own port, bound) is not.
func TestHistory_TunnelPortTaken(t *testing.T) {
	ts := Start(t, Options{DataPlane: true})
	pid, other := ts.MustCreateProject("lab"), ts.MustCreateProject("other")
	peer := kit.NewUDPPeer(t)
	cloud := ts.CloudTunnels(t, pid, peer)
	base := "/v2/projects/" + pid
	ts.Do("PUT", base+"/nodes/"+cloud, map[string]any{"x": 30}).Want(t, 200)
	ts.Do("POST", base+"/undo", nil).Want(t, 200) // the move: its bound tunnel is its own
	before := kit.ProjectDigest(t, ts.Store, pid)
	ts.Do("DELETE", base+"/nodes/"+cloud, nil).Want(t, 204)
	thief := ts.CloudTunnels(t, other, peer)
	deleted := kit.ProjectDigest(t, ts.Store, pid)
	msg := ts.Do("POST", base+"/undo", nil).Want(t, 409).JSON(t)["message"].(string)
	if !strings.Contains(msg, fmt.Sprintf("local UDP port %d is now in use", peer.LPort)) {
		t.Errorf("409 %q", msg)
	}
	kit.WantDigest(t, "after a refused undo", kit.ProjectDigest(t, ts.Store, pid), deleted)
	ts.Do("DELETE", "/v2/projects/"+other+"/nodes/"+thief, nil).Want(t, 204)
	ts.Do("POST", base+"/undo", nil).Want(t, 200)
	kit.WantDigest(t, "the cloud brought back", kit.ProjectDigest(t, ts.Store, pid), before)
}

// TestHistory_VPCS: with real VPCS processes, starting, suspending and
// stopping record nothing; undoing a move keeps a running node running;
// undoing its creation stops it first; a node brought back is stopped.
func TestHistory_VPCS(t *testing.T) {
	ts := StartVPCS(t)
	pid := ts.MustCreateProject("lab")
	base := "/v2/projects/" + pid
	other := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": "other"})
	pc := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": "pc"})
	path := base + "/nodes/" + pc["node_id"].(string)
	h := ts.Do("GET", base+"/history", nil).Want(t, 200).Body
	ts.Do("POST", path+"/start", nil).Want(t, 200)
	ts.Do("POST", path+"/suspend", nil).Want(t, 200)
	ts.Do("POST", path+"/reload", nil).Want(t, 200)
	if got := ts.Do("GET", base+"/history", nil).Want(t, 200).Body; string(got) != string(h) {
		t.Fatalf("start, suspend and reload were recorded:\n%s\nwant\n%s", got, h)
	}
	ts.Do("PUT", path, map[string]any{"x": 40}).Want(t, 200)
	ts.Do("POST", base+"/undo", nil).Want(t, 200)
	if got := ts.Do("GET", path, nil).Want(t, 200).JSON(t); got["status"] != "started" || got["x"] != 0.0 {
		t.Fatalf("after undoing a move of a running node: %v %v", got["status"], got["x"])
	}
	// An undo refused stops nothing: here a link made behind the
	// history's back holds the node.
	link := &app.Link{ID: "5e9f3c1a-0000-4000-8000-00000000cccc", ProjectID: pid, LinkType: "ethernet",
		Nodes: []app.LinkEnd{{NodeID: pc["node_id"].(string)}, {NodeID: other["node_id"].(string)}}}
	if err := ts.Store.Update(func(tx app.Tx) error { return tx.PutLink(link) }); err != nil {
		t.Fatal(err)
	}
	ts.Do("POST", base+"/undo", nil).Want(t, 409)
	if got := ts.Do("GET", path, nil).Want(t, 200).JSON(t)["status"]; got != "started" {
		t.Fatalf("after a refused undo the node is %v", got)
	}
	if err := ts.Store.Update(func(tx app.Tx) error { return tx.DeleteLink(pid, link.ID) }); err != nil {
		t.Fatal(err)
	}
	ts.Do("POST", base+"/undo", nil).Want(t, 200) // its creation: stopped, then deleted
	ts.Do("GET", path, nil).Want(t, 404)
	if got := ts.Do("POST", base+"/redo", nil).Want(t, 200).JSON(t); got["description"] != "Added pc" {
		t.Errorf("redo %v", got)
	}
	if got := ts.Do("GET", path, nil).Want(t, 200).JSON(t); got["status"] != "stopped" || got["console"] != pc["console"] {
		t.Errorf("redone node: %v", got)
	}
	ts.Do("POST", path+"/start", nil).Want(t, 200)
	ts.Do("POST", path+"/stop", nil).Want(t, 200)
}
