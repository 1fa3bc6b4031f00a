//go:build linux || darwin

package api

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestProjectLoad_FIFO: a named pipe given as the .gns3 to load is refused
// at once with a 400 that says what it is, instead of a request that waits
// for a writer (and holds up shutdown). The client's timeout only bounds a
// regression; nothing here is timed.
func TestProjectLoad_FIFO(t *testing.T) {
	ts := mustOpenServer(t)
	ts.Client.Timeout = 20 * time.Second
	fifo := filepath.Join(t.TempDir(), "lab.gns3")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	r := ts.Do("POST", "/v2/projects/load", map[string]any{"path": fifo}).Want(t, 400).JSON(t)
	if msg, _ := r["message"].(string); !strings.Contains(msg, "named pipe") || !strings.Contains(msg, fifo) {
		t.Errorf("400 says %q; want it to name %s and say it is a named pipe", msg, fifo)
	}
	if n := len(ts.Do("GET", "/v2/projects", nil).List(t)); n != 0 {
		t.Errorf("%d projects after a refused load", n)
	}
	// The server is still whole: a folder is refused the same way.
	r = ts.Do("POST", "/v2/projects/load", map[string]any{"path": t.TempDir()}).Want(t, 400).JSON(t)
	if msg, _ := r["message"].(string); !strings.Contains(msg, "is a folder") {
		t.Errorf("400 for a folder says %q", msg)
	}
}
