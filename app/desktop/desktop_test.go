package desktop_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"nodedesk/api"
	"nodedesk/app"
	"nodedesk/app/desktop"
	"nodedesk/store"
)

// newDoor builds the real thing behind the window's door: a bbolt store,
// the service and the API server, and records what is emitted to the page.
func newDoor(t *testing.T) (*desktop.App, *emitted) {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "d.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	events := app.NewBroker()
	svc := app.NewService(app.Config{Store: st, Events: events, DataDir: t.TempDir()})
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := api.NewServer(svc, events, logger)
	if err != nil {
		t.Fatal(err)
	}
	em := &emitted{}
	door := desktop.New(srv, events, em.emit, logger)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	door.Startup(ctx)
	return door, em
}

type emitted struct {
	mu  sync.Mutex
	got []map[string]any
}

func (e *emitted) emit(_ context.Context, name string, data ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if name == "notification" && len(data) == 1 {
		b, _ := json.Marshal(data[0])
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		e.got = append(e.got, m)
	}
}

func (e *emitted) waitFor(t *testing.T, action string) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		e.mu.Lock()
		for _, m := range e.got {
			if m["action"] == action {
				e.mu.Unlock()
				return m
			}
		}
		e.mu.Unlock()
	}
	t.Fatalf("no %s event reached the page", action)
	return nil
}

func TestDoor(t *testing.T) {
	door, em := newDoor(t)
	p, err := door.CreateProject(map[string]any{"name": "lab"})
	if err != nil {
		t.Fatal(err)
	}
	pid := p.(map[string]any)["project_id"].(string)
	n, err := door.CreateNodeFromTemplate(pid, "19021f99-e36f-394d-b4a1-8aaa902ab9cc", map[string]any{"x": 10, "y": 20})
	if err != nil {
		t.Fatal(err)
	}
	node := n.(map[string]any)
	if node["name"] != "PC1" || node["x"] != float64(10) || len(node["ports"].([]any)) != 1 {
		t.Errorf("node from the window %v: not the REST answer's shape", node)
	}
	// The page receives the event with the same body as the REST answer.
	ev := em.waitFor(t, "node.created")
	if ev["project_id"] != pid || ev["event"].(map[string]any)["node_id"] != node["node_id"] {
		t.Errorf("event %v", ev)
	}
	nid := node["node_id"].(string)
	if u, err := door.UpdateNode(pid, nid, map[string]any{"name": "pc-a", "properties": map[string]any{"startup_script": "ip dhcp"}}); err != nil || u.(map[string]any)["name"] != "pc-a" {
		t.Fatalf("update: %v %v", u, err)
	}
	// The same rules as over HTTP: a bad body is refused with the same
	// message, as {code, message, status} for the page.
	_, err = door.UpdateNode(pid, nid, map[string]any{"console": "x"})
	var de *desktop.Error
	if !errors.As(err, &de) || de.Status != 400 || de.Code != app.EINVALID || !strings.Contains(de.Message, "console") {
		t.Fatalf("invalid update: %#v", err)
	}
	var formatted map[string]any
	if err := json.Unmarshal([]byte(desktop.FormatError(err).(string)), &formatted); err != nil || formatted["code"] != "invalid" || formatted["status"] != float64(400) {
		t.Errorf("FormatError = %v (%v)", desktop.FormatError(err), err)
	}
	if _, err := door.GetNode(pid, "00000000-0000-4000-8000-000000000000"); !errors.As(err, &de) || de.Status != 404 {
		t.Errorf("missing node: %v", err)
	}
	if _, err := door.NodeAction(pid, nid, "start"); err != nil {
		t.Fatal(err)
	}
	if _, err := door.NodeAction(pid, nid, "explode"); !errors.As(err, &de) || de.Status != 400 {
		t.Errorf("bad action: %v", err)
	}
	sw, _ := door.CreateNodeFromTemplate(pid, "1966b864-93e7-32d5-965f-001384eec461", map[string]any{"x": 0, "y": 0})
	l, err := door.CreateLink(pid, map[string]any{"nodes": []any{
		map[string]any{"node_id": nid, "adapter_number": 0, "port_number": 0},
		map[string]any{"node_id": sw.(map[string]any)["node_id"], "adapter_number": 0, "port_number": 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if links, _ := door.ListLinks(pid); len(links.([]any)) != 1 {
		t.Errorf("links %v", links)
	}
	if err := door.DeleteLink(pid, l.(map[string]any)["link_id"].(string)); err != nil {
		t.Fatal(err)
	}
	var ran []string
	door.Terminal = func(args ...string) error { ran = args; return nil }
	if err := door.OpenConsole(pid, nid); err != nil || strings.Join(ran, " ") != "telnet 127.0.0.1 5000" {
		t.Errorf("OpenConsole ran %q: %v", ran, err)
	}
	if err := door.OpenConsole(pid, sw.(map[string]any)["node_id"].(string)); !errors.As(err, &de) || de.Status != 400 {
		t.Errorf("console of a switch: %v", err)
	}
	if err := door.DeleteNode(pid, nid); err != nil {
		t.Fatal(err)
	}
	em.waitFor(t, "node.deleted")
	if err := door.CloseProject(pid); err != nil {
		t.Fatal(err)
	}
	em.waitFor(t, "project.closed")
	if err := door.DeleteProject(pid); err != nil {
		t.Fatal(err)
	}
	if ps, _ := door.ListProjects(); len(ps.([]any)) != 0 {
		t.Errorf("projects left: %v", ps)
	}
	if door.Ready() != "ready" {
		t.Error("Ready")
	}
}
