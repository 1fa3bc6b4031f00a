package api

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Cloud host ports (ethernet: AF_PACKET on a host interface; tap: a TAP
// device) carry a real VPCS's pings to an address in a network namespace
// the test creates; without the privileges they need, linking one answers
// 409 with the command that grants them. Traffic never leaves this
// machine: the namespace, its veth pair and TAP are the test's own, and
// removed when it ends.

// mustBeNetAdmin skips a test that needs root's network privileges (CI
// runs as root).
func mustBeNetAdmin(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("cloud host ports are Linux only")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root: the test creates a network namespace, a veth pair and a TAP device (CI runs as root)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("needs the ip tool (iproute2)")
	}
}

// sh runs a command of the test's setup, failing the test if it fails.
func sh(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// shQuiet runs a clean-up command, whose failure (already gone) is fine.
func shQuiet(args ...string) { _ = exec.Command(args[0], args[1:]...).Run() }

func randomSuffix(t *testing.T) string {
	b := make([]byte, 3)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// netns creates a network namespace with its loopback up, removed (with
// every interface in it) when the test ends.
func netns(t *testing.T) string {
	t.Helper()
	ns := "nd-" + randomSuffix(t)
	sh(t, "ip", "netns", "add", ns)
	t.Cleanup(func() { shQuiet("ip", "netns", "del", ns) })
	sh(t, "ip", "-n", ns, "link", "set", "lo", "up")
	return ns
}

// vethInto makes a veth pair: one end in ns with addr, up; the other in
// this namespace, up, with no address (and no IPv6, so the host sends
// nothing on it by itself). It returns the host end's name.
func vethInto(t *testing.T, ns, addr string) string {
	t.Helper()
	r := randomSuffix(t)
	host, peer := "ndh"+r, "ndn"+r
	sh(t, "ip", "link", "add", host, "type", "veth", "peer", "name", peer)
	t.Cleanup(func() { shQuiet("ip", "link", "del", host) })
	_ = os.WriteFile("/proc/sys/net/ipv6/conf/"+host+"/disable_ipv6", []byte("1"), 0o644)
	sh(t, "ip", "link", "set", peer, "netns", ns)
	sh(t, "ip", "-n", ns, "addr", "add", addr, "dev", peer)
	sh(t, "ip", "-n", ns, "link", "set", peer, "up")
	sh(t, "ip", "link", "set", host, "up")
	return host
}

// cloudPort creates a cloud with one port of kind (ethernet, tap) on
// interface iface.
func (ts *testServer) cloudPort(t *testing.T, pid, kind, iface string) string {
	t.Helper()
	return ts.mustCreateNode(pid, map[string]any{"node_type": "cloud", "properties": map[string]any{
		"ports_mapping": []any{map[string]any{"name": iface, "port_number": 0, "type": kind, "interface": iface}}}})["node_id"].(string)
}

func TestCloudEthernetPort_PingIntoNamespace(t *testing.T) {
	mustBeNetAdmin(t)
	ns := netns(t)
	hostIf := vethInto(t, ns, "10.99.0.2/24")
	ts := newVPCSServer(t)
	pid := ts.mustCreateProject("lab")
	cloud := ts.cloudPort(t, pid, "ethernet", hostIf)
	pc := ts.startHost(t, pid, "pc1", "10.99.0.1")
	ts.link(t, pid, pc.id, 0, cloud, 0)
	pc.con.drain()
	if !pc.con.run("ping 10.99.0.2 -c 3", "ttl=", 20*time.Second) {
		t.Fatalf("pc1 cannot ping 10.99.0.2 in the namespace through cloud port %s:\n%s", hostIf, printable(pc.con.seen.String()))
	}
	pc.con.expect("pc1>", false, 10*time.Second)
	t.Logf("console transcript:\n%s", printable(pc.con.log.String()))

	// An edit that keeps the linked port as it is goes through; another
	// cloud port on the same interface is refused when linked.
	path := "/v2/projects/" + pid + "/nodes/" + cloud
	ts.do("PUT", path, map[string]any{"name": "Uplink"}).want(t, 200)
	sw := mustCreateSwitch(ts, t, pid, nil)
	other := ts.cloudPort(t, pid, "ethernet", hostIf)
	e := ts.do("POST", "/v2/projects/"+pid+"/links", map[string]any{"nodes": []any{end(sw, 0, 0), end(other, 0, 0)}}).want(t, 409).json(t)
	if msg, _ := e["message"].(string); !strings.Contains(msg, hostIf) {
		t.Fatalf("message %q: want the interface already in use", msg)
	}
	if !pc.pings("10.99.0.2", 20*time.Second) {
		t.Fatal("no pings after the cloud was edited")
	}
}

func TestCloudTAPPort_PingIntoNamespace(t *testing.T) {
	mustBeNetAdmin(t)
	if _, err := os.Stat("/dev/net/tun"); err != nil {
		t.Skip("no /dev/net/tun")
	}
	ns := netns(t)
	tap := "ndtap" + randomSuffix(t)
	t.Cleanup(func() { shQuiet("ip", "link", "del", tap) })
	ts := newVPCSServer(t)
	pid := ts.mustCreateProject("lab")
	cloud := ts.cloudPort(t, pid, "tap", tap)
	pc := ts.startHost(t, pid, "pc1", "10.98.0.1")
	link := ts.link(t, pid, pc.id, 0, cloud, 0)
	// The cloud created the TAP, up; the test moves it into the namespace
	// (which takes it down) and addresses it there.
	if !cmdOK("ip", "link", "show", tap) {
		t.Fatalf("linking the cloud's tap port did not create %s", tap)
	}
	sh(t, "ip", "link", "set", tap, "netns", ns)
	sh(t, "ip", "-n", ns, "addr", "add", "10.98.0.2/24", "dev", tap)
	sh(t, "ip", "-n", ns, "link", "set", tap, "up")
	pc.con.drain()
	if !pc.con.run("ping 10.98.0.2 -c 3", "ttl=", 20*time.Second) {
		t.Fatalf("pc1 cannot ping 10.98.0.2 through TAP %s:\n%s", tap, printable(pc.con.seen.String()))
	}
	pc.con.expect("pc1>", false, 10*time.Second)

	// Deleting the link closes the TAP, which the cloud created: it goes.
	ts.do("DELETE", "/v2/projects/"+pid+"/links/"+link, nil).want(t, 204)
	deadline := time.Now().Add(5 * time.Second)
	for cmdOK("ip", "-n", ns, "link", "show", tap) {
		if time.Now().After(deadline) {
			t.Fatalf("TAP %s still exists after its link was deleted", tap)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func cmdOK(args ...string) bool { return exec.Command(args[0], args[1:]...).Run() == nil }

// A cloud port on an interface this machine does not have is refused when
// it is linked, naming it and the interfaces there are.
func TestCloudHostPort_MissingInterface(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("cloud host ports are Linux only")
	}
	ts := mustOpenServerWith(t, testOptions{fabric: true})
	pid := ts.mustCreateProject("lab")
	cloud := ts.cloudPort(t, pid, "ethernet", "nd-nosuch0")
	sw := mustCreateSwitch(ts, t, pid, nil)
	e := ts.do("POST", "/v2/projects/"+pid+"/links", map[string]any{"nodes": []any{end(sw, 0, 0), end(cloud, 0, 0)}}).
		want(t, 409).json(t)
	if msg, _ := e["message"].(string); !strings.Contains(msg, `"nd-nosuch0"`) || !strings.Contains(msg, "lo") {
		t.Fatalf("message %q: want the missing interface and this machine's list", msg)
	}
	if got := ts.do("GET", "/v2/projects/"+pid+"/links", nil).want(t, 200).list(t); len(got) != 0 {
		t.Fatalf("a refused link was stored: %v", got)
	}

	// A linked port cannot become a host port: its check runs when it is
	// linked, so the link goes first.
	peer := newUDPPeer(t)
	tunnel := ts.cloudTunnels(t, pid, peer)
	ts.link(t, pid, sw, 1, tunnel, 0)
	bad := map[string]any{"name": "nd-nosuch0", "port_number": 0, "type": "ethernet", "interface": "nd-nosuch0"}
	e = ts.do("PUT", "/v2/projects/"+pid+"/nodes/"+tunnel, map[string]any{"properties": map[string]any{"ports_mapping": []any{bad}}}).
		want(t, 409).json(t)
	if e["field"] != "properties.ports_mapping.0.type" {
		t.Fatalf("field %v (%v)", e["field"], e["message"])
	}
}

// Without CAP_NET_RAW and CAP_NET_ADMIN, linking a cloud's ethernet or tap
// port answers 409 with the setcap command; the process goes on, nothing
// is linked, a UDP tunnel still links. The test runs itself again without
// those capabilities (setpriv drops them from the bounding set, so even
// root lacks them).
func TestCloudHostPort_WithoutPrivileges(t *testing.T) {
	mustBeNetAdmin(t)
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("needs setpriv (util-linux) to drop capabilities")
	}
	cmd := exec.Command(setpriv, "--inh-caps=-net_raw,-net_admin", "--bounding-set=-net_raw,-net_admin", "--",
		os.Args[0], "-test.run=^TestCloudHostPortWithoutPrivilegesChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "NODEDESK_NOCAPS_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestCloudHostPortWithoutPrivilegesChild") {
		t.Fatalf("without capabilities: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

func TestCloudHostPortWithoutPrivilegesChild(t *testing.T) {
	if os.Getenv("NODEDESK_NOCAPS_CHILD") == "" {
		t.Skip("run by TestCloudHostPort_WithoutPrivileges, without capabilities")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		t.Fatal(err)
	}
	ts := mustOpenServerWith(t, testOptions{fabric: true})
	pid := ts.mustCreateProject("lab")
	sw := mustCreateSwitch(ts, t, pid, nil)
	for i, tc := range []struct{ kind, iface, needs string }{
		{"ethernet", "lo", "CAP_NET_RAW"},
		{"tap", "ndtapnocaps", "CAP_NET_ADMIN"},
	} {
		cloud := ts.cloudPort(t, pid, tc.kind, tc.iface)
		e := ts.do("POST", "/v2/projects/"+pid+"/links", map[string]any{"nodes": []any{end(sw, 0, i), end(cloud, 0, 0)}}).
			want(t, 409).json(t)
		msg, _ := e["message"].(string)
		if !strings.Contains(msg, "sudo setcap cap_net_raw,cap_net_admin+ep "+exe+" ") || !strings.Contains(msg, tc.needs) {
			t.Errorf("%s port: message %q: want %s and the setcap command on %s", tc.kind, msg, tc.needs, exe)
		}
		t.Logf("%s port: %s", tc.kind, msg)
	}
	if got := ts.do("GET", "/v2/projects/"+pid+"/links", nil).want(t, 200).list(t); len(got) != 0 {
		t.Fatalf("a refused link was stored: %v", got)
	}
	if cmdOK("ip", "link", "show", "ndtapnocaps") {
		t.Fatal("a refused tap port created its TAP")
	}
	// A UDP tunnel needs no privilege.
	peer := newUDPPeer(t)
	cloud := ts.cloudTunnels(t, pid, peer)
	ts.link(t, pid, sw, 2, cloud, 0)
}
