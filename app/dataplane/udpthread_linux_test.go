package dataplane

import (
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"nodedesk/app"
)

// osThreads is how many OS threads this process has now.
func osThreads(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	t.Fatal("no Threads line in /proc/self/status")
	return 0
}

// waitThreads returns the number of OS threads once ok accepts it, or
// after 10 s.
func waitThreads(t *testing.T, ok func(int) bool) int {
	n := osThreads(t)
	for deadline := time.Now().Add(10 * time.Second); !ok(n) && time.Now().Before(deadline); n = osThreads(t) {
		time.Sleep(10 * time.Millisecond)
	}
	return n
}

// udpCloud is a cloud whose n ports are UDP tunnels bound to lports on
// 127.0.0.1, each talking to rport.
func udpCloud(lports []int, rport int) *app.Node {
	n := &app.Node{ID: "c", Type: app.Cloud}
	for i, lp := range lports {
		n.Properties.CloudPorts = append(n.Properties.CloudPorts, app.CloudPort{
			Name: "udp" + strconv.Itoa(i), PortNumber: i, Type: "udp", LPort: lp, RHost: "127.0.0.1", RPort: rport})
	}
	return n
}

// Each UDP endpoint is read on an OS thread of its own, blocked in the
// kernel (decision 0050): closing the endpoints must wake those threads
// and end them, release the ports at once, and leave no thread behind,
// however many endpoints a lab had.
func TestFabric_ClosedEndpointsEndTheirThreads(t *testing.T) {
	const ports = 16
	peer := listenLoopback(t)
	lports := make([]int, ports)
	for i := range lports {
		lports[i] = freeUDPPort(t)
	}
	before := osThreads(t)
	for round := range 2 { // the ports are free again after a close
		fab := NewFabric("127.0.0.1", slog.New(slog.NewTextHandler(io.Discard, nil)))
		fab.Load([]*app.Node{udpCloud(lports, peer.LocalAddr().(*net.UDPAddr).Port)}, nil)
		if got := len(fab.topo.Load().udp); got != ports {
			t.Fatalf("round %d: %d UDP endpoints open, want %d (the ports of the last round were not released)", round, got, ports)
		}
		// The readers start as their goroutines run: wait for them (bounded).
		got := waitThreads(t, func(n int) bool { return n >= before+ports })
		if got < before+ports {
			t.Fatalf("round %d: %d OS threads with %d endpoints open, want at least %d: endpoints are not read on threads of their own", round, got, ports, before+ports)
		}
		fab.Close() // returns once every reading thread has returned
		if got := len(fab.topo.Load().udp); got != 0 {
			t.Fatalf("round %d: %d UDP endpoints left after Close", round, got)
		}
		// A goroutine that ends locked to its thread ends the thread just
		// after it returns: wait for the kernel to reap them (bounded).
		now := waitThreads(t, func(n int) bool { return n < before+ports/2 })
		if now >= before+ports/2 {
			t.Fatalf("round %d: %d OS threads after Close, %d before the endpoints opened: the reading threads did not end", round, now, before)
		}
	}
}
