package main

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"nodedesk/app/kit"
)

// Crash safety, proven on the built binary: every write nodedesk
// acknowledged with a 2xx survives a SIGKILL at any moment, and the store
// always opens again. NODEDESK_CRASH_KILLS sets the number of kills (make
// test: 20; make crash: 200).

// loadClient has no timeout surprises and fresh connections per process.
func loadClient() *http.Client {
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
}

// try sends a request and returns the status and body, or an error if no
// answer arrived (as when the server is killed mid-request).
func try(c *http.Client, method, url string, body any) (int, []byte, error) {
	raw, _ := json.Marshal(body)
	req, err := http.NewRequest(method, url, bytes.NewReader(raw))
	if err != nil {
		return 0, nil, err
	}
	res, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, b, err
}

// acked records what the server acknowledged.
type acked struct {
	mu      sync.Mutex
	x       map[string]int  // worker node -> highest x acknowledged
	created map[string]bool // nodes whose creation was acknowledged
	writes  int
}

// load runs workers against url until stop is closed: each worker raises
// its own node's x and sometimes creates a node. Answers other than 2xx
// or a refused/cut connection fail the test.
func load(t *testing.T, url, pid string, workers []string, a *acked, stop <-chan struct{}) *sync.WaitGroup {
	var wg sync.WaitGroup
	for w, nid := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := loadClient()
			r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(w)))
			for {
				select {
				case <-stop:
					return
				default:
				}
				a.mu.Lock()
				next := a.x[nid] + 1 + r.IntN(3)
				a.mu.Unlock()
				if r.IntN(4) == 0 {
					status, body, err := try(c, "POST", url+"/v2/projects/"+pid+"/nodes", map[string]any{"node_type": "ethernet_hub"})
					if err != nil {
						return // the server is gone
					}
					if status != 201 {
						t.Errorf("create answered %d %s", status, body)
						return
					}
					var n struct {
						NodeID string `json:"node_id"`
					}
					_ = json.Unmarshal(body, &n)
					a.mu.Lock()
					a.created[n.NodeID] = true
					a.writes++
					a.mu.Unlock()
					continue
				}
				status, body, err := try(c, "PUT", url+"/v2/projects/"+pid+"/nodes/"+nid, map[string]any{"x": next})
				if err != nil {
					return
				}
				if status != 200 {
					t.Errorf("PUT answered %d %s", status, body)
					return
				}
				a.mu.Lock()
				if next > a.x[nid] {
					a.x[nid] = next
				}
				a.writes++
				a.mu.Unlock()
			}
		}()
	}
	return &wg
}

// verify checks that every acknowledged write is in the store served at url.
func verify(t *testing.T, url, pid string, a *acked) {
	t.Helper()
	status, body := call(t, "GET", url+"/v2/projects/"+pid+"/nodes", nil)
	if status != 200 {
		t.Fatalf("listing nodes after restart: %d %s", status, body)
	}
	var nodes []struct {
		NodeID string `json:"node_id"`
		X      int    `json:"x"`
	}
	if err := json.Unmarshal(body, &nodes); err != nil {
		t.Fatal(err)
	}
	have := map[string]int{}
	for _, n := range nodes {
		have[n.NodeID] = n.X
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for id, x := range a.x {
		if got, ok := have[id]; !ok || got < x {
			t.Fatalf("node %s: x=%d (present %v) after restart, but x=%d was acknowledged", id, got, ok, x)
		}
	}
	for id := range a.created {
		if _, ok := have[id]; !ok {
			t.Fatalf("node %s was acknowledged as created but is gone after restart", id)
		}
	}
}

// mustSetUpWorkers creates a project with one VPCS node per writer and
// returns them with an empty record of acknowledged writes.
func mustSetUpWorkers(t *testing.T, url, name string) (pid string, workers []string, a *acked) {
	t.Helper()
	status, body := call(t, "POST", url+"/v2/projects", map[string]any{"name": name})
	if status != 201 {
		t.Fatalf("create project: %d %s", status, body)
	}
	var proj struct {
		ProjectID string `json:"project_id"`
	}
	_ = json.Unmarshal(body, &proj)
	a = &acked{x: map[string]int{}, created: map[string]bool{}}
	for range 8 {
		status, body := call(t, "POST", url+"/v2/projects/"+proj.ProjectID+"/nodes", map[string]any{"node_type": "vpcs"})
		if status != 201 {
			t.Fatalf("create node: %d %s", status, body)
		}
		var n struct {
			NodeID string `json:"node_id"`
		}
		_ = json.Unmarshal(body, &n)
		workers = append(workers, n.NodeID)
		a.x[n.NodeID] = 0
	}
	return proj.ProjectID, workers, a
}

func TestCrash_KillNine(t *testing.T) {
	kills := 20
	if v, err := strconv.Atoi(os.Getenv("NODEDESK_CRASH_KILLS")); err == nil && v > 0 {
		kills = v
	}
	db := filepath.Join(t.TempDir(), "crash.db")
	env := sandboxEnv(t)
	args := []string{"--headless", "--listen", "127.0.0.1:0", "--db", db}

	p := start(t, env, args...)
	url := p.waitServing(t)
	pid, workers, a := mustSetUpWorkers(t, url, "crash")
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	for k := range kills {
		stop := make(chan struct{})
		before := a.count()
		wg := load(t, url, pid, workers, a, stop)
		// Each kill lands under load: after this round's first
		// acknowledged writes, at a random moment after them.
		if !kit.WaitFor(10*time.Second, func() bool { return a.count() >= before+minWritesPerKill }) {
			t.Fatalf("kill %d: fewer than %d writes acknowledged in 10 s (%d): the kill would prove nothing", k+1, minWritesPerKill, a.count()-before)
		}
		time.Sleep(time.Duration(r.IntN(300)) * time.Millisecond)
		if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		<-p.done
		close(stop)
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
		p = start(t, env, args...)
		url = p.waitServing(t)
		verify(t, url, pid, a)
		if k == kills-1 {
			t.Logf("%d kills survived; %d acknowledged writes, every one present after its restart", kills, a.writes)
		}
	}
	p.stop(t)
}

// minWritesPerKill is how many writes each round of TestCrash_KillNine
// must have acknowledged before its kill.
const minWritesPerKill = 5

// count is the number of writes acknowledged so far.
func (a *acked) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.writes
}

// TestShutdown_UnderLoad: SIGTERM while clients write: nodedesk exits 0
// soon, no request gets a 5xx, and every acknowledged write is kept.
func TestShutdown_UnderLoad(t *testing.T) {
	db := filepath.Join(t.TempDir(), "term.db")
	env := sandboxEnv(t)
	args := []string{"--headless", "--listen", "127.0.0.1:0", "--db", db}
	p := start(t, env, args...)
	url := p.waitServing(t)
	pid, workers, a := mustSetUpWorkers(t, url, "term")
	stop := make(chan struct{})
	wg := load(t, url, pid, workers, a, stop)
	// SIGTERM lands under load, with writes acknowledged to keep.
	const minWrites = 50
	if !kit.WaitFor(10*time.Second, func() bool { return a.count() >= minWrites }) {
		t.Fatalf("fewer than %d writes acknowledged in 10 s (%d): the shutdown would prove nothing", minWrites, a.count())
	}
	p.stop(t) // SIGTERM, exit code 0 within the shutdown limit
	close(stop)
	wg.Wait()
	p = start(t, env, args...)
	url = p.waitServing(t)
	verify(t, url, pid, a)
	t.Logf("%d writes acknowledged before SIGTERM, all kept", a.writes)
	p.stop(t)
}
