package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCrash_KillNineDuringRestore: nodedesk is killed -9 while a snapshot
// restore swaps the project's files, after its records committed; once it
// has started again the files agree with the records (the restore is
// finished) and no staged or set-aside folder is left.
func TestCrash_KillNineDuringRestore(t *testing.T) {
	const files = 2000 // enough that the swap takes long enough to be caught
	dir := t.TempDir()
	db := filepath.Join(dir, "labs.db")
	env := sandboxEnv(t)
	args := []string{"--headless", "--listen", "127.0.0.1:0", "--db", db}
	p := start(t, env, args...)
	url := p.waitServing(t)

	mustCall := func(method, path string, body any, want int) map[string]any {
		t.Helper()
		code, out := call(t, method, url+path, body)
		if code != want {
			t.Fatalf("%s %s = %d %s, want %d", method, path, code, out, want)
		}
		var m map[string]any
		_ = json.Unmarshal(out, &m)
		return m
	}
	pid := mustCall("POST", "/v2/projects", map[string]any{"name": "crash"}, 201)["project_id"].(string)
	proj := filepath.Join(dir, "projects", pid)
	node := func(name string) string {
		return mustCall("POST", "/v2/projects/"+pid+"/nodes", map[string]any{"node_type": "vpcs", "name": name, "compute_id": "local"}, 201)["node_id"].(string)
	}
	x := node("X")
	xdir := filepath.Join(proj, "project-files", "vpcs", x)
	writeAll := func(content string) {
		for i := range files {
			mustWriteFile(t, filepath.Join(xdir, fmt.Sprintf("f%04d", i)), content)
		}
	}
	writeAll("A")
	snapA := mustCall("POST", "/v2/projects/"+pid+"/snapshots", map[string]any{"name": "A"}, 201)["snapshot_id"].(string)
	y := node("Y")
	ydir := filepath.Join(proj, "project-files", "vpcs", y)
	writeAll("B")
	mustWriteFile(t, filepath.Join(ydir, "only-in-B"), "B")
	snapB := mustCall("POST", "/v2/projects/"+pid+"/snapshots", map[string]any{"name": "B"}, 201)["snapshot_id"].(string)

	// check requires the files to be those of the state the records show:
	// with node Y, B's; without it, A's.
	check := func() {
		t.Helper()
		code, out := call(t, "GET", url+"/v2/projects/"+pid+"/nodes", nil)
		if code != http.StatusOK {
			t.Fatalf("GET nodes = %d %s", code, out)
		}
		want, yWanted := "A", strings.Contains(string(out), y)
		if yWanted {
			want = "B"
		}
		for i := range files {
			if b, err := os.ReadFile(filepath.Join(xdir, fmt.Sprintf("f%04d", i))); err != nil || string(b) != want {
				t.Fatalf("records say snapshot %s, but X's file f%04d is %q (%v)", want, i, b, err)
			}
		}
		if _, err := os.Stat(filepath.Join(ydir, "only-in-B")); (err == nil) != yWanted {
			t.Fatalf("records say snapshot %s, but Y's file exists: %v", want, err == nil)
		}
		entries, _ := os.ReadDir(filepath.Join(proj, "snapshots"))
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				t.Fatalf("%s is left in the snapshots folder", e.Name())
			}
		}
	}

	hits := 0
	for round := 0; round < 12 && hits < 3; round++ {
		target := snapA
		if round%2 == 1 {
			target = snapB
		}
		answered := make(chan struct{})
		go func() {
			defer close(answered)
			c := &http.Client{Timeout: 30 * time.Second}
			if resp, err := c.Post(url+"/v2/projects/"+pid+"/snapshots/"+target+"/restore", "application/json", strings.NewReader("{}")); err == nil {
				resp.Body.Close()
			}
		}()
		killed := false
	watch:
		for {
			select {
			case <-answered:
				break watch
			default:
			}
			if m, _ := filepath.Glob(filepath.Join(proj, "snapshots", ".aside-*")); len(m) > 0 {
				if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				<-p.done
				killed = true
				break
			}
		}
		<-answered
		if !killed {
			check()
			continue
		}
		hits++
		p = start(t, env, args...)
		url = p.waitServing(t)
		check()
	}
	if hits == 0 {
		t.Fatalf("no kill landed during a restore's swap of %d files in 12 rounds", files)
	}
	t.Logf("%d kills during a restore's swap; files and records agree after each restart", hits)
	p.stop(t)
}
