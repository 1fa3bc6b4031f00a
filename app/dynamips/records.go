package dynamips

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// A record of each running router's process is kept in the runner's
// folder while it runs, so that a nodedesk that was killed (kill -9, a
// crash) finds the Dynamips processes it left at its next start and ends
// them: a router nobody supervises spins a CPU core and holds its ports.

// record is what is kept of one running process.
type record struct {
	PID int `json:"pid"`
	// Started is the process's start time in clock ticks since boot
	// (/proc/<pid>/stat): a PID reused by another program does not match.
	Started uint64 `json:"started"`
	NodeID  string `json:"node_id"`
	Name    string `json:"name"`
}

func (r *Runner) recordPath(nodeID string) string {
	return filepath.Join(r.c.RunDir, nodeID+".json")
}

// keep writes the record of a process that has started.
func (r *Runner) keep(nodeID, name string, pid int) error {
	if r.c.RunDir == "" {
		return nil
	}
	started, err := startTime(pid)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(r.c.RunDir, 0o700); err != nil {
		return err
	}
	b, _ := json.Marshal(record{PID: pid, Started: started, NodeID: nodeID, Name: name})
	tmp := r.recordPath(nodeID) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, r.recordPath(nodeID))
}

// forget removes the record of a process that has ended.
func (r *Runner) forget(nodeID string) {
	if r.c.RunDir != "" {
		_ = os.Remove(r.recordPath(nodeID))
	}
}

// ReapOrphans ends every Dynamips process a previous nodedesk left
// running, by its records, and removes the records: what nodedesk does
// at start-up. It returns the names of the routers it ended.
func (r *Runner) ReapOrphans() ([]string, error) {
	if r.c.RunDir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(r.c.RunDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var ended []string
	for _, e := range entries {
		path := filepath.Join(r.c.RunDir, e.Name())
		if !strings.HasSuffix(e.Name(), ".json") {
			_ = os.Remove(path) // a record half written
			continue
		}
		var rec record
		b, err := os.ReadFile(path)
		if err == nil && json.Unmarshal(b, &rec) == nil && rec.PID > 0 {
			if st, err := startTime(rec.PID); err == nil && st == rec.Started {
				killGroup(rec.PID)
				ended = append(ended, rec.Name)
				r.c.Logger.Warn("ended a Dynamips router left running by a previous nodedesk", "node", rec.Name, "pid", rec.PID)
			}
		}
		_ = os.Remove(path)
	}
	return ended, nil
}

// killGroup kills a process's group (it leads its own) and waits, a
// bounded time, for it to be gone.
func killGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = syscall.Kill(pid, syscall.SIGKILL)
	for range 100 {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		if f, err := statFields(pid); err == nil && len(f) > 0 && f[0] == "Z" {
			return // a zombie: its parent (gone) no longer reaps it, init will
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// statFields reads the fields of /proc/<pid>/stat after the command name.
func statFields(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return nil, errors.New("unreadable stat")
	}
	return strings.Fields(string(b[i+1:])), nil
}

// startTime is a process's start time, in clock ticks since boot.
func startTime(pid int) (uint64, error) {
	f, err := statFields(pid)
	if err != nil || len(f) < 20 {
		return 0, fmt.Errorf("no process %d", pid)
	}
	var v uint64
	_, err = fmt.Sscan(f[19], &v) // field 22 of stat
	return v, err
}
