package app

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"time"
)

// Running a project's checks (decision 0070): one run per project at a
// time, on an open project; check.run.updated carries the whole run at its
// start, after each verdict and at its end; the newest run of each project
// is kept in memory. The verdicts themselves are in check_eval.go.

// ConnectivityCheckID is the id of the one result of a connectivity run.
const ConnectivityCheckID = "connectivity"

// checkRunBound bounds a whole run, whatever its checks do.
const checkRunBound = 15 * time.Minute

// checkRuns is each project's runs of its checks.
type checkRuns struct {
	mu   sync.Mutex
	last map[string]*CheckRun // the newest run of each project
	busy map[string]bool      // projects with a run under way
}

// RunChecks starts a run of a project's checks: the checks of its file
// named by req (all of them when it names none), or, with Connectivity,
// every learned host pinging every other. It returns the run as it
// starts; the rest follows on the project's stream. Codes: ENOTFOUND,
// EINVALID (an id the file does not have; a file with no checks),
// ECONFLICT (the project is closed; a run is under way).
func (s *Service) RunChecks(ctx context.Context, projectID string, req CheckRunRequest) (*CheckRun, error) {
	p, err := s.FindProjectByID(ctx, projectID)
	if err != nil {
		return nil, err
	}
	if p.Status != ProjectOpened {
		return nil, Errorf(ECONFLICT, "Project %s is closed, so its checks cannot run: open it (and start its nodes), then run them again", p.Name)
	}
	checks, err := s.checksToRun(ctx, p, req)
	if err != nil {
		return nil, err
	}
	run := &CheckRun{RunID: s.c.NewID(), ProjectID: p.ID, Status: RunRunning, StartedAt: time.Now().UTC(), Results: make([]CheckResult, len(checks))}
	for i, c := range checks {
		run.Results[i] = CheckResult{CheckID: c.ID, Kind: c.Kind, Title: checkTitle(c), Verdict: VerdictRunning, Evidence: []Evidence{}}
	}
	rs := &s.checks
	rs.mu.Lock()
	if rs.busy[p.ID] {
		started := rs.last[p.ID].StartedAt.Local().Format("15:04:05")
		rs.mu.Unlock()
		return nil, Errorf(ECONFLICT, "A run of project %s's checks, started at %s, is under way: wait for it to end, then run them again", p.Name, started)
	}
	if rs.busy == nil {
		rs.busy, rs.last = map[string]bool{}, map[string]*CheckRun{}
	}
	rs.busy[p.ID], rs.last[p.ID] = true, run
	first := run.clone()
	s.publish(EventCheckRunUpdated, p.ID, first) // under the lock: in order with the run's next events
	rs.mu.Unlock()
	go s.runChecks(run, checks)
	return first, nil
}

// LastCheckRun returns a project's newest run. Codes: ENOTFOUND.
func (s *Service) LastCheckRun(ctx context.Context, projectID string) (*CheckRun, error) {
	p, err := s.FindProjectByID(ctx, projectID)
	if err != nil {
		return nil, err
	}
	rs := &s.checks
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if run := rs.last[p.ID]; run != nil {
		return run.clone(), nil
	}
	return nil, Errorf(ENOTFOUND, "No check of project %s ran since nodedesk started: run them first (POST /v2/projects/%s/checks/run)", p.Name, p.ID)
}

// checksToRun is what req asks to run in p.
func (s *Service) checksToRun(ctx context.Context, p *Project, req CheckRunRequest) ([]Check, error) {
	if req.Connectivity {
		if len(req.Checks) > 0 {
			return nil, Invalid("checks", "A connectivity run pings every host from every other and runs no checks of the file; ask for one or the other")
		}
		return []Check{{ID: ConnectivityCheckID, Kind: CheckMatrix}}, nil
	}
	f, err := s.Checks(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	if len(f.Checks) == 0 {
		return nil, Invalid("checks", "Project %s has no checks yet: add some (PUT /v2/projects/%s/checks), or run a connectivity check, which needs none", p.Name, p.ID)
	}
	if len(req.Checks) == 0 {
		return f.Checks, nil
	}
	byID := map[string]Check{}
	for _, c := range f.Checks {
		byID[c.ID] = c
	}
	var out []Check
	for _, id := range req.Checks {
		c, ok := byID[id]
		if !ok {
			return nil, Invalid("checks", "Project %s's checks file has no check %q; its checks are %s", p.Name, id, checkIDs(f.Checks))
		}
		out = append(out, c)
	}
	return out, nil
}

func checkIDs(cs []Check) string {
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	return strings.Join(ids, ", ")
}

// runChecks evaluates run's checks one after the other, telling each
// verdict, then ends the run.
func (s *Service) runChecks(run *CheckRun, checks []Check) {
	ctx, cancel := context.WithTimeout(context.Background(), checkRunBound)
	defer cancel()
	rs := &s.checks
	defer func() {
		rs.mu.Lock()
		defer rs.mu.Unlock()
		now := time.Now().UTC()
		run.Status, run.FinishedAt = RunFinished, &now
		s.publish(EventCheckRunUpdated, run.ProjectID, run.clone())
		delete(rs.busy, run.ProjectID)
	}()
	ev := &checkEval{s: s, projectID: run.ProjectID, runID: run.RunID}
	for i, c := range checks {
		began := time.Now()
		res := ev.eval(ctx, c)
		res.CheckID, res.Kind, res.Title = c.ID, c.Kind, checkTitle(c)
		res.DurationMS = time.Since(began).Milliseconds()
		if res.Evidence == nil {
			res.Evidence = []Evidence{}
		}
		rs.mu.Lock()
		run.Results[i] = res
		switch res.Verdict {
		case VerdictPass:
			run.Passed++
		case VerdictFail:
			run.Failed++
		default:
			run.Errors++
		}
		s.publish(EventCheckRunUpdated, run.ProjectID, run.clone())
		rs.mu.Unlock()
	}
}

// clone is a copy of r that later changes to r do not reach (a result,
// once decided, is replaced whole, never changed in place).
func (r *CheckRun) clone() *CheckRun {
	c := *r
	c.Results = append([]CheckResult(nil), r.Results...)
	if r.FinishedAt != nil {
		t := *r.FinishedAt
		c.FinishedAt = &t
	}
	return &c
}

// checkTitle says what a check checks, in plain words.
func checkTitle(c Check) string {
	switch c.Kind {
	case CheckReach:
		if c.Expect == "no_reply" {
			return fmt.Sprintf("%s does not reach %s", c.From, c.To)
		}
		return fmt.Sprintf("%s reaches %s", c.From, c.To)
	case CheckMatrix:
		who := "Every host"
		if c.ID == ConnectivityCheckID && c.Hosts == nil {
			who = "Every host of the lab"
		} else if len(c.Hosts) > 0 {
			who = "Each of " + strings.Join(c.Hosts, ", ")
		}
		if c.Expect == "no_reply" {
			return who + " reaches no other"
		}
		return who + " reaches every other"
	case CheckConsole:
		if c.Send == "" {
			return fmt.Sprintf("%s's console shows /%s/", c.Node, c.Expect)
		}
		return fmt.Sprintf("%s answers %q with /%s/", c.Node, c.Send, c.Expect)
	case CheckWire:
		at := "?"
		if c.At != nil {
			at = c.At.Node + " " + c.At.Port
		}
		if c.Expect == "never" {
			return fmt.Sprintf("No %s frames cross the link at %s", c.Frames, at)
		}
		return fmt.Sprintf("%s frames cross the link at %s", c.Frames, at)
	}
	return c.ID
}

// addressOnly is the address of "10.0.0.1/24" or "10.0.0.1".
func addressOnly(s string) (string, bool) {
	if p, err := netip.ParsePrefix(s); err == nil && p.Addr().Is4() {
		return p.Addr().String(), true
	}
	if a, err := netip.ParseAddr(s); err == nil && a.Is4() {
		return a.String(), true
	}
	return "", false
}
