package labtest

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"nodedesk/app"
	"nodedesk/app/dynamips/dynamipstest"
	"nodedesk/app/iou/ioutest"
	"nodedesk/app/kit"
)

// "Check my lab" end to end (issue 39): each fixture lab gets a checks
// file through the API and its checks run through the API, as the Checks
// panel and nodedesk check do; without its fault every check passes, with
// it the check the fault breaks fails, the others still pass, lint (or the
// wire map) names the fault and the failing result carries that finding.

// fixtureRunLimit bounds one run of a fixture's checks.
const fixtureRunLimit = 2 * time.Minute

// putChecks writes a project's checks file.
func putChecks(t *testing.T, l *Lab, pid string, checks ...map[string]any) {
	t.Helper()
	l.Do("PUT", "/v2/projects/"+pid+"/checks", map[string]any{"version": app.ChecksVersion, "checks": checks}).Want(t, 200)
}

// runChecks runs a project's checks (req: the run's body) and waits for
// the run to finish, within fixtureRunLimit.
func runChecks(t *testing.T, l *Lab, pid string, req any) app.CheckRun {
	t.Helper()
	return runChecksWithin(t, l, pid, req, fixtureRunLimit)
}

// runChecksWithin is runChecks with its own bound.
func runChecksWithin(t *testing.T, l *Lab, pid string, req any, limit time.Duration) app.CheckRun {
	t.Helper()
	var started app.CheckRun
	if err := json.Unmarshal(l.Do("POST", "/v2/projects/"+pid+"/checks/run", req).Want(t, 201).Body, &started); err != nil {
		t.Fatal(err)
	}
	var run app.CheckRun
	ok := kit.WaitFor(limit, func() bool {
		run = app.CheckRun{}
		if err := json.Unmarshal(l.Do("GET", "/v2/projects/"+pid+"/checks/run", nil).Want(t, 200).Body, &run); err != nil {
			t.Fatal(err)
		}
		return run.RunID == started.RunID && run.Status == app.RunFinished
	})
	if !ok {
		t.Fatalf("the run did not finish in %v: %+v", limit, run)
	}
	return run
}

// wantVerdicts asserts each check's verdict (check id → verdict) and that
// the run has no other result; it returns the results by id.
func wantVerdicts(t *testing.T, run app.CheckRun, want map[string]string) map[string]app.CheckResult {
	t.Helper()
	got := map[string]app.CheckResult{}
	for _, r := range run.Results {
		got[r.CheckID] = r
	}
	if len(got) != len(want) {
		t.Errorf("the run has %d results, want %d", len(got), len(want))
	}
	passed, failed := 0, 0
	for id, v := range want {
		r := got[id]
		if r.Verdict != v {
			t.Errorf("check %s (%s): %s, want %s: %s\nevidence: %s", id, r.Title, r.Verdict, v, r.Message, evidenceText(r))
		}
		switch v {
		case app.VerdictPass:
			passed++
		case app.VerdictFail:
			failed++
		}
	}
	if run.Passed != passed || run.Failed != failed || run.Errors != len(want)-passed-failed {
		t.Errorf("run counts %d/%d/%d, want %d passed, %d failed", run.Passed, run.Failed, run.Errors, passed, failed)
	}
	return got
}

func evidenceText(r app.CheckResult) string {
	b, _ := json.Marshal(r.Evidence)
	return string(b)
}

// lintFindings is what lint finds in a project now.
func lintFindings(t *testing.T, l *Lab, pid string) []app.LintFinding {
	t.Helper()
	var rep app.LintReport
	if err := json.Unmarshal(l.Do("GET", "/v2/projects/"+pid+"/lint", nil).Want(t, 200).Body, &rep); err != nil {
		t.Fatal(err)
	}
	return rep.Findings
}

// wantLintClean asserts lint finds nothing in f.
func wantLintClean(t *testing.T, l *Lab, f *Fixture) {
	t.Helper()
	if fs := lintFindings(t, l, f.Project); len(fs) > 0 {
		t.Errorf("lint finds %+v in the lab without its fault, want nothing", fs)
	}
}

// wantLintNames asserts lint reports code about node (a name of f), and
// returns the finding.
func wantLintNames(t *testing.T, l *Lab, f *Fixture, code, node string) app.LintFinding {
	t.Helper()
	fs := lintFindings(t, l, f.Project)
	for _, x := range fs {
		if x.Code == code && slices.Contains(x.NodeIDs, f.Nodes[node]) {
			t.Logf("lint %s: %s", x.Code, x.Message)
			return x
		}
	}
	t.Errorf("lint finds %+v, want %s about %s", fs, code, node)
	return app.LintFinding{}
}

// wantEvidence asserts that a failing result carries a lint finding or a
// wire fault of code as evidence, and says it in its message.
func wantEvidence(t *testing.T, r app.CheckResult, code string) {
	t.Helper()
	for _, e := range r.Evidence {
		if (e.Finding != nil && e.Finding.Code == code && strings.Contains(r.Message, e.Finding.Message)) ||
			(e.Fault != nil && e.Fault.Code == code && strings.Contains(r.Message, e.Fault.Message)) {
			return
		}
	}
	t.Errorf("check %s failed without %s as its evidence: %s\nevidence: %s", r.CheckID, code, r.Message, evidenceText(r))
}

// reach is a reach check.
func reach(id, from, to string, reply bool) map[string]any {
	c := map[string]any{"id": id, "kind": app.CheckReach, "from": from, "to": to}
	if !reply {
		c["expect"] = "no_reply"
	}
	return c
}

// TestLab_ChecksFixtures: the fixture labs' checks, run through the API,
// with and without each fault. One lab (VPCS, IOU, Dynamips) holds them
// all, each in its own project.
func TestLab_ChecksFixtures(t *testing.T) {
	l := Start(t, with(ioutest.Emulator, dynamipstest.Emulator))
	l.Do("PUT", "/v2/iou_license", map[string]any{"iourc_content": "", "license_check": false}).Want(t, 201)
	timed := func(name string, run func(t *testing.T)) {
		start := time.Now()
		t.Run(name, run)
		t.Logf("%s: %v", name, time.Since(start).Round(time.Millisecond))
	}

	timed("VLANs", func(t *testing.T) {
		f := FixtureVLANs(t, l)
		putChecks(t, l, f.Project,
			reach("vlan10", "PC1", "PC3", true),       // VLAN 10 across the trunk
			reach("vlan20", "PC2", "10.0.20.4", true), // VLAN 20 across the trunk (PC4's address)
			reach("apart", "PC1", "10.0.20.2", false), // no router between the VLANs
			map[string]any{"id": "tagged", "kind": app.CheckWire, "at": map[string]any{"node": "SW1", "port": "Ethernet2"},
				"frames": "vlan:10", "within": "10s"},
		)
		all := map[string]string{"vlan10": app.VerdictPass, "vlan20": app.VerdictPass, "apart": app.VerdictPass, "tagged": app.VerdictPass}
		wantVerdicts(t, runChecks(t, l, f.Project, map[string]any{}), all)
		wantLintClean(t, l, f)

		// PC3's port in VLAN 20: PC1 no longer reaches it.
		FaultWrongVLAN(t, l, f, true)
		got := wantVerdicts(t, runChecks(t, l, f.Project, map[string]any{}), map[string]string{
			"vlan10": app.VerdictFail, "vlan20": app.VerdictPass, "apart": app.VerdictPass, "tagged": app.VerdictPass})
		split := wantLintNames(t, l, f, app.LintVLANNotOnTrunk, "PC3")
		if !slices.Contains(split.NodeIDs, f.Nodes["PC1"]) || !strings.Contains(split.Message, "PC3's are in VLAN 20 at SW2") {
			t.Errorf("vlan_not_on_trunk %+v: want PC1 and PC3 kept apart, PC3 in VLAN 20", split)
		}
		wantLintNames(t, l, f, app.LintSubnetMismatch, "PC3")
		wantEvidence(t, got["vlan10"], app.LintVLANNotOnTrunk)
		FaultWrongVLAN(t, l, f, false)

		// PC4 takes PC2's address (while its link is down, as a host
		// that was off): nobody holds 10.0.20.4 any more, and lint names
		// the duplicate.
		FaultDuplicateIP(t, l, f)
		got = wantVerdicts(t, runChecks(t, l, f.Project, map[string]any{}), map[string]string{
			"vlan10": app.VerdictPass, "vlan20": app.VerdictFail, "apart": app.VerdictPass, "tagged": app.VerdictPass})
		dup := wantLintNames(t, l, f, app.LintDuplicateAddress, "PC4")
		if !slices.Contains(dup.NodeIDs, f.Nodes["PC2"]) || !strings.Contains(dup.Message, "10.0.20.2") {
			t.Errorf("duplicate_address %+v: want PC2 and PC4 holding 10.0.20.2", dup)
		}
		wantEvidence(t, got["vlan20"], app.LintDuplicateAddress)
	})

	timed("FrameRelay", func(t *testing.T) {
		// No host nodedesk runs speaks Frame Relay: lint alone checks
		// the lab, before anything runs; a run says its routers are
		// stopped (error, not fail).
		f := FixtureFrameRelay(t, l)
		putChecks(t, l, f.Project, reach("hub-spoke3", "HUB", "SPOKE3", true))
		wantLintClean(t, l, f)
		r := wantVerdicts(t, runChecks(t, l, f.Project, map[string]any{}), map[string]string{"hub-spoke3": app.VerdictError})
		if !strings.Contains(r["hub-spoke3"].Message, "HUB is stopped") {
			t.Errorf("the run's error: %q, want HUB is stopped", r["hub-spoke3"].Message)
		}
		FaultAsymmetricDLCI(t, l, f)
		x := wantLintNames(t, l, f, app.LintDLCIAsymmetric, "SPOKE3")
		if !strings.Contains(x.Message, "310") {
			t.Errorf("dlci_asymmetric %+v: want DLCI 310 named", x)
		}
	})

	timed("NAT", func(t *testing.T) {
		f := FixtureNAT(t, l)
		putChecks(t, l, f.Project,
			reach("internet", "PC1", natGateway, true),
			map[string]any{"id": "lease", "kind": app.CheckConsole, "node": "PC1", "send": "show ip",
				"expect": `IP/MASK\s*: 192\.168\.122\.\d+/24`, "within": "5s"},
		)
		wantVerdicts(t, runChecks(t, l, f.Project, map[string]any{}), map[string]string{"internet": app.VerdictPass, "lease": app.VerdictPass})
		wantLintClean(t, l, f)

		FaultSuspendLink(t, l, f, "PC1-SW1", true)
		got := wantVerdicts(t, runChecks(t, l, f.Project, map[string]any{}), map[string]string{"internet": app.VerdictFail, "lease": app.VerdictPass})
		x := wantLintNames(t, l, f, app.LintLinkSuspended, "PC1")
		if !slices.Equal(x.LinkIDs, []string{f.Links["PC1-SW1"]}) {
			t.Errorf("link_suspended %+v: want link PC1-SW1 %s", x, f.Links["PC1-SW1"])
		}
		wantEvidence(t, got["internet"], app.LintLinkSuspended)
	})

	timed("Dynamips", func(t *testing.T) {
		f := FixtureDynamips(t, l)
		putChecks(t, l, f.Project,
			reach("router", "PC1", "R1", true),
			map[string]any{"id": "version", "kind": app.CheckConsole, "node": "R1", "send": "show version", "expect": "stand-in", "within": "10s"},
			reach("from-r1", "R1", "PC1", true), // the stand-in IOS has no ping
		)
		got := wantVerdicts(t, runChecks(t, l, f.Project, map[string]any{}), map[string]string{
			"router": app.VerdictPass, "version": app.VerdictPass, "from-r1": app.VerdictError})
		if !strings.Contains(got["from-r1"].Message, "cannot ping") {
			t.Errorf("a ping from the stand-in IOS: %q, want an error saying it cannot ping", got["from-r1"].Message)
		}
		wantLintClean(t, l, f)

		FaultWrongAddress(t, l, f)
		got = wantVerdicts(t, runChecks(t, l, f.Project, map[string]any{}), map[string]string{
			"router": app.VerdictFail, "version": app.VerdictPass, "from-r1": app.VerdictError})
		x := wantLintNames(t, l, f, app.LintSubnetMismatch, "PC1")
		if !slices.Contains(x.NodeIDs, f.Nodes["R1"]) || !strings.Contains(x.Message, "192.0.3.2") {
			t.Errorf("subnet_mismatch %+v: want PC1 (192.0.3.2) against R1", x)
		}
		wantEvidence(t, got["router"], app.LintSubnetMismatch)
	})

	timed("IOU", func(t *testing.T) {
		f := FixtureIOU(t, l)
		putChecks(t, l, f.Project,
			reach("routed", "PC1", "PC2", true),
			reach("gateway", "PC1", "R1", true),
			reach("r1-pc1", "R1", "PC1", true),
			reach("nowhere", "R1", "10.9.9.9", false),
		)
		all := map[string]string{"routed": app.VerdictPass, "gateway": app.VerdictPass, "r1-pc1": app.VerdictPass, "nowhere": app.VerdictPass}
		wantVerdicts(t, runChecks(t, l, f.Project, map[string]any{}), all)
		wantLintClean(t, l, f)

		FaultShutInterface(t, l, f)
		all["routed"] = app.VerdictFail
		got := wantVerdicts(t, runChecks(t, l, f.Project, map[string]any{}), all)
		x := wantLintNames(t, l, f, app.LintShutInterface, "R1")
		if !slices.Equal(x.LinkIDs, []string{f.Links["PC2-R1"]}) {
			t.Errorf("shut_interface %+v: want the link to PC2 %s", x, f.Links["PC2-R1"])
		}
		wantEvidence(t, got["routed"], app.LintShutInterface)
	})
}
