package app_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"nodedesk/app"
	"nodedesk/app/kit"
	"nodedesk/store/storetest"
)

// hostRunner is a VPCS runner that drives its hosts for the checks: a
// ping answers when reach says so, a console says what console says.
type hostRunner struct {
	fakeRunner
	mu      sync.Mutex
	reach   func(nodeID, addr string) bool
	console []string
	pings   []string      // "node addr", in order
	hold    chan struct{} // non-nil: each ping waits for it to close
}

func (r *hostRunner) Ping(ctx context.Context, nodeID, addr string, timeout time.Duration) (app.PingResult, error) {
	if r.hold != nil {
		select {
		case <-r.hold:
		case <-ctx.Done():
			return app.PingResult{}, ctx.Err()
		}
	}
	r.mu.Lock()
	r.pings = append(r.pings, nodeID+" "+addr)
	r.mu.Unlock()
	if r.reach != nil && r.reach(nodeID, addr) {
		return app.PingResult{Sent: 3, Received: 3, Lines: []string{"84 bytes from " + addr + " icmp_seq=1 ttl=64 time=0.3 ms"}}, nil
	}
	return app.PingResult{Sent: 3, Lines: []string{addr + " icmp_seq=1 timeout"}}, nil
}

func (r *hostRunner) Converse(ctx context.Context, nodeID, send string, expect *regexp.Regexp, within time.Duration) ([]string, bool, error) {
	lines := append([]string{"PC1> " + send}, r.console...)
	for _, l := range lines {
		if expect.MatchString(l) {
			return lines, true, nil
		}
	}
	return lines, false, nil
}

// plainRunner runs VPCS nodes but cannot drive them.
type plainRunner struct{ fakeRunner }

// checkLab is a project with PC1 and PC2 (VPCS) on SW1, started, whose
// runner is r.
type checkLab struct {
	svc      *app.Service
	events   <-chan app.Event
	p        *app.Project
	pc1, pc2 *app.Node
	sw       *app.Node
}

func newCheckLab(t *testing.T, r app.Runner) *checkLab {
	t.Helper()
	b := app.NewBroker()
	svc := app.NewService(app.Config{Store: storetest.Open(t), Events: b, DataDir: t.TempDir(), HostInterfaces: hostInterfaces, PortFree: everyPortFree, Runners: []app.Runner{r}})
	l := &checkLab{svc: svc, p: mustCreateProject(t, svc, "lab")}
	l.pc1 = mustCreateNode(t, svc, l.p.ID, app.NodeCreate{Type: app.VPCS, NodeUpdate: app.NodeUpdate{Name: app.Some("PC1")}})
	l.pc2 = mustCreateNode(t, svc, l.p.ID, app.NodeCreate{Type: app.VPCS, NodeUpdate: app.NodeUpdate{Name: app.Some("PC2")}})
	l.sw = mustCreateNode(t, svc, l.p.ID, app.NodeCreate{Type: app.EthernetSwitch, NodeUpdate: app.NodeUpdate{Name: app.Some("SW1")}})
	for i, pc := range []*app.Node{l.pc1, l.pc2} {
		if _, err := svc.CreateLink(context.Background(), l.p.ID, app.LinkUpdate{Nodes: app.Some([]app.LinkEnd{
			{NodeID: pc.ID}, {NodeID: l.sw.ID, PortNumber: i}}),
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.NodeAction(context.Background(), ref(pc), app.Start); err != nil {
			t.Fatal(err)
		}
	}
	ch, cancel := b.Subscribe(1024)
	t.Cleanup(cancel)
	l.events = ch
	return l
}

func (l *checkLab) put(t *testing.T, body string) {
	t.Helper()
	if _, err := l.svc.PutChecks(context.Background(), l.p.ID, []byte(body)); err != nil {
		t.Fatalf("PutChecks: %v", err)
	}
}

// run runs the checks of req and returns every check.run.updated until
// the run finished.
func (l *checkLab) run(t *testing.T, req app.CheckRunRequest) []*app.CheckRun {
	t.Helper()
	first, err := l.svc.RunChecks(context.Background(), l.p.ID, req)
	if err != nil {
		t.Fatalf("RunChecks: %v", err)
	}
	if first.Status != app.RunRunning {
		t.Errorf("the run answered %q, want running", first.Status)
	}
	var runs []*app.CheckRun
	deadline := time.After(20 * time.Second)
	for {
		select {
		case e := <-l.events:
			if e.Action != app.EventCheckRunUpdated {
				continue
			}
			if e.ProjectID != l.p.ID {
				t.Errorf("check.run.updated on project %s, want %s", e.ProjectID, l.p.ID)
			}
			run := e.Payload.(*app.CheckRun)
			runs = append(runs, run)
			if run.Status == app.RunFinished {
				return runs
			}
		case <-deadline:
			t.Fatalf("the run did not finish; events so far: %d", len(runs))
		}
	}
}

func verdicts(run *app.CheckRun) map[string]string {
	m := map[string]string{}
	for _, r := range run.Results {
		m[r.CheckID] = r.Verdict
	}
	return m
}

func result(t *testing.T, run *app.CheckRun, id string) app.CheckResult {
	t.Helper()
	for _, r := range run.Results {
		if r.CheckID == id {
			return r
		}
	}
	t.Fatalf("no result of %s in %+v", id, run.Results)
	return app.CheckResult{}
}

// TestChecks_Verdicts runs one check of each kind a fake host can answer,
// and checks each verdict, its message and its evidence, and the order
// of the run's events: start, one per verdict, finish.
func TestChecks_Verdicts(t *testing.T) {
	r := &hostRunner{console: []string{"NAME   IP/MASK", "PC1    10.0.0.1/24"}}
	l := newCheckLab(t, r)
	r.reach = func(nodeID, addr string) bool { return nodeID == l.pc1.ID && addr == "10.0.0.2" }
	l.put(t, `{"version": 1, "checks": [
		{"id": "up", "kind": "reach", "from": "PC1", "to": "10.0.0.2"},
		{"id": "down", "kind": "reach", "from": "PC2", "to": "10.0.0.1"},
		{"id": "apart", "kind": "reach", "from": "PC2", "to": "10.0.0.9", "expect": "no_reply"},
		{"id": "noaddr", "kind": "reach", "from": "PC1", "to": "PC2"},
		{"id": "show", "kind": "console", "node": "PC1", "send": "show ip", "expect": "10\\.0\\.0\\.1/24"},
		{"id": "wrongip", "kind": "console", "node": "PC1", "send": "show ip", "expect": "10\\.9\\.9\\.9", "within": "1s"}
	]}`)
	runs := l.run(t, app.CheckRunRequest{})
	if len(runs) != 8 {
		t.Fatalf("%d check.run.updated events, want 8 (start, 6 verdicts, finish)", len(runs))
	}
	for i, run := range runs[:7] {
		decided := 0
		for _, res := range run.Results {
			if res.Verdict != app.VerdictRunning {
				decided++
			}
		}
		if run.Status != app.RunRunning || decided != i {
			t.Errorf("event %d: status %s with %d verdicts, want running with %d", i, run.Status, decided, i)
		}
	}
	last := runs[7]
	want := map[string]string{"up": "pass", "down": "fail", "apart": "pass", "noaddr": "error", "show": "pass", "wrongip": "fail"}
	if got := verdicts(last); !mapsEqual(got, want) {
		t.Errorf("verdicts %v, want %v", got, want)
	}
	if last.Passed != 3 || last.Failed != 2 || last.Errors != 1 || last.FinishedAt == nil {
		t.Errorf("counts %d/%d/%d, finished %v", last.Passed, last.Failed, last.Errors, last.FinishedAt)
	}
	up := result(t, last, "up")
	if up.Title != "PC1 reaches 10.0.0.2" || len(up.Evidence) == 0 || up.Evidence[0].Kind != app.EvidenceConsole || !strings.Contains(strings.Join(up.Evidence[0].Lines, "\n"), "84 bytes from 10.0.0.2") {
		t.Errorf("reach evidence %+v", up)
	}
	if down := result(t, last, "down"); !strings.Contains(down.Message, "no reply") || !strings.Contains(down.Message, "look at") {
		t.Errorf("a failing reach says %q; want what happened and what to look at", down.Message)
	}
	if m := result(t, last, "noaddr").Message; !strings.Contains(m, "knows no address of PC2") {
		t.Errorf("no address: %q", m)
	}
	if ev := result(t, last, "wrongip").Evidence; len(ev) != 1 || !slices.Contains(ev[0].Lines, "PC1    10.0.0.1/24") {
		t.Errorf("console evidence %+v", ev)
	}
	got, err := l.svc.LastCheckRun(context.Background(), l.p.ID)
	if err != nil || got.RunID != last.RunID || got.Status != app.RunFinished {
		t.Errorf("LastCheckRun = %+v, %v", got, err)
	}

	// Only the checks named run.
	runs = l.run(t, app.CheckRunRequest{Checks: []string{"down"}})
	if got := verdicts(runs[len(runs)-1]); !mapsEqual(got, map[string]string{"down": "fail"}) {
		t.Errorf("a run of one check gave %v", got)
	}
	_, err = l.svc.RunChecks(context.Background(), l.p.ID, app.CheckRunRequest{Checks: []string{"nope"}})
	wantCode(t, err, app.EINVALID)
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestChecks_LabCannotRun: a stopped host, a host nodedesk cannot drive
// and an unlinked port are errors that say what to do, not failures.
func TestChecks_LabCannotRun(t *testing.T) {
	l := newCheckLab(t, &plainRunner{})
	l.put(t, `{"version": 1, "checks": [
		{"id": "nodriver", "kind": "reach", "from": "PC1", "to": "10.0.0.2"},
		{"id": "stopped", "kind": "reach", "from": "PC2", "to": "10.0.0.1"},
		{"id": "unlinked", "kind": "wire", "at": {"node": "SW1", "port": "Ethernet5"}, "frames": "icmp"},
		{"id": "nowatch", "kind": "wire", "at": {"node": "SW1", "port": "Ethernet0"}, "frames": "icmp"}
	]}`)
	if _, err := l.svc.NodeAction(context.Background(), ref(l.pc2), app.Stop); err != nil {
		t.Fatal(err)
	}
	runs := l.run(t, app.CheckRunRequest{})
	last := runs[len(runs)-1]
	for id, want := range map[string]string{
		"nodriver": "nodedesk cannot drive PC1's console",
		"stopped":  "PC2 is stopped: start it, then run the checks again",
		"unlinked": "SW1's Ethernet5 is not linked",
		"nowatch":  "its data plane does not watch the links",
	} {
		if res := result(t, last, id); res.Verdict != app.VerdictError || !strings.Contains(res.Message, want) {
			t.Errorf("%s: %s %q; want error %q", id, res.Verdict, res.Message, want)
		}
	}
	if last.Errors != 4 {
		t.Errorf("errors %d, want 4", last.Errors)
	}
}

// TestChecks_OneRunAtATime: a second run of a project waits for none, it
// is refused while the first goes; a closed project runs nothing.
func TestChecks_OneRunAtATime(t *testing.T) {
	r := &hostRunner{hold: make(chan struct{})}
	l := newCheckLab(t, r)
	l.put(t, `{"version": 1, "checks": [{"id": "a", "kind": "reach", "from": "PC1", "to": "10.0.0.2"}]}`)
	ctx := context.Background()
	if _, err := l.svc.RunChecks(ctx, l.p.ID, app.CheckRunRequest{}); err != nil {
		t.Fatal(err)
	}
	_, err := l.svc.RunChecks(ctx, l.p.ID, app.CheckRunRequest{})
	wantCode(t, err, app.ECONFLICT)
	if !strings.Contains(app.ErrorMessage(err), "under way") {
		t.Errorf("second run: %v", err)
	}
	if run, err := l.svc.LastCheckRun(ctx, l.p.ID); err != nil || run.Status != app.RunRunning {
		t.Errorf("while held: %+v %v", run, err)
	}
	close(r.hold)
	if !kit.WaitFor(10*time.Second, func() bool {
		run, err := l.svc.LastCheckRun(ctx, l.p.ID)
		return err == nil && run.Status == app.RunFinished
	}) {
		t.Fatal("the run did not finish")
	}
	if _, err := l.svc.RunChecks(ctx, l.p.ID, app.CheckRunRequest{}); err != nil {
		t.Errorf("a run after the first finished: %v", err)
	}
	kit.WaitFor(10*time.Second, func() bool {
		run, err := l.svc.LastCheckRun(ctx, l.p.ID)
		return err == nil && run.Status == app.RunFinished
	})

	if err := l.svc.CloseProject(ctx, l.p.ID); err != nil {
		t.Fatal(err)
	}
	_, err = l.svc.RunChecks(ctx, l.p.ID, app.CheckRunRequest{})
	wantCode(t, err, app.ECONFLICT)
	if !strings.Contains(app.ErrorMessage(err), "is closed") {
		t.Errorf("closed project: %v", err)
	}

	other := mustCreateProject(t, l.svc, "empty")
	_, err = l.svc.LastCheckRun(ctx, other.ID)
	wantCode(t, err, app.ENOTFOUND)
	_, err = l.svc.RunChecks(ctx, other.ID, app.CheckRunRequest{})
	wantCode(t, err, app.EINVALID) // no checks file, no connectivity
}

// checkWatch is a data plane that saw what the test says on one link.
type checkWatch struct {
	mu     sync.Mutex
	seen   app.WireSeen
	slices int
}

func (w *checkWatch) WireSeen(string) []app.WireSeen {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.seen
	s.Kinds = map[string]app.KindSeen{}
	for k, v := range w.seen.Kinds {
		s.Kinds[k] = v
	}
	return []app.WireSeen{s}
}

func (w *checkWatch) CaptureSlice(linkID string, kind app.FrameKind, max int) ([]byte, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.slices++
	if w.seen.Kinds[string(kind)].Count == 0 {
		return nil, 0
	}
	return []byte("pcap of " + string(kind)), 1
}

func (w *checkWatch) add(kind app.FrameKind, at time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	k := w.seen.Kinds[string(kind)]
	k.Count++
	k.Last = at
	w.seen.Kinds[string(kind)] = k
	w.seen.Recent = append(w.seen.Recent, app.SeenFrame{Time: at, Kind: kind, Summary: string(kind) + " frame"})
}

// TestChecks_Wire: frames seen on the link at a port, before the check
// (a hello within the window) or during it; never-checks fail on them;
// the evidence has the frames and a capture slice in the project folder.
func TestChecks_Wire(t *testing.T) {
	r := &hostRunner{}
	l := newCheckLab(t, r)
	links, err := l.svc.FindNodeLinks(context.Background(), ref(l.pc1))
	if err != nil || len(links) != 1 {
		t.Fatal(links, err)
	}
	w := &checkWatch{seen: app.WireSeen{LinkID: links[0].ID, Kinds: map[string]app.KindSeen{}}}
	l.svc.UseWireWatch(w)
	w.add(app.FramesSTP, time.Now()) // a hello just before
	// ICMP arrives while the check watches: once the ARP check, which
	// runs first, has made its first look.
	var icmpSent sync.Once
	r.reach = func(string, string) bool { return true }
	l.put(t, `{"version": 1, "checks": [
		{"id": "stp", "kind": "wire", "at": {"node": "PC1", "port": "Ethernet0"}, "frames": "stp", "within": "2s"},
		{"id": "nostp", "kind": "wire", "at": {"node": "SW1", "port": "Ethernet0"}, "frames": "stp", "expect": "never", "within": "2s"},
		{"id": "arp", "kind": "wire", "at": {"node": "PC1", "port": "e0"}, "frames": "arp", "within": "600ms"},
		{"id": "icmp", "kind": "wire", "at": {"node": "SW1", "port": "Ethernet0"}, "frames": "icmp", "within": "1m"}
	]}`)
	go func() {
		kit.WaitFor(20*time.Second, func() bool {
			run, err := l.svc.LastCheckRun(context.Background(), l.p.ID)
			return err == nil && len(run.Results) == 4 && run.Results[2].Verdict != app.VerdictRunning
		})
		icmpSent.Do(func() { w.add(app.FramesICMP, time.Now()) })
	}()
	runs := l.run(t, app.CheckRunRequest{})
	last := runs[len(runs)-1]
	want := map[string]string{"stp": "pass", "nostp": "fail", "arp": "fail", "icmp": "pass"}
	if got := verdicts(last); !mapsEqual(got, want) {
		t.Fatalf("verdicts %v, want %v (%+v)", got, want, last.Results)
	}
	icmp := result(t, last, "icmp")
	if icmp.DurationMS > 30000 || len(icmp.Evidence) == 0 {
		t.Fatalf("icmp: %+v", icmp)
	}
	ev := icmp.Evidence[0]
	if ev.Kind != app.EvidenceFrames || ev.LinkID != links[0].ID || len(ev.Frames) != 1 || ev.Frames[0].Kind != app.FramesICMP {
		t.Errorf("frames evidence %+v", ev)
	}
	wantCapture := "project-files/captures/check-" + last.RunID + "-icmp.pcap"
	if ev.Capture != wantCapture {
		t.Errorf("capture %q, want %q", ev.Capture, wantCapture)
	}
	b, err := os.ReadFile(filepath.Join(l.svc.ProjectDir(l.p.ID), filepath.FromSlash(wantCapture)))
	if err != nil || string(b) != "pcap of icmp" {
		t.Errorf("capture file: %q %v", b, err)
	}
	if m := result(t, last, "arp").Message; !strings.Contains(m, "No arp frame crossed the link at PC1 Ethernet0 in 600ms") {
		t.Errorf("arp: %q", m)
	}
}

// TestChecks_Connectivity: with no checks file, a connectivity run needs
// hosts with known addresses; with none known it says so, as an error.
func TestChecks_Connectivity(t *testing.T) {
	l := newCheckLab(t, &hostRunner{})
	runs := l.run(t, app.CheckRunRequest{Connectivity: true})
	last := runs[len(runs)-1]
	if len(last.Results) != 1 || last.Results[0].CheckID != app.ConnectivityCheckID {
		t.Fatalf("results %+v", last.Results)
	}
	if res := last.Results[0]; res.Verdict != app.VerdictError || !strings.Contains(res.Message, "fewer than two running hosts with an address") {
		t.Errorf("connectivity with no addresses: %s %q", res.Verdict, res.Message)
	}
	_, err := l.svc.RunChecks(context.Background(), l.p.ID, app.CheckRunRequest{Connectivity: true, Checks: []string{"x"}})
	wantCode(t, err, app.EINVALID)
}

// TestChecks_PutValidates: every rule of the checks file, each refused
// with a message naming the check and the field, and nothing written.
func TestChecks_PutValidates(t *testing.T) {
	l := newCheckLab(t, &hostRunner{})
	ctx := context.Background()
	good := `{"version": 1, "checks": [{"id": "a", "kind": "reach", "from": "PC1", "to": "PC2"}]}`
	l.put(t, good)
	for _, c := range []struct{ name, body, want string }{
		{"not json", `{"version": 1, "checks": [`, "not valid"},
		{"unknown field", `{"version": 1, "checks": [{"id": "a", "kind": "reach", "from": "PC1", "to": "PC2", "color": "red"}]}`, `unknown field "color"`},
		{"no version", `{"checks": []}`, "needs its version"},
		{"newer version", `{"version": 2, "checks": []}`, "update nodedesk"},
		{"no id", `{"version": 1, "checks": [{"kind": "reach", "from": "PC1", "to": "PC2"}]}`, "Check 1 of the file has no id"},
		{"bad id", `{"version": 1, "checks": [{"id": "a b", "kind": "reach", "from": "PC1", "to": "PC2"}]}`, `Check "a b", field id`},
		{"duplicate id", `{"version": 1, "checks": [{"id": "a", "kind": "reach", "from": "PC1", "to": "PC2"}, {"id": "a", "kind": "reach", "from": "PC2", "to": "PC1"}]}`, `Check "a", field id: two checks have this id`},
		{"unknown kind", `{"version": 1, "checks": [{"id": "k", "kind": "trace"}]}`, `Check "k", field kind: "trace" is not a kind of check`},
		{"no kind", `{"version": 1, "checks": [{"id": "k"}]}`, `Check "k", field kind`},
		{"missing from", `{"version": 1, "checks": [{"id": "r", "kind": "reach", "to": "PC2"}]}`, `Check "r", field from: a reach check needs it`},
		{"unknown from", `{"version": 1, "checks": [{"id": "r", "kind": "reach", "from": "PC9", "to": "PC2"}]}`, `Check "r", field from: project lab has no node named "PC9"`},
		{"missing to", `{"version": 1, "checks": [{"id": "r", "kind": "reach", "from": "PC1"}]}`, `Check "r", field to`},
		{"bad to", `{"version": 1, "checks": [{"id": "r", "kind": "reach", "from": "PC1", "to": "10.0.0.300"}]}`, `Check "r", field to: "10.0.0.300" is neither a node of lab nor an IPv4 address`},
		{"ipv6 to", `{"version": 1, "checks": [{"id": "r", "kind": "reach", "from": "PC1", "to": "::1"}]}`, `Check "r", field to`},
		{"reach expect", `{"version": 1, "checks": [{"id": "r", "kind": "reach", "from": "PC1", "to": "PC2", "expect": "pong"}]}`, `Check "r", field expect`},
		{"field of another kind", `{"version": 1, "checks": [{"id": "r", "kind": "reach", "from": "PC1", "to": "PC2", "within": "5s"}]}`, `Check "r", field within: a reach check does not use within`},
		{"matrix unknown host", `{"version": 1, "checks": [{"id": "m", "kind": "matrix", "hosts": ["PC1", "PC7"]}]}`, `Check "m", field hosts: project lab has no node named "PC7"`},
		{"matrix one host", `{"version": 1, "checks": [{"id": "m", "kind": "matrix", "hosts": ["PC1"]}]}`, `Check "m", field hosts: a matrix needs at least two hosts`},
		{"matrix host twice", `{"version": 1, "checks": [{"id": "m", "kind": "matrix", "hosts": ["PC1", "PC1"]}]}`, `Check "m", field hosts: PC1 is named twice`},
		{"console no node", `{"version": 1, "checks": [{"id": "c", "kind": "console", "expect": "x"}]}`, `Check "c", field node`},
		{"console no pattern", `{"version": 1, "checks": [{"id": "c", "kind": "console", "node": "PC1"}]}`, `Check "c", field expect`},
		{"console bad pattern", `{"version": 1, "checks": [{"id": "c", "kind": "console", "node": "PC1", "expect": "a(b"}]}`, `Check "c", field expect: "a(b" is not a valid RE2 pattern`},
		{"console lookbehind", `{"version": 1, "checks": [{"id": "c", "kind": "console", "node": "PC1", "expect": "(?<=a)b"}]}`, `Check "c", field expect`},
		{"bad within", `{"version": 1, "checks": [{"id": "c", "kind": "console", "node": "PC1", "expect": "x", "within": "ten"}]}`, `Check "c", field within: "ten" is not a duration`},
		{"negative within", `{"version": 1, "checks": [{"id": "c", "kind": "console", "node": "PC1", "expect": "x", "within": "-1s"}]}`, `Check "c", field within`},
		{"long within", `{"version": 1, "checks": [{"id": "c", "kind": "console", "node": "PC1", "expect": "x", "within": "6m"}]}`, `Check "c", field within: 6m is longer than a check may wait (5m0s)`},
		{"wire no at", `{"version": 1, "checks": [{"id": "w", "kind": "wire", "frames": "arp"}]}`, `Check "w", field at`},
		{"wire unknown node", `{"version": 1, "checks": [{"id": "w", "kind": "wire", "at": {"node": "R1", "port": "e0"}, "frames": "arp"}]}`, `Check "w", field at.node`},
		{"wire unknown port", `{"version": 1, "checks": [{"id": "w", "kind": "wire", "at": {"node": "SW1", "port": "Ethernet99"}, "frames": "arp"}]}`, `Check "w", field at.port: SW1 has no port named "Ethernet99"; its ports are Ethernet0`},
		{"wire no frames", `{"version": 1, "checks": [{"id": "w", "kind": "wire", "at": {"node": "SW1", "port": "Ethernet0"}}]}`, `Check "w", field frames`},
		{"wire unknown frames", `{"version": 1, "checks": [{"id": "w", "kind": "wire", "at": {"node": "SW1", "port": "Ethernet0"}, "frames": "bgp"}]}`, `Check "w", field frames: "bgp" is not a kind of frame`},
		{"wire vlan 0", `{"version": 1, "checks": [{"id": "w", "kind": "wire", "at": {"node": "SW1", "port": "Ethernet0"}, "frames": "vlan:0"}]}`, `Check "w", field frames`},
		{"wire vlan 4095", `{"version": 1, "checks": [{"id": "w", "kind": "wire", "at": {"node": "SW1", "port": "Ethernet0"}, "frames": "vlan:4095"}]}`, `Check "w", field frames`},
		{"wire expect", `{"version": 1, "checks": [{"id": "w", "kind": "wire", "at": {"node": "SW1", "port": "Ethernet0"}, "frames": "arp", "expect": "reply"}]}`, `Check "w", field expect`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := l.svc.PutChecks(ctx, l.p.ID, []byte(c.body))
			wantCode(t, err, app.EINVALID)
			if !strings.Contains(app.ErrorMessage(err), c.want) {
				t.Errorf("message %q, want it to say %q", app.ErrorMessage(err), c.want)
			}
			if b, err := os.ReadFile(filepath.Join(l.svc.ProjectDir(l.p.ID), app.ChecksFileName)); err != nil || string(b) != good {
				t.Errorf("after a refused PUT the file holds %q (%v), want the last good one", b, err)
			}
		})
	}
	// Every kind, valid: written byte for byte, read back parsed.
	all := "{\"version\": 1,\n \"checks\": [\n" +
		`{"id": "r", "kind": "reach", "from": "PC1", "to": "10.0.0.2", "expect": "no_reply", "description": "apart"},` + "\n" +
		`{"id": "m", "kind": "matrix"}, {"id": "m2", "kind": "matrix", "hosts": ["PC1", "PC2"]},` + "\n" +
		`{"id": "c", "kind": "console", "node": "PC1", "send": "show ip", "expect": "10\\.0\\.0\\.1", "within": "5m"},` + "\n" +
		`{"id": "w", "kind": "wire", "at": {"node": "PC1", "port": "e0"}, "frames": "vlan:4094", "expect": "never"}]}` + "\n"
	f, err := l.svc.PutChecks(ctx, l.p.ID, []byte(all))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(l.svc.ProjectDir(l.p.ID), app.ChecksFileName)); string(b) != all {
		t.Errorf("written %q, want the bytes sent", b)
	}
	got, err := l.svc.Checks(ctx, l.p.ID)
	if err != nil || len(got.Checks) != 5 || got.Checks[4].At.Port != "e0" || len(f.Checks) != 5 {
		t.Errorf("Checks = %+v, %v", got, err)
	}
	// No file: an empty one of the current version.
	other := mustCreateProject(t, l.svc, "other")
	if got, err := l.svc.Checks(ctx, other.ID); err != nil || got.Version != app.ChecksVersion || got.Checks == nil || len(got.Checks) != 0 {
		t.Errorf("no file: %+v, %v", got, err)
	}
	if entries, _ := os.ReadDir(l.svc.ProjectDir(l.p.ID)); slices.ContainsFunc(entries, func(e os.DirEntry) bool { return strings.HasSuffix(e.Name(), ".tmp") }) {
		t.Errorf("a temporary file was left: %v", entries)
	}
}
