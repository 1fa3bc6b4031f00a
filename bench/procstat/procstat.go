//go:build linux

// Package procstat reads what processes cost while a benchmark drives
// them: CPU time and context switches of all their threads from /proc, and
// system calls counted by perf(1) when it is installed. Linux only; the
// benchmarks that use it (make bench-dataplane, make bench-gns3) are
// developers' tools, never part of make test.
package procstat

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Sample is the cost of a set of processes so far: the sum over all their
// threads.
type Sample struct {
	// CPU is the time they ran (schedstat's run time: utime+stime at
	// nanosecond resolution).
	CPU time.Duration
	// Switches counts context switches, voluntary (a thread went to sleep:
	// each wake-up ends one) and involuntary.
	Switches uint64
}

// Sub returns s - o.
func (s Sample) Sub(o Sample) Sample {
	return Sample{CPU: s.CPU - o.CPU, Switches: s.Switches - o.Switches}
}

// Read samples processes pids now. Threads that ended are not counted.
func Read(pids ...int) Sample {
	var s Sample
	for _, pid := range pids {
		dir := fmt.Sprintf("/proc/%d/task", pid)
		tasks, _ := os.ReadDir(dir)
		for _, task := range tasks {
			if b, err := os.ReadFile(filepath.Join(dir, task.Name(), "schedstat")); err == nil {
				if f := strings.Fields(string(b)); len(f) > 0 {
					ns, _ := strconv.ParseInt(f[0], 10, 64)
					s.CPU += time.Duration(ns)
				}
			}
			b, err := os.ReadFile(filepath.Join(dir, task.Name(), "status"))
			if err != nil {
				continue
			}
			for line := range strings.SplitSeq(string(b), "\n") {
				if k, v, ok := strings.Cut(line, ":"); ok && strings.HasSuffix(k, "ctxt_switches") {
					n, _ := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
					s.Switches += n
				}
			}
		}
	}
	return s
}

// HavePerf says whether perf(1) can count system calls here.
func HavePerf() bool {
	out, err := exec.Command("perf", "stat", "-x,", "-e", "raw_syscalls:sys_enter", "true").CombinedOutput()
	return err == nil && bytes.Contains(out, []byte("raw_syscalls:sys_enter"))
}

// Syscalls counts the system calls processes pids make while run runs,
// with perf stat attached to them (which slows each call a little: measure
// CPU time in another window).
func Syscalls(pids []int, run func()) (uint64, error) {
	ps := make([]string, len(pids))
	for i, p := range pids {
		ps[i] = strconv.Itoa(p)
	}
	cmd := exec.Command("perf", "stat", "-x,", "-e", "raw_syscalls:sys_enter", "-p", strings.Join(ps, ","))
	var out bytes.Buffer
	cmd.Stderr = &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	time.Sleep(150 * time.Millisecond) // perf attaches
	run()
	_ = cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
	for line := range strings.SplitSeq(out.String(), "\n") {
		f := strings.Split(line, ",")
		if len(f) > 2 && f[2] == "raw_syscalls:sys_enter" {
			return strconv.ParseUint(f[0], 10, 64)
		}
	}
	return 0, errors.New("perf stat counted nothing: " + strings.TrimSpace(out.String()))
}
