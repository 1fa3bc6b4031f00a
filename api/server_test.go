package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"nodedesk/app"
	"nodedesk/app/hostnet"
	"nodedesk/store"
)

// testServer is the real API: a bbolt file in a temp folder, the service,
// and the REST server on a 127.0.0.1 listener. Tests of a lab that runs
// (VPCS processes, the data plane, consoles) are app/labtest's.
type testServer struct {
	tb     testing.TB
	opts   testOptions
	dbPath string
	st     *store.Store
	svc    *app.Service
	events *app.Broker
	srv    *Server
	url    string
	client *http.Client
}

// testOptions change the test server for one test.
type testOptions struct {
	dbPath    string                    // default: a file in tb.TempDir()
	wrapStore func(app.Store) app.Store // e.g. to inject write failures
	auth      *Credentials
	timeouts  Timeouts
}

func mustOpenServer(tb testing.TB) *testServer {
	tb.Helper()
	return mustOpenServerWith(tb, testOptions{})
}

func mustOpenServerWith(tb testing.TB, opts testOptions) *testServer {
	tb.Helper()
	if opts.dbPath == "" {
		opts.dbPath = filepath.Join(tb.TempDir(), "nodedesk.db")
	}
	ts := &testServer{tb: tb, opts: opts, dbPath: opts.dbPath}
	ts.open()
	tb.Cleanup(ts.close)
	return ts
}

func (ts *testServer) open() {
	ts.tb.Helper()
	st, err := store.Open(ts.dbPath)
	if err != nil {
		ts.tb.Fatal(err)
	}
	ts.st = st
	var appStore app.Store = st
	if ts.opts.wrapStore != nil {
		appStore = ts.opts.wrapStore(st)
	}
	ts.events = app.NewBroker()
	// Without processes or a data plane, ports are allocated as if this
	// machine ran nothing else (the tests name them).
	portFree := func(string, int) bool { return true }
	ts.svc = app.NewService(app.Config{
		Store: appStore, Events: ts.events, DataDir: filepath.Dir(ts.dbPath), PortFree: portFree,
		NetworkInterfaces: hostnet.NetworkInterfaces,
		HostInterfaces: func() []app.HostInterface {
			return []app.HostInterface{{Name: "eth0", Type: "ethernet"}, {Name: "lo", Special: true, Type: "ethernet"}}
		},
	})
	ts.srv, err = NewServer(ts.svc, ts.events, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		ts.tb.Fatal(err)
	}
	ts.srv.Auth, ts.srv.Timeouts = ts.opts.auth, ts.opts.timeouts
	if err := ts.srv.Open("127.0.0.1:0"); err != nil {
		ts.tb.Fatal(err)
	}
	ts.url = ts.srv.URL()
	// The timeout is a hang guard: no request of a test should come near it.
	ts.client = &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
}

func (ts *testServer) close() {
	if ts.client != nil {
		// Unused connections would hold up Shutdown for 5 s.
		ts.client.CloseIdleConnections()
	}
	if ts.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = ts.srv.Close(ctx)
		ts.srv = nil
	}
	if ts.st != nil {
		_ = ts.st.Close()
		ts.st = nil
	}
}

// restart closes the server and the store and opens both again on the
// same file.
func (ts *testServer) restart() {
	ts.tb.Helper()
	ts.close()
	ts.open()
}

// response is one answer, already checked against the contract.
type response struct {
	status int
	body   []byte
	header http.Header
}

// json decodes the body into a generic value.
func (r response) json(tb testing.TB) map[string]any {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		tb.Fatalf("body is not a JSON object: %v: %s", err, r.body)
	}
	return m
}

func (r response) list(tb testing.TB) []map[string]any {
	tb.Helper()
	var l []map[string]any
	if err := json.Unmarshal(r.body, &l); err != nil {
		tb.Fatalf("body is not a JSON array: %v: %s", err, r.body)
	}
	return l
}

// do sends a request (body: nil, a string sent verbatim, or a value sent
// as JSON) and checks the answer against openapi.json: the status must be
// documented for the operation, the body must match its schema, errors
// must be {"message","status"} JSON, and a 204 must have no body.
func (ts *testServer) do(method, path string, body any) response {
	ts.tb.Helper()
	return ts.doWith(method, path, body, nil)
}

func (ts *testServer) doWith(method, path string, body any, header http.Header) response {
	ts.tb.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			ts.tb.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, ts.url+path, rd)
	if err != nil {
		ts.tb.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if h := header.Get("Host"); h != "" {
		req.Host = h
	}
	res, err := ts.client.Do(req)
	if err != nil {
		ts.tb.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		ts.tb.Fatal(err)
	}
	r := response{status: res.StatusCode, body: raw, header: res.Header}
	ts.checkContract(method, path, r)
	return r
}

// checkContract fails the test where a response breaks openapi.json
// (Server.CheckResponse says how).
func (ts *testServer) checkContract(method, path string, r response) {
	ts.tb.Helper()
	if err := ts.srv.CheckResponse(method, path, r.status, r.header, r.body); err != nil {
		ts.tb.Error(err)
	}
}

// want fails the test unless the response has the given status.
func (r response) want(tb testing.TB, status int) response {
	tb.Helper()
	if r.status != status {
		tb.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	return r
}

// mustCreateProject creates a project and returns its id.
func (ts *testServer) mustCreateProject(name string) string {
	ts.tb.Helper()
	return ts.do("POST", "/v2/projects", map[string]any{"name": name}).want(ts.tb, 201).json(ts.tb)["project_id"].(string)
}

// mustCreateNode creates a node through the controller and returns it.
func (ts *testServer) mustCreateNode(pid string, body map[string]any) map[string]any {
	ts.tb.Helper()
	return ts.do("POST", "/v2/projects/"+pid+"/nodes", body).want(ts.tb, 201).json(ts.tb)
}

// link joins port a of node x to port b of node y and returns the link id.
func (ts *testServer) link(t *testing.T, pid, x string, a int, y string, b int) string {
	t.Helper()
	return ts.do("POST", "/v2/projects/"+pid+"/links", map[string]any{"nodes": []any{end(x, 0, a), end(y, 0, b)}}).
		want(t, 201).json(t)["link_id"].(string)
}

// lab is a project with two VPCS, a switch and a Frame Relay switch.
type lab struct {
	pid                     string
	pc1, pc2, sw, frsw, hub string
}

func (ts *testServer) mustCreateLab() lab {
	ts.tb.Helper()
	l := lab{pid: ts.mustCreateProject("lab")}
	id := func(typ string) string {
		return ts.mustCreateNode(l.pid, map[string]any{"node_type": typ})["node_id"].(string)
	}
	l.pc1, l.pc2, l.sw, l.frsw, l.hub = id("vpcs"), id("vpcs"), id("ethernet_switch"), id("frame_relay_switch"), id("ethernet_hub")
	ts.do("PUT", "/v2/projects/"+l.pid+"/nodes/"+l.frsw, map[string]any{"properties": map[string]any{"mappings": map[string]any{"1:101": "2:201"}}}).want(ts.tb, 200)
	return l
}

func end(node string, adapter, port int) map[string]any {
	return map[string]any{"node_id": node, "adapter_number": adapter, "port_number": port}
}
