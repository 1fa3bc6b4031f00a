package labtest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"nodedesk/app/dynamips/dynamipstest"
	"nodedesk/app/kit"
)

// These tests run real Dynamips routers (make dynamips builds Dynamips
// 0.2.24 from source) on the free stand-in IOS images of
// ../shared/fake-ios: a banner and a Router> prompt on the console, and,
// on a c7200's Fa0/0, ARP and ping answers at 192.0.2.1.

// fakeIdlePC is the stand-in image's idle loop as users keep it (8
// digits, as the GNS3 GUI takes them); nodedesk gives Dynamips the
// sign-extended 0xffffffff80008040 its MIPS CPU compares.
const fakeIdlePC = "0x80008040"

// iosImage puts a stand-in image in nodedesk's IOS images folder under
// name.
func iosImage(t *testing.T, l *Lab, name, platform string) {
	t.Helper()
	b, err := os.ReadFile(dynamipstest.FakeIOS(t, platform))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(filepath.Dir(l.Store.Path()), "images", "IOS")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func routerNode(t *testing.T, l *Lab, pid, name string, props map[string]any) map[string]any {
	t.Helper()
	return l.MustCreateNode(pid, map[string]any{"node_type": "dynamips", "name": name, "properties": props})
}

// portsOf lists a node's ports as "adapter/port name".
func portsOf(n map[string]any) []string {
	var out []string
	for _, p := range n["ports"].([]any) {
		m := p.(map[string]any)
		out = append(out, strings.Join([]string{itoa(m["adapter_number"]), itoa(m["port_number"]), m["name"].(string)}, " "))
	}
	return out
}

func itoa(v any) string { return strconv.Itoa(int(v.(float64))) }

// TestDynamips_Lab: a c7200 with a PA-FE-TX and a c3725 with a WIC have
// GNS3's ports; the c7200 boots the stand-in image, its console answers
// Router> through the dock's websocket and a telnet client at once, a
// VPCS on nodedesk's switch pings its Fa0/0, its startup config
// round-trips through the node files API, suspend and resume act, and
// stop leaves no dynamips process; an image that is not one is refused,
// naming it.
func TestDynamips_Lab(t *testing.T) {
	l := Start(t, with(dynamipstest.Emulator))
	iosImage(t, l, "c7200-fake.image", "c7200")
	iosImage(t, l, "c3725-fake.image", "c3725")
	pid := l.MustCreateProject("dynamips-lab")
	r1 := routerNode(t, l, pid, "R1", map[string]any{"platform": "c7200", "image": "c7200-fake.image", "npe": "npe-400",
		"slot0": "C7200-IO-FE", "slot1": "PA-FE-TX", "idlepc": fakeIdlePC})
	r2 := routerNode(t, l, pid, "R2", map[string]any{"platform": "c3725", "image": "c3725-fake.image", "wic0": "WIC-1T", "idlepc": fakeIdlePC})
	if got, want := portsOf(r1), []string{"0 0 FastEthernet0/0", "1 0 FastEthernet1/0"}; !slices.Equal(got, want) {
		t.Errorf("R1's ports %v; GNS3's are %v", got, want)
	}
	if got, want := portsOf(r2), []string{"0 0 FastEthernet0/0", "0 1 FastEthernet0/1", "0 16 Serial0/0"}; !slices.Equal(got, want) {
		t.Errorf("R2's ports %v; GNS3's are %v", got, want)
	}
	r1ID, r2ID := r1["node_id"].(string), r2["node_id"].(string)
	r1Path := "/v2/projects/" + pid + "/nodes/" + r1ID
	if id := r1["properties"].(map[string]any)["dynamips_id"]; id != 1.0 {
		t.Fatalf("R1's dynamips_id %v; want 1", id)
	}

	sw := l.MustCreateSwitch(t, pid, nil)
	l.Link(t, pid, r1ID, 0, sw, 0)
	pc := l.StartHost(t, pid, "PC1", "192.0.2.2")
	l.Link(t, pid, pc.ID, 0, sw, 1)

	// Edit config: the startup config through the node files API.
	config := "!\nhostname R1\n!\ninterface FastEthernet0/0\n ip address 192.0.2.1 255.255.255.0\n!\nend\n"
	cfgPath := r1Path + "/files/configs/i1_startup-config.cfg"
	l.Do("POST", cfgPath, []byte(config)).Want(t, 201)

	l.Do("POST", r1Path+"/start", nil).Want(t, 200)
	dir := r1["node_directory"].(string)
	if pids := dynamipstest.PIDs(dir); len(pids) != 1 {
		t.Fatalf("%d dynamips processes work in R1's folder; want 1", len(pids))
	}
	ws, _, err := l.dialConsoleWS(t, r1Path+"/console/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	tel := kit.DialConsole(t, "127.0.0.1", int(r1["console"].(float64)))
	if !ws.expect("Router>", 20*time.Second) {
		t.Fatalf("R1's console over the websocket shows no prompt: %q", kit.Printable(ws.seen.String()))
	}
	if !tel.Expect("Router>", true, 10*time.Second) {
		t.Errorf("R1's console over telnet shows no prompt: %q", kit.Printable(tel.Log.String()))
	}
	ws.send("show version\r")
	if !ws.expect("NOT Cisco IOS - a stand-in", 10*time.Second) {
		t.Errorf("show version was not answered: %q", kit.Printable(ws.seen.String()))
	}
	if !pc.Pings("192.0.2.1", 30*time.Second) {
		t.Errorf("PC1 cannot ping R1's Fa0/0: %q", kit.Printable(pc.Con.Log.String()))
	}
	if files, _ := os.ReadDir(dir); len(files) == 0 {
		t.Errorf("R1's folder is empty")
	} else if _, err := os.Stat(filepath.Join(dir, "dynamips_i1_log.txt")); err != nil {
		t.Errorf("Dynamips' log is not in R1's folder: %v", err)
	}

	// A reload restarts the router in its process; the console's clients
	// stay and see it boot again.
	pidsBefore := dynamipstest.PIDs(dir)
	tel.Drain()
	l.Do("POST", r1Path+"/reload", nil).Want(t, 200)
	if !tel.Expect("Launching IOS image", false, 20*time.Second) {
		t.Errorf("R1's console shows no boot after the reload: %q", kit.Printable(tel.Log.String()))
	}
	if after := dynamipstest.PIDs(dir); !slices.Equal(after, pidsBefore) {
		t.Errorf("dynamips processes %v after the reload, %v before: the reload should keep the process", after, pidsBefore)
	}

	// The file now differs from the router's NVRAM: the stop writes
	// NVRAM's back over it, as GNS3 does.
	l.Do("POST", cfgPath, []byte("!\nhostname CHANGED\nend\n")).Want(t, 201)
	l.Do("POST", r1Path+"/suspend", nil).Want(t, 200)
	l.Do("POST", r1Path+"/start", nil).Want(t, 200) // resumes, as in GNS3
	l.Do("POST", r1Path+"/stop", nil).Want(t, 200)
	if pids := dynamipstest.PIDs(dir); len(pids) != 0 {
		t.Errorf("dynamips processes %v still run after the stop", pids)
	}
	got := string(l.Do("GET", cfgPath, nil).Want(t, 200).Body)
	if !strings.Contains(got, "hostname R1") || !strings.Contains(got, "ip address 192.0.2.1 255.255.255.0") || strings.Contains(got, "CHANGED") {
		t.Errorf("the startup config read back from NVRAM is %q; want what was written: %q", got, config)
	}

	// A c3725 boots too, with its WIC.
	r2Path := "/v2/projects/" + pid + "/nodes/" + r2ID
	l.Do("POST", r2Path+"/start", nil).Want(t, 200)
	c2 := kit.DialConsole(t, "127.0.0.1", int(r2["console"].(float64)))
	if !c2.Expect("Router>", true, 20*time.Second) {
		t.Errorf("R2 (c3725) shows no prompt: %q", kit.Printable(c2.Log.String()))
	}
	l.Do("POST", r2Path+"/stop", nil).Want(t, 200)
	if pids := dynamipstest.PIDs(r2["node_directory"].(string)); len(pids) != 0 {
		t.Errorf("dynamips processes %v still run after R2's stop", pids)
	}

	// Images that cannot boot are refused, naming the file.
	dataImages := filepath.Join(filepath.Dir(l.Store.Path()), "images", "IOS")
	if err := os.WriteFile(filepath.Join(dataImages, "not-an-ios.bin"), []byte("PK\x03\x04 a zip, not an image"), 0o644); err != nil {
		t.Fatal(err)
	}
	for image, want := range map[string]string{"not-an-ios.bin": "not-an-ios.bin", "missing.image": "missing.image"} {
		bad := routerNode(t, l, pid, "Bad", map[string]any{"platform": "c7200", "image": image})
		r := l.Do("POST", "/v2/projects/"+pid+"/nodes/"+bad["node_id"].(string)+"/start", nil).Want(t, 409).JSON(t)
		if msg, _ := r["message"].(string); !strings.Contains(msg, want) {
			t.Errorf("start with image %s: %q does not name it", image, msg)
		}
	}
}

// TestDynamips_DiesByItself: a router whose process is killed shows
// stopped, and the project is told why.
func TestDynamips_DiesByItself(t *testing.T) {
	l := Start(t, with(dynamipstest.Emulator))
	iosImage(t, l, "c7200-fake.image", "c7200")
	pid := l.MustCreateProject("dies")
	r := routerNode(t, l, pid, "R1", map[string]any{"platform": "c7200", "image": "c7200-fake.image", "idlepc": fakeIdlePC})
	path := "/v2/projects/" + pid + "/nodes/" + r["node_id"].(string)
	next, _ := l.WSListenAll(t, "/v2/projects/"+pid+"/notifications/ws", "ping")
	l.Do("POST", path+"/start", nil).Want(t, 200)
	pids := dynamipstest.PIDs(r["node_directory"].(string))
	if len(pids) != 1 {
		t.Fatalf("dynamips processes %v; want one", pids)
	}
	_ = syscall.Kill(pids[0], syscall.SIGKILL)
	if !kit.WaitFor(10*time.Second, func() bool { return l.Do("GET", path, nil).Want(t, 200).JSON(t)["status"] == "stopped" }) {
		t.Fatal("R1 is not stopped after its process was killed")
	}
	for {
		e := next()
		if e.Action == "log.error" {
			if msg, _ := e.Event["message"].(string); !strings.Contains(msg, "R1") || !strings.Contains(msg, "Dynamips") {
				t.Errorf("the project was told %q", msg)
			}
			break
		}
	}
}

// TestDynamips_IdlePC: a running router without an idle PC spins; the
// idle-PC search over the controller's route finds a value among
// Dynamips' proposals (the stand-in image's idle loop, or another PC of
// the loop it runs when idle, which idles it as well), keeps it as the
// router's idlepc, and the router then idles; a stopped router is
// refused, saying to start it. Idle-PC values changed while it runs reach
// it at once.
func TestDynamips_IdlePC(t *testing.T) {
	l := Start(t, with(dynamipstest.Emulator))
	iosImage(t, l, "c7200-fake.image", "c7200")
	pid := l.MustCreateProject("idle")
	r := routerNode(t, l, pid, "R1", map[string]any{"platform": "c7200", "image": "c7200-fake.image", "ghost": false})
	path := "/v2/projects/" + pid + "/nodes/" + r["node_id"].(string)
	if msg := l.Do("GET", path+"/dynamips/auto_idlepc", nil).Want(t, 409).JSON(t)["message"].(string); !strings.Contains(msg, "start it") {
		t.Errorf("auto_idlepc on a stopped router: %q", msg)
	}
	l.Do("POST", path+"/start", nil).Want(t, 200)
	pids := dynamipstest.PIDs(r["node_directory"].(string))
	if len(pids) != 1 {
		t.Fatalf("dynamips processes %v", pids)
	}
	// The contrast that gives the idle checks below their meaning: without
	// an idle PC the router spins.
	busy := cpuShare(t, pids[0], time.Second)
	t.Logf("without an idle PC the router uses %.0f%% of a core", busy*100)
	if busy < spinning {
		t.Errorf("the router uses %.0f%% of a core without an idle PC; it should spin (at least %.0f%%), or the idle checks prove nothing", busy*100, spinning*100)
	}
	got := l.Do("GET", path+"/dynamips/auto_idlepc", nil).Want(t, 200).JSON(t)
	found, _ := got["idlepc"].(string)
	if !regexp.MustCompile(`^0x[0-9a-f]{8}$`).MatchString(found) {
		t.Errorf("auto_idlepc found %q; want an 8-digit value, as GNS3 keeps them", found)
	}
	n := l.Do("GET", path, nil).Want(t, 200).JSON(t)
	if v := n["properties"].(map[string]any)["idlepc"]; v != found {
		t.Errorf("the router's idlepc is %v after the search found %s", v, found)
	}
	if busy := cpuShare(t, pids[0], 2*time.Second); busy > idling {
		t.Errorf("the router uses %.0f%% of a core with the idle PC found", busy*100)
	} else {
		t.Logf("with the idle PC found the router uses %.0f%% of a core", busy*100)
	}
	// Listing proposals samples the router without its idle PC, then gives
	// it back: the GNS3 GUI's Idle-PC dialog sends nothing when the user
	// keeps the value.
	l.Do("GET", path+"/dynamips/idlepc_proposals", nil).Want(t, 200)
	if busy := cpuShare(t, pids[0], 2*time.Second); busy > idling {
		t.Errorf("the router uses %.0f%% of a core after its idle-PC proposals were listed", busy*100)
	}

	// Values typed in its panel while it runs take effect at once, as
	// gns3-server gives them to a running router (router.py:
	// set_idle_pc_online, set_idle_max, set_idle_sleep_time); Dynamips'
	// own log of its commands says what it was sent.
	log := filepath.Join(r["node_directory"].(string), "dynamips_i1_log.txt")
	sent := func(cmd string) int {
		b, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(string(b), "exec_cmd: "+cmd+" \n")
	}
	cleared, set := sent("vm set_idle_pc_online R1 0 0x0"), sent("vm set_idle_pc_online R1 0 0xffffffff80008040")
	l.Do("PUT", path, map[string]any{"properties": map[string]any{"idlemax": 300, "idlesleep": 50}}).Want(t, 200)
	for _, cmd := range []string{"vm set_idle_max R1 0 300", "vm set_idle_sleep_time R1 0 50"} {
		if sent(cmd) != 1 {
			t.Errorf("after idle max and sleep were changed, Dynamips was not sent %q", cmd)
		}
	}
	l.Do("PUT", path, map[string]any{"properties": map[string]any{"idlepc": ""}}).Want(t, 200)
	if sent("vm set_idle_pc_online R1 0 0x0") != cleared+1 {
		t.Errorf("the idle PC cleared in the panel did not reach the running router")
	}
	if busy := cpuShare(t, pids[0], time.Second); busy < spinning {
		t.Errorf("the router uses %.0f%% of a core once its idle PC was cleared while it ran; it should spin (at least %.0f%%)", busy*100, spinning*100)
	}
	l.Do("PUT", path, map[string]any{"properties": map[string]any{"idlepc": fakeIdlePC}}).Want(t, 200)
	if sent("vm set_idle_pc_online R1 0 0xffffffff80008040") != set+1 {
		t.Errorf("the idle PC typed in the panel did not reach the running router")
	}
	// The stand-in's idle loop PC typed in idles it less than the value
	// found (28% of a core measured): below half a core, where it spins
	// without one.
	if busy := cpuShare(t, pids[0], 2*time.Second); busy > 0.5 {
		t.Errorf("the router uses %.0f%% of a core once its idle PC was typed in while it ran", busy*100)
	}
	l.Do("PUT", path, map[string]any{"name": "R1b"}).Want(t, 200) // a change Dynamips is not sent
	if sent("vm set_idle_max R1 0 300") != 1 {
		t.Errorf("a rename sent the idle settings again")
	}
}

// A router without an idle PC spins: alone it takes a whole core, and
// at least a quarter of one on a busy machine (make test runs two streams
// on two cores); with an idle PC it takes about 1%. idling and spinning
// are the shares that tell the two apart.
const (
	idling   = 0.1
	spinning = 0.25
)

// cpuShare is the share of one core a process used over d.
func cpuShare(t *testing.T, pid int, d time.Duration) float64 {
	ticks := func() float64 {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(string(b)[strings.LastIndexByte(string(b), ')')+1:])
		u, _ := strconv.ParseFloat(f[11], 64)
		s, _ := strconv.ParseFloat(f[12], 64)
		return u + s
	}
	before, start := ticks(), time.Now()
	time.Sleep(d)
	return (ticks() - before) / 100 / time.Since(start).Seconds()
}
