package dataplane

import (
	"encoding/binary"
	"io"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"nodedesk/app"
)

// The fabric's hot path, in process: one frame into a Fabric, through a
// direct link (relay) or an Ethernet switch that has learnt both hosts
// (switch), out of the far UDP endpoint. The same topologies serve the
// relay benchmark (relaybench_test.go), run in a child process.

// relayModes are the paths measured: a direct VPCS–VPCS link, and two VPCS
// linked to two access ports of one Ethernet switch.
var relayModes = []string{"relay", "switch"}

// relayHost is the MAC address of the benchmark's host n (1 or 2).
func relayHost(n byte) []byte { return []byte{0x02, 0x00, 0x5e, 0x10, 0x00, n} }

// relayFrame is an Ethernet frame of size bytes from host src to host dst
// (local experimental ethertype 0x88B5), with trial and seq after the
// header so a receiver can count and match it.
func relayFrame(size int, src, dst byte, trial uint32, seq uint64) []byte {
	f := make([]byte, max(size, 26))
	copy(f, relayHost(dst))
	copy(f[6:], relayHost(src))
	binary.BigEndian.PutUint16(f[12:], 0x88B5)
	stampFrame(f, trial, seq)
	return f
}

// stampFrame writes trial and seq into a frame made by relayFrame.
func stampFrame(f []byte, trial uint32, seq uint64) {
	binary.BigEndian.PutUint32(f[14:], trial)
	binary.BigEndian.PutUint64(f[18:], seq)
}

// frameStamp reads what stampFrame wrote; ok is false for a short frame.
func frameStamp(f []byte) (trial uint32, seq uint64, ok bool) {
	if len(f) < 26 {
		return 0, 0, false
	}
	return binary.BigEndian.Uint32(f[14:]), binary.BigEndian.Uint64(f[18:]), true
}

// relayTopology is mode's lab: VPCS n1 (its process on UDP port a1,
// nodedesk's end on r1) and n2 (a2, r2), linked directly (relay) or to
// ports 0 and 1 of switch sw, whose 8 ports are all access ports of VLAN
// 1 (switch).
func relayTopology(mode string, a1, r1, a2, r2 int) ([]*app.Node, []*app.Link) {
	nodes := []*app.Node{
		{ID: "n1", Type: app.VPCS, Status: app.Started, UDPPorts: []int{a1, r1}},
		{ID: "n2", Type: app.VPCS, Status: app.Started, UDPPorts: []int{a2, r2}},
	}
	link := func(id, a string, ap int, b string, bp int) *app.Link {
		return &app.Link{ID: id, Nodes: []app.LinkEnd{{NodeID: a, PortNumber: ap}, {NodeID: b, PortNumber: bp}}}
	}
	if mode == "relay" {
		return nodes, []*app.Link{link("l1", "n1", 0, "n2", 0)}
	}
	ports := make([]app.SwitchPort, 8)
	for i := range ports {
		ports[i] = swAccess(1)
	}
	nodes = append(nodes, ethSwitchNode(ports...))
	nodes[2].ID = "sw"
	return nodes, []*app.Link{link("l1", "n1", 0, "sw", 0), link("l2", "n2", 0, "sw", 1)}
}

// givenUDPPorts are the ports freeUDPPort returned in this process.
var givenUDPPorts struct {
	sync.Mutex
	m map[int]bool
}

// freeUDPPort returns a loopback UDP port that was free a moment ago and
// that it never returned before in this process: the kernel may hand out
// a port it just released again, and two endpoints of one test on the
// same port would fail to open (TestFabric_ClosedEndpointsEndTheirPollers
// draws 16).
func freeUDPPort(tb testing.TB) int {
	tb.Helper()
	givenUDPPorts.Lock()
	defer givenUDPPorts.Unlock()
	if givenUDPPorts.m == nil {
		givenUDPPorts.m = map[int]bool{}
	}
	for range 1000 { // bounded: the ephemeral range has ~28k ports
		c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			tb.Fatal(err)
		}
		port := c.LocalAddr().(*net.UDPAddr).Port
		_ = c.Close()
		if !givenUDPPorts.m[port] {
			givenUDPPorts.m[port] = true
			return port
		}
	}
	tb.Fatal("no UDP port that was not given before")
	return 0
}

// listenLoopback binds a UDP socket on a free loopback port.
func listenLoopback(tb testing.TB) *net.UDPConn {
	tb.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// hotFabric is a fabric carrying mode's lab in process, with the two
// VPCS played by sockets of the test.
type hotFabric struct {
	f      *Fabric
	w      *worker
	h1, h2 *net.UDPConn // the VPCS processes' sockets
}

// newHotFabric builds mode's lab; a switch has learnt both hosts.
func newHotFabric(tb testing.TB, mode string) *hotFabric {
	tb.Helper()
	h1, h2 := listenLoopback(tb), listenLoopback(tb)
	nodes, links := relayTopology(mode, h1.LocalAddr().(*net.UDPAddr).Port, freeUDPPort(tb),
		h2.LocalAddr().(*net.UDPAddr).Port, freeUDPPort(tb))
	f := NewFabric("127.0.0.1", slog.New(slog.NewTextHandler(io.Discard, nil)))
	tb.Cleanup(f.Close)
	f.Load(nodes, links)
	if len(f.topo.Load().udp) != 2 {
		tb.Fatal("the fabric has not opened both UDP endpoints")
	}
	hf := &hotFabric{f: f, w: newWorker(f), h1: h1, h2: h2}
	// Teach a switch both hosts, so that what is measured is unicast.
	hf.carry(end{"n2", 0, 0}, relayFrame(64, 2, 1, 0, 0))
	hf.carry(end{"n1", 0, 0}, relayFrame(64, 1, 2, 0, 0))
	if sw, ok := f.topo.Load().engines["sw"].(*EthernetSwitch); ok {
		if n := len(sw.MACTable(time.Now().UnixNano())); n != 2 {
			tb.Fatalf("the switch learnt %d addresses, want 2", n)
		}
	}
	return hf
}

// carry gives frame to the fabric as the reader of port from does, when
// it read one datagram.
func (hf *hotFabric) carry(from end, frame []byte) {
	hf.w.now = time.Now()
	hf.w.input(from, frame)
	hf.w.flush()
}

// TestFabric_ZeroAllocs: carrying a frame from a UDP endpoint through a
// link, or through a switch, to the far UDP endpoint allocates nothing.
func TestFabric_ZeroAllocs(t *testing.T) {
	for _, mode := range relayModes {
		hf := newHotFabric(t, mode)
		for _, size := range []int{64, 1500} {
			frame := relayFrame(size, 1, 2, 1, 1)
			if allocs := testing.AllocsPerRun(200, func() { hf.carry(end{"n1", 0, 0}, frame) }); allocs != 0 {
				t.Errorf("%s, %d bytes: %v allocations per frame", mode, size, allocs)
			}
		}
		// The frames arrived, and a switch sent them to n2 only.
		buf := make([]byte, MaxFrame)
		_ = hf.h2.SetReadDeadline(time.Now().Add(2 * time.Second))
		if n, err := hf.h2.Read(buf); err != nil || n < 64 {
			t.Errorf("%s: n2 received nothing: %v", mode, err)
		}
	}
}

// unwatch turns the wire watch off on every wire of f (watch.go), to
// measure what it costs.
func unwatch(f *Fabric) {
	for _, w := range f.topo.Load().links {
		w.watch = nil
	}
}

func BenchmarkFabricInput(b *testing.B) {
	for _, mode := range append(slices.Clone(relayModes), "relay-unwatched", "switch-unwatched") {
		for _, size := range []int{64, 512, 1500} {
			b.Run(mode+"/"+strconv.Itoa(size), func(b *testing.B) {
				base, unwatched := strings.CutSuffix(mode, "-unwatched")
				hf := newHotFabric(b, base)
				if unwatched {
					unwatch(hf.f)
				}
				frame := relayFrame(size, 1, 2, 1, 1)
				b.ReportAllocs()
				b.SetBytes(int64(size))
				for b.Loop() {
					hf.carry(end{"n1", 0, 0}, frame)
				}
			})
		}
	}
	// An IOU node's port (netio.go): into it (its header queued before the
	// frame) and out of it (the bridge's demultiplexing).
	for _, size := range []int{64, 1500} {
		frame := relayFrame(size, 1, 2, 1, 1)
		b.Run("netio-in/"+strconv.Itoa(size), func(b *testing.B) {
			h := newNetIOHot(b)
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for b.Loop() {
				h.in(frame)
			}
		})
		b.Run("netio-out/"+strconv.Itoa(size), func(b *testing.B) {
			h := newNetIOHot(b)
			d := h.datagram(frame)
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for b.Loop() {
				h.out(d)
			}
		})
	}
}

// TestFabric_ClosedOpensNothing: Close closes the ends carried and those
// kept for a start under way, and a change told after it (an event of a
// node that stopped as nodedesk quit) binds no port: a port left bound
// would be refused to the next lab ("held by nodedesk").
func TestFabric_ClosedOpensNothing(t *testing.T) {
	r1, r2 := freeUDPPort(t), freeUDPPort(t)
	nodes, links := relayTopology("relay", freeUDPPort(t), r1, freeUDPPort(t), r2)
	f := NewFabric("127.0.0.1", slog.New(slog.NewTextHandler(io.Discard, nil)))
	f.Load(nodes[:1], nil)                       // n1 carried: r1 bound
	if err := f.OpenEnds(nodes[1]); err != nil { // n2 starting: r2 kept
		t.Fatal(err)
	}
	f.Close()
	free := func(when string) {
		t.Helper()
		for _, port := range []int{r1, r2} {
			c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port})
			if err != nil {
				t.Fatalf("%s: port %d is still bound: %v", when, port, err)
			}
			c.Close()
		}
	}
	free("after Close")
	f.Load(nodes, links)
	if err := f.OpenEnds(nodes[1]); err == nil {
		t.Error("OpenEnds after Close kept an end")
	}
	free("after a change told after Close")
	if n := len(f.topo.Load().udp); n != 0 {
		t.Errorf("%d endpoints carried after Close", n)
	}
}
