package labtest

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"nodedesk/app/dynamips/dynamipstest"
	"nodedesk/app/kit"
)

// TestDynamips_ImageIdlePC: the GNS3 GUI's IOS router wizard asks for an
// image's idle-PC value before any router runs it
// (POST /v2/computes/local/auto_idlepc). nodedesk boots the image in a
// project of its own, finds a value, and leaves neither the project nor
// a dynamips process behind; a missing image is named, a body without
// its keys refused.
//
// The search waits for the router's prompt (decision 0077), not for the
// bound: given 60 s for a router that shows none, it ends in a few.
func TestDynamips_ImageIdlePC(t *testing.T) {
	opts := with(dynamipstest.Emulator)
	opts.IdlePCBoot = time.Minute
	l := Start(t, opts)
	ios := filepath.Join(l.GNS3Images, "IOS")
	if err := os.MkdirAll(ios, 0o755); err != nil {
		t.Fatal(err)
	}
	image, err := os.ReadFile(dynamipstest.FakeIOS(t, "c7200"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ios, "c7200-wizard.image"), image, 0o644); err != nil {
		t.Fatal(err)
	}

	began := time.Now()
	got := l.Do("POST", "/v2/computes/local/auto_idlepc", map[string]any{"platform": "c7200", "image": "c7200-wizard.image", "ram": 256}).Want(t, 200).JSON(t)
	took := time.Since(began)
	t.Logf("the image's idle-PC search took %v", took)
	if took > 30*time.Second {
		t.Errorf("the search took %v: it waited for its 1-minute bound rather than for the router's prompt", took)
	}
	if v, _ := got["idlepc"].(string); !regexp.MustCompile(`^0x[0-9a-f]{8}$`).MatchString(v) {
		t.Errorf("idlepc %v, want an 8-digit value as the GUI's wizard takes", got["idlepc"])
	}
	for _, p := range l.Do("GET", "/v2/projects", nil).Want(t, 200).List(t) {
		if p["name"] == "AUTOIDLEPC" {
			t.Errorf("the search's project is left: %v", p)
		}
	}
	if pids := dynamipsUnder(filepath.Dir(l.Store.Path())); len(pids) > 0 {
		t.Errorf("dynamips %v still runs after the search", pids)
	}

	e := l.Do("POST", "/v2/computes/local/auto_idlepc", map[string]any{"platform": "c7200", "image": "c7200-absent.image", "ram": 256}).Want(t, 409).JSON(t)
	if !strings.Contains(e["message"].(string), "c7200-absent.image") {
		t.Errorf("a missing image's error does not name it: %v", e["message"])
	}
	l.Do("POST", "/v2/computes/local/auto_idlepc", map[string]any{"platform": "c7200", "ram": 256}).Want(t, 400)
}

// dynamipsUnder lists the live dynamips processes working in a folder
// under dir.
func dynamipsUnder(dir string) []int {
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		cwd, err := os.Readlink(filepath.Join(p, "cwd"))
		exe, _ := os.Readlink(filepath.Join(p, "exe"))
		if err != nil || filepath.Base(exe) != "dynamips" || !strings.HasPrefix(cwd, dir+string(filepath.Separator)) {
			continue
		}
		var pid int
		for _, c := range filepath.Base(p) {
			pid = pid*10 + int(c-'0')
		}
		if st := kit.ProcState(pid); st != "Z" && st != "" {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestDynamips_AutoIdlePCKept: the idle-PC search works on a router that
// already runs with an idle PC (it is measured without it), and keeps
// the value found both in the node and in Dynamips; a search that fails
// (here on a router Dynamips was told to suspend behind nodedesk's
// back, whose PC never moves, so that Dynamips proposes nothing) leaves
// Dynamips with the idle PC the node keeps, as Dynamips' own log of its
// commands shows.
func TestDynamips_AutoIdlePCKept(t *testing.T) {
	l := Start(t, with(dynamipstest.Emulator))
	iosImage(t, l, "c7200-fake.image", "c7200")
	pid := l.MustCreateProject("idle-kept")
	r := routerNode(t, l, pid, "R1", map[string]any{"platform": "c7200", "image": "c7200-fake.image", "ghost": false, "idlepc": fakeIdlePC})
	path := "/v2/projects/" + pid + "/nodes/" + r["node_id"].(string)
	dir := r["node_directory"].(string)
	l.Do("POST", path+"/start", nil).Want(t, 200)
	if con := kit.DialConsole(t, "127.0.0.1", int(r["console"].(float64))); !con.Expect("Router>", true, 20*time.Second) {
		t.Fatalf("R1 shows no prompt: %q", kit.Printable(con.Log.String()))
	}
	pids := dynamipstest.PIDs(dir)
	if len(pids) != 1 {
		t.Fatalf("dynamips processes %v; want one", pids)
	}
	idlePC := func() string {
		return l.Do("GET", path, nil).Want(t, 200).JSON(t)["properties"].(map[string]any)["idlepc"].(string)
	}
	// lastIdlePC is the idle PC Dynamips was last given while R1 ran, as
	// it logged it (sign-extended, as nodedesk gives it to a MIPS router).
	lastIdlePC := func() string {
		b, err := os.ReadFile(filepath.Join(dir, "dynamips_i1_log.txt"))
		if err != nil {
			t.Fatal(err)
		}
		last := ""
		for _, c := range execCommands(string(b)) {
			if v, ok := strings.CutPrefix(c, "vm set_idle_pc_online R1 0 "); ok {
				last = v
			}
		}
		return last
	}
	signExtended := func(v string) string { return "0xffffffff" + strings.TrimPrefix(v, "0x") }

	got := l.Do("GET", path+"/dynamips/auto_idlepc", nil).Want(t, 200).JSON(t)
	found, _ := got["idlepc"].(string)
	if !regexp.MustCompile(`^0x[0-9a-f]{8}$`).MatchString(found) {
		t.Fatalf("auto_idlepc found %q; want an 8-digit value", found)
	}
	if v := idlePC(); v != found {
		t.Errorf("the router's idlepc is %s after the search found %s", v, found)
	}
	if v := lastIdlePC(); v != signExtended(found) {
		t.Errorf("Dynamips runs R1 with idle PC %s; the node keeps %s", v, found)
	}
	if busy := cpuShare(t, pids[0], 2*time.Second); busy > 0.5 {
		t.Errorf("R1 uses %.0f%% of a core with the idle PC found", busy*100)
	}

	hv := dialHypervisorOf(t, pids[0])
	hv("vm suspend R1")
	l.Do("GET", path+"/dynamips/auto_idlepc", nil).Want(t, 409)
	if v := idlePC(); v != found {
		t.Errorf("the router's idlepc is %s after a failed search; want the one it had, %s", v, found)
	}
	if v := lastIdlePC(); v != signExtended(found) {
		t.Errorf("after a failed search Dynamips runs R1 with idle PC %q; the node keeps %s", v, found)
	}
	hv("vm resume R1")
	if busy := cpuShare(t, pids[0], 2*time.Second); busy > 0.5 {
		t.Errorf("R1 uses %.0f%% of a core after a failed search", busy*100)
	}
	l.Do("POST", path+"/stop", nil).Want(t, 200)
}

// dialHypervisorOf opens a second connection to the hypervisor of the
// dynamips process pid (its -H address) and returns a function that
// sends it one command, failing the test unless Dynamips says OK.
func dialHypervisorOf(t *testing.T, pid int) func(cmd string) {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	args := bytes.Split(b, []byte{0})
	addr := ""
	for i, a := range args {
		if string(a) == "-H" && i+1 < len(args) {
			addr = string(args[i+1])
		}
	}
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("the hypervisor of dynamips %d (%q): %v", pid, addr, err)
	}
	t.Cleanup(func() { conn.Close() })
	r := bufio.NewReader(conn)
	return func(cmd string) {
		t.Helper()
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(conn, "%s\n", cmd)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("%s: %v", cmd, err)
			}
			if len(line) >= 4 && line[3] == '-' {
				if !strings.HasPrefix(line, "100-") {
					t.Fatalf("Dynamips answered %s with %q", cmd, line)
				}
				return
			}
		}
	}
}
