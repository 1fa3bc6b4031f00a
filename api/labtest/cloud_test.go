package labtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"nodedesk/app/kit"
)

// Cloud host ports (ethernet: AF_PACKET on a host interface; tap: a TAP
// device) carry a real VPCS's pings to an address in a network namespace
// the test creates; without the privileges they need, linking one answers
// 409 with the command that grants them. Traffic never leaves this
// machine: the namespace, its veth pair and TAP are the test's own, and
// removed when it ends.

func TestCloudEthernetPort_PingIntoNamespace(t *testing.T) {
	kit.MustBeNetAdmin(t)
	ns := kit.Netns(t)
	hostIf := kit.VethInto(t, ns, "10.99.0.2/24")
	ts := StartVPCS(t)
	pid := ts.MustCreateProject("lab")
	cloud := ts.CloudPort(t, pid, "ethernet", hostIf)
	pc := ts.StartHost(t, pid, "pc1", "10.99.0.1")
	ts.Link(t, pid, pc.ID, 0, cloud, 0)
	pc.Con.Drain()
	if !pc.Con.Run("ping 10.99.0.2 -c 3", "ttl=", 20*time.Second) {
		t.Fatalf("pc1 cannot ping 10.99.0.2 in the namespace through cloud port %s:\n%s", hostIf, kit.Printable(pc.Con.Seen.String()))
	}
	pc.Con.Expect("pc1>", false, 10*time.Second)
	t.Logf("console transcript:\n%s", kit.Printable(pc.Con.Log.String()))

	// An edit that keeps the linked port as it is goes through; another
	// cloud port on the same interface is refused when linked.
	path := "/v2/projects/" + pid + "/nodes/" + cloud
	ts.Do("PUT", path, map[string]any{"name": "Uplink"}).Want(t, 200)
	sw := ts.MustCreateSwitch(t, pid, nil)
	other := ts.CloudPort(t, pid, "ethernet", hostIf)
	e := ts.Do("POST", "/v2/projects/"+pid+"/links", map[string]any{"nodes": []any{kit.End(sw, 0, 0), kit.End(other, 0, 0)}}).Want(t, 409).JSON(t)
	if msg, _ := e["message"].(string); !strings.Contains(msg, hostIf) {
		t.Fatalf("message %q: want the interface already in use", msg)
	}
	if !pc.Pings("10.99.0.2", 20*time.Second) {
		t.Fatal("no pings after the cloud was edited")
	}
}

func TestCloudTAPPort_PingIntoNamespace(t *testing.T) {
	kit.MustBeNetAdmin(t)
	if _, err := os.Stat("/dev/net/tun"); err != nil {
		kit.Unavailable(t, "no /dev/net/tun: the TAP port needs the tun device")
	}
	ns := kit.Netns(t)
	tap := "ndtap" + kit.RandomSuffix(t)
	t.Cleanup(func() { kit.ShQuiet("ip", "link", "del", tap) })
	ts := StartVPCS(t)
	pid := ts.MustCreateProject("lab")
	cloud := ts.CloudPort(t, pid, "tap", tap)
	pc := ts.StartHost(t, pid, "pc1", "10.98.0.1")
	link := ts.Link(t, pid, pc.ID, 0, cloud, 0)
	// The cloud created the TAP, up; the test moves it into the namespace
	// (which takes it down) and addresses it there.
	if !kit.CmdOK("ip", "link", "show", tap) {
		t.Fatalf("linking the cloud's tap port did not create %s", tap)
	}
	kit.Sh(t, "ip", "link", "set", tap, "netns", ns)
	kit.Sh(t, "ip", "-n", ns, "addr", "add", "10.98.0.2/24", "dev", tap)
	kit.Sh(t, "ip", "-n", ns, "link", "set", tap, "up")
	pc.Con.Drain()
	if !pc.Con.Run("ping 10.98.0.2 -c 3", "ttl=", 20*time.Second) {
		t.Fatalf("pc1 cannot ping 10.98.0.2 through TAP %s:\n%s", tap, kit.Printable(pc.Con.Seen.String()))
	}
	pc.Con.Expect("pc1>", false, 10*time.Second)

	// Deleting the link closes the TAP, which the cloud created: it goes.
	ts.Do("DELETE", "/v2/projects/"+pid+"/links/"+link, nil).Want(t, 204)
	deadline := time.Now().Add(5 * time.Second)
	for kit.CmdOK("ip", "-n", ns, "link", "show", tap) {
		if time.Now().After(deadline) {
			t.Fatalf("TAP %s still exists after its link was deleted", tap)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A cloud port on an interface this machine does not have is refused when
// it is linked, naming it and the interfaces there are.
func TestCloudHostPort_MissingInterface(t *testing.T) {
	if runtime.GOOS != "linux" {
		kit.Unavailable(t, "cloud host ports are Linux only")
	}
	ts := Start(t, Options{DataPlane: true})
	pid := ts.MustCreateProject("lab")
	cloud := ts.CloudPort(t, pid, "ethernet", "nd-nosuch0")
	sw := ts.MustCreateSwitch(t, pid, nil)
	e := ts.Do("POST", "/v2/projects/"+pid+"/links", map[string]any{"nodes": []any{kit.End(sw, 0, 0), kit.End(cloud, 0, 0)}}).
		Want(t, 409).JSON(t)
	if msg, _ := e["message"].(string); !strings.Contains(msg, `"nd-nosuch0"`) || !strings.Contains(msg, "lo") {
		t.Fatalf("message %q: want the missing interface and this machine's list", msg)
	}
	if got := ts.Do("GET", "/v2/projects/"+pid+"/links", nil).Want(t, 200).List(t); len(got) != 0 {
		t.Fatalf("a refused link was stored: %v", got)
	}

	// A linked port cannot become a host port: its check runs when it is
	// linked, so the link goes first.
	peer := kit.NewUDPPeer(t)
	tunnel := ts.CloudTunnels(t, pid, peer)
	ts.Link(t, pid, sw, 1, tunnel, 0)
	bad := map[string]any{"name": "nd-nosuch0", "port_number": 0, "type": "ethernet", "interface": "nd-nosuch0"}
	e = ts.Do("PUT", "/v2/projects/"+pid+"/nodes/"+tunnel, map[string]any{"properties": map[string]any{"ports_mapping": []any{bad}}}).
		Want(t, 409).JSON(t)
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
	kit.MustBeNetAdmin(t)
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		kit.Unavailable(t, "needs setpriv (util-linux) to drop capabilities")
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
		kit.RunElsewhere(t, "a child process of TestCloudHostPort_WithoutPrivileges, without capabilities")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		t.Fatal(err)
	}
	ts := Start(t, Options{DataPlane: true})
	pid := ts.MustCreateProject("lab")
	sw := ts.MustCreateSwitch(t, pid, nil)
	for i, tc := range []struct{ kind, iface, needs string }{
		{"ethernet", "lo", "CAP_NET_RAW"},
		{"tap", "ndtapnocaps", "CAP_NET_ADMIN"},
	} {
		cloud := ts.CloudPort(t, pid, tc.kind, tc.iface)
		e := ts.Do("POST", "/v2/projects/"+pid+"/links", map[string]any{"nodes": []any{kit.End(sw, 0, i), kit.End(cloud, 0, 0)}}).
			Want(t, 409).JSON(t)
		msg, _ := e["message"].(string)
		if !strings.Contains(msg, "sudo setcap cap_net_raw,cap_net_admin+ep "+exe+" ") || !strings.Contains(msg, tc.needs) {
			t.Errorf("%s port: message %q: want %s and the setcap command on %s", tc.kind, msg, tc.needs, exe)
		}
		t.Logf("%s port: %s", tc.kind, msg)
	}
	if got := ts.Do("GET", "/v2/projects/"+pid+"/links", nil).Want(t, 200).List(t); len(got) != 0 {
		t.Fatalf("a refused link was stored: %v", got)
	}
	if kit.CmdOK("ip", "link", "show", "ndtapnocaps") {
		t.Fatal("a refused tap port created its TAP")
	}
	// A UDP tunnel needs no privilege.
	peer := kit.NewUDPPeer(t)
	cloud := ts.CloudTunnels(t, pid, peer)
	ts.Link(t, pid, sw, 2, cloud, 0)
}

// TestCloudTunnelPorts: a tunnel's lport is a host port: two tunnels never
// share one, and one held elsewhere is refused when it is given.
func TestCloudTunnelPorts(t *testing.T) {
	ts := Start(t, Options{DataPlane: true})
	pid := ts.MustCreateProject("lab")
	a := kit.NewUDPPeer(t)
	cloud := ts.CloudTunnels(t, pid, a) // the fabric binds a.LPort now
	tunnel := func(n, lport int) map[string]any {
		return map[string]any{"name": fmt.Sprintf("udp%d", n), "port_number": n, "type": "udp", "lport": lport, "rhost": "127.0.0.1", "rport": 9}
	}
	create := func(ports ...any) kit.Response {
		return ts.Do("POST", "/v2/projects/"+pid+"/nodes", map[string]any{"node_type": "cloud", "properties": map[string]any{"ports_mapping": ports}})
	}
	held := kit.NewUDPPeer(t) // its conn's port is held by this test
	heldPort := held.Conn.LocalAddr().(*net.UDPAddr).Port
	free := kit.NewUDPPeer(t).LPort
	for _, tc := range []struct {
		name   string
		r      kit.Response
		status int
		field  string
	}{
		{"two tunnels of one cloud", create(tunnel(0, free), tunnel(1, free)), 400, "properties.ports_mapping.1.lport"},
		{"another cloud's tunnel", create(tunnel(0, a.LPort)), 409, "properties.ports_mapping.0.lport"},
		{"another program's port", create(tunnel(0, heldPort)), 409, "properties.ports_mapping.0.lport"},
	} {
		e := tc.r.Want(t, tc.status).JSON(t)
		if e["field"] != tc.field {
			t.Errorf("%s: field %v, want %s (%v)", tc.name, e["field"], tc.field, e["message"])
		}
	}
	// A cloud keeps its own tunnel through an edit.
	path := "/v2/projects/" + pid + "/nodes/" + cloud
	ts.Do("PUT", path, map[string]any{"name": "Uplink"}).Want(t, 200)
	ts.Do("PUT", path, map[string]any{"properties": map[string]any{"ports_mapping": []any{a.Port(0), tunnel(1, free)}}}).Want(t, 200)
}

// importedCloud is a GNS3 project whose cloud, on its author's host
// interface IFACE, is linked to a switch.
const importedCloud = `{"type": "topology", "revision": 9, "version": "2.2.59", "name": "bridged",
 "project_id": "PID", "auto_start": false, "auto_open": false, "auto_close": true,
 "topology": {"computes": [], "drawings": [],
  "nodes": [
   {"compute_id": "local", "node_id": "0f1e2d3c-0000-4000-8000-0000000000c1", "node_type": "cloud", "name": "Uplink", "x": 0, "y": 0,
    "properties": {"ports_mapping": [{"name": "IFACE", "port_number": 0, "type": "ethernet", "interface": "IFACE"}]}},
   {"compute_id": "local", "node_id": "0f1e2d3c-0000-4000-8000-0000000000c2", "node_type": "ethernet_switch", "name": "Switch1", "x": 100, "y": 0}],
  "links": [
   {"link_id": "0f1e2d3c-0000-4000-8000-0000000000d1", "nodes": [
    {"node_id": "0f1e2d3c-0000-4000-8000-0000000000c1", "adapter_number": 0, "port_number": 0},
    {"node_id": "0f1e2d3c-0000-4000-8000-0000000000c2", "adapter_number": 0, "port_number": 0}]}]}}`

// TestCloudEthernetPort_FromFileWaits: a project file whose cloud names a
// host interface of this machine (here a veth the test makes) opens
// nothing when imported and opened — no packet socket on the interface,
// no ping through it — until this machine's user re-saves the cloud's
// ports (the UI's Allow); then it carries the lab's frames.
func TestCloudEthernetPort_FromFileWaits(t *testing.T) {
	kit.MustBeNetAdmin(t)
	ns := kit.Netns(t)
	hostIf := kit.VethInto(t, ns, "10.97.0.2/24")
	ts := StartVPCS(t)
	pid := "0f1e2d3c-0000-4000-8000-0000000000a1"
	topo := strings.NewReplacer("PID", pid, "IFACE", hostIf).Replace(importedCloud)
	ts.Do("POST", "/v2/projects/"+pid+"/import", kit.Zip(t, map[string][]byte{"project.gns3": []byte(topo)})).Want(t, 201)
	ts.Do("POST", "/v2/projects/"+pid+"/open", nil).Want(t, 201)
	var cloud, sw map[string]any
	for _, n := range ts.Do("GET", "/v2/projects/"+pid+"/nodes", nil).Want(t, 200).List(t) {
		switch n["name"] {
		case "Uplink":
			cloud = n
		case "Switch1":
			sw = n
		}
	}
	if cloud == nil || sw == nil {
		t.Fatal("the import lacks the cloud or the switch")
	}
	if w := fmt.Sprint(cloud["ports_waiting"]); w != "["+hostIf+"]" {
		t.Fatalf("ports_waiting %s; want [%s]", w, hostIf)
	}
	pc := ts.StartHost(t, pid, "pc1", "10.97.0.1")
	ts.Link(t, pid, pc.ID, 0, sw["node_id"].(string), 1)
	if n := kit.PacketSockets(t, hostIf); n != 0 {
		t.Fatalf("the imported cloud opened %s (%d packet sockets) before anyone agreed", hostIf, n)
	}
	if !pc.Silent("10.97.0.2") {
		t.Fatal("pc1 reached the namespace through an interface nobody agreed to")
	}

	// Allow: the cloud's ports re-saved as they are.
	path := "/v2/projects/" + pid + "/nodes/" + cloud["node_id"].(string)
	ports := cloud["properties"].(map[string]any)["ports_mapping"]
	got := ts.Do("PUT", path, map[string]any{"properties": map[string]any{"ports_mapping": ports}}).Want(t, 200).JSON(t)
	if w, ok := got["ports_waiting"]; ok {
		t.Fatalf("ports_waiting %v after the ports were re-saved", w)
	}
	if n := kit.PacketSockets(t, hostIf); n != 1 {
		t.Fatalf("%d packet sockets on %s after the ports were re-saved; want 1", n, hostIf)
	}
	if !pc.Pings("10.97.0.2", 20*time.Second) {
		t.Fatalf("pc1 cannot ping 10.97.0.2 through the agreed port %s:\n%s", hostIf, kit.Printable(pc.Con.Seen.String()))
	}
}

// TestCloudEthernetPort_InterfaceGone: when the host interface of a
// linked cloud port goes away, the project's users are told which port of
// which cloud carries nothing and what to do, not only the server's log.
func TestCloudEthernetPort_InterfaceGone(t *testing.T) {
	kit.MustBeNetAdmin(t)
	ns := kit.Netns(t)
	hostIf := kit.VethInto(t, ns, "10.99.1.2/24")
	ts := Start(t, Options{DataPlane: true})
	pid := ts.MustCreateProject("lab")
	cloud := ts.CloudPort(t, pid, "ethernet", hostIf)
	ts.Do("PUT", "/v2/projects/"+pid+"/nodes/"+cloud, map[string]any{"name": "Uplink"}).Want(t, 200)
	sw := ts.MustCreateSwitch(t, pid, nil)
	ts.Link(t, pid, sw, 0, cloud, 0)
	next, _ := ts.WSListenAll(t, "/v2/projects/"+pid+"/notifications/ws", "ping")
	kit.Sh(t, "ip", "link", "del", hostIf)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		e := next()
		if e.Action != "log.warning" {
			continue
		}
		msg, _ := e.Event["message"].(string)
		if !strings.Contains(msg, "Uplink") || !strings.Contains(msg, hostIf) || !strings.Contains(msg, "check that the interface exists") {
			t.Fatalf("the project was told %q; want the cloud, its interface and what to do", msg)
		}
		return
	}
	t.Fatal("the project was not told that the cloud's port carries nothing")
}
