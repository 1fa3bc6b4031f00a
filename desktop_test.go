//go:build desktoptest

package main

import (
	"bufio"
	"encoding/json"
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
// mounted, which nodedesk logs). It keeps a screenshot in build/artifacts.
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
		t.Errorf("projects %v", projects)
	}
	p.stop(t) // SIGTERM closes the window: exit 0
}
