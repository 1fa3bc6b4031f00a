package kit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"nodedesk/app"
)

// Event is one notification as a listener saw it.
type Event struct {
	Action string         `json:"action"`
	Event  map[string]any `json:"event"`
}

// WSListen connects to a notification websocket and returns its first
// message and a function that gives the next event that is not a ping,
// compute.updated or history.updated (which follows every change:
// history's tests read it with WSListenAll).
func (a *API) WSListen(t testing.TB, path string) (next func() Event, first Event) {
	t.Helper()
	return a.WSListenAll(t, path, "history.updated")
}

// WSListenAll is WSListen skipping only pings, compute.updated and the
// actions given.
func (a *API) WSListenAll(t testing.TB, path string, skip ...string) (next func() Event, first Event) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(a.URL, "http")+path, nil)
	if err != nil {
		t.Fatalf("dial %s: %v", path, err)
	}
	t.Cleanup(func() { c.CloseNow() })
	read := func() Event {
		t.Helper()
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("read %s: %v", path, err)
		}
		var e Event
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatalf("notification %s: %v", b, err)
		}
		return e
	}
	first = read()
	return func() Event {
		t.Helper()
		for {
			if e := read(); e.Action != "ping" && e.Action != "compute.updated" && !slices.Contains(skip, e.Action) {
				return e
			}
		}
	}, first
}

// ProjectDigest is what st holds of a project, as JSON text: its
// records (settings, nodes, links, drawings, snapshots, with their
// sequence numbers) and the index entries they own (names, console ports,
// linked ports). Two equal digests are the same project.
func ProjectDigest(t testing.TB, st app.Store, pid string) string {
	t.Helper()
	out := map[string]any{}
	err := st.View(func(tx app.Tx) error {
		p, err1 := tx.Project(pid)
		nodes, err2 := tx.Nodes(pid)
		links, err3 := tx.Links(pid)
		drawings, err4 := tx.Drawings(pid)
		snaps, err5 := tx.Snapshots(pid)
		var index []string
		for _, n := range nodes {
			id, ok, _ := tx.NodeIDByName(pid, n.Name)
			index = append(index, fmt.Sprintf("name %s: %s %v", n.Name, id, ok))
			if n.Console != 0 {
				owner, ok, _ := tx.ConsoleOwner(n.Console)
				index = append(index, fmt.Sprintf("console %d: %s %v", n.Console, owner.NodeID, ok))
			}
		}
		for _, lk := range links {
			for _, e := range lk.Nodes {
				lid, ok, _ := tx.LinkOnPort(pid, e.NodeID, e.AdapterNumber, e.PortNumber)
				index = append(index, fmt.Sprintf("port %s %d/%d: %s %v", e.NodeID, e.AdapterNumber, e.PortNumber, lid, ok))
			}
		}
		out = map[string]any{"project": p, "nodes": nodes, "links": links, "drawings": drawings, "snapshots": snaps, "index": index}
		return errors.Join(err1, err2, err3, err4, err5)
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// WantDigest fails the test unless got == want, showing where they part.
func WantDigest(t testing.TB, what, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			lo := max(0, i-6)
			t.Fatalf("%s: the project differs from line %d:\ngot\n%s\nwant\n%s", what, i,
				strings.Join(g[lo:min(len(g), i+4)], "\n"), strings.Join(w[lo:min(len(w), i+4)], "\n"))
		}
	}
	t.Fatalf("%s: the project differs in length: %d lines, want %d", what, len(g), len(w))
}
