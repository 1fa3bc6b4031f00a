package labtest

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"nodedesk/app"
	"nodedesk/app/iou/ioutest"
	"nodedesk/app/kit"
)

// These tests run IOU nodes on the free stand-in IOU image of
// ../shared/fake-iol (an x86_64 ELF that GNS3 2.2.59 runs unchanged: a
// console on its pipes, its config in NVRAM as IOU keeps it, a router, or
// a switch when its file name holds "l2"). nodedesk's data plane is the
// bridge of their sockets in /tmp/netio<uid>: no uBridge.

// startIOULab starts a lab that runs VPCS and IOU with the licence check
// off, as the stand-in image needs no licence (GNS3's calibration does
// the same).
func startIOULab(t *testing.T) *Lab {
	t.Helper()
	l := Start(t, with(ioutest.Emulator))
	l.Do("PUT", "/v2/iou_license", map[string]any{"iourc_content": "", "license_check": false}).Want(t, 201)
	return l
}

// iouNode creates an IOU node of image in project pid.
func iouNode(t *testing.T, l *Lab, pid, name, image string, props map[string]any) map[string]any {
	t.Helper()
	p := map[string]any{"path": image}
	for k, v := range props {
		p[k] = v
	}
	return l.MustCreateNode(pid, map[string]any{"node_type": "iou", "name": name, "properties": p})
}

// appID is an IOU node's application id.
func appID(t *testing.T, n map[string]any) int {
	t.Helper()
	id, ok := n["properties"].(map[string]any)["application_id"].(float64)
	if !ok || id < 1 || id > app.MaxIOUApplicationID {
		t.Fatalf("%s has application_id %v; want 1–%d", n["name"], n["properties"].(map[string]any)["application_id"], app.MaxIOUApplicationID)
	}
	return int(id)
}

// netioFiles are the files of application id in /tmp/netio<uid> that
// exist: the process's socket, its bridge's and the bridge's lock.
func netioFiles(id int) []string {
	var have []string
	for _, name := range []string{strconv.Itoa(id), strconv.Itoa(id + app.NetIOBridgeOffset), strconv.Itoa(id+app.NetIOBridgeOffset) + ".lck"} {
		if _, err := os.Lstat(filepath.Join(app.NetIODir(), name)); err == nil {
			have = append(have, name)
		}
	}
	return have
}

// TestIOU_SwitchCarriesPings: two VPCS ping each other through an IOU L2
// switch, a capture on one of its links holds the ICMP, and a stop leaves
// no process and none of its sockets (nothing left to carry a frame).
func TestIOU_SwitchCarriesPings(t *testing.T) {
	l := startIOULab(t)
	const image = "i86bi-linux-l2-adventerprisek9-test.bin"
	ioutest.PlaceImage(t, filepath.Dir(l.Store.Path()), image)
	pid := l.MustCreateProject("iou-l2")
	sw := iouNode(t, l, pid, "SW1", image, map[string]any{"ethernet_adapters": 1, "serial_adapters": 0})
	id, swID := appID(t, sw), sw["node_id"].(string)
	swPath := "/v2/projects/" + pid + "/nodes/" + swID
	pc1 := l.StartHost(t, pid, "PC1", "10.0.0.1")
	pc2 := l.StartHost(t, pid, "PC2", "10.0.0.2")
	link := l.Link(t, pid, pc1.ID, 0, swID, 0)
	l.Link(t, pid, pc2.ID, 0, swID, 1)

	started := l.Do("POST", swPath+"/start", nil).Want(t, 200).JSON(t)
	if started["status"] != "started" {
		t.Fatalf("start answered %v", started)
	}
	cmdline, _ := started["command_line"].(string)
	if want := " -e 1 -s 0 -n "; !strings.Contains(cmdline, want) || !strings.HasSuffix(cmdline, " "+strconv.Itoa(id)) {
		t.Errorf("command line %q; want GNS3's (%q…, the application id last)", cmdline, want)
	}
	dir := sw["node_directory"].(string)
	if pids := ioutest.PIDs(dir, id); len(pids) != 1 {
		t.Fatalf("%d IOU processes work in SW1's folder; want 1", len(pids))
	}
	// The console: a telnet client and the dock's websocket at once, both
	// seeing what either types and what the switch answers.
	tel := kit.DialConsole(t, "127.0.0.1", int(sw["console"].(float64)))
	ws, _, err := l.dialConsoleWS(t, swPath+"/console/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	tel.Send("\r")
	prompt := "IOU" + strconv.Itoa(id) + ">"
	if !tel.Expect(prompt, false, 10*time.Second) {
		t.Fatalf("SW1's console shows no prompt: %q", kit.Printable(tel.Log.String()))
	}
	ws.send("show version\r")
	if !ws.expect("stand-in", 10*time.Second) || !tel.Expect("stand-in", false, 10*time.Second) {
		t.Errorf("show version typed on the websocket was not answered on both clients: ws %q, telnet %q",
			kit.Printable(ws.seen.String()), kit.Printable(tel.Log.String()))
	}
	if !pc1.Pings("10.0.0.2", 20*time.Second) {
		t.Fatalf("PC1 cannot ping PC2 through the IOU switch: %q", kit.Printable(pc1.Con.Log.String()))
	}

	lpath := "/v2/projects/" + pid + "/links/" + link
	c := l.Do("POST", lpath+"/start_capture", map[string]any{}).Want(t, 201).JSON(t)
	if !pc1.Pings("10.0.0.2", 15*time.Second) {
		t.Fatal("no pings while capturing")
	}
	l.Do("POST", lpath+"/stop_capture", nil).Want(t, 201)
	if icmp := countICMP(t, c["capture_file_path"].(string)); icmp < 2 {
		t.Errorf("the capture of PC1's link to the IOU switch holds %d ICMP packets; want the pings' (at least 2)", icmp)
	}

	l.Do("POST", swPath+"/stop", nil).Want(t, 200)
	if pids := ioutest.PIDs(dir, id); len(pids) != 0 {
		t.Errorf("IOU processes %v still work in SW1's folder after its stop", pids)
	}
	if left := netioFiles(id); len(left) != 0 {
		t.Errorf("files %v of SW1 are left in %s after its stop", left, app.NetIODir())
	}
}

// TestIOU_RouterKeepsItsConfig: an IOU L3 router routes between two
// subnets from the startup config written through the node files API;
// what "write memory" saves becomes its startup-config.cfg, and it starts
// again with it.
func TestIOU_RouterKeepsItsConfig(t *testing.T) {
	l := startIOULab(t)
	const image = "i86bi-linux-l3-adventerprisek9-test.bin"
	ioutest.PlaceImage(t, filepath.Dir(l.Store.Path()), image)
	pid := l.MustCreateProject("iou-l3")
	r := iouNode(t, l, pid, "R1", image, map[string]any{"serial_adapters": 0})
	id, rID := appID(t, r), r["node_id"].(string)
	rPath := "/v2/projects/" + pid + "/nodes/" + rID
	config := "hostname R1\n!\ninterface Ethernet0/0\n ip address 10.1.0.1 255.255.255.0\n no shutdown\n!\n" +
		"interface Ethernet0/1\n ip address 10.2.0.1 255.255.255.0\n no shutdown\n!\nline con 0\n privilege level 15\n!\nend\n"
	l.Do("POST", rPath+"/files/startup-config.cfg", []byte(config)).Want(t, 201)
	pc1 := l.StartHostVia(t, pid, "PC1", "10.1.0.2", "10.1.0.1")
	pc2 := l.StartHostVia(t, pid, "PC2", "10.2.0.2", "10.2.0.1")
	l.Link(t, pid, pc1.ID, 0, rID, 0)
	l.Link(t, pid, pc2.ID, 0, rID, 1)

	l.Do("POST", rPath+"/start", nil).Want(t, 200)
	if !pc1.Pings("10.2.0.2", 20*time.Second) {
		t.Fatalf("PC1 cannot ping PC2 across the IOU router: %q", kit.Printable(pc1.Con.Log.String()))
	}

	tel := kit.DialConsole(t, "127.0.0.1", int(r["console"].(float64)))
	tel.Send("\r")
	if !tel.Expect("R1#", false, 10*time.Second) {
		t.Fatalf("R1's console shows no R1# prompt: %q", kit.Printable(tel.Log.String()))
	}
	for _, line := range []string{"configure terminal", "hostname CORE1", "end", "write memory"} {
		tel.Send(line + "\r")
	}
	saved := false
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && !saved; time.Sleep(100 * time.Millisecond) {
		saved = strings.Contains(string(l.Do("GET", rPath+"/files/startup-config.cfg", nil).Want(t, 200).Body), "hostname CORE1")
	}
	if !saved {
		t.Fatalf("write memory did not reach startup-config.cfg; the console said %q", kit.Printable(tel.Log.String()))
	}

	l.Do("POST", rPath+"/stop", nil).Want(t, 200)
	if left := netioFiles(id); len(left) != 0 {
		t.Errorf("files %v of R1 are left in %s after its stop", left, app.NetIODir())
	}
	l.Do("POST", rPath+"/start", nil).Want(t, 200)
	tel = kit.DialConsole(t, "127.0.0.1", int(r["console"].(float64)))
	tel.Send("\r")
	if !tel.Expect("CORE1#", false, 10*time.Second) {
		t.Errorf("R1 did not start again with the hostname it saved: %q", kit.Printable(tel.Log.String()))
	}
	if !pc1.Pings("10.2.0.2", 20*time.Second) {
		t.Errorf("PC1 cannot ping PC2 after the router started again")
	}
}

// TestIOU_IDsNeverShared: IOU nodes of two open projects get different
// application ids, and run side by side; a second nodedesk on the machine
// gives its IOU node an id the first one's running node does not hold.
func TestIOU_IDsNeverShared(t *testing.T) {
	l := startIOULab(t)
	const image = "i86bi-linux-l2-test.bin"
	ioutest.PlaceImage(t, filepath.Dir(l.Store.Path()), image)
	a := iouNode(t, l, l.MustCreateProject("a"), "SW1", image, nil)
	b := iouNode(t, l, l.MustCreateProject("b"), "SW1", image, nil)
	idA, idB := appID(t, a), appID(t, b)
	if idA == idB {
		t.Fatalf("two projects' IOU nodes share application id %d", idA)
	}
	for _, n := range []map[string]any{a, b} {
		l.Do("POST", "/v2/projects/"+n["project_id"].(string)+"/nodes/"+n["node_id"].(string)+"/start", nil).Want(t, 200)
	}
	for _, id := range []int{idA, idB} {
		if have := netioFiles(id); len(have) != 3 {
			t.Errorf("application id %d has %v in %s; want its socket, its bridge's and the lock", id, have, app.NetIODir())
		}
	}

	other := startIOULab(t)
	ioutest.PlaceImage(t, filepath.Dir(other.Store.Path()), image)
	c := iouNode(t, other, other.MustCreateProject("c"), "SW1", image, nil)
	if idC := appID(t, c); idC == idA || idC == idB {
		t.Fatalf("a second nodedesk gave its IOU node application id %d, which the first one's running node holds", idC)
	}
	other.Do("POST", "/v2/projects/"+c["project_id"].(string)+"/nodes/"+c["node_id"].(string)+"/start", nil).Want(t, 200)
}

// TestIOU_AsGNS3Compute: a GNS3 controller drives nodedesk's IOU as a
// compute, as GNS3 2.2.59's controller calls its compute: the node made
// with its application id and base config, its ports linked by UDP
// NIOs, started with the controller's licence (kept as this compute's),
// carrying frames between its NIOs, shown with GNS3's compute keys,
// stopped.
func TestIOU_AsGNS3Compute(t *testing.T) {
	l := Start(t, with(ioutest.Emulator))
	const image = "i86bi-linux-l2-test.bin"
	ioutest.PlaceImage(t, filepath.Dir(l.Store.Path()), image)
	pid := "c0ffee00-0000-4000-8000-000000000036"
	l.Do("POST", "/v2/compute/projects", map[string]any{"name": "lab", "project_id": pid}).Want(t, 201)
	base := "/v2/compute/projects/" + pid + "/iou/nodes"
	n := l.Do("POST", base, map[string]any{"name": "R9", "path": image, "application_id": 77, "ethernet_adapters": 1,
		"serial_adapters": 0, "startup_config_content": "hostname %h\n!\nline con 0\n privilege level 15\n!\nend\n"}).Want(t, 201).JSON(t)
	for _, k := range []string{"application_id", "command_line", "console", "console_type", "ethernet_adapters", "l1_keepalives",
		"md5sum", "name", "node_directory", "node_id", "nvram", "path", "project_id", "ram", "serial_adapters", "status", "usage", "use_default_iou_values"} {
		if _, ok := n[k]; !ok {
			t.Errorf("the compute's IOU node lacks %s: %v", k, n)
		}
	}
	if n["nvram"] != 64.0 || n["ram"] != 256.0 {
		t.Errorf("a node made without sizes has nvram %v and ram %v; GNS3 gives it those its image states (-h: 64 and 256)", n["nvram"], n["ram"])
	}
	id := int(n["application_id"].(float64))
	path := base + "/" + n["node_id"].(string)
	// Its ports 0/0 and 0/1 linked by the controller: UDP tunnels to the
	// test's two sockets, the far ends of links to nodes elsewhere.
	c := &kit.Controller{API: l.API, T: t, PID: pid}
	var far [2]*net.UDPConn
	var lports [2]int
	for i := range far {
		conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		far[i], lports[i] = conn, c.UDPPort()
		l.Do("POST", c.NIOPath("iou", n["node_id"].(string), 0, i), kit.NIO(lports[i], conn.LocalAddr().(*net.UDPAddr).Port, false)).Want(t, 201)
	}
	l.Do("POST", path+"/start", map[string]any{"iourc_content": nil, "license_check": true}).Want(t, 409) // the controller checks: no licence here
	started := l.Do("POST", path+"/start", map[string]any{"iourc_content": "", "license_check": false}).Want(t, 200).JSON(t)
	if started["status"] != "started" || !strings.HasSuffix(started["command_line"].(string), " "+strconv.Itoa(id)) {
		t.Errorf("start answered %v", started)
	}
	if lic := l.Do("GET", "/v2/iou_license", nil).Want(t, 200).JSON(t); lic["license_check"] != false {
		t.Errorf("the licence the controller sent was not kept: %v", lic)
	}
	tel := kit.DialConsole(t, "127.0.0.1", int(n["console"].(float64)))
	tel.Send("\r")
	if !tel.Expect("R9#", false, 10*time.Second) {
		t.Errorf("R9 did not start with the base config the controller gave: %q", kit.Printable(tel.Log.String()))
	}
	// A frame from the far end of 0/0 crosses the switch to that of 0/1.
	frame := kit.EthFrame(kit.Broadcast, kit.MACA, []byte("through-the-iou-switch"))
	crossed := false
	buf := make([]byte, 2048)
	for i := 0; i < 50 && !crossed; i++ { // the bridge may still be opening
		if _, err := far[0].WriteToUDP(frame, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: lports[0]}); err != nil {
			t.Fatal(err)
		}
		_ = far[1].SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		if k, err := far[1].Read(buf); err == nil && strings.Contains(string(buf[:k]), "through-the-iou-switch") {
			crossed = true
		}
	}
	if !crossed {
		t.Error("no frame crossed the IOU switch between the controller's two NIOs")
	}
	l.Do("POST", path+"/suspend", nil).Want(t, 204)
	if got := l.Do("GET", path, nil).Want(t, 200).JSON(t)["status"]; got != "started" {
		t.Errorf("after a suspend the node is %v; GNS3's IOU runs on (started)", got)
	}
	l.Do("POST", path+"/stop", nil).Want(t, 204)
	if left := netioFiles(id); len(left) != 0 {
		t.Errorf("files %v of R9 are left after its stop", left)
	}
}
