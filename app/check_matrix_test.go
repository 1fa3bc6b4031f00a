package app

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// matrixDriver is a host driver whose hosts answer as reach says; it
// records how many pings go at once, in all and from each host.
type matrixDriver struct {
	mu       sync.Mutex
	reach    func(from, addr string) bool
	inFlight map[string]int
	total    int
	maxTotal int
	maxOne   int
	pings    int
	second   chan struct{} // closed once two pings went at once
}

func (d *matrixDriver) Runs(t NodeType) bool          { return t == VPCS }
func (d *matrixDriver) Start(Process) (string, error) { return "", nil }
func (d *matrixDriver) Stop(string) error             { return nil }
func (d *matrixDriver) Suspend(string) error          { return nil }
func (d *matrixDriver) Resume(string) error           { return nil }
func (d *matrixDriver) Converse(context.Context, string, string, *regexp.Regexp, time.Duration) ([]string, bool, error) {
	return nil, false, nil
}

func (d *matrixDriver) Ping(ctx context.Context, nodeID, addr string, timeout time.Duration) (PingResult, error) {
	d.mu.Lock()
	d.inFlight[nodeID]++
	d.total++
	d.pings++
	d.maxTotal = max(d.maxTotal, d.total)
	d.maxOne = max(d.maxOne, d.inFlight[nodeID])
	if d.total >= 2 {
		select {
		case <-d.second:
		default:
			close(d.second)
		}
	}
	d.mu.Unlock()
	// The first pings wait (a while at most) for a second to go at once,
	// as a host's reply takes its time: pings run one at a time would
	// never meet.
	select {
	case <-d.second:
	case <-time.After(2 * time.Second):
	}
	d.mu.Lock()
	d.inFlight[nodeID]--
	d.total--
	d.mu.Unlock()
	if d.reach(nodeID, addr) {
		return PingResult{Sent: 1, Received: 1, Lines: []string{"84 bytes from " + addr}}, nil
	}
	return PingResult{Sent: 1, Lines: []string{addr + " timeout"}}, nil
}

// matrixLab is n started VPCS hosts PC1..PCn at 10.0.0.1..n, each on its
// own link, with the lint findings and wire map given.
func matrixLab(n int, d *matrixDriver, lint []LintFinding, wm *WireMap) (*checkEval, *lab) {
	s := NewService(Config{Runners: []Runner{d}})
	l := &lab{byName: map[string]*Node{}, byID: map[string]*Node{}}
	e := &checkEval{s: s, projectID: "p", runID: "r", lint: &LintReport{Findings: lint}}
	for i := 1; i <= n; i++ {
		nd := &Node{ID: fmt.Sprintf("n%d", i), Name: fmt.Sprintf("PC%d", i), Type: VPCS, Status: Started}
		l.nodes = append(l.nodes, nd)
		l.byName[nd.Name], l.byID[nd.ID] = nd, nd
		l.links = append(l.links, &Link{ID: fmt.Sprintf("l%d", i), Nodes: []LinkEnd{{NodeID: nd.ID}}})
		e.addrs = append(e.addrs, HostAddress{NodeID: nd.ID, Name: nd.Name, Address: fmt.Sprintf("10.0.0.%d/24", i), Source: "config", EndHost: true})
	}
	e.once.Do(func() {}) // the findings are the test's
	e.wm = func(context.Context) (*WireMap, error) {
		if wm == nil {
			return &WireMap{}, nil
		}
		return wm, nil
	}
	return e, l
}

// TestMatrix_TwentyHosts: 380 ordered pairs, every one pinged once; the
// sources ping side by side, each its targets one at a time.
func TestMatrix_TwentyHosts(t *testing.T) {
	d := &matrixDriver{inFlight: map[string]int{}, second: make(chan struct{}), reach: func(string, string) bool { return true }}
	e, l := matrixLab(20, d, nil, nil)
	res := e.matrix(context.Background(), l, Check{ID: ConnectivityCheckID, Kind: CheckMatrix})
	if res.Verdict != VerdictPass || res.Message != "All 380 pairs of 20 hosts answered" {
		t.Fatalf("%s %q", res.Verdict, res.Message)
	}
	if d.pings != 380 || d.maxOne != 1 || d.maxTotal < 2 {
		t.Errorf("%d pings, at most %d at once from one host and %d in all; want 380, 1 and more than 1", d.pings, d.maxOne, d.maxTotal)
	}
	if len(res.Matrix.Hosts) != 20 || res.Matrix.Hosts[3].Address != "10.0.0.4" || res.Matrix.Cells[0][0] != "" || res.Matrix.Cells[0][19] != VerdictPass {
		t.Errorf("matrix %+v", res.Matrix)
	}
}

// TestMatrix_Why: a failing cell is explained by the lint finding or the
// wire fault touching its hosts or their links, else by what to look at;
// a stopped host is left out of a matrix of every host, and one named is
// an error of its cells.
func TestMatrix_Why(t *testing.T) {
	d := &matrixDriver{inFlight: map[string]int{}, second: make(chan struct{}),
		reach: func(from, addr string) bool {
			return from != "n3" && addr != "10.0.0.3" && !(from == "n1" && addr == "10.0.0.2")
		}}
	close(d.second)
	lint := []LintFinding{{Code: "subnet_mismatch", Severity: SeverityError, Message: "PC3 is in 10.0.1.0/24, the others in 10.0.0.0/24", LinkIDs: []string{"l3"}}}
	e, l := matrixLab(4, d, lint, nil)
	l.byName["PC4"].Status = Stopped
	res := e.matrix(context.Background(), l, Check{ID: "m", Kind: CheckMatrix})
	if res.Verdict != VerdictFail || len(res.Matrix.Hosts) != 3 {
		t.Fatalf("%s %q %+v", res.Verdict, res.Message, res.Matrix)
	}
	if !strings.Contains(res.Message, "left out, not running: PC4") || !strings.Contains(res.Message, "PC1→PC2") {
		t.Errorf("message %q", res.Message)
	}
	why := map[string]string{}
	for _, w := range res.Matrix.Why {
		why[fmt.Sprintf("%d>%d", w.From, w.To)] = w.Reason
	}
	if len(why) != 5 || why["0>2"] != lint[0].Message || why["2>1"] != lint[0].Message || !strings.Contains(why["0>1"], "no reply: look at the addresses") {
		t.Errorf("why %v", why)
	}
	lintEv := 0
	for _, ev := range res.Evidence {
		if ev.Kind == EvidenceLint {
			lintEv++
		}
	}
	if lintEv != 1 {
		t.Errorf("%d lint evidences, want the finding once", lintEv)
	}

	res = e.matrix(context.Background(), l, Check{ID: "named", Kind: CheckMatrix, Hosts: []string{"PC1", "PC2", "PC4"}})
	if res.Matrix.Cells[2][0] != VerdictError || !strings.Contains(res.Message, "PC4 is stopped") && !strings.Contains(fmt.Sprint(res.Matrix.Why), "PC4 is stopped: start it") {
		t.Errorf("a stopped named host: %s %q %+v", res.Verdict, res.Message, res.Matrix)
	}
}

// slowDriver answers a ping only when it may wait at least need; it
// records the timeouts it was given.
type slowDriver struct {
	matrixDriver
	need     time.Duration
	timeouts []time.Duration
}

func (d *slowDriver) Ping(_ context.Context, _, addr string, timeout time.Duration) (PingResult, error) {
	d.timeouts = append(d.timeouts, timeout)
	if timeout >= d.need {
		return PingResult{Sent: 1, Received: 1}, nil
	}
	return PingResult{Sent: 1, Lines: []string{addr + " timeout"}}, nil
}

// TestPing_WaitsLongerEachTry: a host whose replies come late (a busy
// machine) passes on a later, longer try; one that never answers is tried
// three times, 1, 2 and 4 s, before its cell says no reply.
func TestPing_WaitsLongerEachTry(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		need     time.Duration
		replied  bool
		timeouts []time.Duration
	}{
		{need: s, replied: true, timeouts: []time.Duration{s}},
		{need: 2 * s, replied: true, timeouts: []time.Duration{s, 2 * s}},
		{need: time.Hour, replied: false, timeouts: []time.Duration{s, 2 * s, 4 * s}},
	} {
		d := &slowDriver{need: tc.need}
		pr, err := ping(context.Background(), d, "n1", "10.0.0.2")
		if err != nil || replied(pr) != tc.replied || fmt.Sprint(d.timeouts) != fmt.Sprint(tc.timeouts) {
			t.Errorf("reply after %v: replied %v, tries %v, err %v; want %v, %v", tc.need, replied(pr), d.timeouts, err, tc.replied, tc.timeouts)
		}
	}
}
