// Package procrecord keeps a record of each emulator process a runner
// starts (QEMU guests, Dynamips routers; app/supervise keeps them for the
// runner and reaps them at Open), in a folder of the runner's, while it
// runs: a nodedesk that was killed (kill -9, a crash, a power cut of the
// session) finds at its next start the processes it left and ends them,
// since a process nobody supervises holds its ports and CPU for nothing. A
// record names the process by PID and start time, so a PID another program
// reused is never killed.
package procrecord

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// record is what is kept of one running process.
type record struct {
	PID int `json:"pid"`
	// Started is the process's start time in clock ticks since boot
	// (/proc/<pid>/stat): a PID reused by another program does not match.
	Started uint64 `json:"started"`
	NodeID  string `json:"node_id"`
	Name    string `json:"name"`
}

// Records are a runner's records, in a folder of their own.
type Records struct {
	// Dir is the folder; "" keeps no records.
	Dir string
	// What names a process for the log: "QEMU guest", "Dynamips router".
	What   string
	Logger *slog.Logger
}

// Path is the file of the record of a node's process.
func (rs Records) Path(nodeID string) string {
	return filepath.Join(rs.Dir, nodeID+".json")
}

// Keep writes the record of a node's process that has started (it leads
// its own process group).
func (rs Records) Keep(nodeID, name string, pid int) error {
	if rs.Dir == "" {
		return nil
	}
	started, err := startTime(pid)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(rs.Dir, 0o700); err != nil {
		return err
	}
	b, _ := json.Marshal(record{PID: pid, Started: started, NodeID: nodeID, Name: name})
	tmp := rs.Path(nodeID) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, rs.Path(nodeID))
}

// Forget removes the record of a node's process that has ended.
func (rs Records) Forget(nodeID string) {
	if rs.Dir != "" {
		_ = os.Remove(rs.Path(nodeID))
	}
}

// ReapOrphans ends every process a previous nodedesk left running, by its
// records, and removes the records: what nodedesk does at start-up. It
// returns the names of the nodes whose process it ended.
func (rs Records) ReapOrphans() ([]string, error) {
	if rs.Dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(rs.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var ended []string
	for _, e := range entries {
		path := filepath.Join(rs.Dir, e.Name())
		if !strings.HasSuffix(e.Name(), ".json") {
			_ = os.Remove(path) // a record half written
			continue
		}
		var rec record
		b, err := os.ReadFile(path)
		if err == nil && json.Unmarshal(b, &rec) == nil && rec.PID > 0 {
			if st, err := startTime(rec.PID); err == nil && st == rec.Started {
				KillGroup(rec.PID)
				ended = append(ended, rec.Name)
				if rs.Logger != nil {
					rs.Logger.Warn("ended a "+rs.What+" left running by a previous nodedesk", "node", rec.Name, "pid", rec.PID)
				}
			}
		}
		_ = os.Remove(path)
	}
	return ended, nil
}

// KillGroup kills a process's group (it leads its own) and waits, a
// bounded time, for it to be gone.
func KillGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = syscall.Kill(pid, syscall.SIGKILL)
	for range 100 {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		if st, err := State(pid); err == nil && st == "Z" {
			return // a zombie: its parent (gone) no longer reaps it, init will
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// StatFields reads the fields of /proc/<pid>/stat after the command name
// (the first is its state; the 12th and 13th its user and system time).
func StatFields(pid int) ([]string, error) {
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
	f, err := StatFields(pid)
	if err != nil || len(f) < 20 {
		return 0, fmt.Errorf("no process %d", pid)
	}
	var v uint64
	_, err = fmt.Sscan(f[19], &v) // field 22 of stat
	return v, err
}

// State is a process's state letter ("R", "S", "Z"…).
func State(pid int) (string, error) {
	f, err := StatFields(pid)
	if err != nil || len(f) < 1 {
		return "", fmt.Errorf("no process %d", pid)
	}
	return f[0], nil
}
