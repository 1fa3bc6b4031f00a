package api

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"nodedesk/app/vpcs"
)

// These tests run the real `vpcs` simulator (make test installs it).

func mustHaveVPCS(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/usr/bin/vpcs"); err != nil {
		t.Fatal("the vpcs simulator is not installed: run `make test` (it installs it) or `sudo apt-get install vpcs`")
	}
}

// console is a telnet client on a node's console.
type console struct {
	t    *testing.T
	conn net.Conn
	seen bytes.Buffer // since the last expect began
	log  bytes.Buffer // everything, for the transcript
}

func dialConsole(t *testing.T, port float64) *console {
	t.Helper()
	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(int(port)), 5*time.Second)
	if err != nil {
		t.Fatalf("console %v: %v", port, err)
	}
	c := &console{t: t, conn: conn}
	t.Cleanup(func() { conn.Close() })
	return c
}

// expect presses Enter (if enter) and reads until want appears, within
// limit; it reports whether it did.
func (c *console) expect(want string, enter bool, limit time.Duration) bool {
	c.t.Helper()
	deadline := time.Now().Add(limit)
	buf := make([]byte, 4096)
	c.seen.Reset()
	for time.Now().Before(deadline) {
		if enter {
			if _, err := c.conn.Write([]byte("\r\n")); err != nil {
				return false
			}
		}
		_ = c.conn.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		n, err := c.conn.Read(buf)
		c.seen.Write(buf[:n])
		c.log.Write(buf[:n])
		if strings.Contains(c.seen.String(), want) {
			return true
		}
		if err != nil && !os.IsTimeout(err) {
			return false
		}
	}
	return false
}

// drain reads until the console has been quiet for a while, so that
// output sent before now is not taken for an answer to what comes next.
func (c *console) drain() {
	buf := make([]byte, 4096)
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); {
		_ = c.conn.SetReadDeadline(time.Now().Add(400 * time.Millisecond))
		n, err := c.conn.Read(buf)
		c.log.Write(buf[:n])
		if err != nil {
			return
		}
	}
}

func (c *console) send(line string) {
	if _, err := c.conn.Write([]byte(line + "\r\n")); err != nil {
		c.t.Fatal(err)
	}
}

// run types a command and waits for want in its output. VPCS drops typed
// input that arrives while it is still busy with earlier keys, as a real
// terminal user sees it, so the command is typed again if it was not
// echoed.
func (c *console) run(command, want string, limit time.Duration) bool {
	c.t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		c.send(command)
		if c.expect(want, false, 2*time.Second) {
			return true
		}
	}
	return false
}

// printable drops telnet negotiation and carriage returns from a transcript.
func printable(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\r' || r >= 0xf0 && r <= 0xff || r == '\ufffd' {
			return -1
		}
		return r
	}, s)
	for strings.Contains(s, "\n\n\n") {
		s = strings.ReplaceAll(s, "\n\n\n", "\n\n")
	}
	return s
}

// vpcsPID finds the simulator working in dir, or 0.
func vpcsPID(dir string) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err == nil && cwd == dir {
			if exe, _ := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); strings.HasSuffix(exe, "vpcs") {
				return pid
			}
		}
	}
	return 0
}

// procState is the state letter of /proc/<pid>/stat (R, S, T, ...).
func procState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2 : i+3]
	}
	return ""
}

func newVPCSServer(t *testing.T) *testServer {
	mustHaveVPCS(t)
	return mustOpenServerWith(t, testOptions{runner: vpcs.New(vpcs.Config{ConsoleHost: "127.0.0.1", StopGrace: time.Second})})
}

func TestVPCS_Console(t *testing.T) {
	ts := newVPCSServer(t)
	pid := ts.mustCreateProject("lab")
	n := ts.mustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": "pc1",
		"properties": map[string]any{"startup_script": "set pcname pc1\nip 10.0.0.1/24 10.0.0.254\n"}})
	path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
	started := ts.do("POST", path+"/start", nil).want(t, 200).json(t)
	if started["status"] != "started" || !strings.Contains(started["command_line"].(string), "vpcs -i 1 -m") ||
		!strings.HasSuffix(started["command_line"].(string), "startup.vpc") {
		t.Fatalf("started node %v", started)
	}
	dir := started["node_directory"].(string)
	if script, _ := os.ReadFile(filepath.Join(dir, "startup.vpc")); !strings.Contains(string(script), "10.0.0.1") {
		t.Errorf("startup.vpc holds %q", script)
	}
	a, b := dialConsole(t, n["console"].(float64)), dialConsole(t, n["console"].(float64))
	if !a.expect("pc1>", true, 15*time.Second) {
		t.Fatalf("client A got no prompt: %q", a.seen.String())
	}
	if !b.expect("pc1>", true, 5*time.Second) {
		t.Fatalf("client B, at the same time, got no prompt: %q", b.seen.String())
	}
	if !a.run("show ip", "10.0.0.1/24", 10*time.Second) {
		t.Fatalf("show ip: %q", a.seen.String())
	}
	t.Logf("console transcript (client A):\n%s", printable(a.log.String()))
	a.conn.Close() // one client leaving does not stop the node
	if !b.expect("pc1>", true, 5*time.Second) {
		t.Fatalf("client B lost the console when A left")
	}
	if got := ts.do("GET", path, nil).json(t)["status"]; got != "started" {
		t.Errorf("status %v after a client left", got)
	}

	// Suspend stops the process; resume continues it.
	vpid := vpcsPID(dir)
	if vpid == 0 {
		t.Fatal("no vpcs process works in the node's folder")
	}
	if got := ts.do("POST", path+"/suspend", nil).want(t, 200).json(t)["status"]; got != "suspended" {
		t.Errorf("suspend gave %v", got)
	}
	if st := procState(vpid); st != "T" {
		t.Errorf("process state %q after suspend, want T (stopped)", st)
	}
	b.drain()
	if b.expect("pc1>", true, time.Second) {
		t.Errorf("a suspended node answered on its console: %q", b.seen.String())
	}
	if got := ts.do("POST", path+"/start", nil).want(t, 200).json(t)["status"]; got != "started" {
		t.Errorf("resume gave %v", got)
	}
	if !b.expect("pc1>", true, 5*time.Second) {
		t.Error("the resumed node does not answer")
	}

	// Stop ends the process and closes the console port.
	if got := ts.do("POST", path+"/stop", nil).want(t, 200).json(t)["status"]; got != "stopped" {
		t.Errorf("stop gave %v", got)
	}
	if p := vpcsPID(dir); p != 0 {
		t.Errorf("vpcs process %d still runs after stop", p)
	}
	if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(int(n["console"].(float64))), time.Second); err == nil {
		c.Close()
		t.Error("the console port still accepts connections after stop")
	}
}

func TestVPCS_ScriptChangeAppliesOnReload(t *testing.T) {
	ts := newVPCSServer(t)
	pid := ts.mustCreateProject("lab")
	n := ts.mustCreateNode(pid, map[string]any{"node_type": "vpcs", "properties": map[string]any{"startup_script": "ip 10.1.1.1/24\n"}})
	path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
	ts.do("POST", path+"/start", nil).want(t, 200)
	dir := ts.do("GET", path, nil).json(t)["node_directory"].(string)
	first := vpcsPID(dir)
	ts.do("PUT", path, map[string]any{"properties": map[string]any{"startup_script": "ip 10.2.2.2/24\n"}}).want(t, 200)
	c := dialConsole(t, n["console"].(float64))
	if !c.expect("VPCS>", true, 15*time.Second) || !c.run("show ip", "10.1.1.1", 10*time.Second) {
		t.Fatalf("the running node changed address before a reload: %q", c.seen.String())
	}
	ts.do("POST", path+"/reload", nil).want(t, 200)
	if second := vpcsPID(dir); second == 0 || second == first {
		t.Errorf("reload did not restart the process (%d -> %d)", first, second)
	}
	c = dialConsole(t, n["console"].(float64))
	if !c.expect("VPCS>", true, 15*time.Second) {
		t.Fatalf("no prompt after reload: %q", c.seen.String())
	}
	if !c.run("show ip", "10.2.2.2", 10*time.Second) {
		t.Errorf("reload did not apply the new script: %q", c.seen.String())
	}
}

func TestVPCS_ProcessKilled(t *testing.T) {
	ts := newVPCSServer(t)
	pid := ts.mustCreateProject("lab")
	n := ts.mustCreateNode(pid, map[string]any{"node_type": "vpcs"})
	path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
	next, _ := ts.wsListen(t, "/v2/projects/"+pid+"/notifications/ws")
	ts.do("POST", path+"/start", nil).want(t, 200)
	if e := next(); e.Event["status"] != "started" {
		t.Fatalf("event %v", e)
	}
	vpid := vpcsPID(ts.do("GET", path, nil).json(t)["node_directory"].(string))
	if vpid == 0 {
		t.Fatal("no vpcs process")
	}
	if err := syscall.Kill(vpid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if e := next(); e.Action != "node.updated" || e.Event["status"] != "stopped" {
		t.Fatalf("after the process was killed: %s %v", e.Action, e.Event["status"])
	}
	if got := ts.do("GET", path, nil).json(t)["status"]; got != "stopped" {
		t.Errorf("status %v", got)
	}
	// It starts again.
	ts.do("POST", path+"/start", nil).want(t, 200)
}

func TestVPCS_StartErrors(t *testing.T) {
	ts := newVPCSServer(t)
	pid := ts.mustCreateProject("lab")
	// A console port another program holds: 409 naming it, still stopped.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	n := ts.mustCreateNode(pid, map[string]any{"node_type": "vpcs", "console": port})
	path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
	r := ts.do("POST", path+"/start", nil).want(t, 409)
	if msg := r.json(t)["message"].(string); !strings.Contains(msg, strconv.Itoa(port)) {
		t.Errorf("message %q does not name port %d", msg, port)
	}
	if got := ts.do("GET", path, nil).json(t)["status"]; got != "stopped" {
		t.Errorf("status %v after a failed start", got)
	}
	ts.do("POST", "/v2/projects/"+pid+"/nodes/start", nil).want(t, 409)

	// No simulator installed: 409 that says how to install it.
	missing := mustOpenServerWith(t, testOptions{runner: vpcs.New(vpcs.Config{Binary: "vpcs-not-installed"})})
	mpid := missing.mustCreateProject("lab")
	mn := missing.mustCreateNode(mpid, map[string]any{"node_type": "vpcs"})
	r = missing.do("POST", "/v2/projects/"+mpid+"/nodes/"+mn["node_id"].(string)+"/start", nil).want(t, 409)
	if msg := r.json(t)["message"].(string); !strings.Contains(msg, "apt-get install vpcs") {
		t.Errorf("message %q does not say how to install VPCS", msg)
	}
}

// TestVPCS_CloseProjectStops: closing a project stops its processes.
func TestVPCS_CloseProjectStops(t *testing.T) {
	ts := newVPCSServer(t)
	pid := ts.mustCreateProject("lab")
	var dirs []string
	for range 2 {
		n := ts.mustCreateNode(pid, map[string]any{"node_type": "vpcs"})
		dirs = append(dirs, n["node_directory"].(string))
	}
	ts.do("POST", "/v2/projects/"+pid+"/nodes/start", nil).want(t, 204)
	for _, d := range dirs {
		if vpcsPID(d) == 0 {
			t.Fatalf("no process for %s after a project start", d)
		}
	}
	ts.do("POST", "/v2/projects/"+pid+"/close", nil).want(t, 204)
	for _, d := range dirs {
		if p := vpcsPID(d); p != 0 {
			t.Errorf("process %d still runs after the project closed", p)
		}
	}
	for _, n := range ts.do("GET", "/v2/projects/"+pid+"/nodes", nil).list(t) {
		if n["status"] != "stopped" {
			t.Errorf("%v is %v after close", n["name"], n["status"])
		}
	}
}
