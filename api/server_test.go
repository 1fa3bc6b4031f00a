package api

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"nodedesk/app"
	"nodedesk/app/hostnet"
	"nodedesk/app/kit"
	"nodedesk/store"
)

// testServer is the real API: a bbolt file in a temp folder, the service,
// and the REST server on a 127.0.0.1 listener. Tests of a lab that runs
// (VPCS processes, the data plane, consoles) are api/labtest's. Its
// kit.API sends the test's requests, each answer checked by
// Server.CheckResponse, as a labtest.Lab's are.
type testServer struct {
	*kit.API
	tb     testing.TB
	opts   testOptions
	dbPath string
	st     *store.Store
	svc    *app.Service
	events *app.Broker
	srv    *Server
}

// testOptions change the test server for one test.
type testOptions struct {
	dbPath    string                    // default: a file in tb.TempDir()
	wrapStore func(app.Store) app.Store // e.g. to inject write failures
	auth      *Credentials
	timeouts  Timeouts
	// gns3Images and qemu are the service's GNS3 images folder and QEMU
	// tools (api/images_test.go).
	gns3Images string
	qemu       app.QEMUTools
	// portFree probes this machine's ports (nil: every port is free).
	portFree func(network string, port int) bool
	// autoCloseAfter is the service's Config.AutoCloseAfter.
	autoCloseAfter time.Duration
	// serviceLog, when set, gets the service's log.
	serviceLog io.Writer
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
	if ts.opts.portFree != nil {
		portFree = ts.opts.portFree
	}
	var runners []app.Runner
	if ts.opts.qemu != nil {
		runners = append(runners, toolsRunner{ts.opts.qemu})
	}
	ts.svc = app.NewService(app.Config{
		Store: appStore, Events: ts.events, DataDir: filepath.Dir(ts.dbPath), PortFree: portFree,
		GNS3ImagesDir: ts.opts.gns3Images, Runners: runners, AutoCloseAfter: ts.opts.autoCloseAfter,
		Logger:            serviceLogger(ts.opts.serviceLog),
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
	ts.API = kit.NewAPI(ts.tb, ts.srv.URL(), ts.srv.CheckResponse)
}

func (ts *testServer) close() {
	if ts.API != nil {
		// Unused connections would hold up Shutdown for 5 s.
		ts.Client.CloseIdleConnections()
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

// lab is a project with two VPCS, a switch and a Frame Relay switch.
type lab struct {
	pid                     string
	pc1, pc2, sw, frsw, hub string
}

func (ts *testServer) mustCreateLab() lab {
	ts.tb.Helper()
	l := lab{pid: ts.MustCreateProject("lab")}
	id := func(typ string) string {
		return ts.MustCreateNode(l.pid, map[string]any{"node_type": typ})["node_id"].(string)
	}
	l.pc1, l.pc2, l.sw, l.frsw, l.hub = id("vpcs"), id("vpcs"), id("ethernet_switch"), id("frame_relay_switch"), id("ethernet_hub")
	ts.Do("PUT", "/v2/projects/"+l.pid+"/nodes/"+l.frsw, map[string]any{"properties": map[string]any{"mappings": map[string]any{"1:101": "2:201"}}}).Want(ts.tb, 200)
	return l
}

// toolsRunner is a runner that runs nothing but has QEMU's tools, as
// QEMU's runner does.
type toolsRunner struct{ app.QEMUTools }

func (toolsRunner) Runs(app.NodeType) bool            { return false }
func (toolsRunner) Start(app.Process) (string, error) { return "", nil }
func (toolsRunner) Stop(string) error                 { return nil }
func (toolsRunner) Suspend(string) error              { return nil }
func (toolsRunner) Resume(string) error               { return nil }

// serviceLogger logs to w; nil: nowhere.
func serviceLogger(w io.Writer) *slog.Logger {
	if w == nil {
		w = io.Discard
	}
	return slog.New(slog.NewTextHandler(w, nil))
}
