package labtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"nodedesk/app/dynamips/dynamipstest"
	"nodedesk/app/kit"
)

// TestDynamips_Platforms: a router of each platform GNS3 offers, but the
// c7200 and c3725 of TestDynamips_Lab, boots the stand-in image to its
// Router> prompt in turn, idles with the image's idle PC (the MIPS ones
// sign-extended, the PowerPC c2600's 32 bits), and answers a VPCS's ping
// on the first port of its slot 0 at 192.0.2.1 through nodedesk's
// switch: the c3600 in its three chassis (the 3620 and 3640 with a
// module in slot 0), the c2691, the c2600 in its
// default 2610 and as a 2651XM. The stand-in image does not drive the
// c3745's Ethernet (../shared/fake-ios/README.md), so that one only
// boots. One project, switch and VPCS serve every router; each is
// stopped and deleted, with its link, before the next.
func TestDynamips_Platforms(t *testing.T) {
	l := Start(t, with(dynamipstest.Emulator))
	for _, p := range []string{"c3600", "c2691", "c2600", "c3745"} {
		iosImage(t, l, p+"-fake.image", p)
	}
	pid := l.MustCreateProject("dynamips-platforms")
	sw := l.MustCreateSwitch(t, pid, nil)
	pc := l.StartHost(t, pid, "PC1", "192.0.2.2")
	l.Link(t, pid, pc.ID, 0, sw, 1)

	for _, tt := range []struct {
		name, platform, chassis string
		slot0                   string // "": the chassis' own
		pings                   bool
	}{
		{"c3640", "c3600", "", "NM-1FE-TX", true}, // the default chassis
		{"c3620", "c3600", "3620", "NM-1E", true},
		{"c3660", "c3600", "3660", "", true},
		{"c2691", "c2691", "", "", true},
		{"c2610", "c2600", "", "", true}, // the default chassis
		{"c2651XM", "c2600", "2651XM", "", true},
		{"c3745", "c3745", "", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			props := map[string]any{"platform": tt.platform, "image": tt.platform + "-fake.image", "idlepc": fakeIdlePC}
			if tt.chassis != "" {
				props["chassis"] = tt.chassis
			}
			if tt.slot0 != "" { // a 3620's and a 3640's slots are all empty until given a module
				props["slot0"] = tt.slot0
			}
			r := routerNode(t, l, pid, "R-"+tt.name, props)
			path := "/v2/projects/" + pid + "/nodes/" + r["node_id"].(string)
			if tt.pings { // its slot 0's first port; the link goes with the router, even if the test fails
				l.Link(t, pid, r["node_id"].(string), 0, sw, 0)
			}
			t.Cleanup(func() { l.Do("DELETE", path, nil) })
			begin := time.Now()
			l.Do("POST", path+"/start", nil).Want(t, 200)
			started := time.Since(begin)
			con := kit.DialConsole(t, "127.0.0.1", int(r["console"].(float64)))
			if !con.Expect("Router>", true, 20*time.Second) {
				t.Fatalf("%s shows no prompt: %q", tt.name, kit.Printable(con.Log.String()))
			}
			prompt := time.Now()
			pids := dynamipstest.PIDs(r["node_directory"].(string))
			if len(pids) != 1 {
				t.Fatalf("dynamips processes %v; want one", pids)
			}
			idle := cpuShare(t, pids[0], 3*time.Second)
			t.Logf("%s: start request %.2f s; Router> seen %.2f s after vm start (at most); idle CPU with idle PC %.1f%% of a core",
				tt.name, started.Seconds(), prompt.Sub(vmStartAt(t, r, "R-"+tt.name)).Seconds(), idle*100)
			if idle > 0.5 {
				t.Errorf("%s uses %.0f%% of a core at its prompt with idle PC %s", tt.name, idle*100, fakeIdlePC)
			}
			if tt.pings {
				pc.Con.Run("clear arp", "PC1>", 10*time.Second) // the routers' MACs differ, their address not
				if !pc.Pings("192.0.2.1", 30*time.Second) {
					t.Errorf("PC1 cannot ping %s's first port: %q", tt.name, kit.Printable(pc.Con.Log.String()))
				}
			}
			l.Do("POST", path+"/stop", nil).Want(t, 200)
			if pids := dynamipstest.PIDs(r["node_directory"].(string)); len(pids) != 0 {
				t.Errorf("dynamips processes %v still run after the stop", pids)
			}
		})
	}
}

// vmStartAt is when the Dynamips of router node r logged its last
// `vm start` of name (its log's timestamps are UTC, in milliseconds).
func vmStartAt(t *testing.T, r map[string]any, name string) time.Time {
	t.Helper()
	dir := r["node_directory"].(string)
	b, err := os.ReadFile(filepath.Join(dir, "dynamips_i"+itoa(r["properties"].(map[string]any)["dynamips_id"])+"_log.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var at time.Time
	for _, line := range strings.Split(string(b), "\n") {
		stamp, cmd, ok := strings.Cut(line, " HYPERVISOR: exec_cmd: ")
		if ok && strings.TrimSpace(cmd) == "vm start "+name {
			if at, err = time.Parse("2006-01-02T15:04:05.000Z", stamp); err != nil {
				t.Fatalf("Dynamips' log line %q: %v", line, err)
			}
		}
	}
	if at.IsZero() {
		t.Fatalf("Dynamips' log in %s has no vm start of %s", dir, name)
	}
	return at
}
