package remote

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"nodedesk/app"
)

// fakeCompute is a compute on a real listener: capabilities with a
// version, a notification websocket that sends pings, and one route that
// refuses with a GNS3 error body.
type fakeCompute struct {
	version string
	user    string
	srv     *httptest.Server
	mu      sync.Mutex
	conns   []*websocket.Conn
}

func newFakeCompute(t *testing.T, version, user string) *fakeCompute {
	f := &fakeCompute{version: version, user: user}
	mux := http.NewServeMux()
	auth := func(r *http.Request) bool {
		u, _, ok := r.BasicAuth()
		return f.user == "" || (ok && u == f.user)
	}
	mux.HandleFunc("GET /v2/compute/capabilities", func(w http.ResponseWriter, r *http.Request) {
		if !auth(r) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"version": f.version, "platform": "linux", "node_types": []string{"vpcs"}})
	})
	mux.HandleFunc("GET /v2/compute/notifications/ws", func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		f.mu.Lock()
		f.conns = append(f.conns, c)
		f.mu.Unlock()
		ctx := r.Context()
		for i := 0; ; i++ {
			msg := `{"action":"ping","event":{"cpu_usage_percent":12.5,"memory_usage_percent":40}}`
			if i == 1 {
				msg = `{"action":"node.updated","event":{"node_id":"n","project_id":"p","status":"started"},"project_id":"p"}`
			}
			if c.Write(ctx, websocket.MessageText, []byte(msg)) != nil {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	})
	mux.HandleFunc("POST /v2/compute/projects", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusConflict)
		_, _ = w.Write([]byte(`{"message":"Console port 5000 is taken","status":409}`))
	})
	mux.HandleFunc("GET /v2/compute/projects/p/vpcs/nodes/n/adapters/0/ports/0/pcap", func(w http.ResponseWriter, r *http.Request) {
		for i := range 3 { // three chunks, each flushed, then the end
			_, _ = w.Write([]byte("chunk" + strconv.Itoa(i)))
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("GET /v2/compute/projects/p/vpcs/nodes/n/adapters/0/ports/1/pcap", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("head"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeCompute) compute(user string) app.Compute {
	u := strings.TrimPrefix(f.srv.URL, "http://")
	host, port, _ := strings.Cut(u, ":")
	c := app.Compute{ID: "f", Name: "F", Protocol: "http", Host: host}
	c.Port, _ = strconv.Atoi(port)
	if user != "" {
		c.User = &user
	}
	return c
}

// watch starts a client and collects what it reports.
type watch struct {
	mu     sync.Mutex
	states []app.ComputeState
	events []app.ComputeEvent
}

func (w *watch) last() (app.ComputeState, []app.ComputeEvent) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.states) == 0 {
		return app.ComputeState{}, append([]app.ComputeEvent(nil), w.events...)
	}
	return w.states[len(w.states)-1], append([]app.ComputeEvent(nil), w.events...)
}

func dial(t *testing.T, c app.Compute) (app.ComputeClient, *watch) {
	w := &watch{}
	cl := Dial(c, func(st app.ComputeState) {
		w.mu.Lock()
		w.states = append(w.states, st)
		w.mu.Unlock()
	}, func(ev app.ComputeEvent) {
		w.mu.Lock()
		w.events = append(w.events, ev)
		w.mu.Unlock()
	})
	t.Cleanup(cl.Close)
	cl.Start()
	return cl, w
}

// waitState waits (bounded) for a reported state that cond accepts.
func waitState(t *testing.T, w *watch, cond func(app.ComputeState, []app.ComputeEvent) bool) app.ComputeState {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if st, ev := w.last(); cond(st, ev) {
			return st
		}
	}
	st, ev := w.last()
	t.Fatalf("no such state; last %+v (last_error %v), events %v", st, deref(st.LastError), ev)
	return st
}

func deref(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

func TestClient_ConnectsPingsAndForwards(t *testing.T) {
	f := newFakeCompute(t, "2.2.59", "")
	cl, w := dial(t, f.compute(""))
	st := waitState(t, w, func(st app.ComputeState, ev []app.ComputeEvent) bool {
		return st.Connected && st.CPU != nil && len(ev) > 0
	})
	if *st.CPU != 12.5 || *st.Memory != 40 || !strings.Contains(string(st.Capabilities), `"2.2.59"`) {
		t.Errorf("state %+v caps %s", st, st.Capabilities)
	}
	want := app.ComputeEvent{Action: app.EventNodeUpdated, Node: app.NodeRef{ProjectID: "p", NodeID: "n"}, Status: app.Started}
	if _, ev := w.last(); ev[0].Action != app.EventNodeUpdated || ev[0].Node != want.Node || ev[0].Status != want.Status {
		t.Errorf("events %+v, want node.updated %+v (pings are not forwarded)", ev, want)
	}
	// The compute's own message reaches the caller, under its code.
	err := cl.CreateProject(context.Background(), "p", "x")
	if app.ErrorCode(err) != app.ECONFLICT || !strings.Contains(app.ErrorMessage(err), "Console port 5000 is taken") {
		t.Errorf("refusal %v", err)
	}
	if _, err := cl.Query(context.Background(), app.ComputeQuery{Emulator: "no", Action: "thing"}); app.ErrorCode(err) != app.ENOTFOUND {
		t.Errorf("404: %v, want ENOTFOUND", err)
	}
	// Loss: the compute goes away; the client says so and keeps trying.
	f.srv.CloseClientConnections()
	f.srv.Close()
	st = waitState(t, w, func(st app.ComputeState, _ []app.ComputeEvent) bool { return !st.Connected })
	if st.LastError == nil || st.CPU != nil {
		t.Errorf("lost state %+v", st)
	}
	if _, err := cl.Query(context.Background(), app.ComputeQuery{Emulator: "network", Action: "ports"}); app.ErrorCode(err) != app.ECONFLICT || !strings.Contains(app.ErrorMessage(err), "unreachable") {
		t.Errorf("call to a gone compute: %v", err)
	}
}

func TestClient_RefusesAnotherVersionAndBadAuth(t *testing.T) {
	f := newFakeCompute(t, "2.2.58", "")
	_, w := dial(t, f.compute(""))
	st := waitState(t, w, func(st app.ComputeState, _ []app.ComputeEvent) bool { return st.LastError != nil })
	if st.Connected || !strings.Contains(*st.LastError, "GNS3 controller version 2.2.59 is not the same as compute F version 2.2.58") {
		t.Errorf("version mismatch: %+v %s", st, deref(st.LastError))
	}
	g := newFakeCompute(t, "2.2.59", "alice")
	_, w = dial(t, g.compute("bob"))
	st = waitState(t, w, func(st app.ComputeState, _ []app.ComputeEvent) bool { return st.LastError != nil })
	if st.Connected || !strings.Contains(*st.LastError, "Invalid auth") {
		t.Errorf("bad auth: %+v %s", st, deref(st.LastError))
	}
	_, w = dial(t, g.compute("alice"))
	waitState(t, w, func(st app.ComputeState, _ []app.ComputeEvent) bool { return st.Connected })
}

// StreamPcap copies a compute's answer as it comes, ends with the
// compute's stream or with its context, and turns a refusal into the
// compute's own error.
func TestClient_StreamPcap(t *testing.T) {
	f := newFakeCompute(t, "2.2.59", "")
	cl, _ := dial(t, f.compute(""))
	port := func(n int) app.PortRef {
		return app.PortRef{NodeRef: app.NodeRef{ProjectID: "p", NodeID: "n", Type: app.VPCS}, Port: n}
	}
	var b strings.Builder
	if err := cl.StreamPcap(context.Background(), port(0), &b); err != nil || b.String() != "chunk0chunk1chunk2" {
		t.Errorf("StreamPcap = %v, %q", err, b.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	b.Reset()
	if err := cl.StreamPcap(ctx, port(1), &b); err != nil || b.String() != "head" || ctx.Err() == nil {
		t.Errorf("StreamPcap of an endless answer = %v, %q (ctx %v): want it ended by its context", err, b.String(), ctx.Err())
	}
	err := cl.StreamPcap(context.Background(), port(2), &b)
	if app.ErrorCode(err) != app.ENOTFOUND || !strings.Contains(err.Error(), "Compute F") {
		t.Errorf("StreamPcap of a missing path = %v, want ENOTFOUND naming the compute", err)
	}
}
