package dataplane

import (
	"bytes"
	"io"
	"log/slog"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"nodedesk/app"
	"nodedesk/app/kit"
)

// pollerKinds are the two ways the fabric reads its UDP endpoints: io_uring
// (decision 0052, where the kernel has it) and the epoll fallback.
var pollerKinds = []struct {
	name   string
	noRing bool
}{{"io_uring", false}, {"epoll", true}}

// kindFabric is an empty fabric whose pollers are of kind noRing; it
// fails the test when io_uring is asked for but its pollers are not on a
// ring (where the kernel has io_uring), or the other way round.
func kindFabric(t *testing.T, noRing bool) *Fabric {
	t.Helper()
	f := NewFabric("127.0.0.1", slog.New(slog.NewTextHandler(io.Discard, nil)))
	f.noRing = noRing
	t.Cleanup(f.Close)
	return f
}

// eachPollerKind runs test on a fabric of each kind of poller, as a
// subtest named for it.
func eachPollerKind(t *testing.T, test func(t *testing.T, f *Fabric)) {
	for _, k := range pollerKinds {
		t.Run(k.name, func(t *testing.T) {
			needKind(t, k.noRing)
			test(t, kindFabric(t, k.noRing))
		})
	}
}

// needKind ends a test of the io_uring poller (noRing false) where the
// kernel has no io_uring, visibly (kit.Unavailable): the fabric would run
// epoll, and an io_uring test must not pass on epoll.
func needKind(t *testing.T, noRing bool) {
	t.Helper()
	if !noRing && !ringWorks() {
		kit.Unavailable(t, "io_uring is not available in this kernel (or kernel.io_uring_disabled is set): the fabric runs its epoll poller, tested by the epoll subtests")
	}
}

// checkKind fails the test unless every poller of f is of the kind asked.
func checkKind(t *testing.T, f *Fabric) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.readers.pollers) == 0 {
		t.Fatal("no poller runs")
	}
	want := !f.noRing && ringWorks()
	for _, p := range f.readers.pollers {
		if (p.ring != nil) != want {
			t.Fatalf("a poller on io_uring: %v, want %v", p.ring != nil, want)
		}
	}
}

// udpPortOf is c's port.
func udpPortOf(c *net.UDPConn) int { return c.LocalAddr().(*net.UDPAddr).Port }

// sendTo sends frame from c to port on 127.0.0.1.
func sendTo(t *testing.T, c *net.UDPConn, port int, frame []byte) {
	t.Helper()
	if _, err := c.WriteToUDP(frame, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port}); err != nil {
		t.Fatal(err)
	}
}

// arrives sends frames from c to port until one of them reaches dst (at
// most 50 tries of 100 ms: the endpoints may still be starting).
func arrives(t *testing.T, c *net.UDPConn, port int, dst *net.UDPConn, frame []byte) bool {
	t.Helper()
	buf := make([]byte, MaxFrame+1)
	for range 50 {
		sendTo(t, c, port, frame)
		_ = dst.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		for {
			n, err := dst.Read(buf)
			if err != nil {
				break
			}
			if bytes.Equal(buf[:n], frame) {
				_ = dst.SetReadDeadline(time.Time{})
				return true
			}
		}
	}
	return false
}

// A hop (two VPCS linked directly) carries frames of every size both
// ways, in order and unchanged, on either kind of poller; a giant is
// dropped and the endpoint goes on.
func TestPoller_HopBothWays(t *testing.T) {
	eachPollerKind(t, func(t *testing.T, f *Fabric) {
		h1, h2 := listenLoopback(t), listenLoopback(t)
		r1, r2 := freeUDPPort(t), freeUDPPort(t)
		f.Load(relayTopology("relay", udpPortOf(h1), r1, udpPortOf(h2), r2))
		checkKind(t, f)
		if !arrives(t, h1, r1, h2, relayFrame(64, 1, 2, 0, 0)) {
			t.Fatal("no frame crossed the hop")
		}
		sendTo(t, h1, r1, make([]byte, MaxFrame+100)) // a giant: dropped
		buf := make([]byte, MaxFrame+1)
		for i, size := range []int{64, 512, 1500, MaxFrame, 60, 1500} {
			for dir, c := range [][2]*net.UDPConn{{h1, h2}, {h2, h1}} {
				src, dst, port := c[0], c[1], r1
				if dir == 1 {
					port = r2
				}
				frames := make([][]byte, 40) // more than a batch, sent at once
				if size > 1500 {
					frames = frames[:8] // what the test's socket buffer holds
				}
				for j := range frames {
					frames[j] = relayFrame(size, 1, 2, uint32(i), uint64(j))
					sendTo(t, src, port, frames[j])
				}
				_ = dst.SetReadDeadline(time.Now().Add(5 * time.Second))
				for j := range frames {
					n, err := dst.Read(buf)
					if err != nil {
						t.Fatalf("%d bytes, direction %d: frame %d of %d missing: %v", size, dir, j, len(frames), err)
					}
					if !bytes.Equal(buf[:n], frames[j]) {
						t.Fatalf("%d bytes, direction %d: frame %d arrived as %d bytes, or out of order", size, dir, j, n)
					}
				}
			}
		}
	})
}

// A NIO pair: two UDP endpoints of one cloud that talk to each other, so
// that a poller sends to its own socket and reads what it sent. A frame
// from n1 crosses n1's link, the pair, and n2's link.
func TestPoller_NIOPairToItself(t *testing.T) {
	eachPollerKind(t, func(t *testing.T, f *Fabric) {
		h1, h2 := listenLoopback(t), listenLoopback(t)
		r1, r2, a, b := freeUDPPort(t), freeUDPPort(t), freeUDPPort(t), freeUDPPort(t)
		nodes, _ := relayTopology("relay", udpPortOf(h1), r1, udpPortOf(h2), r2)
		cloud := &app.Node{ID: "c", Type: app.Cloud, Properties: app.Properties{CloudPorts: []app.CloudPort{
			{Name: "a", PortNumber: 0, Type: "udp", LPort: a, RHost: "127.0.0.1", RPort: b},
			{Name: "b", PortNumber: 1, Type: "udp", LPort: b, RHost: "127.0.0.1", RPort: a},
		}}}
		link := func(id, x string, xp int, y string, yp int) *app.Link {
			return &app.Link{ID: id, Nodes: []app.LinkEnd{{NodeID: x, PortNumber: xp}, {NodeID: y, PortNumber: yp}}}
		}
		f.Load(append(nodes, cloud), []*app.Link{link("l1", "n1", 0, "c", 0), link("l2", "c", 1, "n2", 0)})
		checkKind(t, f)
		if !arrives(t, h1, r1, h2, relayFrame(64, 1, 2, 1, 1)) {
			t.Fatal("no frame crossed n1 → pair → n2")
		}
		if !arrives(t, h2, r2, h1, relayFrame(1500, 2, 1, 1, 2)) {
			t.Fatal("no frame crossed n2 → pair → n1")
		}
	})
}

// Endpoints closed and opened again while frames pour in on every one of
// them: nothing hangs, the ports are released, and the endpoints opened
// afterwards carry frames.
func TestPoller_CloseDuringTraffic(t *testing.T) {
	eachPollerKind(t, func(t *testing.T, f *Fabric) {
		h1, h2 := listenLoopback(t), listenLoopback(t)
		r1, r2 := freeUDPPort(t), freeUDPPort(t)
		nodes, links := relayTopology("relay", udpPortOf(h1), r1, udpPortOf(h2), r2)
		f.Load(nodes, links)
		checkKind(t, f)
		var stop atomic.Bool
		var wg sync.WaitGroup
		for _, c := range [][2]any{{h1, r1}, {h2, r2}} {
			wg.Add(1)
			go func(src *net.UDPConn, port int) {
				defer wg.Done()
				frame := relayFrame(512, 1, 2, 9, 9)
				for !stop.Load() {
					_, _ = src.WriteToUDP(frame, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port})
				}
			}(c[0].(*net.UDPConn), c[1].(int))
		}
		stopWriters := sync.OnceFunc(func() { stop.Store(true); wg.Wait() })
		defer stopWriters() // a failure below leaves no sender running into the next test
		// n2 stops and starts: its endpoint closes and opens on the same port.
		for range 30 {
			stopped := *nodes[1]
			stopped.Status = app.Stopped
			f.Apply(app.Event{Action: app.EventNodeUpdated, Payload: &stopped})
			f.Apply(app.Event{Action: app.EventNodeUpdated, Payload: nodes[1]})
			if f.topo.Load().udp[end{"n2", 0, 0}] == nil {
				t.Fatal("n2's endpoint did not open again on its port: the last one was not released")
			}
		}
		f.Close()                    // with traffic on both sockets
		g := kindFabric(t, f.noRing) // a closed fabric opens nothing: the next one binds the ports
		g.Load(nodes, links)
		if len(g.topo.Load().udp) != 2 {
			t.Fatal("the endpoints did not open again after Close: their ports were not released")
		}
		stopWriters()
		if !arrives(t, h1, r1, h2, relayFrame(64, 1, 2, 3, 3)) {
			t.Fatal("no frame crossed the hop after the endpoints opened again")
		}
	})
}

// A frame sent to a port nobody listens on is refused (ICMP port
// unreachable): that frame is lost, but the endpoint that sent it, and
// the others, go on; once its peer listens, frames reach it.
func TestPoller_RefusedSendBreaksNothing(t *testing.T) {
	eachPollerKind(t, func(t *testing.T, f *Fabric) {
		h1, h3, h4 := listenLoopback(t), listenLoopback(t), listenLoopback(t)
		deaf := freeUDPPort(t) // n2's process is not up
		r1, r2, r3, r4 := freeUDPPort(t), freeUDPPort(t), freeUDPPort(t), freeUDPPort(t)
		nodes, links := relayTopology("relay", udpPortOf(h1), r1, deaf, r2)
		more, more2 := relayTopology("relay", udpPortOf(h3), r3, udpPortOf(h4), r4)
		more[0].ID, more[1].ID = "n3", "n4"
		more2[0].ID, more2[0].Nodes[0].NodeID, more2[0].Nodes[1].NodeID = "l2", "n3", "n4"
		f.Load(append(nodes, more...), append(links, more2...))
		checkKind(t, f)
		for i := range 200 { // refused again and again
			sendTo(t, h1, r1, relayFrame(64, 1, 2, 4, uint64(i)))
		}
		if !arrives(t, h3, r3, h4, relayFrame(64, 3, 4, 4, 1)) {
			t.Fatal("another link stopped carrying frames after refused sends")
		}
		if !arrives(t, h4, r4, h3, relayFrame(64, 4, 3, 4, 2)) {
			t.Fatal("another link stopped carrying frames back after refused sends")
		}
		h2, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: deaf})
		if err != nil {
			t.Fatal(err)
		}
		defer h2.Close()
		if !arrives(t, h1, r1, h2, relayFrame(64, 1, 2, 4, 3)) {
			t.Fatal("n1's frames no longer reach n2 once it listens")
		}
		if !arrives(t, h2, r2, h1, relayFrame(64, 2, 1, 4, 4)) {
			t.Fatal("n2's endpoint, whose sends were refused, no longer reads")
		}
	})
}

// The io_uring poller's thread allocates nothing per frame: frames sent
// through a hop make next to no allocations in the whole process.
func TestPoller_RingZeroAllocs(t *testing.T) {
	needKind(t, false)
	f := kindFabric(t, false)
	h1, h2 := listenLoopback(t), listenLoopback(t)
	r1, r2 := freeUDPPort(t), freeUDPPort(t)
	f.Load(relayTopology("relay", udpPortOf(h1), r1, udpPortOf(h2), r2))
	checkKind(t, f)
	if !arrives(t, h1, r1, h2, relayFrame(64, 1, 2, 0, 0)) { // warm: the poller holds both sockets
		t.Fatal("no frame crossed the hop")
	}
	const frames = 2000
	frame := relayFrame(512, 1, 2, 5, 5)
	dst := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: r1}
	buf := make([]byte, 2048)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := 0
	_ = h2.SetReadDeadline(time.Now().Add(10 * time.Second))
	for i := 0; i < frames; i++ {
		_, _ = h1.WriteToUDP(frame, dst)
		if i%16 == 15 { // read as we go: the socket buffers never fill
			for range 16 {
				if _, err := h2.Read(buf); err == nil {
					got++
				}
			}
		}
	}
	runtime.ReadMemStats(&after)
	if got < frames/2 {
		t.Fatalf("%d of %d frames crossed", got, frames)
	}
	if allocs := after.Mallocs - before.Mallocs; allocs > frames/20 {
		t.Fatalf("%d allocations in the process for %d frames: the ring path allocates per frame", allocs, frames)
	}
}
