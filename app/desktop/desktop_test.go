package desktop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"nodedesk/api"
	"nodedesk/app"
	"nodedesk/app/desktop"
	"nodedesk/app/hostnet"
	"nodedesk/app/kit"
	"nodedesk/store/storetest"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// fakeAPI stands for the API server. Call answers every request with
// one fixed status and body, and records what it was asked; the typed
// questions of the window's own actions are answered by the funcs (not
// found when nil) and recorded, as values, in asked.
type fakeAPI struct {
	status int
	body   []byte

	method, path string
	got          []byte
	src          app.Source

	node    func(ref app.NodeRef) (*app.Node, app.NodeShown, error)
	project func(id string) (*app.Project, error)
	load    func(path string) (*app.Project, error)
	imp     func(id, name string) (*app.Project, error)
	export  func(id string, snapshots, resetMACs bool) ([]byte, error)
	asked   []question
}

// question is one typed question the window asked: the method and its
// arguments, and the source its context carried.
type question struct {
	op                   string
	ref                  app.NodeRef
	id, name, path       string
	snapshots, resetMACs bool
	body                 []byte
	source               app.Source
}

func (f *fakeAPI) Call(ctx context.Context, method, path string, body []byte) (int, []byte) {
	f.method, f.path, f.got, f.src = method, path, body, app.SourceOf(ctx)
	return f.status, f.body
}

func (f *fakeAPI) RenderEvent(e app.Event) any { return e.Payload }

func (f *fakeAPI) ask(ctx context.Context, q question) {
	q.source = app.SourceOf(ctx)
	f.asked = append(f.asked, q)
}

func notFound(what string) error { return app.Errorf(app.ENOTFOUND, "%s doesn't exist", what) }

func (f *fakeAPI) ShowNode(ctx context.Context, ref app.NodeRef) (*app.Node, app.NodeShown, error) {
	f.ask(ctx, question{op: "ShowNode", ref: ref})
	if f.node == nil {
		return nil, app.NodeShown{}, notFound("Node " + ref.NodeID)
	}
	return f.node(ref)
}

func (f *fakeAPI) FindLink(ctx context.Context, projectID, linkID string) (*app.Link, error) {
	f.ask(ctx, question{op: "FindLink", id: linkID, ref: app.NodeRef{ProjectID: projectID}})
	return nil, notFound("Link " + linkID)
}

func (f *fakeAPI) FindProject(ctx context.Context, id string) (*app.Project, error) {
	f.ask(ctx, question{op: "FindProject", id: id})
	if f.project == nil {
		return nil, notFound("Project " + id)
	}
	return f.project(id)
}

func (f *fakeAPI) LoadProject(ctx context.Context, path string) (*app.Project, error) {
	f.ask(ctx, question{op: "LoadProject", path: path})
	if f.load == nil {
		return nil, notFound(path)
	}
	return f.load(path)
}

func (f *fakeAPI) ImportProject(ctx context.Context, id, name string, body io.Reader) (*app.Project, error) {
	b, err := io.ReadAll(body)
	if err != nil {
		return nil, err
	}
	f.ask(ctx, question{op: "ImportProject", id: id, name: name, body: b})
	if f.imp == nil {
		return nil, notFound("Project " + id)
	}
	return f.imp(id, name)
}

func (f *fakeAPI) ExportProject(ctx context.Context, id string, snapshots, resetMACs, images bool) (io.ReadCloser, error) {
	f.ask(ctx, question{op: "ExportProject", id: id, snapshots: snapshots, resetMACs: resetMACs})
	if f.export == nil {
		return nil, notFound("Project " + id)
	}
	b, err := f.export(id, snapshots, resetMACs)
	if err != nil {
		return nil, err
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

// ops are the methods asked, in order.
func (f *fakeAPI) ops() []string {
	var out []string
	for _, q := range f.asked {
		out = append(out, q.op)
	}
	return out
}

// TestCallRoundTrip: the page's one binding gives the page the API's status
// and body unchanged — a success, an empty answer and each error status —
// and hands the API the request unchanged. The page reads code and field
// from that body; nothing is re-coded in Go.
func TestCallRoundTrip(t *testing.T) {
	cases := []struct {
		status int
		body   string
	}{
		{200, `{"node_id":"n1","name":"PC1","console":5000}`},
		{201, `{"project_id":"p1","name":"lab"}`},
		{204, ``},
		{400, `{"message":"Invalid properties for a ethernet_switch node: ports_mapping.3.vlan: maximum: got 5,000, want 4,094","status":400,"code":"invalid","field":"properties.ports_mapping.3.vlan"}`},
		{404, `{"message":"Node ID x doesn't exist","status":404,"code":"not_found"}`},
		{409, `{"message":"Console port 5000 is already used by node PC1; choose another port or leave console out","status":409,"code":"conflict","field":"console"}`},
		{500, `{"message":"Internal error; the details are in nodedesk's log","status":500,"code":"internal"}`},
	}
	for _, c := range cases {
		f := &fakeAPI{status: c.status, body: []byte(c.body)}
		door := desktop.New(f, app.NewBroker(), nil, quiet)
		reqBody := `{"properties":{"ports_mapping":[{"name":"e3","port_number":3,"type":"access","vlan":5000}]}}`
		got, err := door.Call("PUT", "/v2/projects/p1/nodes/n1?x=1", reqBody)
		if err != nil {
			t.Fatalf("%d: Call failed: %v", c.status, err)
		}
		if got != (desktop.CallResult{Status: c.status, Body: c.body}) {
			t.Errorf("%d: CallResult = %+v, want the API's answer unchanged", c.status, got)
		}
		if f.method != "PUT" || f.path != "/v2/projects/p1/nodes/n1?x=1" || string(f.got) != reqBody {
			t.Errorf("%d: the API was asked %s %s %q", c.status, f.method, f.path, f.got)
		}
		// As the page receives it: {"status", "body"}, Wails' JSON of the model.
		b, _ := json.Marshal(got)
		var page map[string]any
		_ = json.Unmarshal(b, &page)
		if page["status"] != float64(c.status) || page["body"] != c.body || len(page) != 2 {
			t.Errorf("%d: the page receives %s", c.status, b)
		}
	}
	f := &fakeAPI{status: 200, body: []byte(`[]`)}
	if _, err := desktop.New(f, app.NewBroker(), nil, quiet).Call("GET", "/v2/projects", ""); err != nil || f.got != nil {
		t.Errorf("no body: the API got %q (%v)", f.got, err)
	}
}

// TestCallGesture: the window's calls are the window's changes in the
// project's history, and CallGesture's carry its gesture id; a gesture id
// the API would refuse is refused before the API is asked.
func TestCallGesture(t *testing.T) {
	f := &fakeAPI{status: 200, body: []byte(`{}`)}
	door := desktop.New(f, app.NewBroker(), nil, quiet)
	if _, err := door.Call("PUT", "/v2/projects/p1/nodes/n1", `{"x":1}`); err != nil || f.src != (app.Source{Origin: app.OriginWindow}) {
		t.Errorf("Call: source %+v (%v)", f.src, err)
	}
	if _, err := door.CallGesture("drag-7", "PUT", "/v2/projects/p1/nodes/n1", `{"x":2}`); err != nil || f.src != (app.Source{Origin: app.OriginWindow, Gesture: "drag-7"}) {
		t.Errorf("CallGesture: source %+v (%v)", f.src, err)
	}
	f.path = ""
	if _, err := door.CallGesture("two words", "PUT", "/v2/projects/p1/nodes/n1", `{}`); app.ErrorCode(err) != app.EINVALID || f.path != "" {
		t.Errorf("CallGesture with a bad id: %v; the API was asked %q", err, f.path)
	}
}

// TestCallOnlyAPI: the binding refuses what is not an API path, with an app
// code the page reads; FormatError is the only Go-made error shape.
func TestCallOnlyAPI(t *testing.T) {
	f := &fakeAPI{status: 200}
	door := desktop.New(f, app.NewBroker(), nil, quiet)
	for _, p := range []string{"/", "/index.html", "http://example.com/v2/projects", "v2/projects"} {
		_, err := door.Call("GET", p, "")
		if app.ErrorCode(err) != app.EINVALID || f.path != "" {
			t.Errorf("Call(GET %q) = %v; the API was asked %q", p, err, f.path)
		}
	}
	_, err := door.Call("GET", "/assets/x.js", "")
	var page map[string]any
	if err := json.Unmarshal([]byte(desktop.FormatError(err).(string)), &page); err != nil {
		t.Fatal(err)
	}
	if page["code"] != "invalid" || !strings.Contains(page["message"].(string), "/v2/") || page["status"] != nil {
		t.Errorf("FormatError = %v", page)
	}
	if got := desktop.FormatError(errors.New("disk on fire")).(string); got != `{"message":"Internal error; the details are in nodedesk's log","code":"internal"}` {
		t.Errorf("FormatError of a plain error = %s", got)
	}
	if got := desktop.FormatError(app.Invalid("console", "bad")).(string); got != `{"message":"bad","code":"invalid","field":"console"}` {
		t.Errorf("FormatError of a field error = %s", got)
	}
}

// TestOpenConsole: the window's own action reads the node through the API
// and passes on the API's error code and field, never one made up from a
// status.
func TestOpenConsole(t *testing.T) {
	node := func(console int, ctype app.ConsoleType) func(app.NodeRef) (*app.Node, app.NodeShown, error) {
		return func(app.NodeRef) (*app.Node, app.NodeShown, error) {
			return &app.Node{Name: "PC1", ConsoleType: ctype, Console: console}, app.NodeShown{Console: console, ConsoleHost: "0.0.0.0"}, nil
		}
	}
	var ran []string
	term := func(args ...string) error { ran = args; return nil }
	f := &fakeAPI{node: node(5004, app.ConsoleTelnet)}
	door := desktop.New(f, app.NewBroker(), nil, quiet)
	door.Terminal = term
	if err := door.OpenConsole("p 1", "n1"); err != nil || strings.Join(ran, " ") != "telnet 127.0.0.1 5004" {
		t.Errorf("OpenConsole ran %q: %v", ran, err)
	}
	if len(f.asked) != 1 || f.asked[0].op != "ShowNode" || f.asked[0].ref != (app.NodeRef{ProjectID: "p 1", NodeID: "n1"}) ||
		f.asked[0].source != (app.Source{Origin: app.OriginWindow}) {
		t.Errorf("asked %+v", f.asked)
	}

	f.node = func(app.NodeRef) (*app.Node, app.NodeShown, error) {
		return nil, app.NodeShown{}, app.Errorf(app.ENOTFOUND, "Node ID n1 doesn't exist")
	}
	var ae *app.Error
	if err := door.OpenConsole("p", "n1"); !errors.As(err, &ae) || ae.Code != app.ENOTFOUND || ae.Message != "Node ID n1 doesn't exist" {
		t.Errorf("missing node: %#v", err)
	}
	f.node = func(app.NodeRef) (*app.Node, app.NodeShown, error) {
		return nil, app.NodeShown{}, errors.New("the store is unreadable")
	}
	if err := door.OpenConsole("p", "n1"); app.ErrorCode(err) != app.EINTERNAL || app.ErrorMessage(err) != app.InternalMessage {
		t.Errorf("internal error: %v", err)
	}
	f.node = node(0, app.ConsoleNone)
	if err := door.OpenConsole("p", "n1"); app.ErrorCode(err) != app.EINVALID || app.ErrorField(err) != "console" {
		t.Errorf("no console: %v", err)
	}
	f.node = node(5900, app.ConsoleVNC)
	if err := door.OpenConsole("p", "n1"); app.ErrorCode(err) != app.ECONFLICT || !strings.Contains(app.ErrorMessage(err), "127.0.0.1 port 5900") {
		t.Errorf("vnc console: %v", err)
	}
	f.node = node(5004, app.ConsoleTelnet)
	door.Terminal = func(...string) error {
		return errors.New(`exec: "x-terminal-emulator": executable file not found in $PATH`)
	}
	if err := door.OpenConsole("p", "n1"); app.ErrorCode(err) != app.ECONFLICT || !strings.Contains(app.ErrorMessage(err), "telnet 127.0.0.1 5004") {
		t.Errorf("no terminal: %v", err)
	}
	if door.Ready() != "ready" {
		t.Error("Ready")
	}
}

// newDoor builds the real thing behind the window's door: a bbolt store,
// the service and the API server, and records what is emitted to the page.
func newDoor(t *testing.T) (*desktop.App, *emitted) {
	t.Helper()
	door, em, _ := newDoorEvents(t)
	return door, em
}

// newDoorEvents is newDoor with the broker the service publishes on.
func newDoorEvents(t *testing.T) (*desktop.App, *emitted, *app.Broker) {
	t.Helper()
	events := app.NewBroker()
	svc := app.NewService(app.Config{Store: storetest.Open(t), Events: events, DataDir: t.TempDir(), PortFree: hostnet.PortFree("127.0.0.1")})
	srv, err := api.NewServer(svc, events, quiet)
	if err != nil {
		t.Fatal(err)
	}
	em := &emitted{}
	door := desktop.New(srv, events, em.emit, quiet)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	desktop.Start(ctx, door)
	return door, em, events
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
	var found map[string]any
	if !kit.WaitFor(5*time.Second, func() bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		for _, m := range e.got {
			if m["action"] == action {
				found = m
				return true
			}
		}
		return false
	}) {
		t.Fatalf("no %s event reached the page", action)
	}
	return found
}

// call is one request through the binding, its body decoded.
func call(t *testing.T, door *desktop.App, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var raw string
	if body != nil {
		b, _ := json.Marshal(body)
		raw = string(b)
	}
	r, err := door.Call(method, path, raw)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	var out map[string]any
	if r.Body != "" {
		if err := json.Unmarshal([]byte(r.Body), &out); err != nil {
			t.Fatalf("%s %s: %d %q", method, path, r.Status, r.Body)
		}
	}
	return r.Status, out
}

// TestDoor: through the real router, the window gets the REST answers,
// errors with the API's code and field, and every event.
func TestDoor(t *testing.T) {
	door, em := newDoor(t)
	status, p := call(t, door, "POST", "/v2/projects", map[string]any{"name": "lab"})
	if status != 201 {
		t.Fatalf("create project: %d %v", status, p)
	}
	pid := p["project_id"].(string)
	status, node := call(t, door, "POST", "/v2/projects/"+pid+"/templates/19021f99-e36f-394d-b4a1-8aaa902ab9cc", map[string]any{"x": 10, "y": 20})
	if status != 201 || node["name"] != "PC1" || node["x"] != float64(10) || len(node["ports"].([]any)) != 1 {
		t.Errorf("node from the window %d %v: not the REST answer", status, node)
	}
	ev := em.waitFor(t, "node.created")
	if ev["project_id"] != pid || ev["event"].(map[string]any)["node_id"] != node["node_id"] {
		t.Errorf("event %v", ev)
	}
	nid := node["node_id"].(string)
	nodePath := "/v2/projects/" + pid + "/nodes/" + nid
	// The same rules and the same error body as over HTTP: code and field.
	status, e := call(t, door, "PUT", nodePath, map[string]any{"console": "x"})
	if status != 400 || e["code"] != "invalid" || e["field"] != "console" || e["status"] != float64(400) {
		t.Errorf("invalid update: %d %v", status, e)
	}
	status, sw := call(t, door, "POST", "/v2/projects/"+pid+"/templates/1966b864-93e7-32d5-965f-001384eec461", map[string]any{"x": 0, "y": 0})
	if status != 201 {
		t.Fatalf("switch: %d %v", status, sw)
	}
	status, e = call(t, door, "PUT", "/v2/projects/"+pid+"/nodes/"+sw["node_id"].(string), map[string]any{"properties": map[string]any{"ports_mapping": []any{
		map[string]any{"name": "e0", "port_number": 0, "type": "access", "vlan": 5000}}}})
	if status != 400 || e["field"] != "properties.ports_mapping.0.vlan" {
		t.Errorf("VLAN 5000: %d %v", status, e)
	}
	if status, e = call(t, door, "GET", "/v2/projects/"+pid+"/nodes/00000000-0000-4000-8000-000000000000", nil); status != 404 || e["code"] != "not_found" {
		t.Errorf("missing node: %d %v", status, e)
	}
	if status, _ = call(t, door, "DELETE", nodePath, nil); status != 204 {
		t.Errorf("delete: %d", status)
	}
	em.waitFor(t, "node.deleted")
	if status, _ = call(t, door, "POST", "/v2/projects/"+pid+"/close", map[string]any{}); status != 204 {
		t.Errorf("close: %d", status)
	}
	em.waitFor(t, "project.closed")
}

// TestOpenConsoleThroughTheAPI: through the real server, the window opens
// the terminal on the console port and host the node's REST view shows,
// and passes on the API's not-found.
func TestOpenConsoleThroughTheAPI(t *testing.T) {
	door, _ := newDoor(t)
	_, p := call(t, door, "POST", "/v2/projects", map[string]any{"name": "lab"})
	pid := p["project_id"].(string)
	_, n := call(t, door, "POST", "/v2/projects/"+pid+"/templates/19021f99-e36f-394d-b4a1-8aaa902ab9cc", map[string]any{"x": 0, "y": 0})
	var ran []string
	door.Terminal = func(args ...string) error { ran = args; return nil }
	if err := door.OpenConsole(pid, n["node_id"].(string)); err != nil {
		t.Fatalf("OpenConsole: %v", err)
	}
	if want := fmt.Sprintf("telnet %s %v", app.DialHost(n["console_host"].(string)), n["console"]); strings.Join(ran, " ") != want {
		t.Errorf("ran %q, want %q (the node's view: %v)", ran, want, n)
	}
	if err := door.OpenConsole(pid, "00000000-0000-4000-8000-000000000000"); app.ErrorCode(err) != app.ENOTFOUND {
		t.Errorf("missing node: %v", err)
	}
}

// TestDoor_LogEvents: a remote compute's log.* relayed to a project (a
// VPCS that stopped by itself there) reaches the page, as it reaches the
// project's websocket; nodedesk's own log.*, for a GNS3 controller that
// uses it as a compute, and the data plane's nio.* do not.
func TestDoor_LogEvents(t *testing.T) {
	_, em, events := newDoorEvents(t)
	events.Publish(app.Event{Action: app.EventLogError, ProjectID: "p", Payload: &app.LogMessage{Message: "for a GNS3 controller"}})
	events.Publish(app.Event{Action: "nio.created", ProjectID: "p", Payload: &app.NIO{}})
	events.Publish(app.Event{Action: app.EventLogError, ProjectID: "p", Payload: &app.ComputeMessage{ComputeID: "b", Event: json.RawMessage(`{"message":"PC2 has stopped by itself"}`)}})
	ev := em.waitFor(t, "log.error")
	if ev["project_id"] != "p" || ev["event"].(map[string]any)["message"] != "PC2 has stopped by itself" {
		t.Errorf("the page got %v, want the compute's message", ev)
	}
	em.mu.Lock()
	defer em.mu.Unlock()
	if len(em.got) != 1 {
		t.Errorf("the page got %v, want the relayed log.error only", em.got)
	}
}

// TestBindingsGenerated: the page's stubs of the bindings
// (frontend/wailsjs/go, which api.ts's types come from) are what Wails
// generates from App today. Regenerate them with
// `CGO_ENABLED=0 go run -tags bindings ./app/desktop/wailsgen`.
func TestBindingsGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the generator")
	}
	dir := t.TempDir()
	gen := filepath.Join(dir, "wailsgen")
	build := exec.Command("go", "build", "-tags", "bindings", "-o", gen, "./wailsgen")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the generator: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "wails.json"), []byte(`{"name":"nodedesk","wailsjsdir":"."}`), 0o644); err != nil {
		t.Fatal(err)
	}
	run := exec.Command(gen)
	run.Dir = dir
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("generating: %v\n%s", err, out)
	}
	want := filepath.Join(dir, "wailsjs", "go")
	have := filepath.Join("..", "..", "frontend", "wailsjs", "go")
	err := filepath.WalkDir(want, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(want, p)
		w, _ := os.ReadFile(p)
		h, err := os.ReadFile(filepath.Join(have, rel))
		if err != nil || !bytes.Equal(w, h) {
			t.Errorf("frontend/wailsjs/go/%s differs from what Wails generates for desktop.App; regenerate it: CGO_ENABLED=0 go run -tags bindings ./app/desktop/wailsgen", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = filepath.WalkDir(have, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(have, p)
			if _, err := os.Stat(filepath.Join(want, rel)); err != nil {
				t.Errorf("frontend/wailsjs/go/%s is not generated any more; delete it", rel)
			}
		}
		return nil
	})
}

// capturingLink makes a project with two VPCS linked, through the door,
// and starts capturing the link; it answers the ids and the capture file.
func capturingLink(t *testing.T, door *desktop.App) (pid, lid, path string) {
	t.Helper()
	pid, lid = linkedPair(t, door, "cap")
	status, l := call(t, door, "POST", "/v2/projects/"+pid+"/links/"+lid+"/start_capture", map[string]any{})
	if status != 201 || l["capturing"] != true {
		t.Fatalf("start capture: %d %v", status, l)
	}
	return pid, lid, l["capture_file_path"].(string)
}

// linkedPair makes a project with two VPCS linked, through the door, and
// answers the ids of the project and the link.
func linkedPair(t *testing.T, door *desktop.App, name string) (pid, lid string) {
	t.Helper()
	_, p := call(t, door, "POST", "/v2/projects", map[string]any{"name": name})
	pid = p["project_id"].(string)
	var ends []any
	for x := range 2 {
		_, n := call(t, door, "POST", "/v2/projects/"+pid+"/templates/19021f99-e36f-394d-b4a1-8aaa902ab9cc", map[string]any{"x": x * 100, "y": 0})
		ends = append(ends, map[string]any{"node_id": n["node_id"], "adapter_number": 0, "port_number": 0})
	}
	status, l := call(t, door, "POST", "/v2/projects/"+pid+"/links", map[string]any{"nodes": ends})
	if status != 201 {
		t.Fatalf("link: %d %v", status, l)
	}
	return pid, l["link_id"].(string)
}

// fakeViewer stands for Wireshark: it reads its stdin to the end.
type fakeViewer struct {
	mu     sync.Mutex
	got    bytes.Buffer
	eof    chan struct{} // closed at the end of stdin
	exited chan struct{} // close it to "quit Wireshark"
	calls  int
}

func newFakeViewer() *fakeViewer {
	return &fakeViewer{eof: make(chan struct{}), exited: make(chan struct{})}
}

func (v *fakeViewer) run(stdin io.ReadCloser) (<-chan struct{}, error) {
	v.mu.Lock()
	v.calls++
	v.mu.Unlock()
	go func() {
		defer close(v.eof)
		defer stdin.Close()
		buf := make([]byte, 4096)
		for {
			n, err := stdin.Read(buf)
			v.mu.Lock()
			v.got.Write(buf[:n])
			v.mu.Unlock()
			if err != nil {
				return
			}
			select {
			case <-v.exited:
				return // quit: stops reading
			default:
			}
		}
	}()
	return v.exited, nil
}

func (v *fakeViewer) read() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.got.String()
}

// TestOpenCapture: the window opens Wireshark on a running capture and
// feeds it the capture stream until the capture stops; without Wireshark
// it names the file; a link that does not capture is a conflict.
func TestOpenCapture(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		door, _ := newDoor(t)
		pid, lid, path := capturingLink(t, door)
		more := make(chan struct{})
		followed := make(chan string, 1)
		door.FollowCapture = func(ctx context.Context, linkID string, w io.Writer) error {
			followed <- linkID
			if _, err := w.Write([]byte("header|")); err != nil {
				return err
			}
			<-more // frames arrive later
			_, err := w.Write([]byte("frame"))
			return err // the capture stopped
		}
		v := newFakeViewer()
		door.Wireshark = v.run
		got, err := door.OpenCapture(pid, lid)
		if err != nil || !got.Opened || got.Path != path || got.FileName != filepath.Base(path) || got.Reason != "" {
			t.Fatalf("OpenCapture = %+v, %v", got, err)
		}
		close(more)
		select {
		case <-v.eof:
		case <-time.After(5 * time.Second):
			t.Fatal("the viewer never read the end of the stream after the capture stopped")
		}
		if got := <-followed; v.read() != "header|frame" || got != lid {
			t.Errorf("the viewer read %q of link %q", v.read(), got)
		}
	})

	t.Run("ViewerQuits", func(t *testing.T) {
		door, _ := newDoor(t)
		pid, lid, _ := capturingLink(t, door)
		stopped := make(chan struct{})
		door.FollowCapture = func(ctx context.Context, _ string, w io.Writer) error {
			defer close(stopped)
			_, _ = w.Write([]byte("header"))
			<-ctx.Done() // no frames: only the viewer quitting ends the stream
			return nil
		}
		v := newFakeViewer()
		door.Wireshark = v.run
		if got, err := door.OpenCapture(pid, lid); err != nil || !got.Opened {
			t.Fatalf("OpenCapture = %+v, %v", got, err)
		}
		close(v.exited)
		select {
		case <-stopped:
		case <-time.After(5 * time.Second):
			t.Fatal("the stream went on after the viewer quit")
		}
	})

	t.Run("NotInstalled", func(t *testing.T) {
		door, _ := newDoor(t)
		pid, lid, path := capturingLink(t, door)
		stopped := make(chan struct{}, 2)
		door.FollowCapture = func(ctx context.Context, _ string, w io.Writer) error {
			defer func() { stopped <- struct{}{} }()
			_, _ = w.Write([]byte("header"))
			<-ctx.Done()
			return nil
		}
		door.Wireshark = func(stdin io.ReadCloser) (<-chan struct{}, error) {
			stdin.Close()
			return nil, fmt.Errorf("exec: %q: %w", "wireshark", exec.ErrNotFound)
		}
		got, err := door.OpenCapture(pid, lid)
		if err != nil || got.Opened || got.Path != path ||
			!strings.Contains(got.Reason, "Wireshark is not installed") || !strings.Contains(got.Reason, "apt-get install wireshark") || !strings.Contains(got.Reason, path) {
			t.Fatalf("OpenCapture = %+v, %v", got, err)
		}
		select {
		case <-stopped:
		case <-time.After(5 * time.Second):
			t.Fatal("the stream went on with no viewer")
		}
		door.Wireshark = func(stdin io.ReadCloser) (<-chan struct{}, error) {
			stdin.Close()
			return nil, errors.New("no display")
		}
		if got, err := door.OpenCapture(pid, lid); err != nil || got.Opened || !strings.Contains(got.Reason, "could not be started (no display)") {
			t.Errorf("viewer fails: %+v, %v", got, err)
		}
		door.FollowCapture = nil
		if got, err := door.OpenCapture(pid, lid); err != nil || got.Opened || got.Path != path || got.Reason == "" {
			t.Errorf("no capture stream: %+v, %v", got, err)
		}
	})

	// The default viewer runs `wireshark -k -i -` from PATH; here a script
	// of that name keeps its arguments and what it read.
	t.Run("WiresharkOnPath", func(t *testing.T) {
		door, _ := newDoor(t)
		pid, lid, path := capturingLink(t, door)
		door.FollowCapture = func(ctx context.Context, _ string, w io.Writer) error {
			_, err := w.Write([]byte("pcap bytes"))
			return err
		}
		bin := t.TempDir()
		out := filepath.Join(t.TempDir(), "out")
		script := "#!/bin/sh\necho \"$@\" > " + out + ".args\ncat > " + out + ".tmp && mv " + out + ".tmp " + out + "\n"
		if err := os.WriteFile(filepath.Join(bin, "wireshark"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		if got, err := door.OpenCapture(pid, lid); err != nil || !got.Opened {
			t.Fatalf("OpenCapture = %+v, %v", got, err)
		}
		var read []byte
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if b, err := os.ReadFile(out); err == nil {
				read = b
				break
			}
		}
		args, _ := os.ReadFile(out + ".args")
		if string(read) != "pcap bytes" || strings.TrimSpace(string(args)) != "-k -i -" {
			t.Errorf("wireshark %s read %q", args, read)
		}

		t.Setenv("PATH", t.TempDir()) // no wireshark
		got, err := door.OpenCapture(pid, lid)
		if err != nil || got.Opened || !strings.Contains(got.Reason, "Wireshark is not installed") || got.Path != path {
			t.Errorf("no wireshark on PATH: %+v, %v", got, err)
		}
	})

	t.Run("ErrNotCapturing", func(t *testing.T) {
		door, _ := newDoor(t)
		pid, lid, _ := capturingLink(t, door)
		v := newFakeViewer()
		door.Wireshark = v.run
		// The capture stopped between the link's answer and the stream.
		door.FollowCapture = func(context.Context, string, io.Writer) error {
			return app.Errorf(app.ECONFLICT, "Link %s is not capturing; start a capture first", lid)
		}
		if _, err := door.OpenCapture(pid, lid); app.ErrorCode(err) != app.ECONFLICT {
			t.Errorf("stream refused: %v", err)
		}
		if status, _ := call(t, door, "POST", "/v2/projects/"+pid+"/links/"+lid+"/stop_capture", nil); status != 201 {
			t.Fatalf("stop capture: %d", status)
		}
		_, err := door.OpenCapture(pid, lid)
		if app.ErrorCode(err) != app.ECONFLICT || !strings.Contains(app.ErrorMessage(err), "start a capture first") {
			t.Errorf("not capturing: %v", err)
		}
		if v.calls != 0 {
			t.Errorf("the viewer was started %d times for a link that does not capture", v.calls)
		}
		_, err = door.OpenCapture(pid, "00000000-0000-4000-8000-000000000000")
		if app.ErrorCode(err) != app.ENOTFOUND {
			t.Errorf("missing link: %v", err)
		}
	})
}
