package remote

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"nodedesk/app"
)

// listen serves h on a real loopback listener and returns a compute
// record for it.
func listen(t *testing.T, h http.Handler) app.Compute {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	host, port, _ := strings.Cut(strings.TrimPrefix(srv.URL, "http://"), ":")
	c := app.Compute{ID: "r", Name: "R", Protocol: "http", Host: host}
	c.Port, _ = strconv.Atoi(port)
	return c
}

// TestClient_RedirectIsARefusal: a compute answering 307 does not make the
// client send its DELETE elsewhere (here: a second server that counts
// what reaches it); the caller is told about the redirection.
func TestClient_RedirectIsARefusal(t *testing.T) {
	var hits atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer other.Close()
	c := listen(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/v2/projects/x", http.StatusTemporaryRedirect)
	}))
	cl := Dial(c, func(app.ComputeState) {}, func(app.ComputeEvent) {})
	defer cl.Close()
	err := cl.DeleteProject(context.Background(), "x")
	if app.ErrorCode(err) != app.ECONFLICT || !strings.Contains(app.ErrorMessage(err), "redirection") {
		t.Errorf("redirect: %v, want a refusal naming the redirection", err)
	}
	if hits.Load() != 0 {
		t.Errorf("the redirect was followed: %d request(s) reached its target", hits.Load())
	}
}

// TestClient_BoundsWhatAComputeSays: a compute's huge error message is cut
// to about a KiB in the error nodedesk gives, and capabilities larger than
// nodedesk keeps make the connection fail, saying so.
func TestClient_BoundsWhatAComputeSays(t *testing.T) {
	huge := strings.Repeat("é", 50<<10)
	c := listen(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v2/compute/capabilities" {
			_ = json.NewEncoder(w).Encode(map[string]any{"version": app.GNS3Version, "padding": huge})
			return
		}
		w.WriteHeader(http.StatusConflict)
		_ = json.NewEncoder(w).Encode(map[string]any{"message": huge})
	}))
	cl, w := dial(t, c)
	err := cl.CreateProject(context.Background(), "x", "")
	if m := app.ErrorMessage(err); app.ErrorCode(err) != app.ECONFLICT || len(m) > 2<<10 || !strings.Contains(m, "éé") {
		t.Errorf("refusal of %d bytes (code %s), want the compute's message cut to about 1 KiB", len(m), app.ErrorCode(err))
	}
	st := waitState(t, w, func(st app.ComputeState, _ []app.ComputeEvent) bool { return st.LastError != nil })
	if st.Connected || st.Capabilities != nil || !strings.Contains(*st.LastError, "more than") {
		t.Errorf("huge capabilities: connected %v, %d bytes kept, last_error %s", st.Connected, len(st.Capabilities), deref(st.LastError))
	}
}
