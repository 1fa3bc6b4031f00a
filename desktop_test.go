//go:build desktoptest

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDesktop builds the real window binary, starts it under Xvfb, and
// checks that the REST API answers while the window is open and that the
// page inside the window has loaded (it calls the Ready binding once
// mounted, which nodedesk logs). Then, as a user would with mouse and keys
// (xdotool), it opens the project, selects its switch and opens its
// console in a tab (Alt+Enter), which the window reaches through its
// console-session bindings, and types `show vlan` there. Then it checks
// that the window alone keeps an auto_close project open once a REST
// client that listened to it has left (decision 0069). It keeps
// screenshots in build/artifacts (desktop.png, desktop-console.png).
// Run by `make test` (go test -tags desktoptest -run TestDesktop .).
func TestDesktop(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "nodedesk-desktop")
	build := exec.Command("go", "build", "-tags", "desktop,production,webkit2_41", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the window binary: %v\n%s", err, out)
	}

	// Xvfb on a display it picks itself (-displayfd).
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	xvfb := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x900x24", "-nolisten", "tcp")
	xvfb.ExtraFiles = []*os.File{w}
	if err := xvfb.Start(); err != nil {
		t.Fatalf("Xvfb: %v (make test installs it)", err)
	}
	t.Cleanup(func() { _ = xvfb.Process.Kill(); _ = xvfb.Wait() })
	w.Close()
	display := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		display <- ":" + strings.TrimSpace(line)
	}()
	var disp string
	select {
	case disp = <-display:
	case <-time.After(15 * time.Second):
		t.Fatal("Xvfb did not start")
	}

	env := append(sandboxEnv(t), "DISPLAY="+disp)
	binPath = bin // start() runs binPath
	p := start(t, env, "--listen", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "desk.db"))
	url := p.waitServing(t)
	checkVersion(t, url)
	status, body := call(t, "POST", url+"/v2/projects", map[string]any{"name": "from REST while the window is open"})
	if status != 201 {
		t.Fatalf("create project: %d %s", status, body)
	}
	loaded := false
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if strings.Contains(p.stderr.String(), "desktop: page loaded") {
			loaded = true
			break
		}
	}
	if !loaded {
		t.Fatalf("the page in the window never called Ready\n%s", p.stderr)
	}
	time.Sleep(2 * time.Second) // let the page render the project list
	shot := filepath.Join("build", "artifacts", "desktop.png")
	_ = os.MkdirAll(filepath.Dir(shot), 0o755)
	if out, err := exec.Command("import", "-display", disp, "-window", "root", shot).CombinedOutput(); err != nil {
		t.Errorf("screenshot: %v %s", err, out)
	} else {
		abs, _ := filepath.Abs(shot)
		t.Logf("screenshot: %s", abs)
	}
	var projects []map[string]any
	_, body = call(t, "GET", url+"/v2/projects", nil)
	_ = json.Unmarshal(body, &projects)
	if len(projects) != 1 {
		t.Fatalf("projects %v", projects)
	}
	consoleTab(t, p, disp, url, projects[0]["project_id"].(string))
	windowKeepsOpen(t, p, url, projects[0]["project_id"].(string))
	p.stop(t) // SIGTERM closes the window: exit 0
}

// windowKeepsOpen: the window alone keeps an auto_close project open. A
// REST client listens to the project's notifications and leaves, which
// in GNS3 closes an auto_close project 5 s later; the window still shows
// nodedesk, so nodedesk says it keeps the project open, and it is opened.
func windowKeepsOpen(t *testing.T, p *proc, url, pid string) {
	t.Helper()
	status, body := call(t, "GET", url+"/v2/projects/"+pid, nil)
	var proj struct {
		AutoClose bool   `json:"auto_close"`
		Status    string `json:"status"`
	}
	if err := json.Unmarshal(body, &proj); status != 200 || err != nil || !proj.AutoClose || proj.Status != "opened" {
		t.Fatalf("the project before: %d %s; want opened, with auto_close", status, body)
	}
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", url+"/v2/projects/"+pid+"/notifications", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil { // the first ping: it listens
		t.Fatalf("reading the notification stream: %v", err)
	}
	cancel() // the last listener leaves
	_ = resp.Body.Close()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(p.stderr.String(), "auto_close: kept open") && !strings.Contains(p.stderr.String(), "closing a project with auto_close") {
		if time.Now().After(deadline) {
			t.Fatalf("nodedesk never decided whether to close the project once its listener left\n%s", p.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	_, body = call(t, "GET", url+"/v2/projects/"+pid, nil)
	if err := json.Unmarshal(body, &proj); err != nil || proj.Status != "opened" {
		t.Fatalf("the project while the window is open: %s; want opened\n%s", body, p.stderr)
	}
}

// consoleTab opens a switch's console in a tab of the real window, with
// the mouse and keys as a user would, types into it and keeps a
// screenshot.
func consoleTab(t *testing.T, p *proc, disp, url, pid string) {
	t.Helper()
	if _, err := exec.LookPath("xdotool"); err != nil {
		t.Fatalf("xdotool: %v (make test installs it)", err)
	}
	status, body := call(t, "POST", url+"/v2/projects/"+pid+"/nodes", map[string]any{"node_type": "ethernet_switch", "name": "Sw1", "console_type": "telnet", "x": 0, "y": 0})
	if status != 201 {
		t.Fatalf("create a switch: %d %s", status, body)
	}
	xdo := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("xdotool", args...)
		cmd.Env = append(os.Environ(), "DISPLAY="+disp)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("xdotool %s: %v %s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	win := strings.Fields(xdo("search", "--sync", "--onlyvisible", "--name", "nodedesk"))[0]
	xdo("windowfocus", "--sync", win)
	// The project is the first (and only) one in the sidebar.
	xdo("mousemove", "--window", win, "110", "95", "click", "1")
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(p.stderr.String(), "desktop: console opened") {
		if time.Now().After(deadline) {
			t.Fatalf("no console tab opened in the window\n%s", p.stderr)
		}
		time.Sleep(time.Second)  // the project's canvas shows Sw1
		xdo("key", "ctrl+a")     // select every node (Sw1)
		xdo("key", "alt+Return") // open the selection's consoles in tabs
		time.Sleep(time.Second)
	}
	time.Sleep(time.Second) // the terminal has the focus and the prompt
	xdo("type", "--delay", "50", "show vlan")
	xdo("key", "Return")
	time.Sleep(2 * time.Second)
	shot := filepath.Join("build", "artifacts", "desktop-console.png")
	if out, err := exec.Command("import", "-display", disp, "-window", "root", shot).CombinedOutput(); err != nil {
		t.Errorf("screenshot: %v %s", err, out)
	} else {
		abs, _ := filepath.Abs(shot)
		t.Logf("screenshot of the console tab: %s", abs)
	}
}
