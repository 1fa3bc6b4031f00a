package main

// The load benchmark (make bench): the built nodedesk, headless on a fresh
// store holding one project of N nodes, driven over loopback by an
// in-process load generator. The same run measures ceilings on the same
// machine — a bare net/http handler answering a body of the same size, and
// a bare handler that commits one bbolt Update per request, both in a child
// process as nodedesk is — and the table shows nodedesk as a ratio of its
// ceiling, so that figures from a noisy machine still compare. Every target
// is checked here, never in a timed unit test.
//
//	NODEDESK_BENCH=1          run it (otherwise skipped, so go test ./... stays fast)
//	NODEDESK_BENCH_NODES=N    nodes in the project (default 200)
//	NODEDESK_BENCH_SECONDS=S  measured seconds per cell (default 3)
//	NODEDESK_BENCH_BIG=1      add the size rows (implied by N >= 100000): GET
//	                          at 100,000 nodes vs 200, list of 10,000 nodes,
//	                          start-up time and memory on a 100,000-node store

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	bolt "go.etcd.io/bbolt"

	"nodedesk/app"
	"nodedesk/app/hostnet"
	"nodedesk/app/kit"
	"nodedesk/store"
)

const (
	// benchAPIPopulateMax is the largest project populated through the API
	// (32 connections, one durable create each); larger ones are written
	// straight into the store file (writeBenchStore) before start-up.
	benchAPIPopulateMax = 2000
	// benchBigNodes and benchListNodes are the store sizes of the size rows.
	benchBigNodes  = 100_000
	benchListNodes = 10_000
	benchRefNodes  = 200
	// benchWriteChunk is how many nodes writeBenchStore puts in one
	// transaction: bbolt is slow on one huge transaction (100,000 nodes:
	// 12 s in one, 2.4 s in chunks of 5,000).
	benchWriteChunk = 5000
	// benchRounds is how many times a row alternates between its ceiling
	// and nodedesk, each for a share of the cell's time: on a noisy
	// machine the ratio then compares the same moments.
	benchRounds = 3
)

// ---- the load generator ----------------------------------------------------

// benchRequest is one request of a load: what to send and the status that
// means success.
type benchRequest struct {
	method, url string
	body        []byte
	want        int
}

// loadResult is what a load measured.
type loadResult struct {
	latencies []time.Duration // of the requests completed in the measured window, sorted
	window    time.Duration   // the measured time
	rps       float64         // requests per second in the window
	p50, p99  time.Duration
	errors    int // transport errors and unexpected statuses, warm-up included
	firstErr  string
}

// mergeLoads sums loads measured one after the other (rounds of one cell).
func mergeLoads(rs ...loadResult) loadResult {
	var m loadResult
	for _, r := range rs {
		m.latencies = append(m.latencies, r.latencies...)
		m.window += r.window
		m.errors += r.errors
		if m.firstErr == "" {
			m.firstErr = r.firstErr
		}
	}
	slices.Sort(m.latencies)
	return m.summarize()
}

// summarize fills rps and the percentiles from latencies and window.
func (r loadResult) summarize() loadResult {
	if n := len(r.latencies); n > 0 {
		r.rps = float64(n) / r.window.Seconds()
		r.p50 = r.latencies[n*50/100]
		r.p99 = r.latencies[min(n-1, n*99/100)]
	}
	return r
}

// runLoad drives conns workers, each on its own keep-alive connection,
// sending next(i) (i counts requests across workers) back to back. The
// measured window of dur starts once the warm-up is over and every worker
// has had an answer (so slow requests, like big lists, are measured in a
// steady state); a request counts if it completed inside the window.
func runLoad(conns int, dur time.Duration, next func(i int64) benchRequest) loadResult {
	tr := &http.Transport{
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		MaxConnsPerHost:     conns,
		DisableCompression:  true,
		IdleConnTimeout:     time.Minute,
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 60 * time.Second}

	// Times are durations since start; until is the end of the window,
	// unknown (the far future) until the warm-up is over.
	type sample struct{ end, latency time.Duration }
	start := time.Now()
	var (
		until    atomic.Int64
		seq      atomic.Int64
		errs     atomic.Int64
		errOnce  sync.Once
		firstErr string
		answered sync.WaitGroup // every worker has had a first answer
		wg       sync.WaitGroup
	)
	until.Store(math.MaxInt64)
	answered.Add(conns)
	samples := make([][]sample, conns)
	for w := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := make([]sample, 0, 1<<14)
			first := true
			for {
				t0 := time.Since(start)
				if int64(t0) >= until.Load() {
					break
				}
				err := benchSend(client, next(seq.Add(1)-1))
				t1 := time.Since(start)
				if first {
					first = false
					answered.Done()
				}
				if err != nil {
					errs.Add(1)
					errOnce.Do(func() { firstErr = err.Error() })
					continue
				}
				mine = append(mine, sample{t1, t1 - t0})
			}
			samples[w] = mine
		}()
	}
	answered.Wait()
	from := max(time.Since(start), min(dur/5, 500*time.Millisecond))
	time.Sleep(from - time.Since(start))
	until.Store(int64(from + dur))
	wg.Wait()

	var lat []time.Duration
	for _, mine := range samples {
		for _, s := range mine {
			if s.end >= from && s.end <= from+dur {
				lat = append(lat, s.latency)
			}
		}
	}
	slices.Sort(lat)
	return loadResult{latencies: lat, window: dur, errors: int(errs.Load()), firstErr: firstErr}.summarize()
}

// benchSend sends one request and reads the whole answer.
func benchSend(c *http.Client, r benchRequest) error {
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequest(r.method, r.url, body)
	if err != nil {
		return err
	}
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != r.want {
		msg, _ := io.ReadAll(io.LimitReader(res.Body, 300))
		return fmt.Errorf("%s %s answered %d, want %d: %s", r.method, r.url, res.StatusCode, r.want, msg)
	}
	_, err = io.Copy(io.Discard, res.Body)
	return err
}

// ---- nodedesk under test -----------------------------------------------------

// benchNodedesk is a running nodedesk with one project of nodes.
type benchNodedesk struct {
	p     *proc
	url   string
	pid   string
	nodes []string
	// ready is the time from exec to the first answered request; mem is
	// the process's memory at that moment.
	ready time.Duration
	mem   benchMemory
}

// startNodedesk starts the binary headless on db and waits until it
// answers GET /v2/version, timing that with a finer poll than waitServing.
func startNodedesk(t *testing.T, db string) *benchNodedesk {
	t.Helper()
	p := start(t, sandboxEnv(t), "--headless", "--listen", "127.0.0.1:0", "--db", db)
	deadline := p.started.Add(servingLimit)
	var url string
	for url == "" {
		if m := servingURL.FindStringSubmatch(p.stderr.String()); m != nil {
			url = m[1]
			break
		}
		if p.exited() || time.Now().After(deadline) {
			t.Fatalf("nodedesk on %s did not log \"nodedesk is serving\" within %v (exited: %v)\nstderr:\n%s", db, servingLimit, p.exited(), p.stderr)
		}
		time.Sleep(2 * time.Millisecond)
	}
	res, err := httpClient.Get(url + "/v2/version")
	if err != nil {
		t.Fatalf("GET /v2/version right after start-up: %v", err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	nd := &benchNodedesk{p: p, url: url, ready: time.Since(p.started)}
	nd.mem = procMemory(t, p.cmd.Process.Pid)
	return nd
}

// benchMemory is what /proc/<pid>/status says of a process, in bytes.
type benchMemory struct {
	rss, hwm, anon int64 // VmRSS, VmHWM (peak), RssAnon (the heap's share; the rest is mostly the mmap'd store)
}

func procMemory(t *testing.T, pid int) benchMemory {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("reading the memory of nodedesk: %v", err)
	}
	var m benchMemory
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			m.rss = kb << 10
		case "VmHWM:":
			m.hwm = kb << 10
		case "RssAnon:":
			m.anon = kb << 10
		}
	}
	return m
}

// benchProject starts nodedesk on a fresh store holding one project of n
// ethernet hubs (hubs have no console port, so any n fits).
func benchProject(t *testing.T, n int) *benchNodedesk {
	t.Helper()
	db := filepath.Join(t.TempDir(), "bench.db")
	if n > benchAPIPopulateMax {
		pid, nodes := writeBenchStore(t, db, n)
		nd := startNodedesk(t, db)
		nd.pid, nd.nodes = pid, nodes
		return nd
	}
	nd := startNodedesk(t, db)
	status, body := call(t, "POST", nd.url+"/v2/projects", map[string]any{"name": "bench"})
	if status != http.StatusCreated {
		t.Fatalf("creating the project: %d %s", status, body)
	}
	var proj project
	_ = json.Unmarshal(body, &proj)
	nd.pid = proj.ID
	nd.nodes = populateAPI(t, nd.url, nd.pid, n)
	return nd
}

// populateAPI creates n hubs through the API on 32 connections.
func populateAPI(t *testing.T, url, pid string, n int) []string {
	t.Helper()
	tr := &http.Transport{MaxIdleConnsPerHost: 32, MaxConnsPerHost: 32}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: time.Minute}
	var (
		mu    sync.Mutex
		nodes []string
		left  atomic.Int64
		wg    sync.WaitGroup
		fail  atomic.Value
	)
	left.Store(int64(n))
	for range min(32, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left.Add(-1) >= 0 && fail.Load() == nil {
				status, body, err := try(c, "POST", url+"/v2/projects/"+pid+"/nodes", map[string]any{"node_type": "ethernet_hub"})
				if err != nil || status != http.StatusCreated {
					fail.Store(fmt.Sprintf("creating a node: %d %s %v", status, body, err))
					return
				}
				var node struct {
					ID string `json:"node_id"`
				}
				_ = json.Unmarshal(body, &node)
				mu.Lock()
				nodes = append(nodes, node.ID)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if msg := fail.Load(); msg != nil {
		t.Fatal(msg)
	}
	return nodes
}

// writeBenchStore writes a store holding one project of n hubs, a few
// transactions of benchWriteChunk nodes each: the first hub is created by the Service (GNS3's defaults),
// the others are copies of it under their own id and name, as the API
// would have named them (Hub1, Hub2, ...).
func writeBenchStore(t *testing.T, path string, n int) (string, []string) {
	t.Helper()
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := app.NewService(app.Config{Store: st, DataDir: filepath.Dir(path), PortFree: hostnet.PortFree("127.0.0.1")})
	ctx := context.Background()
	p, err := svc.CreateProject(ctx, app.ProjectCreate{ProjectUpdate: app.ProjectUpdate{Name: app.Some("bench")}})
	if err != nil {
		t.Fatal(err)
	}
	first, err := svc.CreateNode(ctx, p.ID, app.NodeCreate{Type: app.EthernetHub})
	if err != nil {
		t.Fatal(err)
	}
	nodes := make([]string, n)
	nodes[0] = first.ID
	for from := 1; from < n; from += benchWriteChunk {
		err = st.Update(func(tx app.Tx) error {
			for i := from; i < min(n, from+benchWriteChunk); i++ {
				c := *first
				c.ID, c.Name, c.Seq = uuid.NewString(), "Hub"+strconv.Itoa(i+1), 0
				c.Label.Text = c.Name
				if err := tx.PutNode(&c); err != nil {
					return err
				}
				nodes[i] = c.ID
			}
			return nil
		})
		if err != nil {
			t.Fatalf("writing %d nodes into %s: %v", n, path, err)
		}
	}
	return p.ID, nodes
}

// get fetches one body, requiring 200.
func (nd *benchNodedesk) get(t *testing.T, path string) []byte {
	t.Helper()
	status, body := call(t, "GET", nd.url+path, nil)
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, status, body)
	}
	return body
}

// The requests of the table, rotating over the project's nodes.

func (nd *benchNodedesk) nodeGet(i int64) benchRequest {
	return benchRequest{"GET", nd.url + "/v2/projects/" + nd.pid + "/nodes/" + nd.nodes[i%int64(len(nd.nodes))], nil, 200}
}

func (nd *benchNodedesk) computeGet(i int64) benchRequest {
	return benchRequest{"GET", nd.url + "/v2/compute/projects/" + nd.pid + "/ethernet_hub/nodes/" + nd.nodes[i%int64(len(nd.nodes))], nil, 200}
}

func (nd *benchNodedesk) nodePut(i int64) benchRequest {
	// x changes on every request, so every PUT is a real, durable commit.
	return benchRequest{"PUT", nd.url + "/v2/projects/" + nd.pid + "/nodes/" + nd.nodes[i%int64(len(nd.nodes))], fmt.Appendf(nil, `{"x":%d}`, i+1), 200}
}

func (nd *benchNodedesk) list(int64) benchRequest {
	return benchRequest{"GET", nd.url + "/v2/projects/" + nd.pid + "/nodes", nil, 200}
}

func (nd *benchNodedesk) create(int64) benchRequest {
	return benchRequest{"POST", nd.url + "/v2/projects/" + nd.pid + "/nodes", []byte(`{"node_type":"ethernet_hub"}`), 201}
}

// ---- the ceilings ----------------------------------------------------------

// The ceilings run in a child process (this test binary again, running
// TestBenchCeilingServer), as nodedesk does: a server in the load
// generator's own process answers loopback requests much faster than any
// other process can (2.5× at one connection, 1.3× at 32 on a 2-CPU machine),
// which would make every ratio unfair to nodedesk.
const benchCeilingEnv = "NODEDESK_BENCH_CEILING_DIR"

// benchCeilings is the running ceiling server: /node, /compute and /list
// answer those bodies; /commit commits one bbolt Update, then answers /node's.
type benchCeilings struct {
	url string
}

// startCeilings writes the bodies into a folder and starts the ceiling
// server on it; the server stops when the test ends.
func startCeilings(t *testing.T, bodies map[string][]byte, keys int) *benchCeilings {
	t.Helper()
	dir := t.TempDir()
	for name, body := range bodies {
		if err := os.WriteFile(filepath.Join(dir, strings.TrimPrefix(name, "/")), body, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "keys"), []byte(strconv.Itoa(keys)), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestBenchCeilingServer$")
	cmd.Env = append(os.Environ(), benchCeilingEnv+"="+dir)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe() // closing it stops the server
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the ceiling server: %v", err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if url, ok := strings.CutPrefix(lines.Text(), "ceiling-url="); ok {
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			return &benchCeilings{url: url}
		}
	}
	t.Fatal("the ceiling server ended before telling its address")
	return nil
}

// TestBenchCeilingServer is the ceiling server, run by startCeilings in a
// child process (skipped otherwise). Bodies are answered the way nodedesk
// writes an answer (Content-Type, status, one Write); /commit does one
// bbolt Update putting a 1 KB value per request, on a fresh file with
// default options (fsync on commit), over as many keys as the project has
// nodes, all present from the start as nodes are.
func TestBenchCeilingServer(t *testing.T) {
	dir := os.Getenv(benchCeilingEnv)
	if dir == "" {
		kit.RunElsewhere(t, "a child process of TestLoadTable")
	}
	bodies := map[string][]byte{}
	for _, name := range []string{"node", "compute", "list"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		bodies["/"+name] = b
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "keys"))
	keys, err := strconv.Atoi(string(raw))
	if err != nil || keys <= 0 {
		t.Fatalf("keys %q: %v", raw, err)
	}
	db, err := bolt.Open(filepath.Join(dir, "ceiling.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bucket := []byte("nodes")
	value := bytes.Repeat([]byte("x"), 1024)
	err = db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket(bucket)
		for k := 0; err == nil && k < keys; k++ {
			err = b.Put(binary.BigEndian.AppendUint64(nil, uint64(k)), value)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var seq atomic.Uint64
	answer := func(w http.ResponseWriter, body []byte) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	}
	mux := http.NewServeMux()
	for path, body := range bodies {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			answer(w, body)
		})
	}
	mux.HandleFunc("/commit", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		key := binary.BigEndian.AppendUint64(nil, seq.Add(1)%uint64(keys))
		if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucket).Put(key, value) }); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		answer(w, bodies["/node"])
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	fmt.Printf("ceiling-url=http://%s\n", ln.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin) // until the parent closes it
}

func (c *benchCeilings) get(path string) func(int64) benchRequest {
	return func(int64) benchRequest { return benchRequest{"GET", c.url + path, nil, 200} }
}

func (c *benchCeilings) commit(i int64) benchRequest {
	return benchRequest{"PUT", c.url + "/commit", fmt.Appendf(nil, `{"x":%d}`, i+1), 200}
}

// ---- the table ---------------------------------------------------------------

// benchGoal is a target on a row's value: at least or at most limit.
type benchGoal struct {
	atMost bool
	limit  float64
	text   string
}

func atLeast(x float64, text string) *benchGoal { return &benchGoal{limit: x, text: text} }
func atMost(x float64, text string) *benchGoal  { return &benchGoal{atMost: true, limit: x, text: text} }

func (g *benchGoal) met(v float64) bool {
	if g.atMost {
		return v <= g.limit
	}
	return v >= g.limit
}

// benchRow is one line of the table. value is what the goal applies to: a
// ratio to the ceiling, or a measured figure (valueText says which).
type benchRow struct {
	op        string
	conns     int          // 0: not a load row
	load      *loadResult  // nil: not a load row
	ceiling   string       // the ceiling's req/s, or the reference the value compares with
	value     float64      // what goal applies to (a ratio, ms, s or MB)
	valueText string       // how value is shown
	goal      *benchGoal   // nil: no target
	errs      []loadResult // loads whose errors fail the run (nodedesk's and the ceiling's)
}

func (r benchRow) result() string {
	if r.goal == nil {
		return "-"
	}
	if r.goal.met(r.value) {
		return "PASS"
	}
	return "FAIL"
}

func benchDur(d time.Duration) string {
	switch {
	case d == 0:
		return "-"
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2fms", float64(d)/1e6)
	case d < time.Second:
		return fmt.Sprintf("%.1fms", float64(d)/1e6)
	default:
		return fmt.Sprintf("%.2fs", d.Seconds())
	}
}

func formatTable(title string, rows []benchRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s\n", title)
	line := "%-40s %5s %9s %9s %9s %13s %9s %9s %6s\n"
	fmt.Fprintf(&b, line, "operation", "conns", "req/s", "p50", "p99", "ceiling req/s", "ratio", "target", "result")
	fmt.Fprintln(&b, strings.Repeat("-", 40+5+9*3+13+9*2+6+8))
	for _, r := range rows {
		conns, rps, p50, p99 := "-", "-", "-", "-"
		if r.load != nil {
			conns = strconv.Itoa(r.conns)
			rps = fmt.Sprintf("%.0f", r.load.rps)
			p50, p99 = benchDur(r.load.p50), benchDur(r.load.p99)
		}
		target := "-"
		if r.goal != nil {
			target = r.goal.text
		}
		fmt.Fprintf(&b, line, r.op, conns, rps, p50, p99, r.ceiling, r.valueText, target, r.result())
	}
	fmt.Fprintln(&b, "ratio: nodedesk req/s ÷ ceiling req/s at the same connections; in the size rows, the figure the target applies to.")
	fmt.Fprintln(&b, "ceilings: a bare net/http handler answering the same bytes (GET, list), or committing one bbolt Update per request (PUT, create).")
	return b.String()
}

// TestLoadTable is make bench: it prints the table and fails for each
// target missed (after printing all of it) and for any request error.
func TestLoadTable(t *testing.T) {
	if os.Getenv("NODEDESK_BENCH") != "1" {
		kit.RunElsewhere(t, "the load benchmark runs with NODEDESK_BENCH=1 (make bench)")
	}
	n := kit.EnvInt(t, "NODEDESK_BENCH_NODES", benchRefNodes)
	dur := time.Duration(kit.EnvInt(t, "NODEDESK_BENCH_SECONDS", 3)) * time.Second
	big := n >= benchBigNodes || os.Getenv("NODEDESK_BENCH_BIG") == "1"

	began := time.Now()
	nd := benchProject(t, n)
	t.Logf("project of %d nodes ready in %v", n, time.Since(began).Round(time.Millisecond))

	node := nd.get(t, "/v2/projects/"+nd.pid+"/nodes/"+nd.nodes[0])
	compute := nd.get(t, "/v2/compute/projects/"+nd.pid+"/ethernet_hub/nodes/"+nd.nodes[0])
	list := nd.get(t, "/v2/projects/"+nd.pid+"/nodes")
	ceil := startCeilings(t, map[string][]byte{"/node": node, "/compute": compute, "/list": list}, n)
	t.Logf("bodies: controller node %d B, compute node %d B, list %d B", len(node), len(compute), len(list))

	// Each row alternates its ceiling and nodedesk in benchRounds rounds,
	// so both see the machine in the same states.
	listOp := fmt.Sprintf("list of %d nodes", n)
	list32 := nd.list
	if n > benchListNodes {
		// 32 lists of that size in flight at once would take tens of GB.
		list32 = nil
		t.Logf("the list at 32 connections is left out above %d nodes", benchListNodes)
	}
	cells := []struct {
		op            string
		conns         int
		next, ceiling func(int64) benchRequest
		goal          *benchGoal
	}{
		{"controller GET node", 1, nd.nodeGet, ceil.get("/node"), nil},
		{"controller GET node", 32, nd.nodeGet, ceil.get("/node"), atLeast(0.70, "≥ 0.70")},
		{"compute GET node", 1, nd.computeGet, ceil.get("/compute"), nil},
		{"compute GET node", 32, nd.computeGet, ceil.get("/compute"), atLeast(0.70, "≥ 0.70")},
		{listOp, 1, nd.list, ceil.get("/list"), nil},
		{listOp, 32, list32, ceil.get("/list"), atLeast(0.50, "≥ 0.50")},
		{"controller PUT node (durable)", 1, nd.nodePut, ceil.commit, atLeast(0.80, "≥ 0.80")},
		{"controller PUT node (durable)", 32, nd.nodePut, ceil.commit, atLeast(2.00, "≥ 2.00")},
		// Creation last: it grows the project the other rows read.
		{"create node", 1, nd.create, ceil.commit, nil},
		{"create node", 32, nd.create, ceil.commit, nil},
	}
	var rows []benchRow
	for _, c := range cells {
		if c.next == nil {
			continue
		}
		var bares, loads []loadResult
		for range benchRounds {
			bares = append(bares, runLoad(c.conns, dur/benchRounds, c.ceiling))
			loads = append(loads, runLoad(c.conns, dur/benchRounds, c.next))
		}
		bare, l := mergeLoads(bares...), mergeLoads(loads...)
		r := benchRow{op: c.op, conns: c.conns, load: &l, ceiling: fmt.Sprintf("%.0f", bare.rps), goal: c.goal, errs: []loadResult{l, bare}}
		if bare.rps > 0 {
			r.value = l.rps / bare.rps
			r.valueText = fmt.Sprintf("%.2f", r.value)
		}
		rows = append(rows, r)
	}
	nd.p.stop(t)
	if big {
		rows = append(rows, sizeRows(t, dur)...)
	}

	table := formatTable(fmt.Sprintf("nodedesk load table: %d nodes, %v per cell, %d CPUs", n, dur, runtime.NumCPU()), rows)
	t.Log(table)
	fmt.Fprint(os.Stdout, table)
	for _, r := range rows {
		for _, l := range r.errs {
			if l.errors > 0 {
				t.Errorf("%s, %d conns: %d request errors; the first: %s", r.op, r.conns, l.errors, l.firstErr)
			}
		}
		if r.result() == "FAIL" {
			t.Errorf("%s, %d conns: %s, target %s", r.op, r.conns, r.valueText, r.goal.text)
		}
	}
}

// sizeRows measures how nodedesk scales with the store: controller GET p50
// at 100,000 nodes against 200 (one connection), a list of 10,000 nodes at
// one connection, and start-up time and memory on the 100,000-node store.
// Every store is written straight into its file, then served.
func sizeRows(t *testing.T, dur time.Duration) []benchRow {
	t.Helper()
	serve := func(n int) *benchNodedesk {
		db := filepath.Join(t.TempDir(), fmt.Sprintf("size-%d.db", n))
		began := time.Now()
		pid, nodes := writeBenchStore(t, db, n)
		fi, _ := os.Stat(db)
		t.Logf("store of %d nodes written in %v (%d MB)", n, time.Since(began).Round(time.Millisecond), fi.Size()>>20)
		nd := startNodedesk(t, db)
		nd.pid, nd.nodes = pid, nodes
		return nd
	}
	ref := serve(benchRefNodes)
	refGet := runLoad(1, dur, ref.nodeGet)
	ref.p.stop(t)

	bigNd := serve(benchBigNodes)
	bigGet := runLoad(1, dur, bigNd.nodeGet)
	after := procMemory(t, bigNd.p.cmd.Process.Pid)
	bigNd.p.stop(t)
	t.Logf("100,000-node nodedesk: VmRSS %d MB (RssAnon %d MB) at start-up; after the GET cell VmRSS %d MB (RssAnon %d MB), VmHWM %d MB",
		bigNd.mem.rss>>20, bigNd.mem.anon>>20, after.rss>>20, after.anon>>20, after.hwm>>20)

	tenK := serve(benchListNodes)
	listed := runLoad(1, dur, tenK.list)
	tenK.p.stop(t)

	ratio := 0.0
	if refGet.p50 > 0 {
		ratio = float64(bigGet.p50) / float64(refGet.p50)
	}
	const mb = 1 << 20
	return []benchRow{
		{op: "controller GET node, 100,000 nodes", conns: 1, load: &bigGet,
			ceiling: "p50@200 " + benchDur(refGet.p50), value: ratio, valueText: fmt.Sprintf("%.2f", ratio),
			goal: atMost(1.5, "≤ 1.50"), errs: []loadResult{refGet, bigGet}},
		{op: "list of 10,000 nodes", conns: 1, load: &listed, ceiling: "-",
			value: float64(listed.p50) / 1e6, valueText: benchDur(listed.p50),
			goal: atMost(30, "≤ 30ms"), errs: []loadResult{listed}},
		{op: "start-up, 100,000-node store", ceiling: "-",
			value: bigNd.ready.Seconds(), valueText: benchDur(bigNd.ready), goal: atMost(1, "≤ 1s")},
		{op: "resident memory at start-up, 100k", ceiling: "-",
			value: float64(bigNd.mem.rss) / mb, valueText: fmt.Sprintf("%dMB", bigNd.mem.rss/mb), goal: atMost(200, "≤ 200MB")},
	}
}
