package labtest

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"nodedesk/app/hostnet"
	"nodedesk/app/kit"
	"nodedesk/app/vpcs"
	"nodedesk/app/vpcs/vpcstest"
)

// These tests run the real `vpcs` simulator (make test installs it).

func TestVPCS_Console(t *testing.T) {
	ts := StartVPCS(t)
	pid := ts.MustCreateProject("lab")
	n := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": "pc1",
		"properties": map[string]any{"startup_script": "set pcname pc1\nip 10.0.0.1/24 10.0.0.254\n"}})
	path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
	started := ts.Do("POST", path+"/start", nil).Want(t, 200).JSON(t)
	if started["status"] != "started" || !strings.Contains(started["command_line"].(string), "vpcs -i 1 -m") ||
		!strings.HasSuffix(started["command_line"].(string), "startup.vpc") {
		t.Fatalf("started node %v", started)
	}
	dir := started["node_directory"].(string)
	if script, _ := os.ReadFile(filepath.Join(dir, "startup.vpc")); !strings.Contains(string(script), "10.0.0.1") {
		t.Errorf("startup.vpc holds %q", script)
	}
	a, b := kit.DialConsole(t, "127.0.0.1", int(n["console"].(float64))), kit.DialConsole(t, "127.0.0.1", int(n["console"].(float64)))
	if !a.Expect("pc1>", true, 15*time.Second) {
		t.Fatalf("client A got no prompt: %q", a.Seen.String())
	}
	if !b.Expect("pc1>", true, 5*time.Second) {
		t.Fatalf("client B, at the same time, got no prompt: %q", b.Seen.String())
	}
	if !a.Run("show ip", "10.0.0.1/24", 10*time.Second) {
		t.Fatalf("show ip: %q", a.Seen.String())
	}
	t.Logf("console transcript (client A):\n%s", kit.Printable(a.Log.String()))
	a.Conn.Close() // one client leaving does not stop the node
	if !b.Expect("pc1>", true, 5*time.Second) {
		t.Fatalf("client B lost the console when A left")
	}
	if got := ts.Do("GET", path, nil).JSON(t)["status"]; got != "started" {
		t.Errorf("status %v after a client left", got)
	}

	// Suspend stops the process; resume continues it.
	vpid := vpcstest.PID(dir)
	if vpid == 0 {
		t.Fatal("no vpcs process works in the node's folder")
	}
	if got := ts.Do("POST", path+"/suspend", nil).Want(t, 200).JSON(t)["status"]; got != "suspended" {
		t.Errorf("suspend gave %v", got)
	}
	if st := kit.ProcState(vpid); st != "T" {
		t.Errorf("process state %q after suspend, want T (stopped)", st)
	}
	b.Drain()
	if b.Expect("pc1>", true, time.Second) {
		t.Errorf("a suspended node answered on its console: %q", b.Seen.String())
	}
	if got := ts.Do("POST", path+"/start", nil).Want(t, 200).JSON(t)["status"]; got != "started" {
		t.Errorf("resume gave %v", got)
	}
	if !b.Expect("pc1>", true, 5*time.Second) {
		t.Error("the resumed node does not answer")
	}

	// Stop ends the process and closes the console port.
	if got := ts.Do("POST", path+"/stop", nil).Want(t, 200).JSON(t)["status"]; got != "stopped" {
		t.Errorf("stop gave %v", got)
	}
	if p := vpcstest.PID(dir); p != 0 {
		t.Errorf("vpcs process %d still runs after stop", p)
	}
	if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(int(n["console"].(float64))), time.Second); err == nil {
		c.Close()
		t.Error("the console port still accepts connections after stop")
	}
}

func TestVPCS_ScriptChangeAppliesOnReload(t *testing.T) {
	ts := StartVPCS(t)
	pid := ts.MustCreateProject("lab")
	n := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs", "properties": map[string]any{"startup_script": "ip 10.1.1.1/24\n"}})
	path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
	ts.Do("POST", path+"/start", nil).Want(t, 200)
	dir := ts.Do("GET", path, nil).JSON(t)["node_directory"].(string)
	first := vpcstest.PID(dir)
	ts.Do("PUT", path, map[string]any{"properties": map[string]any{"startup_script": "ip 10.2.2.2/24\n"}}).Want(t, 200)
	c := kit.DialConsole(t, "127.0.0.1", int(n["console"].(float64)))
	if !c.Expect("VPCS>", true, 15*time.Second) || !c.Run("show ip", "10.1.1.1", 10*time.Second) {
		t.Fatalf("the running node changed address before a reload: %q", c.Seen.String())
	}
	ts.Do("POST", path+"/reload", nil).Want(t, 200)
	if second := vpcstest.PID(dir); second == 0 || second == first {
		t.Errorf("reload did not restart the process (%d -> %d)", first, second)
	}
	c = kit.DialConsole(t, "127.0.0.1", int(n["console"].(float64)))
	if !c.Expect("VPCS>", true, 15*time.Second) {
		t.Fatalf("no prompt after reload: %q", c.Seen.String())
	}
	if !c.Run("show ip", "10.2.2.2", 10*time.Second) {
		t.Errorf("reload did not apply the new script: %q", c.Seen.String())
	}
}

func TestVPCS_ProcessKilled(t *testing.T) {
	ts := StartVPCS(t)
	pid := ts.MustCreateProject("lab")
	n := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs"})
	path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
	next, _ := ts.WSListen(t, "/v2/projects/"+pid+"/notifications/ws")
	ts.Do("POST", path+"/start", nil).Want(t, 200)
	if e := next(); e.Event["status"] != "started" {
		t.Fatalf("event %v", e)
	}
	vpid := vpcstest.PID(ts.Do("GET", path, nil).JSON(t)["node_directory"].(string))
	if vpid == 0 {
		t.Fatal("no vpcs process")
	}
	if err := syscall.Kill(vpid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if e := next(); e.Action != "node.updated" || e.Event["status"] != "stopped" {
		t.Fatalf("after the process was killed: %s %v", e.Action, e.Event["status"])
	}
	if got := ts.Do("GET", path, nil).JSON(t)["status"]; got != "stopped" {
		t.Errorf("status %v", got)
	}
	// It starts again.
	ts.Do("POST", path+"/start", nil).Want(t, 200)
}

func TestVPCS_StartErrors(t *testing.T) {
	ts := StartVPCS(t)
	pid := ts.MustCreateProject("lab")
	// A console port another program holds: 409 naming it, still stopped.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	n := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs", "console": port})
	path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
	r := ts.Do("POST", path+"/start", nil).Want(t, 409)
	if msg := r.JSON(t)["message"].(string); !strings.Contains(msg, strconv.Itoa(port)) {
		t.Errorf("message %q does not name port %d", msg, port)
	}
	if got := ts.Do("GET", path, nil).JSON(t)["status"]; got != "stopped" {
		t.Errorf("status %v after a failed start", got)
	}
	ts.Do("POST", "/v2/projects/"+pid+"/nodes/start", nil).Want(t, 409)

	// No simulator installed: 409 that says how to install it.
	missing := Start(t, Options{Runner: vpcs.New(vpcs.Config{Binary: "vpcs-not-installed"})})
	mpid := missing.MustCreateProject("lab")
	mn := missing.MustCreateNode(mpid, map[string]any{"node_type": "vpcs"})
	r = missing.Do("POST", "/v2/projects/"+mpid+"/nodes/"+mn["node_id"].(string)+"/start", nil).Want(t, 409)
	if msg := r.JSON(t)["message"].(string); !strings.Contains(msg, "apt-get install vpcs") {
		t.Errorf("message %q does not say how to install VPCS", msg)
	}
}

// TestVPCS_CloseProjectStops: closing a project stops its processes.
func TestVPCS_CloseProjectStops(t *testing.T) {
	ts := StartVPCS(t)
	pid := ts.MustCreateProject("lab")
	var dirs []string
	for range 2 {
		n := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs"})
		dirs = append(dirs, n["node_directory"].(string))
	}
	ts.Do("POST", "/v2/projects/"+pid+"/nodes/start", nil).Want(t, 204)
	for _, d := range dirs {
		if vpcstest.PID(d) == 0 {
			t.Fatalf("no process for %s after a project start", d)
		}
	}
	ts.Do("POST", "/v2/projects/"+pid+"/close", nil).Want(t, 204)
	for _, d := range dirs {
		if p := vpcstest.PID(d); p != 0 {
			t.Errorf("process %d still runs after the project closed", p)
		}
	}
	for _, n := range ts.Do("GET", "/v2/projects/"+pid+"/nodes", nil).List(t) {
		if n["status"] != "stopped" {
			t.Errorf("%v is %v after close", n["name"], n["status"])
		}
	}
}

// TestVPCS_LinkPortTakenBeforeStart: a program that takes a VPCS node's
// UDP port between nodedesk's free-port test and the simulator's start
// (VPCS would run on without its link, bound only to its relay port
// base+9) makes the start a 409 that names the port and the program; the
// node stays stopped, and the next start gives it a free port it holds.
func TestVPCS_LinkPortTakenBeforeStart(t *testing.T) {
	var taken net.PacketConn
	free := hostnet.PortFree("127.0.0.1")
	ts := Start(t, Options{Run: with().Run, PortFree: func(network string, port int) bool {
		ok := free(network, port)
		if ok && network == "udp" && taken == nil { // the first port found free: the node's local one
			c, err := net.ListenPacket("udp", "127.0.0.1:"+strconv.Itoa(port))
			if err != nil {
				t.Errorf("taking port %d: %v", port, err)
				return ok
			}
			taken = c
		}
		return ok
	}})
	t.Cleanup(func() {
		if taken != nil {
			taken.Close()
		}
	})
	pid := ts.MustCreateProject("lab")
	n := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": "pc1"})
	path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
	msg := ts.Do("POST", path+"/start", nil).Want(t, 409).JSON(t)["message"].(string)
	if taken == nil {
		t.Fatal("no UDP port was asked about")
	}
	port := taken.LocalAddr().(*net.UDPAddr).Port
	t.Logf("start with port %d taken: %s", port, msg)
	for _, want := range []string{strconv.Itoa(port), "pc1", "pid " + strconv.Itoa(os.Getpid())} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not name %q", msg, want)
		}
	}
	dir := n["node_directory"].(string)
	if p := vpcstest.PID(dir); p != 0 {
		t.Errorf("vpcs %d still runs after the refused start", p)
	}
	if got := ts.Do("GET", path, nil).JSON(t)["status"]; got != "stopped" {
		t.Errorf("status %v after the refused start", got)
	}

	// Started again (the port still taken), it gets another port and hears its link.
	started := ts.Do("POST", path+"/start", nil).Want(t, 200).JSON(t)
	line := started["command_line"].(string)
	if strings.Contains(line, "-s "+strconv.Itoa(port)+" ") {
		t.Errorf("second start reused the taken port: %s", line)
	}
	fs := strings.Fields(line)
	local := 0
	for i, f := range fs {
		if f == "-s" && i+1 < len(fs) {
			local, _ = strconv.Atoi(fs[i+1])
		}
	}
	vpid := vpcstest.PID(dir)
	if vpid == 0 || local == 0 {
		t.Fatalf("no vpcs (%d) or no -s port in %q", vpid, line)
	}
	if ss, err := exec.Command("ss", "-Huanp", "sport", "= :"+strconv.Itoa(local)).Output(); err == nil &&
		!strings.Contains(string(ss), "pid="+strconv.Itoa(vpid)+",") {
		t.Errorf("vpcs %d does not hold its port %d: %s", vpid, local, ss)
	}
}
