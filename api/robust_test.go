package api

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"nodedesk/app"
)

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
			r := ts.doWith("POST", "/v2/projects", map[string]any{"name": tt.name}, tt.header).want(t, tt.want)
			if tt.want == 401 && !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Basic") {
				t.Errorf("401 without a Basic challenge: %v", r.header)
			}
		})
	}
	// Unknown routes and websockets are behind the same door.
	ts.do("GET", "/v2/nope", nil).want(t, 401)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	wsURL := "ws" + strings.TrimPrefix(ts.url, "http") + "/v2/notifications/ws"
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

// TestSlowClients: a client that sends its headers too slowly is cut off.
func TestSlowClients(t *testing.T) {
	ts := mustOpenServerWith(t, testOptions{timeouts: Timeouts{ReadHeader: 300 * time.Millisecond, Read: time.Second}})
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /v2/version HTTP/1.1\r\nHost: %s\r\n", strings.TrimPrefix(ts.url, "http://"))
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadAll(conn); err != nil {
		t.Fatalf("the server kept a slow client: %v", err)
	}
	// A normal client still gets through.
	ts.do("GET", "/v2/version", nil).want(t, 200)
}

// TestBadInput: classic hostile bodies answer 400 with a JSON message and
// change nothing.
func TestBadInput(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.mustCreateProject("lab")
	n := ts.mustCreateNode(pid, map[string]any{"node_type": "vpcs"})
	path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
	before := ts.do("GET", path, nil).body
	tests := []struct {
		name string
		body string
		want int
	}{
		{"huge number", `{"x": 1e400}`, 400},
		{"huge integer", `{"console": 99999999999999999999999999}`, 400},
		{"negative zero console", `{"console": -0}`, 400},
		{"deep nesting", strings.Repeat("[", 100000) + strings.Repeat("]", 100000), 400},
		{"deep nesting in properties", `{"properties": {"startup_script": ` + strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000) + `}}`, 400},
		{"invalid UTF-8", "{\"name\": \"a\xc3\x28\"}", 400},
		{"NUL byte in a name", `{"name": "a\u0000b"}`, 400},
		{"line break in a name", `{"name": "a\nb"}`, 400},
		{"10 MB body", `{"name": "` + strings.Repeat("x", 10<<20) + `"}`, 400},
		{"NUL bytes raw", "{\"name\": \"a\x00\"}", 400},
		{"only whitespace", "   \n ", 400},
		{"UTF-16 BOM", "\xfe\xff{}", 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ts.do("PUT", path, tt.body).want(t, tt.want)
			if m, _ := r.json(t)["message"].(string); m == "" {
				t.Errorf("no message: %s", r.body)
			}
			if after := ts.do("GET", path, nil).body; !bytes.Equal(before, after) {
				t.Errorf("node changed:\n%s\n%s", before, after)
			}
		})
	}
	// Duplicate keys are ambiguous (readers disagree on which value counts).
	for _, body := range []string{`{"name": 5, "name": "twice"}`, `{"label": {"text": "a", "text": "b"}}`,
		`{"properties": {"startup_script": "a", "startup_script": "b"}}`} {
		if r := ts.do("PUT", path, body).want(t, 400); !strings.Contains(string(r.body), "twice") {
			t.Errorf("%s: %s", body, r.body)
		}
	}
	// The same key in sibling objects is fine.
	ts.do("PUT", path, `{"label": {"text": "x", "y": 1}, "properties": {"startup_script": "y"}, "x": 1, "y": 2}`).want(t, 200)
}

// failingStore makes writes fail on demand, as a full disk would: nothing
// is written and the store reports an error.
type failingStore struct {
	app.Store
	fail atomic.Bool
}

func (f *failingStore) Update(fn func(app.Tx) error) error {
	if f.fail.Load() {
		return app.Errorf(app.EINTERNAL, "The change was not saved: the store could not be written (no space left on device); check free disk space and permissions, then try again")
	}
	return f.Store.Update(fn)
}

func TestDiskTrouble_FailingStore(t *testing.T) {
	fs := &failingStore{}
	ts := mustOpenServerWith(t, testOptions{wrapStore: func(s app.Store) app.Store { fs.Store = s; return fs }})
	pid := ts.mustCreateProject("lab")
	n := ts.mustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": "keep"})
	path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
	fs.fail.Store(true)
	r := ts.do("PUT", path, map[string]any{"name": "lost"}).want(t, 500)
	if msg := r.json(t)["message"].(string); !strings.Contains(msg, "disk space") {
		t.Errorf("500 message %q does not say what to do", msg)
	}
	ts.do("POST", "/v2/projects/"+pid+"/nodes", map[string]any{"node_type": "vpcs"}).want(t, 500)
	fs.fail.Store(false)
	if got := ts.do("GET", path, nil).want(t, 200).json(t)["name"]; got != "keep" {
		t.Errorf("name %v after a failed write, want keep", got)
	}
	ts.do("PUT", path, map[string]any{"name": "saved"}).want(t, 200)
	ts.restart()
	if got := ts.do("GET", path, nil).want(t, 200).json(t)["name"]; got != "saved" {
		t.Errorf("name %v after restart, want saved", got)
	}
}

// TestDiskTrouble_FullDisk fills a real (tmpfs) disk under the store.
// Mounting needs root; CI runs as root.
func TestDiskTrouble_FullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	ts := mustOpenServerWith(t, testOptions{dbPath: filepath.Join(dir, "nodedesk.db")})
	pid := ts.mustCreateProject("lab")
	n := ts.mustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": "first"})
	path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
	script := strings.Repeat("echo fill the disk\n", 3000) // ~57 KiB a node
	var acked []string
	full := false
	for i := 0; i < 200 && !full; i++ {
		r := ts.do("POST", "/v2/projects/"+pid+"/nodes", map[string]any{"node_type": "vpcs", "properties": map[string]any{"startup_script": script}})
		switch r.status {
		case 201:
			acked = append(acked, r.json(t)["node_id"].(string))
		case 500:
			full = true
			if msg := r.json(t)["message"].(string); !strings.Contains(msg, "disk space") {
				t.Errorf("500 message %q does not say what to do", msg)
			}
		default:
			t.Fatalf("create answered %d %s", r.status, r.body)
		}
	}
	if !full {
		t.Fatal("the 2 MiB disk never filled")
	}
	// Nothing stored is lost, and reads still work.
	if got := ts.do("GET", path, nil).want(t, 200).json(t)["name"]; got != "first" {
		t.Errorf("first node reads %v", got)
	}
	if err := exec.Command("mount", "-o", "remount,size=64m", dir).Run(); err != nil {
		t.Fatalf("remount: %v", err)
	}
	ts.do("PUT", path, map[string]any{"name": "after"}).want(t, 200)
	ts.restart()
	for _, id := range acked {
		ts.do("GET", "/v2/projects/"+pid+"/nodes/"+id, nil).want(t, 200)
	}
	if got := ts.do("GET", path, nil).want(t, 200).json(t)["name"]; got != "after" {
		t.Errorf("name %v after the disk had room again", got)
	}
	t.Logf("%d nodes acknowledged before the disk was full; all there after a restart", len(acked))
}

// TestConcurrentMix: 64 clients mix creates, PUTs, deletes and links on one
// project; every answer is a 2xx or a JSON 4xx, and the store ends
// consistent.
func TestConcurrentMix(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.mustCreateProject("lab")
	nodes := "/v2/projects/" + pid + "/nodes"
	var mu sync.Mutex
	ids := []string{}
	pick := func(r *rand.Rand) string {
		mu.Lock()
		defer mu.Unlock()
		if len(ids) == 0 {
			return "00000000-0000-4000-8000-000000000000"
		}
		return ids[r.IntN(len(ids))]
	}
	var ops, statuses sync.Map
	var wg sync.WaitGroup
	for g := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 7))
			for range 25 {
				var res response
				op := ""
				switch k := r.IntN(10); {
				case k < 3:
					op = "create"
					types := []string{"vpcs", "ethernet_switch", "ethernet_hub", "qemu"}
					res = ts.do("POST", nodes, map[string]any{"node_type": types[r.IntN(len(types))], "name": fmt.Sprintf("n%d", r.IntN(20))})
					if res.status == 201 {
						mu.Lock()
						ids = append(ids, res.json(t)["node_id"].(string))
						mu.Unlock()
					}
				case k < 6:
					op = "put"
					bodies := []map[string]any{{"x": r.IntN(100), "y": r.IntN(100)}, {"name": fmt.Sprintf("n%d", r.IntN(20))}, {"console": 5000 + r.IntN(30)}}
					res = ts.do("PUT", nodes+"/"+pick(r), bodies[r.IntN(len(bodies))])
				case k < 8:
					op = "link"
					res = ts.do("POST", "/v2/projects/"+pid+"/links", map[string]any{"nodes": []any{end(pick(r), 0, r.IntN(3)), end(pick(r), 0, r.IntN(3))}})
				default:
					op = "delete"
					id := pick(r)
					if res = ts.do("DELETE", nodes+"/"+id, nil); res.status == 204 {
						mu.Lock()
						for i := range ids {
							if ids[i] == id {
								ids = append(ids[:i], ids[i+1:]...)
								break
							}
						}
						mu.Unlock()
					}
				}
				if res.status >= 500 || (res.status >= 400 && !strings.Contains(string(res.body), `"message"`)) {
					t.Errorf("%s answered %d %s", op, res.status, res.body)
				}
				n, _ := ops.LoadOrStore(op, new(atomic.Int64))
				n.(*atomic.Int64).Add(1)
				s, _ := statuses.LoadOrStore(res.status, new(atomic.Int64))
				s.(*atomic.Int64).Add(1)
			}
		}()
	}
	wg.Wait()
	summary := []string{}
	ops.Range(func(k, v any) bool {
		summary = append(summary, fmt.Sprintf("%s=%d", k, v.(*atomic.Int64).Load()))
		return true
	})
	statuses.Range(func(k, v any) bool {
		summary = append(summary, fmt.Sprintf("%d:%d", k, v.(*atomic.Int64).Load()))
		return true
	})
	t.Logf("1600 operations: %s", strings.Join(summary, " "))
	ts.restart()
	checkInvariants(t, ts, pid)
}

// checkInvariants: unique console ports across the store, unique names per
// project, and no link to a missing node or port.
func checkInvariants(t *testing.T, ts *testServer, pid string) {
	t.Helper()
	nodes := ts.do("GET", "/v2/projects/"+pid+"/nodes", nil).want(t, 200).list(t)
	consoles, names := map[float64]string{}, map[string]bool{}
	ports := map[string]bool{}
	for _, n := range nodes {
		if c, ok := n["console"].(float64); ok {
			if other, dup := consoles[c]; dup {
				t.Errorf("console %v owned by %s and %s", c, other, n["name"])
			}
			consoles[c] = n["name"].(string)
		}
		if names[n["name"].(string)] {
			t.Errorf("name %v used twice", n["name"])
		}
		names[n["name"].(string)] = true
		for _, p := range n["ports"].([]any) {
			pm := p.(map[string]any)
			ports[fmt.Sprintf("%s/%v/%v", n["node_id"], pm["adapter_number"], pm["port_number"])] = true
		}
	}
	used := map[string]bool{}
	for _, l := range ts.do("GET", "/v2/projects/"+pid+"/links", nil).want(t, 200).list(t) {
		for _, e := range l["nodes"].([]any) {
			em := e.(map[string]any)
			key := fmt.Sprintf("%s/%v/%v", em["node_id"], em["adapter_number"], em["port_number"])
			if !ports[key] {
				t.Errorf("link %v ends on a missing node or port %s", l["link_id"], key)
			}
			if used[key] {
				t.Errorf("port %s carries two links", key)
			}
			used[key] = true
		}
	}
	t.Logf("invariants hold over %d nodes, %d console ports, %d linked ports", len(nodes), len(consoles), len(used))
}

// TestReadYourWrites: with readers hammering the same nodes (and so the
// answer cache), a GET after a PUT's answer always shows that PUT, in both
// views and in the list.
func TestReadYourWrites(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.mustCreateProject("lab")
	n := ts.mustCreateNode(pid, map[string]any{"node_type": "vpcs"})
	path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
	cpath := "/v2/compute/projects/" + pid + "/vpcs/nodes/" + n["node_id"].(string)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				ts.do("GET", path, nil)
				ts.do("GET", cpath, nil)
				ts.do("GET", "/v2/projects/"+pid+"/nodes", nil)
			}
		}()
	}
	for i := range 100 {
		name := fmt.Sprintf("pc-%d", i)
		ts.do("PUT", path, map[string]any{"name": name, "x": i}).want(t, 200)
		if got := ts.do("GET", path, nil).json(t); got["name"] != name || got["x"] != float64(i) {
			t.Fatalf("after PUT %d the node reads %v/%v", i, got["name"], got["x"])
		}
		if got := ts.do("GET", cpath, nil).json(t)["name"]; got != name {
			t.Fatalf("after PUT %d the compute view reads %v", i, got)
		}
		if got := ts.do("GET", "/v2/projects/"+pid+"/nodes", nil).list(t)[0]["name"]; got != name {
			t.Fatalf("after PUT %d the list reads %v", i, got)
		}
	}
	ts.do("DELETE", path, nil).want(t, 204)
	ts.do("GET", path, nil).want(t, 404)
	ts.do("GET", cpath, nil).want(t, 404)
	close(stop)
	wg.Wait()
	// Deleting a project forgets its nodes too.
	m := ts.mustCreateNode(pid, map[string]any{"node_type": "vpcs"})
	mpath := "/v2/projects/" + pid + "/nodes/" + m["node_id"].(string)
	ts.do("GET", mpath, nil).want(t, 200)
	ts.do("DELETE", "/v2/projects/"+pid, nil).want(t, 204)
	ts.do("GET", mpath, nil).want(t, 404)
}
