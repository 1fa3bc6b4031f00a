package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"nodedesk/app"
	"nodedesk/app/dataplane"
	"nodedesk/app/vpcs"
	"nodedesk/store"
)

// testServer is the real thing: a bbolt file in a temp folder, the service,
// and the REST server on a 127.0.0.1 listener.
type testServer struct {
	tb     testing.TB
	opts   testOptions
	dbPath string
	st     *store.Store
	svc    *app.Service
	events *app.Broker
	srv    *Server
	url    string
	fabric *dataplane.Fabric // with a runner: the data plane
	client *http.Client
}

// testOptions change the test server for one test.
type testOptions struct {
	dbPath    string                    // default: a file in tb.TempDir()
	wrapStore func(app.Store) app.Store // e.g. to inject write failures
	auth      *Credentials
	timeouts  Timeouts
	runner    *vpcs.Runner // nil: statuses change alone
	fabric    bool         // carry frames even without a runner (always with one)
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
	var runner app.Runner
	// Without processes or a data plane, ports are allocated as if this
	// machine ran nothing else (the tests name them); with them, ports
	// other programs hold are skipped, as nodedesk does.
	portFree := func(string, int) bool { return true }
	if ts.opts.runner != nil {
		runner = ts.opts.runner
	}
	if ts.opts.runner != nil || ts.opts.fabric {
		portFree = nil
	}
	ts.svc = app.NewService(app.Config{
		Store: appStore, Events: ts.events, Runner: runner, DataDir: filepath.Dir(ts.dbPath), PortFree: portFree,
		HostInterfaces: func() []app.HostInterface {
			return []app.HostInterface{{Name: "eth0", Type: "ethernet"}, {Name: "lo", Special: true, Type: "ethernet"}}
		},
	})
	if ts.opts.runner != nil {
		ts.opts.runner.OnExit(ts.svc.OnProcessExit)
	}
	if ts.opts.runner != nil || ts.opts.fabric {
		// Servers that run VPCS carry their frames too.
		ts.fabric = dataplane.NewFabric("127.0.0.1", slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err := ts.fabric.Attach(context.Background(), ts.svc, ts.events); err != nil {
			ts.tb.Fatal(err)
		}
	}
	ts.srv, err = NewServer(ts.svc, ts.events, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		ts.tb.Fatal(err)
	}
	ts.srv.Auth, ts.srv.Timeouts = ts.opts.auth, ts.opts.timeouts
	if ts.fabric != nil {
		ts.srv.FollowCapture = ts.fabric.FollowCapture
	}
	if err := ts.srv.Open("127.0.0.1:0"); err != nil {
		ts.tb.Fatal(err)
	}
	ts.url = ts.srv.URL()
	if ts.fabric != nil {
		ts.fabric.SetAPIPort(ts.srv.ln.Addr().(*net.TCPAddr).Port) // NAT gateways refuse it, as main does
	}
	// The timeout is a hang guard: no request of a test should come near it.
	ts.client = &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
}

func (ts *testServer) close() {
	if ts.opts.runner != nil {
		ts.opts.runner.StopAll()
	}
	if ts.fabric != nil {
		ts.fabric.Close()
		ts.fabric = nil
	}
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
