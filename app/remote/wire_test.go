package remote

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"sync"
	"testing"

	"nodedesk/app"
)

// The GNS3 compute API contract: what each operation of the port sends
// (method, path, JSON body) and how it reads the compute's answer, against
// a real listener on 127.0.0.1.

// recorder is a compute that records every request and answers each with
// the body of the first answer whose "METHOD path" prefix matches.
type recorder struct {
	mu      sync.Mutex
	reqs    []request
	answers map[string]string
}

type request struct {
	method, path, contentType string
	body                      []byte
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.reqs = append(rc.reqs, request{r.Method, r.URL.Path, r.Header.Get("Content-Type"), body})
	ans := rc.answers[r.Method+" "+r.URL.Path]
	rc.mu.Unlock()
	if ans == "" {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(ans))
}

func (rc *recorder) last(t *testing.T) request {
	t.Helper()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.reqs) == 0 {
		t.Fatal("no request reached the compute")
	}
	return rc.reqs[len(rc.reqs)-1]
}

// newRecorder is a recorder behind a client (its supervisor not started:
// calls need none).
func newRecorder(t *testing.T, answers map[string]string) (*recorder, app.ComputeClient) {
	rc := &recorder{answers: answers}
	cl := Dial(listen(t, rc), func(app.ComputeState) {}, func(app.ComputeEvent) {})
	t.Cleanup(cl.Close)
	return rc, cl
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(t *testing.T, got []byte, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Errorf("body %q is not JSON: %v", got, err)
		return false
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want %q: %v", want, err)
	}
	return reflect.DeepEqual(g, w)
}

const base = "/v2/compute/projects/p1"

var (
	vpcs1 = app.NodeRef{ProjectID: "p1", NodeID: "n1", Type: app.VPCS}
	port3 = app.PortRef{NodeRef: vpcs1, Adapter: 0, Port: 3}
)

// TestClient_Wire: each operation's request, as GNS3's controller sends
// it. A body of "" means none (and no Content-Type).
func TestClient_Wire(t *testing.T) {
	ctx := context.Background()
	spec := app.NIOSpec{Type: "nio_udp", LPort: 20001, RHost: "192.0.2.5", RPort: 20002, Suspend: true, LinkID: "kept-here",
		Filters: map[string]json.RawMessage{"frequency_drop": json.RawMessage(`[5]`)}}
	for _, tc := range []struct {
		name       string
		call       func(cl app.ComputeClient) error
		wantMethod string
		wantPath   string
		wantBody   string
	}{
		{"CreateProject", func(cl app.ComputeClient) error { return cl.CreateProject(ctx, "p1", "Lab") },
			"POST", "/v2/compute/projects", `{"name":"Lab","project_id":"p1"}`},
		{"CloseProject", func(cl app.ComputeClient) error { return cl.CloseProject(ctx, "p1") },
			"POST", base + "/close", `{}`},
		{"DeleteProject", func(cl app.ComputeClient) error { return cl.DeleteProject(ctx, "p1") },
			"DELETE", base, ""},
		{"DeleteNode", func(cl app.ComputeClient) error { return cl.DeleteNode(ctx, vpcs1) },
			"DELETE", base + "/vpcs/nodes/n1", ""},
		{"DuplicateNode", func(cl app.ComputeClient) error { return cl.DuplicateNode(ctx, vpcs1, "n2") },
			"POST", base + "/vpcs/nodes/n1/duplicate", `{"destination_node_id":"n2"}`},
		{"NodeAction start", func(cl app.ComputeClient) error { return cl.NodeAction(ctx, vpcs1, app.Start, nil) },
			"POST", base + "/vpcs/nodes/n1/start", `{}`},
		{"NodeAction start with a licence", func(cl app.ComputeClient) error {
			return cl.NodeAction(ctx, app.NodeRef{ProjectID: "p1", NodeID: "n3", Type: app.IOU}, app.Start,
				map[string]json.RawMessage{"iourc_content": json.RawMessage(`""`), "license_check": json.RawMessage("false")})
		}, "POST", base + "/iou/nodes/n3/start", `{"iourc_content":"","license_check":false}`},
		{"NodeAction suspend", func(cl app.ComputeClient) error { return cl.NodeAction(ctx, vpcs1, app.Suspend, nil) },
			"POST", base + "/vpcs/nodes/n1/suspend", `{}`},
		{"NodeAction reload", func(cl app.ComputeClient) error { return cl.NodeAction(ctx, vpcs1, app.Reload, nil) },
			"POST", base + "/vpcs/nodes/n1/reload", `{}`},
		{"NodeAction stop of a switch", func(cl app.ComputeClient) error {
			return cl.NodeAction(ctx, app.NodeRef{ProjectID: "p1", NodeID: "s1", Type: app.EthernetSwitch}, app.Stop, nil)
		}, "POST", base + "/ethernet_switch/nodes/s1/stop", `{}`},
		{"ReserveUDPPort", func(cl app.ComputeClient) error { _, err := cl.ReserveUDPPort(ctx, "p1"); return err },
			"POST", base + "/ports/udp", `{}`},
		{"AddNIO", func(cl app.ComputeClient) error { return cl.AddNIO(ctx, port3, spec) },
			"POST", base + "/vpcs/nodes/n1/adapters/0/ports/3/nio",
			`{"type":"nio_udp","lport":20001,"rhost":"192.0.2.5","rport":20002,"filters":{"frequency_drop":[5]},"suspend":true}`},
		{"AddNIO without filters", func(cl app.ComputeClient) error {
			return cl.AddNIO(ctx, port3, app.NIOSpec{Type: "nio_udp", LPort: 1, RHost: "h", RPort: 2, Filters: map[string]json.RawMessage{}})
		}, "POST", base + "/vpcs/nodes/n1/adapters/0/ports/3/nio",
			`{"type":"nio_udp","lport":1,"rhost":"h","rport":2,"filters":{},"suspend":false}`},
		{"UpdateNIO", func(cl app.ComputeClient) error { return cl.UpdateNIO(ctx, port3, spec) },
			"PUT", base + "/vpcs/nodes/n1/adapters/0/ports/3/nio",
			`{"type":"nio_udp","lport":20001,"rhost":"192.0.2.5","rport":20002,"filters":{"frequency_drop":[5]},"suspend":true}`},
		{"RemoveNIO", func(cl app.ComputeClient) error { return cl.RemoveNIO(ctx, port3) },
			"DELETE", base + "/vpcs/nodes/n1/adapters/0/ports/3/nio", ""},
		{"StartCapture", func(cl app.ComputeClient) error { return cl.StartCapture(ctx, port3, "a.pcap", "DLT_EN10MB") },
			"POST", base + "/vpcs/nodes/n1/adapters/0/ports/3/start_capture", `{"capture_file_name":"a.pcap","data_link_type":"DLT_EN10MB"}`},
		{"StopCapture", func(cl app.ComputeClient) error { return cl.StopCapture(ctx, port3) },
			"POST", base + "/vpcs/nodes/n1/adapters/0/ports/3/stop_capture", `{}`},
		{"StreamPcap", func(cl app.ComputeClient) error { return cl.StreamPcap(ctx, port3, io.Discard) },
			"GET", base + "/vpcs/nodes/n1/adapters/0/ports/3/pcap", ""},
		{"Query", func(cl app.ComputeClient) error {
			_, err := cl.Query(ctx, app.ComputeQuery{Emulator: "network", Action: "interfaces"})
			return err
		}, "GET", "/v2/compute/network/interfaces", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc, cl := newRecorder(t, nil)
			if err := tc.call(cl); err != nil {
				t.Fatal(err)
			}
			r := rc.last(t)
			if r.method != tc.wantMethod || r.path != tc.wantPath {
				t.Errorf("sent %s %s, want %s %s", r.method, r.path, tc.wantMethod, tc.wantPath)
			}
			switch {
			case tc.wantBody == "" && (len(r.body) != 0 || r.contentType != ""):
				t.Errorf("sent a body %q (%s), want none", r.body, r.contentType)
			case tc.wantBody != "" && (r.contentType != "application/json" || !sameJSON(t, r.body, tc.wantBody)):
				t.Errorf("sent %q (%s), want %s as application/json", r.body, r.contentType, tc.wantBody)
			}
		})
	}
}

// TestClient_NodeBody: a node is sent with its properties (not those a
// compute only shows), its name and id, the console port this nodedesk
// chose, and a console type ("none" for none) except for GNS3's builtin
// types that have no console.
func TestClient_NodeBody(t *testing.T) {
	ctx := context.Background()
	script := "ip 10.0.0.1/24"
	pc := &app.Node{ID: "n1", ProjectID: "p1", Type: app.VPCS, Name: "PC1", Console: 5001, ConsoleType: app.ConsoleTelnet}
	pc.Properties.StartupScript = &script
	rc, cl := newRecorder(t, nil)
	if _, err := cl.CreateNode(ctx, pc); err != nil {
		t.Fatal(err)
	}
	r := rc.last(t)
	if r.method != "POST" || r.path != base+"/vpcs/nodes" ||
		!sameJSON(t, r.body, `{"name":"PC1","node_id":"n1","console":5001,"console_type":"telnet","startup_script":"ip 10.0.0.1/24"}`) {
		t.Errorf("create sent %s %s %s", r.method, r.path, r.body)
	}
	pc.Console, pc.Name = 0, "PC9"
	if _, err := cl.UpdateNode(ctx, pc); err != nil {
		t.Fatal(err)
	}
	r = rc.last(t)
	if r.method != "PUT" || r.path != base+"/vpcs/nodes/n1" ||
		!sameJSON(t, r.body, `{"name":"PC9","node_id":"n1","console_type":"telnet","startup_script":"ip 10.0.0.1/24"}`) {
		t.Errorf("update sent %s %s %s (want no console: a remote compute chooses it)", r.method, r.path, r.body)
	}
	sw := &app.Node{ID: "s1", ProjectID: "p1", Type: app.EthernetSwitch, Name: "SW1"}
	if _, err := cl.CreateNode(ctx, sw); err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	_ = json.Unmarshal(rc.last(t).body, &body)
	if body["console_type"] != "none" || rc.last(t).path != base+"/ethernet_switch/nodes" {
		t.Errorf("switch without console: sent %v to %s; want console_type none", body, rc.last(t).path)
	}
	// A router given no config gets the base one, once, at creation, as
	// GNS3's controller sends a template's ios_base_startup-config.txt.
	r1 := &app.Node{ID: "r1", ProjectID: "p1", Type: app.Dynamips, Name: "R1", ConsoleType: app.ConsoleTelnet}
	r1.Properties.Extra = map[string]json.RawMessage{"platform": json.RawMessage(`"c7200"`), "image": json.RawMessage(`"c7200.image"`)}
	if _, err := cl.CreateNode(ctx, r1); err != nil {
		t.Fatal(err)
	}
	body = nil
	_ = json.Unmarshal(rc.last(t).body, &body)
	if body["startup_config_content"] != app.IOSBaseConfig || rc.last(t).path != base+"/dynamips/nodes" {
		t.Errorf("router: sent %v to %s; want the base config as startup_config_content", body, rc.last(t).path)
	}
	if _, err := cl.UpdateNode(ctx, r1); err != nil {
		t.Fatal(err)
	}
	body = nil
	_ = json.Unmarshal(rc.last(t).body, &body)
	if _, sent := body["startup_config_content"]; sent {
		t.Errorf("router update: sent a startup config again (%v); GNS3 sends it once", body)
	}
	hub := &app.Node{ID: "h1", ProjectID: "p1", Type: app.EthernetHub, Name: "Hub1"}
	if _, err := cl.CreateNode(ctx, hub); err != nil {
		t.Fatal(err)
	}
	body = nil
	_ = json.Unmarshal(rc.last(t).body, &body)
	if _, sent := body["console_type"]; sent || body["name"] != "Hub1" {
		t.Errorf("hub: sent %v; want its name and no console_type", body)
	}
}

// TestSendsConsoleType: GNS3's controller sends no console_type for its
// builtin nodes without a console, and one for every other type.
func TestSendsConsoleType(t *testing.T) {
	none := map[app.NodeType]bool{app.Cloud: true, app.NAT: true, app.EthernetHub: true, app.FrameRelaySwitch: true, app.ATMSwitch: true}
	for _, tp := range app.NodeTypes {
		if got := sendsConsoleType(tp); got == none[tp] {
			t.Errorf("sendsConsoleType(%s) = %v, want %v", tp, got, !none[tp])
		}
	}
}

// TestClient_Answers: what the port reads of a compute's answers.
func TestClient_Answers(t *testing.T) {
	ctx := context.Background()
	_, cl := newRecorder(t, map[string]string{
		"POST " + base + "/vpcs/nodes":   `{"node_id":"n1","status":"started","console":5007,"name":"PC1"}`,
		"PUT " + base + "/vpcs/nodes/n1": `{"node_id":"n1","console":null}`,
		"POST " + base + "/ports/udp":    `{"udp_port":20004}`,
		"GET /v2/compute/qemu/binaries":  `[{"path":"/usr/bin/qemu"}]`,
	})
	n := &app.Node{ID: "n1", ProjectID: "p1", Type: app.VPCS, Name: "PC1"}
	if ans, err := cl.CreateNode(ctx, n); err != nil || ans.Status != app.Started || ans.Console == nil || *ans.Console != 5007 {
		t.Errorf("CreateNode answer %+v, %v; want started on console 5007", ans, err)
	}
	if ans, err := cl.UpdateNode(ctx, n); err != nil || ans.Console != nil || ans.Status != "" {
		t.Errorf("UpdateNode answer %+v, %v; want no console, no status", ans, err)
	}
	if p, err := cl.ReserveUDPPort(ctx, "p1"); err != nil || p != 20004 {
		t.Errorf("ReserveUDPPort = %d, %v; want 20004", p, err)
	}
	if raw, err := cl.Query(ctx, app.ComputeQuery{Emulator: "qemu", Action: "binaries"}); err != nil || string(raw) != `[{"path":"/usr/bin/qemu"}]` {
		t.Errorf("Query = %s, %v; want the compute's answer as it gave it", raw, err)
	}
}

// TestEvent: the notifications nodedesk follows, decoded; a log.*'s event
// is passed on byte for byte.
func TestEvent(t *testing.T) {
	logged := `{"message": "PC2 has stopped by itself", "extra": [1, 2]}`
	for _, tc := range []struct {
		name      string
		action    string
		projectID string
		raw       string
		want      app.ComputeEvent
		wantOK    bool
	}{
		{"node.updated", "node.updated", "top", `{"project_id":"p1","node_id":"n1","status":"suspended","console":5000}`,
			app.ComputeEvent{Action: app.EventNodeUpdated, Node: app.NodeRef{ProjectID: "p1", NodeID: "n1"}, Status: app.Suspended}, true},
		{"node.updated with an unknown status", "node.updated", "", `{"project_id":"p1","node_id":"n1","status":"exploded"}`,
			app.ComputeEvent{Action: app.EventNodeUpdated, Node: app.NodeRef{ProjectID: "p1", NodeID: "n1"}, Status: "exploded"}, true},
		{"node.updated unreadable", "node.updated", "", `[1]`, app.ComputeEvent{}, false},
		{"log.error", "log.error", "p1", logged,
			app.ComputeEvent{Action: app.EventLogError, ProjectID: "p1", Message: json.RawMessage(logged)}, true},
		{"log.warning of no project", "log.warning", "", `{"message":"x"}`,
			app.ComputeEvent{Action: "log.warning", Message: json.RawMessage(`{"message":"x"}`)}, true},
		{"log.error not JSON", "log.error", "p1", `{"message":`, app.ComputeEvent{}, false},
		{"another action", "node.created", "p1", `{"node_id":"n1"}`, app.ComputeEvent{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := event(tc.action, tc.projectID, json.RawMessage(tc.raw))
			if ok != tc.wantOK || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("event = %+v (%s), %v; want %+v, %v", got, got.Message, ok, tc.want, tc.wantOK)
			}
		})
	}
}
