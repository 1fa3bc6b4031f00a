package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"nodedesk/app/procrecord"
)

// TestMain_CrashLeftoversReported: what a killed nodedesk left (a QEMU
// guest still running, by its record; an upload cut short) is ended and
// removed at the next start, and the user is told by GET /v2/leftovers:
// the node by name, the file, and a message saying what to do; once
// dismissed (DELETE), nothing is left to tell.
func TestMain_CrashLeftoversReported(t *testing.T) {
	data := t.TempDir()
	db := filepath.Join(data, "l.db")
	// A guest a killed nodedesk left: a process of its own group, with
	// the record QEMU's runner keeps of it.
	guest := exec.Command("sleep", "300")
	guest.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := guest.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	go func() { _ = guest.Wait(); close(ended) }()
	t.Cleanup(func() { _ = guest.Process.Kill(); <-ended })
	if err := (procrecord.Records{Dir: filepath.Join(data, "run", "qemu")}).Keep("0b6c1f3e-6a0e-4d0c-9d7c-2c9b8a1f0e11", "R-left", guest.Process.Pid); err != nil {
		t.Fatal(err)
	}
	// An upload a killed nodedesk was spooling.
	upload := filepath.Join(data, "projects", ".upload-7d1c9a52-3b7e-4f5e-9a49-0c1d2e3f4a5b")
	if err := os.MkdirAll(filepath.Dir(upload), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(upload, []byte("half an archive"), 0o600); err != nil {
		t.Fatal(err)
	}

	p := start(t, sandboxEnv(t), "--headless", "--listen", "127.0.0.1:0", "--db", db)
	url := p.waitServing(t)
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the guest a killed nodedesk left still runs after the next start")
	}
	if _, err := os.Stat(upload); !os.IsNotExist(err) {
		t.Errorf("the cut-short upload is still there: %v", err)
	}
	code, body := call(t, "GET", url+"/v2/leftovers", nil)
	var left struct {
		Nodes   []string `json:"nodes"`
		Files   []string `json:"files"`
		Message string   `json:"message"`
	}
	if err := json.Unmarshal(body, &left); code != 200 || err != nil {
		t.Fatalf("GET /v2/leftovers: %d %s", code, body)
	}
	if !slices.Equal(left.Nodes, []string{"R-left"}) || len(left.Files) != 1 || left.Files[0] != upload {
		t.Errorf("leftovers nodes %q files %q; want [R-left] and %s", left.Nodes, left.Files, upload)
	}
	for _, want := range []string{"did not shut down", "R-left", "start them again", "import or upload them again"} {
		if !strings.Contains(left.Message, want) {
			t.Errorf("message %q does not say %q", left.Message, want)
		}
	}
	if code, body := call(t, "DELETE", url+"/v2/leftovers", nil); code != 204 {
		t.Fatalf("DELETE /v2/leftovers: %d %s", code, body)
	}
	if _, body := call(t, "GET", url+"/v2/leftovers", nil); !strings.Contains(string(body), `"message":""`) {
		t.Errorf("after dismissing, GET /v2/leftovers = %s; want an empty message", body)
	}
	p.stop(t)
}
