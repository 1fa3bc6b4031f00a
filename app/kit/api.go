package kit

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// API is a running nodedesk API as a test reaches it over HTTP.
type API struct {
	TB     testing.TB
	URL    string       // the API's base URL: http://127.0.0.1:port
	Client *http.Client // sends the requests; its timeout is a hang guard
	// Check judges every answer against openapi.json: the test passes
	// api.(*Server).CheckResponse in. An error fails the test.
	Check func(method, path string, status int, header http.Header, body []byte) error
}

// NewAPI is the API at url, reached with a client of its own, whose
// answers check judges.
func NewAPI(tb testing.TB, url string, check func(method, path string, status int, header http.Header, body []byte) error) *API {
	return &API{TB: tb, URL: url, Check: check,
		Client: &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
}

// APIPort is the TCP port the API listens on.
func (a *API) APIPort() int {
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(a.URL, "http://"))
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
// value sent as JSON) and checks the answer against openapi.json: the
// status must be documented for the operation, the body must match its
// schema, errors must be {"message","status"} JSON, and a 204 must have
// no body.
func (a *API) Do(method, path string, body any) Response {
	a.TB.Helper()
	return a.DoWith(method, path, body, nil)
}

// DoWith is Do with request headers; a "Host" header sets the request's
// host.
func (a *API) DoWith(method, path string, body any, header http.Header) Response {
	a.TB.Helper()
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
			a.TB.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, a.URL+path, rd)
	if err != nil {
		a.TB.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if h := header.Get("Host"); h != "" {
		req.Host = h
	}
	res, err := a.Client.Do(req)
	if err != nil {
		a.TB.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		a.TB.Fatal(err)
	}
	r := Response{Status: res.StatusCode, Body: raw, Header: res.Header}
	a.CheckContract(method, path, r)
	return r
}

// CheckContract fails the test where a response breaks openapi.json.
func (a *API) CheckContract(method, path string, r Response) {
	a.TB.Helper()
	if err := a.Check(method, path, r.Status, r.Header, r.Body); err != nil {
		a.TB.Error(err)
	}
}

// MustCreateProject creates a project and returns its id.
func (a *API) MustCreateProject(name string) string {
	a.TB.Helper()
	return a.Do("POST", "/v2/projects", map[string]any{"name": name}).Want(a.TB, 201).JSON(a.TB)["project_id"].(string)
}

// MustCreateNode creates a node through the controller and returns it.
func (a *API) MustCreateNode(pid string, body map[string]any) map[string]any {
	a.TB.Helper()
	return a.Do("POST", "/v2/projects/"+pid+"/nodes", body).Want(a.TB, 201).JSON(a.TB)
}

// End is one end of a link in a request body.
func End(node string, adapter, port int) map[string]any {
	return map[string]any{"node_id": node, "adapter_number": adapter, "port_number": port}
}

// Link joins port a of node x to port b of node y and returns the link id.
func (a *API) Link(t testing.TB, pid, x string, pa int, y string, pb int) string {
	t.Helper()
	return a.Do("POST", "/v2/projects/"+pid+"/links", map[string]any{"nodes": []any{End(x, 0, pa), End(y, 0, pb)}}).
		Want(t, 201).JSON(t)["link_id"].(string)
}

// MustCreateSwitch creates an Ethernet switch, with ports (a
// ports_mapping) unless nil, and returns its id.
func (a *API) MustCreateSwitch(t testing.TB, pid string, ports []any) string {
	t.Helper()
	body := map[string]any{"node_type": "ethernet_switch"}
	if ports != nil {
		body["properties"] = map[string]any{"ports_mapping": ports}
	}
	return a.MustCreateNode(pid, body)["node_id"].(string)
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
