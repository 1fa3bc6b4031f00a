package api

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/coder/websocket"
)

// TestGuard: a web page in the user's browser cannot drive the API.
func TestGuard(t *testing.T) {
	ts := mustOpenServer(t)
	port := ts.URL[strings.LastIndex(ts.URL, ":")+1:]
	tests := []struct {
		name   string
		method string
		header http.Header
		want   int
	}{
		{"plain client", "POST", nil, 201},
		{"localhost host", "POST", http.Header{"Host": {"localhost:" + port}}, 201},
		{"rebinding host", "GET", http.Header{"Host": {"evil.example:" + port}}, 403},
		{"rebinding host on POST", "POST", http.Header{"Host": {"attacker.test"}}, 403},
		{"port-less loopback host (GNS3's pcap proxy)", "POST", http.Header{"Host": {"127.0.0.1"}}, 201},
		{"port-less localhost", "POST", http.Header{"Host": {"localhost"}}, 201},
		{"port-less other address", "POST", http.Header{"Host": {"10.1.2.3"}}, 403},
		{"host with another port", "POST", http.Header{"Host": {"127.0.0.1:1"}}, 403},
		{"foreign origin", "POST", http.Header{"Origin": {"http://evil.example"}}, 403},
		{"foreign origin on the same port number", "POST", http.Header{"Origin": {"http://evil.example:" + port}}, 403},
		{"https origin", "POST", http.Header{"Origin": {"https://127.0.0.1:" + port}}, 403},
		{"null origin", "POST", http.Header{"Origin": {"null"}}, 403},
		{"cross-site fetch", "POST", http.Header{"Sec-Fetch-Site": {"cross-site"}}, 403},
		{"own origin", "POST", http.Header{"Origin": {"http://127.0.0.1:" + port}}, 201},
	}
	created := 0
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, body := "/v2/projects", any(map[string]any{"name": "p" + strings.Repeat("x", i)})
			if tt.method == "GET" {
				path, body = "/v2/version", nil
			}
			r := ts.DoWith(tt.method, path, body, tt.header)
			if r.Status != tt.want {
				t.Fatalf("%d, want %d: %s", r.Status, tt.want, r.Body)
			}
			if r.Status == 201 {
				created++
			}
			if r.Header.Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("CORS header sent: %v", r.Header)
			}
		})
	}
	if l := ts.Do("GET", "/v2/projects", nil).List(t); len(l) != created {
		t.Errorf("%d projects exist, want %d: refused requests must change nothing", len(l), created)
	}
}

func TestRouter_JSONErrors(t *testing.T) {
	ts := mustOpenServer(t)
	for _, tt := range []struct {
		method, path string
		want         int
	}{
		{"GET", "/v2/nope", 404},
		{"GET", "/v2/version/", 404},
		{"DELETE", "/v2/version", 405},
		{"PATCH", "/v2/projects", 405},
		{"HEAD", "/v2/projects", 405},
		{"POST", "/v2/compute/projects/x/virtualbox/nodes", 404},
	} {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			r := ts.Do(tt.method, tt.path, nil).Want(t, tt.want)
			if tt.method != "HEAD" && !strings.Contains(r.JSON(t)["message"].(string), tt.path) {
				t.Errorf("message %s does not name the path", r.Body)
			}
		})
	}
}

// TestContract_EveryOperationRouted: openapi.json and the router agree in
// both directions (routes() refuses a route the contract lacks; this test
// finds operations the router lacks), and the document is served.
func TestContract_EveryOperationRouted(t *testing.T) {
	ts := mustOpenServer(t)
	r := ts.Do("GET", "/v2/openapi.json", nil).Want(t, 200)
	if !bytes.Equal(r.Body, openAPI) {
		t.Error("/v2/openapi.json is not the embedded contract")
	}
	paths := ts.srv.contract.doc["paths"].(map[string]any)
	n := 0
	for tmpl, item := range paths {
		for method := range item.(map[string]any) {
			if method == "parameters" {
				continue
			}
			path := strings.NewReplacer("{project_id}", "None", "{node_id}", "None", "{link_id}", "None",
				"{compute_id}", "none", "{template_id}", "None", "{emulator}", "qemu", "{symbol_id}", "none").Replace(tmpl)
			if path == "/v2/notifications" {
				continue // a stream that never ends; TestNotifications covers it
			}
			res := ts.Do(strings.ToUpper(method), path, nil)
			if res.Status == 405 || (res.Status == 404 && strings.Contains(string(res.Body), "No such API endpoint")) {
				t.Errorf("%s %s is in openapi.json but not routed", strings.ToUpper(method), tmpl)
			}
			n++
		}
	}
	if n < 37 {
		t.Errorf("only %d operations in the contract", n)
	}
}

// TestUI: the browser UI is served at /, and index.html answers for the
// UI's own routes; /v2 stays the API's.
func TestUI(t *testing.T) {
	ts := mustOpenServer(t)
	get := func(path string) (int, string, string) {
		res, err := ts.Client.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header.Get("Content-Type"), string(b)
	}
	if code, ct, body := get("/"); code != 200 || !strings.HasPrefix(ct, "text/html") || !strings.Contains(body, "make build") {
		t.Errorf("/ without a built UI: %d %s %q", code, ct, body)
	}
	ts.srv.UI = fstest.MapFS{
		"index.html":    {Data: []byte("<!doctype html><title>nodedesk</title>")},
		"assets/app.js": {Data: []byte("console.log(1)")},
	}
	for path, want := range map[string]string{"/": "<title>nodedesk", "/projects/abc": "<title>nodedesk", "/assets/app.js": "console.log"} {
		if code, _, body := get(path); code != 200 || !strings.Contains(body, want) {
			t.Errorf("GET %s: %d %q", path, code, body)
		}
	}
	if code, _, _ := get("/v2/nope"); code != 404 {
		t.Errorf("/v2/nope: %d", code)
	}
}

func TestAuth(t *testing.T) {
	ts := mustOpenServerWith(t, testOptions{auth: &Credentials{User: "lab", Password: "s3cret"}})
	basic := func(user, pass string) http.Header {
		r, _ := http.NewRequest("GET", "/", nil)
		r.SetBasicAuth(user, pass)
		return http.Header{"Authorization": r.Header["Authorization"]}
	}
	for _, tt := range []struct {
		name   string
		header http.Header
		want   int
	}{
		{"no credentials", nil, 401},
		{"wrong password", basic("lab", "nope"), 401},
		{"wrong user", basic("admin", "s3cret"), 401},
		{"right", basic("lab", "s3cret"), 201},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := ts.DoWith("POST", "/v2/projects", map[string]any{"name": tt.name}, tt.header).Want(t, tt.want)
			if tt.want == 401 && !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Basic") {
				t.Errorf("401 without a Basic challenge: %v", r.Header)
			}
		})
	}
	// Unknown routes and websockets are behind the same door.
	ts.Do("GET", "/v2/nope", nil).Want(t, 401)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	wsURL := "ws" + strings.TrimPrefix(ts.URL, "http") + "/v2/notifications/ws"
	if _, res, err := websocket.Dial(ctx, wsURL, nil); err == nil || res == nil || res.StatusCode != 401 {
		t.Errorf("websocket without credentials: %v", err)
	}
	c, _, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPHeader: basic("lab", "s3cret")})
	if err != nil {
		t.Fatalf("websocket with credentials: %v", err)
	}
	c.CloseNow()
}

func TestGuard_RecoversPanics(t *testing.T) {
	var log bytes.Buffer
	calls := 0
	g := &guard{logger: slog.New(slog.NewTextHandler(&log, nil)), next: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if calls == 1 {
			panic("boom")
		}
		writeJSON(w, 200, map[string]any{"ok": true})
	})}
	srv := httptest.NewServer(g)
	defer srv.Close()
	for i, want := range []int{500, 200} {
		res, err := http.Get(srv.URL + "/v2/version")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != want {
			t.Fatalf("request %d: %d %s, want %d", i, res.StatusCode, body, want)
		}
		if want == 500 && (!strings.Contains(string(body), `"status":500`) || res.Header.Get("Content-Type") != "application/json") {
			t.Errorf("panic answered %s", body)
		}
	}
	if !strings.Contains(log.String(), "boom") || !strings.Contains(log.String(), "goroutine") {
		t.Errorf("panic not logged with a stack: %s", log.String())
	}
}
