package labtest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"nodedesk/api"
	"nodedesk/app"
	"nodedesk/app/dataplane"
	"nodedesk/app/hostnet"
	"nodedesk/app/vpcs"
	"nodedesk/store"
)

// Options choose what runs besides the API.
type Options struct {
	// VPCS runs VPCS nodes as real `vpcs` processes; the test fails if
	// the simulator is not installed. The data plane carries their frames.
	VPCS bool
	// Runner is a VPCS runner of the test's own (one whose binary is
	// missing, say), used instead of VPCS's; it too comes with the data
	// plane.
	Runner *vpcs.Runner
	// DataPlane carries frames without VPCS: cloud tunnels, switches,
	// hubs, NAT gateways.
	DataPlane bool
}

// Lab is the real stack of one test, closed when the test ends.
type Lab struct {
	tb      testing.TB
	runner  *vpcs.Runner
	Store   *store.Store
	Service *app.Service
	Events  *app.Broker
	Server  *api.Server
	Fabric  *dataplane.Fabric // nil without the data plane
	URL     string            // the API's base URL: http://127.0.0.1:port
	// Client sends the lab's requests; its timeout is a hang guard.
	Client *http.Client
}

// Start opens the store, the service, the data plane (with VPCS or
// DataPlane) and the API server on 127.0.0.1:0.
func Start(tb testing.TB, opts Options) *Lab {
	tb.Helper()
	if opts.VPCS && opts.Runner == nil {
		MustHaveVPCS(tb)
		opts.Runner = vpcs.New(vpcs.Config{ConsoleHost: "127.0.0.1", StopGrace: time.Second})
	}
	st := MustOpenStore(tb) // closed after the rest: cleanups run last first
	l := &Lab{tb: tb, runner: opts.Runner, Store: st}
	tb.Cleanup(l.close)
	l.Events = app.NewBroker()
	var runners []app.Runner
	// Without processes or a data plane, ports are allocated as if this
	// machine ran nothing else (the tests name them); with them, ports
	// other programs hold are skipped, as nodedesk does.
	portFree := func(string, int) bool { return true }
	fabric := opts.Runner != nil || opts.DataPlane
	if opts.Runner != nil {
		runners = append(runners, opts.Runner)
	}
	if fabric {
		portFree = hostnet.PortFree("127.0.0.1")
	}
	l.Service = app.NewService(app.Config{
		Store: st, Events: l.Events, Runners: runners, DataDir: filepath.Dir(st.Path()), PortFree: portFree,
		NetworkInterfaces: hostnet.NetworkInterfaces,
		HostInterfaces: func() []app.HostInterface {
			return []app.HostInterface{{Name: "eth0", Type: "ethernet"}, {Name: "lo", Special: true, Type: "ethernet"}}
		},
	})
	if opts.Runner != nil {
		opts.Runner.OnExit(l.Service.OnProcessExit)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	if fabric {
		l.Fabric = dataplane.NewFabric("127.0.0.1", quiet)
		if err := l.Fabric.Attach(context.Background(), l.Service, l.Events); err != nil {
			tb.Fatal(err)
		}
	}
	var err error
	l.Server, err = api.NewServer(l.Service, l.Events, quiet)
	if err != nil {
		tb.Fatal(err)
	}
	if l.Fabric != nil {
		l.Server.FollowCapture = l.Fabric.FollowCapture
	}
	if err := l.Server.Open("127.0.0.1:0"); err != nil {
		tb.Fatal(err)
	}
	l.URL = l.Server.URL()
	if l.Fabric != nil {
		l.Fabric.SetAPIPort(l.APIPort()) // NAT gateways refuse it, as main does
	}
	l.Client = &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	return l
}

// StartVPCS is Start with real VPCS processes and the data plane.
func StartVPCS(tb testing.TB) *Lab {
	tb.Helper()
	return Start(tb, Options{VPCS: true})
}

func (l *Lab) close() {
	if l.runner != nil {
		l.runner.StopAll()
	}
	if l.Fabric != nil {
		l.Fabric.Close()
	}
	if l.Client != nil {
		// Unused connections would hold up Shutdown for 5 s.
		l.Client.CloseIdleConnections()
	}
	if l.Server != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = l.Server.Close(ctx)
	}
}

// APIPort is the TCP port the API listens on.
func (l *Lab) APIPort() int {
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(l.URL, "http://"))
	p, _ := strconv.Atoi(port)
	return p
}

// Response is one answer of the API, already checked against openapi.json.
type Response struct {
	Status int
	Body   []byte
	Header http.Header
}

// JSON decodes the body as an object.
func (r Response) JSON(tb testing.TB) map[string]any {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		tb.Fatalf("body is not a JSON object: %v: %s", err, r.Body)
	}
	return m
}

// List decodes the body as an array of objects.
func (r Response) List(tb testing.TB) []map[string]any {
	tb.Helper()
	var l []map[string]any
	if err := json.Unmarshal(r.Body, &l); err != nil {
		tb.Fatalf("body is not a JSON array: %v: %s", err, r.Body)
	}
	return l
}

// Want fails the test unless the response has the given status.
func (r Response) Want(tb testing.TB, status int) Response {
	tb.Helper()
	if r.Status != status {
		tb.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	return r
}

// Do sends a request (body: nil, a string or []byte sent verbatim, or a
// value sent as JSON) and fails the test where the answer breaks
// openapi.json (api.Server.CheckResponse).
func (l *Lab) Do(method, path string, body any) Response {
	l.tb.Helper()
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
			l.tb.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, l.URL+path, rd)
	if err != nil {
		l.tb.Fatal(err)
	}
	res, err := l.Client.Do(req)
	if err != nil {
		l.tb.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		l.tb.Fatal(err)
	}
	r := Response{Status: res.StatusCode, Body: raw, Header: res.Header}
	if err := l.Server.CheckResponse(method, path, r.Status, r.Header, r.Body); err != nil {
		l.tb.Error(err)
	}
	return r
}

// MustCreateProject creates a project and returns its id.
func (l *Lab) MustCreateProject(name string) string {
	l.tb.Helper()
	return l.Do("POST", "/v2/projects", map[string]any{"name": name}).Want(l.tb, 201).JSON(l.tb)["project_id"].(string)
}

// MustCreateNode creates a node through the controller and returns it.
func (l *Lab) MustCreateNode(pid string, body map[string]any) map[string]any {
	l.tb.Helper()
	return l.Do("POST", "/v2/projects/"+pid+"/nodes", body).Want(l.tb, 201).JSON(l.tb)
}

// End is one end of a link in a request body.
func End(node string, adapter, port int) map[string]any {
	return map[string]any{"node_id": node, "adapter_number": adapter, "port_number": port}
}

// Link joins port a of node x to port b of node y and returns the link id.
func (l *Lab) Link(t testing.TB, pid, x string, a int, y string, b int) string {
	t.Helper()
	return l.Do("POST", "/v2/projects/"+pid+"/links", map[string]any{"nodes": []any{End(x, 0, a), End(y, 0, b)}}).
		Want(t, 201).JSON(t)["link_id"].(string)
}

// MustCreateSwitch creates an Ethernet switch, with ports (a
// ports_mapping) unless nil, and returns its id.
func (l *Lab) MustCreateSwitch(t testing.TB, pid string, ports []any) string {
	t.Helper()
	body := map[string]any{"node_type": "ethernet_switch"}
	if ports != nil {
		body["properties"] = map[string]any{"ports_mapping": ports}
	}
	return l.MustCreateNode(pid, body)["node_id"].(string)
}

// SwitchPort is one entry of a switch's ports_mapping: kind access,
// dot1q or qinq (which alone takes ethertype).
func SwitchPort(n int, kind string, vlan int, ethertype string) map[string]any {
	p := map[string]any{"name": "Ethernet" + strconv.Itoa(n), "port_number": n, "type": kind, "vlan": vlan}
	if kind == "qinq" {
		p["ethertype"] = ethertype
	}
	return p
}
