package labtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"nodedesk/app"
	"nodedesk/app/kit"
)

// The checks' host drivers (app.HostDriver) on real hosts: pings typed on
// the hosts' consoles as a user would, their answers read, the hosts'
// configuration untouched.

// vpcsLab is n VPCS named pc1…pcN with addresses 10.0.0.1…/24 on one
// switch, started; it answers their node ids and addresses.
func vpcsLab(t *testing.T, l *Lab, pid string, n int) (ids, addrs []string) {
	t.Helper()
	var ports []any
	for i := range n {
		ports = append(ports, kit.SwitchPort(i, "access", 1, ""))
	}
	sw := l.MustCreateSwitch(t, pid, ports)
	for i := range n {
		name, addr := fmt.Sprintf("pc%d", i+1), fmt.Sprintf("10.0.0.%d", i+1)
		node := l.MustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": name,
			"properties": map[string]any{"startup_script": fmt.Sprintf("set pcname %s\nip %s/24\n", name, addr)}})
		ids = append(ids, node["node_id"].(string))
		addrs = append(addrs, addr)
		l.Link(t, pid, ids[i], 0, sw, i)
	}
	l.Do("POST", "/v2/projects/"+pid+"/nodes/start", nil).Want(t, 204)
	awaitAddresses(t, l, ids, addrs)
	return ids, addrs
}

// hostConfigs is each node's startup script as the project holds it and
// as the file in its folder holds it.
func hostConfigs(t *testing.T, l *Lab, pid string, ids []string) []string {
	t.Helper()
	var out []string
	for _, id := range ids {
		n := l.Do("GET", "/v2/projects/"+pid+"/nodes/"+id, nil).Want(t, 200).JSON(t)
		file, _ := os.ReadFile(filepath.Join(n["node_directory"].(string), "startup.vpc"))
		out = append(out, fmt.Sprint(n["properties"].(map[string]any)["startup_script"])+"|"+string(file))
	}
	return out
}

// matrixGuard bounds the 20-host matrix's wall time in make test (see the
// test).
const matrixGuard = 4 * time.Minute

// TestLab_VPCSMatrix20: "check connectivity" on a 20-VPCS lab, through
// the API as the Checks panel runs it: every host pings every other (380
// ordered pairs; the hosts at once, each host's pings one after the other,
// one echo each) in at most 30 s; every pair answers and no host's
// configuration changed. Then the driver itself: an address nobody holds
// fails within about the timeout.
func TestLab_VPCSMatrix20(t *testing.T) {
	l := StartVPCS(t)
	pid := l.MustCreateProject("matrix")
	up := time.Now()
	ids, addrs := vpcsLab(t, l, pid, 20)
	t.Logf("20 VPCS started and holding their addresses in %v", time.Since(up).Round(time.Millisecond))
	before := hostConfigs(t, l, pid, ids)
	d := l.Driver(t, app.VPCS)
	ctx := context.Background()

	start := time.Now()
	run := runChecksWithin(t, l, pid, map[string]any{"connectivity": true}, matrixGuard+time.Minute)
	wall := time.Since(start)
	if len(run.Results) != 1 || run.Results[0].Matrix == nil {
		t.Fatalf("a connectivity run: %+v, want one result with its matrix", run)
	}
	verdict, m := run.Results[0], run.Results[0].Matrix
	t.Logf("380 ordered pairs checked in %v (the run: %v): %s", wall.Round(time.Millisecond), run.FinishedAt.Sub(run.StartedAt).Round(time.Millisecond), verdict.Message)
	var failed []string
	for i, row := range m.Cells {
		for j, v := range row {
			if i != j && v != app.VerdictPass {
				failed = append(failed, fmt.Sprintf("%s→%s %s", m.Hosts[i].Name, m.Hosts[j].Name, v))
			}
		}
	}
	if len(m.Hosts) != 20 || verdict.Verdict != app.VerdictPass || run.Passed != 1 || len(failed) > 0 || !strings.Contains(verdict.Message, "All 380 pairs of 20 hosts answered") {
		t.Errorf("%d hosts, %s: %s; failing cells %q", len(m.Hosts), verdict.Verdict, verdict.Message, failed[:min(5, len(failed))])
		for _, ev := range verdict.Evidence { // what the failing pings printed
			var bad []string
			for _, line := range ev.Lines {
				if !strings.Contains(line, "ttl=") && !strings.Contains(line, "bytes from") {
					bad = append(bad, line)
				}
			}
			if ev.Kind == app.EvidenceConsole && len(bad) > 0 {
				t.Logf("console of %s, lines other than replies:\n%s", ev.NodeID, strings.Join(bad, "\n"))
			}
		}
	}
	for i, h := range m.Hosts {
		if h.NodeID != ids[i] || h.Address != addrs[i] {
			t.Errorf("matrix host %d: %+v, want %s at %s", i, h, ids[i], addrs[i])
		}
	}
	// The target is 30 s (issue 39), measured without -race on an idle
	// machine (5.3 s). make test runs this with -race beside the other
	// streams (19 s idle, 82 s in a CI run), so it only guards against a
	// matrix that no longer runs its sources side by side: 380 pings one
	// after another take over 6 minutes with -race (TestMatrix_TwentyHosts
	// holds the sources side by side without timing).
	if wall > matrixGuard {
		t.Errorf("the matrix took %v, more than %v", wall, matrixGuard)
	}

	// An address nobody holds: no reply, an answer within about the
	// timeout (VPCS itself gives up on ARP only after 3 s).
	start = time.Now()
	res, err := d.Ping(ctx, ids[0], "10.0.0.99", time.Second)
	took := time.Since(start)
	if err != nil || res.Received != 0 || res.Sent != 1 {
		t.Errorf("ping of an unused address: %+v %v, want 1 sent, none back", res, err)
	}
	if took > 2500*time.Millisecond {
		t.Errorf("ping of an unused address took %v, want about its 1 s timeout", took)
	}
	// The host is busy with it a while longer: the next ping waits for
	// its prompt and works.
	if res, err := d.Ping(ctx, ids[0], addrs[1], time.Second); err != nil || res.Received != 1 {
		t.Errorf("ping right after an unanswered one: %+v %v", res, err)
	} else if !strings.Contains(strings.Join(res.Lines, "\n"), "icmp_seq=1 ttl=") {
		t.Errorf("a reply's evidence lacks VPCS's reply line: %q", res.Lines)
	}

	// Converse: a line sent, the answer read until a pattern.
	lines, ok, err := d.Converse(ctx, ids[2], "show ip", regexp.MustCompile(`10\.0\.0\.3/24`), 5*time.Second)
	if err != nil || !ok {
		t.Errorf("Converse show ip: %q %v %v", lines, ok, err)
	}
	if _, ok, err := d.Converse(ctx, ids[2], "echo hello", regexp.MustCompile(`never printed`), 300*time.Millisecond); err != nil || ok {
		t.Errorf("Converse matched what was never printed: %v %v", ok, err)
	}

	if after := hostConfigs(t, l, pid, ids); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("the hosts' configuration changed:\nbefore %q\nafter  %q", before, after)
	}
}
