package api

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"nodedesk/app/kit"
)

// controllerRaw opens the controller stream and returns its second message.
func controllerRaw(t *testing.T, ts *testServer) kit.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/v2/notifications/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	var e kit.Event
	for range 2 {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// TestClientSession drives a session the way GNS3 clients do, while a
// second connection on the project's websocket sees every change, once, in
// order.
func TestClientSession(t *testing.T) {
	ts := mustOpenServer(t)
	if v := ts.Do("GET", "/v2/version", nil).Want(t, 200).JSON(t); v["version"] != "2.2.59" {
		t.Fatal(v)
	}
	controller, hello := ts.WSListen(t, "/v2/notifications/ws")
	if hello.Action != "ping" || hello.Event["cpu_usage_percent"] == nil {
		t.Errorf("controller stream opened with %v", hello)
	}
	if e := controllerRaw(t, ts); e.Action != "compute.updated" || e.Event["compute_id"] != "local" {
		t.Errorf("controller stream's second message %v, want compute.updated of local", e)
	}
	pid := ts.MustCreateProject("session")
	ts.Do("POST", "/v2/compute/projects", map[string]any{"name": "session", "project_id": pid}).Want(t, 201)
	ts.Do("POST", "/v2/projects/"+pid+"/open", nil).Want(t, 201)
	project, hello := ts.WSListen(t, "/v2/projects/"+pid+"/notifications/ws")
	if hello.Action != "ping" {
		t.Errorf("project stream opened with %v", hello)
	}
	ts.Do("GET", "/v2/templates", nil).Want(t, 200)
	mk := func(tmpl string) map[string]any {
		return ts.Do("POST", "/v2/projects/"+pid+"/templates/"+builtinTemplateIDs[tmpl], map[string]any{"x": 0, "y": 0, "compute_id": "local"}).Want(t, 201).JSON(t)
	}
	pc, sw := mk("VPCS"), mk("Ethernet switch")
	pcPath := "/v2/projects/" + pid + "/nodes/" + pc["node_id"].(string)
	// gns3fy's PUT after a template create; gns3-gui's general-field PUT.
	ts.Do("PUT", pcPath, map[string]any{"name": "pc1", "compute_id": "local"}).Want(t, 200)
	ts.Do("PUT", pcPath, map[string]any{"x": 50, "y": 60, "node_type": "vpcs", "node_id": pc["node_id"], "compute_id": "local", "properties": map[string]any{}}).Want(t, 200)
	ts.Do("PUT", pcPath, map[string]any{"x": 50, "y": 60}).Want(t, 200)                       // no change: no event
	ts.Do("PUT", pcPath, map[string]any{"x": "fifty"}).Want(t, 400)                           // rejected: no event
	ts.Do("PUT", pcPath, map[string]any{"console": pc["console"].(float64) + 1}).Want(t, 200) // still free
	link := ts.Do("POST", "/v2/projects/"+pid+"/links", map[string]any{"nodes": []any{kit.End(pc["node_id"].(string), 0, 0), kit.End(sw["node_id"].(string), 0, 1)}}).Want(t, 201).JSON(t)
	ts.Do("POST", pcPath+"/start", nil).Want(t, 200)
	ts.Do("POST", pcPath+"/stop", nil).Want(t, 200)
	ts.Do("DELETE", pcPath, nil).Want(t, 204)
	ts.Do("POST", "/v2/projects/"+pid+"/close", nil).Want(t, 204)
	ts.Do("DELETE", "/v2/projects/"+pid, nil).Want(t, 204)

	type want struct {
		action, id, key string
		value           any
	}
	for i, w := range []want{
		{"node.created", pc["node_id"].(string), "name", "PC1"},
		{"node.created", sw["node_id"].(string), "name", "Switch1"},
		{"node.updated", pc["node_id"].(string), "name", "pc1"},
		{"node.updated", pc["node_id"].(string), "x", float64(50)},
		{"node.updated", pc["node_id"].(string), "console", pc["console"].(float64) + 1},
		{"link.created", link["link_id"].(string), "link_type", "ethernet"},
		{"node.updated", pc["node_id"].(string), "status", "started"},
		{"node.updated", pc["node_id"].(string), "status", "stopped"},
		{"link.deleted", link["link_id"].(string), "link_type", "ethernet"},
		{"node.deleted", pc["node_id"].(string), "name", "pc1"},
	} {
		e := project()
		id, _ := e.Event["node_id"].(string)
		if strings.HasPrefix(e.Action, "link.") {
			id, _ = e.Event["link_id"].(string)
		}
		if e.Action != w.action || id != w.id || e.Event[w.key] != w.value {
			t.Fatalf("project event %d: %s %s %s=%v, want %s %s %s=%v", i, e.Action, id, w.key, e.Event[w.key], w.action, w.id, w.key, w.value)
		}
	}
	for i, w := range []string{"project.created", "project.closed", "project.deleted"} {
		if e := controller(); e.Action != w || e.Event["project_id"] != pid {
			t.Fatalf("controller event %d: %s %v, want %s", i, e.Action, e.Event["project_id"], w)
		}
	}
}

func TestNotifications_HTTPStream(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/v2/projects/"+pid+"/notifications", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("stream answered %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	lines := bufio.NewScanner(res.Body)
	next := func() kit.Event {
		if !lines.Scan() {
			t.Fatalf("stream ended: %v", lines.Err())
		}
		var e kit.Event
		if err := json.Unmarshal(lines.Bytes(), &e); err != nil {
			t.Fatalf("line %q: %v", lines.Text(), err)
		}
		return e
	}
	if e := next(); e.Action != "ping" {
		t.Fatalf("first line %v", e)
	}
	n := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs"})
	other := ts.MustCreateProject("other") // another project's changes are not on this stream
	ts.MustCreateNode(other, map[string]any{"node_type": "vpcs"})
	ts.Do("DELETE", "/v2/projects/"+pid+"/nodes/"+n["node_id"].(string), nil).Want(t, 204)
	// Each change, then what undo would now take (nodedesk's own event).
	for _, want := range []string{"node.created", "history.updated", "node.deleted", "history.updated"} {
		e := next()
		if id := e.Event["node_id"]; e.Action != want || (want != "history.updated" && id != n["node_id"]) {
			t.Fatalf("event %s %v, want %s of %v", e.Action, id, want, n["node_id"])
		}
	}
	ts.Do("GET", "/v2/projects/None/notifications", nil).Want(t, 404)
	ts.Do("GET", "/v2/projects/"+pid+"/notifications/ws", nil).Want(t, 400)
}

// TestNotifications_SlowListener: a listener that never reads does not
// hold up writers.
func TestNotifications_SlowListener(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/v2/projects/"+pid+"/notifications/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	n := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs"})
	path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
	big := strings.Repeat("x", 16<<10) // 16 KiB an event
	start := time.Now()
	for i := range subscriberBuffer + 100 {
		ts.Do("PUT", path, map[string]any{"properties": map[string]any{"startup_script": big}, "x": i}).Want(t, 200)
	}
	t.Logf("%d writes with a stalled listener took %v", subscriberBuffer+100, time.Since(start))
	// Every write was acknowledged above; that the Broker drops a listener
	// that lags is TestBroker_DropsSlowSubscriber's job.
}

// TestNotifications_AutoClose: GNS3 closes a project whose auto_close is
// set once the last client listening to its notifications has left and
// none came back within a few seconds (gns3-server v2.2.59
// gns3server/handlers/api/controller/project_handler.py:243-249 and
// 284-290); its nodes stop. A project without auto_close, or one a client
// listens to again, stays open.
func TestNotifications_AutoClose(t *testing.T) {
	ts := mustOpenServerWith(t, testOptions{autoCloseAfter: time.Second})
	listen := func(pid string) (leave func()) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/v2/projects/"+pid+"/notifications/ws", nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.Read(ctx); err != nil { // the first ping: the server counts the listener
			t.Fatal(err)
		}
		return func() { c.Close(websocket.StatusNormalClosure, "") }
	}
	ctl, _ := ts.WSListen(t, "/v2/notifications/ws")

	kept := ts.MustCreateProject("kept")
	ts.Do("PUT", "/v2/projects/"+kept, map[string]any{"auto_close": false}).Want(t, 200)
	back := ts.MustCreateProject("back")
	lab := ts.MustCreateProject("lab")
	pc := ts.MustCreateNode(lab, map[string]any{"node_type": "vpcs"})["node_id"].(string)
	ts.Do("POST", "/v2/projects/"+lab+"/nodes/"+pc+"/start", nil).Want(t, 200)

	listen(kept)()
	leaveBack := listen(back)
	leaveBack()
	defer listen(back)() // a client comes back before the wait ends
	leaveLab := listen(lab)
	for e := ctl(); ; e = ctl() { // drain what the set-up announced
		if e.Action == "project.updated" && e.Event["project_id"] == kept {
			break
		}
	}
	leaveLab()
	for {
		e := ctl()
		if e.Action != "project.closed" {
			continue
		}
		if e.Event["project_id"] != lab {
			t.Fatalf("project %v closed; want only %s", e.Event["name"], lab)
		}
		break
	}
	if p := ts.Do("GET", "/v2/projects/"+lab, nil).Want(t, 200).JSON(t); p["status"] != "closed" {
		t.Errorf("lab after its last listener left: %v; want closed", p["status"])
	}
	if n := ts.Do("GET", "/v2/projects/"+lab+"/nodes/"+pc, nil).Want(t, 200).JSON(t); n["status"] != "stopped" {
		t.Errorf("node of the closed lab is %v; want stopped", n["status"])
	}
	for _, pid := range []string{kept, back} {
		if p := ts.Do("GET", "/v2/projects/"+pid, nil).Want(t, 200).JSON(t); p["status"] != "opened" {
			t.Errorf("project %s is %v; want it still opened", p["name"], p["status"])
		}
	}
}

// syncLog is a log a test reads while the server writes it.
type syncLog struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *syncLog) has(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Contains(l.buf.String(), s)
}

// TestNotifications_ViewerKeepsProjectsOpen: a page of nodedesk (its
// controller stream with ?viewer=true) keeps an auto_close project open
// after the project's last listener left, as when the user switched to
// another project (decision 0069); once the page has gone the project is
// closed, and its JSON says when and why. A viewer value that is not a
// boolean is refused.
func TestNotifications_ViewerKeepsProjectsOpen(t *testing.T) {
	logs := &syncLog{}
	ts := mustOpenServerWith(t, testOptions{autoCloseAfter: 50 * time.Millisecond, serviceLog: logs})
	ts.Do("GET", "/v2/notifications?viewer=maybe", nil).Want(t, 400)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dial := func(path string) *websocket.Conn {
		c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.Read(ctx); err != nil { // the first ping: the server counts it
			t.Fatal(err)
		}
		return c
	}
	ctl, _ := ts.WSListen(t, "/v2/notifications/ws")
	lab := ts.MustCreateProject("lab")
	page := dial("/v2/notifications/ws?viewer=true")
	dial("/v2/projects/"+lab+"/notifications/ws").Close(websocket.StatusNormalClosure, "") // the page shows another project
	if !kit.WaitFor(10*time.Second, func() bool { return logs.has("auto_close: kept open") }) {
		t.Fatal("the auto close never ran once the lab's listener left")
	}
	if p := ts.Do("GET", "/v2/projects/"+lab, nil).Want(t, 200).JSON(t); p["status"] != "opened" || p["closure"] != nil {
		t.Fatalf("lab while the page is open: %v, closure %v; want opened", p["status"], p["closure"])
	}
	page.Close(websocket.StatusNormalClosure, "") // the last page of nodedesk
	for e := ctl(); e.Action != "project.closed"; e = ctl() {
	}
	p := ts.Do("GET", "/v2/projects/"+lab, nil).Want(t, 200).JSON(t)
	closure, _ := p["closure"].(map[string]any)
	if msg, _ := closure["message"].(string); p["status"] != "closed" || !strings.Contains(msg, "nodedesk closed this project at") || closure["at"] == nil {
		t.Fatalf("lab once no page shows it: %v, closure %v; want closed, saying when and why", p["status"], p["closure"])
	}
	if p := ts.Do("POST", "/v2/projects/"+lab+"/open", nil).Want(t, 201).JSON(t); p["closure"] != nil {
		t.Errorf("opened again, closure %v; want none", p["closure"])
	}
}
