package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDebris_SweptAtStart: what imports and uploads cut short by kill -9
// leave in the data folder (a spooled archive, a staging folder, a partial
// image) is gone once nodedesk has started again, and files that only look
// alike, or are not in its folders' top, stay.
func TestDebris_SweptAtStart(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "labs.db")
	env := sandboxEnv(t)
	args := []string{"--headless", "--listen", "127.0.0.1:0", "--db", db}
	projects := filepath.Join(dir, "projects")
	images := filepath.Join(dir, "images", "QEMU")

	// Leftovers of a version that named them as os.MkdirTemp does, and
	// of an image upload; and the user's files beside them.
	debris := []string{
		filepath.Join(projects, ".import-123456789", "project-files", "vpcs", "x", "startup.vpc"),
		filepath.Join(projects, ".upload-987654321"),
		filepath.Join(images, ".upload-3b1f0e8e-1d2c-4a5b-9c8d-7e6f5a4b3c2d"),
		filepath.Join(images, "sub", ".upload-0c1f0e8e-1d2c-4a5b-9c8d-7e6f5a4b3c2d"),
	}
	kept := []string{
		filepath.Join(projects, ".upload-notes.txt"),
		filepath.Join(projects, ".import-mine", "a.txt"),
		filepath.Join(projects, "notes.txt"),
		filepath.Join(images, "disk.qcow2"),
		filepath.Join(images, ".upload-"),
	}
	for _, p := range append(debris, kept...) {
		mustWriteFile(t, p, "x")
	}

	p := start(t, env, args...)
	url := p.waitServing(t)
	for _, d := range debris {
		top := d
		if strings.Contains(d, ".import-123456789") {
			top = filepath.Join(projects, ".import-123456789")
		}
		if _, err := os.Lstat(top); err == nil {
			t.Errorf("%s is still there after start", top)
		}
	}

	// An import whose body is still coming when nodedesk is killed.
	pr, pw := io.Pipe()
	defer pw.Close()
	sent := make(chan error, 1)
	go func() {
		c := &http.Client{Timeout: 30 * time.Second}
		resp, err := c.Post(url+"/v2/projects/6b0e7c1a-5d4e-4f3a-9b2c-1d0e9f8a7b6c/import", "application/octet-stream", pr)
		if err == nil {
			resp.Body.Close()
		}
		sent <- err
	}()
	if _, err := pw.Write(append([]byte("PK\x03\x04"), bytes.Repeat([]byte{0}, 64<<10)...)); err != nil {
		t.Fatalf("sending the import's first bytes: %v", err)
	}
	spooled := waitFor(t, func() string {
		m, _ := filepath.Glob(filepath.Join(projects, ".upload-*-*"))
		if len(m) == 1 {
			return m[0]
		}
		return ""
	}, "the import's spooled body in "+projects)
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.done
	pw.CloseWithError(io.ErrClosedPipe)
	<-sent
	if _, err := os.Stat(spooled); err != nil {
		t.Fatalf("the spooled body %s is gone before the restart (%v); the test proves nothing", spooled, err)
	}

	p = start(t, env, args...)
	p.waitServing(t)
	if _, err := os.Lstat(spooled); err == nil {
		t.Errorf("the spooled body %s of the killed import is still there after the restart", spooled)
	}
	for _, k := range kept {
		if b, err := os.ReadFile(k); err != nil || string(b) != "x" {
			t.Errorf("%s is not the user's file any more: %q, %v", k, b, err)
		}
	}
	if !strings.Contains(p.stderr.String(), "removed the leftovers of interrupted imports and uploads") {
		t.Errorf("the restart did not log what it removed\nstderr:\n%s", p.stderr)
	}
	p.stop(t)
}

func mustWriteFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls found until it names something, for up to 10 s.
func waitFor(t *testing.T, found func() string, what string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if s := found(); s != "" {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s within 10 s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
