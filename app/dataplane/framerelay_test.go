package dataplane

import (
	"bytes"
	"net"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"nodedesk/app"
)

// Bits of a Q.922 2-byte address other than the DLCI, by byte.
const (
	tCR   = 0x02 // byte 0: command/response
	tFECN = 0x08 // byte 1
	tBECN = 0x04 // byte 1
	tDE   = 0x02 // byte 1
)

// frNode returns a frame_relay_switch node with mappings m.
func frNode(m map[string]string) *app.Node {
	return &app.Node{Type: app.FrameRelaySwitch, Properties: app.Properties{Mappings: m}}
}

// newFR returns a switch configured with m.
func newFR(t testing.TB, m map[string]string) *FrameRelaySwitch {
	t.Helper()
	f := NewFrameRelaySwitch()
	f.Configure(frNode(m))
	return f
}

// frFrame builds a frame on dlci from the Q.922 layout: byte 0 holds the
// DLCI's high 6 bits, C/R and EA=0, byte 1 its low 4 bits, FECN, BECN, DE
// and EA=1. b0 and b1 are extra address bits (tCR; tFECN, tBECN, tDE).
func frFrame(dlci int, b0, b1 byte, payload ...byte) []byte {
	return append([]byte{byte(dlci>>4)<<2 | b0, byte(dlci&0x0f)<<4 | 0x01 | b1}, payload...)
}

// input runs one frame through f and returns what it emitted, copied.
func input(f *FrameRelaySwitch, port int, frame []byte) []Emitted {
	out := NewOut(8, 4*MaxFrame)
	f.Input(port, frame, out)
	var got []Emitted
	for _, e := range out.Frames() {
		got = append(got, Emitted{e.Port, slices.Clone(e.Frame)})
	}
	return got
}

func TestFrameRelay_Switch(t *testing.T) {
	f := newFR(t, map[string]string{"1:101": "2:202", "3:300": "1:102", "1:1023": "3:16"})
	payload := []byte{0x03, 0xcc, 0x45, 0x00, 0xde, 0xad}
	tests := []struct {
		name               string
		port, dlci         int
		b0, b1             byte
		wantPort, wantDLCI int
	}{
		{"1:101 to 2:202", 1, 101, 0, 0, 2, 202},
		{"2:202 back to 1:101", 2, 202, 0, 0, 1, 101},
		{"1:102 to 3:300", 1, 102, 0, 0, 3, 300},
		{"3:300 back to 1:102", 3, 300, 0, 0, 1, 102},
		{"C/R kept", 1, 101, tCR, 0, 2, 202},
		{"FECN BECN DE kept", 2, 202, 0, tFECN | tBECN | tDE, 1, 101},
		{"all bits kept", 3, 300, tCR, tFECN | tBECN | tDE, 1, 102},
		{"mapped DLCI 1023 is switched", 1, 1023, 0, 0, 3, 16},
		{"to DLCI 1023", 3, 16, 0, tDE, 1, 1023},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := frFrame(tt.dlci, tt.b0, tt.b1, payload...)
			orig := slices.Clone(in)
			got := input(f, tt.port, in)
			want := []Emitted{{tt.wantPort, frFrame(tt.wantDLCI, tt.b0, tt.b1, payload...)}}
			if !emittedEqual(got, want) {
				t.Fatalf("emitted %x, want %x", got, want)
			}
			if !bytes.Equal(in, orig) {
				t.Fatalf("input frame modified: %x, was %x", in, orig)
			}
		})
	}
}

// emittedEqual compares emissions.
func emittedEqual(a, b []Emitted) bool {
	return slices.EqualFunc(a, b, func(x, y Emitted) bool { return x.Port == y.Port && bytes.Equal(x.Frame, y.Frame) })
}

func TestFrameRelay_BothDirectionsOnce(t *testing.T) {
	for _, m := range []map[string]string{
		{"1:101": "2:202", "2:202": "1:101"},
		{"2:202": "1:101"},
		{"1:101": "2:202"},
	} {
		f := newFR(t, m)
		want := []Circuit{{Port: 1, DLCI: 101, FarPort: 2, FarDLCI: 202}}
		if got := f.Circuits(); !slices.Equal(got, want) {
			t.Fatalf("%v: circuits %+v, want %+v", m, got, want)
		}
		if got := input(f, 1, frFrame(101, 0, 0, 1, 2, 3)); len(got) != 1 || got[0].Port != 2 {
			t.Fatalf("%v: 1:101 emitted %x, want one frame on port 2", m, got)
		}
		if got := input(f, 2, frFrame(202, 0, 0, 1, 2, 3)); len(got) != 1 || got[0].Port != 1 {
			t.Fatalf("%v: 2:202 emitted %x, want one frame on port 1", m, got)
		}
		want[0].Forward, want[0].Reverse = 1, 1
		if got := f.Circuits(); !slices.Equal(got, want) {
			t.Fatalf("%v: circuits %+v, want %+v", m, got, want)
		}
	}
}

func TestFrameRelay_ConflictingEndsFirstKeyWins(t *testing.T) {
	// app refuses such mappings; the engine still decides the same way
	// whatever the map order: the entry of the lowest key is mapped.
	for range 20 {
		f := newFR(t, map[string]string{"3:303": "2:202", "1:101": "2:202", "4:4": "4:4"})
		want := []Circuit{{Port: 1, DLCI: 101, FarPort: 2, FarDLCI: 202}}
		if got := f.Circuits(); !slices.Equal(got, want) {
			t.Fatalf("circuits %+v, want %+v", got, want)
		}
	}
}

func TestFrameRelay_Drops(t *testing.T) {
	f := newFR(t, map[string]string{"1:101": "2:202", "5:0": "6:60"})
	giant := frFrame(101, 0, 0, make([]byte, MaxFrame-1)...)
	tests := []struct {
		name  string
		port  int
		frame []byte
		want  FrameRelayDrops
	}{
		{"unknown DLCI", 1, frFrame(102, 0, 0, 1), FrameRelayDrops{NoCircuit: 1}},
		{"DLCI of another port", 2, frFrame(101, 0, 0, 1), FrameRelayDrops{NoCircuit: 1}},
		{"port without circuits", 7, frFrame(101, 0, 0, 1), FrameRelayDrops{NoCircuit: 1}},
		{"negative port", -1, frFrame(101, 0, 0, 1), FrameRelayDrops{NoCircuit: 1}},
		{"huge port", 1 << 40, frFrame(101, 0, 0, 1), FrameRelayDrops{NoCircuit: 1}},
		{"unmapped DLCI 1023 that is not LMI (LMI Invalid)", 1, frFrame(1023, 0, 0, 0x03, 0xcc), FrameRelayDrops{}},
		{"LMI DLCI on a port without circuits", 7, frFrame(0, 0, 0, 0x03, 0x08), FrameRelayDrops{NoCircuit: 1}},
		{"nil", 1, nil, FrameRelayDrops{Malformed: 1}},
		{"1 byte", 1, []byte{0x18}, FrameRelayDrops{Malformed: 1}},
		{"address only", 1, frFrame(101, 0, 0), FrameRelayDrops{Malformed: 1}},
		{"giant", 1, giant, FrameRelayDrops{Malformed: 1}},
		{"EA set in byte 0", 1, []byte{0x19, 0x51, 0x03}, FrameRelayDrops{Malformed: 1}},
		{"3-byte address", 1, []byte{0x18, 0x50, 0x01, 0x03}, FrameRelayDrops{Malformed: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := f.Drops()
			if got := input(f, tt.port, tt.frame); len(got) != 0 {
				t.Fatalf("emitted %x, want nothing", got)
			}
			after := f.Drops()
			got := FrameRelayDrops{after.Malformed - before.Malformed, after.NoCircuit - before.NoCircuit, after.NoRoom - before.NoRoom}
			if got != tt.want {
				t.Fatalf("drops %+v, want %+v", got, tt.want)
			}
		})
	}
	// DLCI 0 is LMI, never switched, even when mapped (as dynamips).
	if got := input(f, 5, frFrame(0, 0, 0, 0x03, 0xcc, 1)); len(got) != 0 {
		t.Fatalf("mapped DLCI 0 emitted %x, want nothing", got)
	}
	// The largest frame still passes.
	if got := input(f, 1, giant[:MaxFrame]); len(got) != 1 || len(got[0].Frame) != MaxFrame {
		t.Fatalf("MaxFrame bytes: emitted %d frames, want one of %d bytes", len(got), MaxFrame)
	}
}

func TestFrameRelay_NoRoom(t *testing.T) {
	f := newFR(t, map[string]string{"1:101": "2:202"})
	out := NewOut(4, 16)
	f.Input(1, frFrame(101, 0, 0, make([]byte, 20)...), out)
	if len(out.Frames()) != 0 || out.Dropped != 1 || f.Drops().NoRoom != 1 {
		t.Fatalf("frames %d, Out.Dropped %d, drops %+v; want 0, 1, NoRoom 1", len(out.Frames()), out.Dropped, f.Drops())
	}
	if c := f.Circuits()[0]; c.Forward != 0 {
		t.Fatalf("Forward = %d for a frame not emitted", c.Forward)
	}
}

func TestFrameRelay_Reconfigure(t *testing.T) {
	f := newFR(t, map[string]string{"1:101": "2:202", "1:102": "3:302"})
	input(f, 1, frFrame(101, 0, 0, 9))
	input(f, 1, frFrame(102, 0, 0, 9))
	input(f, 1, ansiEnquiry(lmiReportLIV, 1, 0))

	// 1:102 goes, 1:103 comes, 1:101 <-> 2:202 stays (written the other way).
	f.Configure(frNode(map[string]string{"2:202": "1:101", "1:103": "4:403"}))
	if got := input(f, 1, frFrame(102, 0, 0, 9)); len(got) != 0 {
		t.Fatalf("removed circuit still switches: %x", got)
	}
	if got := input(f, 1, frFrame(103, 0, 0, 9)); !emittedEqual(got, []Emitted{{4, frFrame(403, 0, 0, 9)}}) {
		t.Fatalf("new circuit emitted %x", got)
	}
	want := []Circuit{
		{Port: 1, DLCI: 101, FarPort: 2, FarDLCI: 202, Forward: 1},
		{Port: 1, DLCI: 103, FarPort: 4, FarDLCI: 403, Forward: 1},
	}
	if got := f.Circuits(); !slices.Equal(got, want) {
		t.Fatalf("circuits %+v, want %+v", got, want)
	}
	// Port 1 keeps its LMI sequence; port 3 is gone, port 4 is new.
	st := f.LMIStats()
	if len(st) != 3 || st[0].Port != 1 || st[0].SendSeq != 1 || st[0].LinkIntegrity != 1 || st[1].Port != 2 || st[2].Port != 4 {
		t.Fatalf("LMI stats %+v", st)
	}
	// No mappings at all: nothing switches.
	f.Configure(frNode(nil))
	f.Configure(nil)
	if got := input(f, 1, frFrame(101, 0, 0, 9)); len(got) != 0 || len(f.Circuits()) != 0 || len(f.LMIStats()) != 0 {
		t.Fatalf("after clearing: emitted %x, circuits %v, LMI %v", got, f.Circuits(), f.LMIStats())
	}
}

func TestFrameRelay_ReconfigureWhileRunning(t *testing.T) {
	f := newFR(t, map[string]string{"1:101": "2:202"})
	configs := []map[string]string{
		{"1:101": "2:202"},
		{"1:101": "2:202", "1:102": "3:302"},
		{"2:202": "1:101", "2:203": "3:303"},
	}
	const rounds = 300
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			out := NewOut(8, 2*MaxFrame)
			frames := [][]byte{frFrame(101, 0, 0, 1, 2), frFrame(202, 0, 0, 1, 2), ansiEnquiry(lmiReportFull, 1, 0), frFrame(102, 0, 0, 1)}
			for i := range rounds {
				out.Reset(int64(i))
				f.Input(1+i%2, frames[(g+i)%len(frames)], out)
				for _, e := range out.Frames() {
					if len(e.Frame) < 2 {
						t.Errorf("emitted runt %x", e.Frame)
					}
				}
				if i%50 == 0 {
					_, _ = f.Circuits(), f.LMIStats()
				}
			}
		})
	}
	wg.Go(func() {
		for i := range rounds {
			f.Configure(frNode(configs[i%len(configs)]))
		}
	})
	wg.Wait()
	// 1:101 <-> 2:202 is in every configuration: it always switched.
	c := f.Circuits()[0]
	if c.Port != 1 || c.DLCI != 101 || c.Forward+c.Reverse == 0 {
		t.Fatalf("circuit %+v", c)
	}
	if got := input(f, 1, frFrame(101, 0, 0, 7)); !emittedEqual(got, []Emitted{{2, frFrame(202, 0, 0, 7)}}) {
		t.Fatalf("after the run 1:101 emitted %x", got)
	}
}

func TestFrameRelay_NoAllocs(t *testing.T) {
	f := newFR(t, map[string]string{"1:101": "2:202", "1:102": "3:302"})
	tests := []struct {
		name  string
		frame []byte
	}{
		{"switched", frFrame(101, 0, 0, make([]byte, 1500)...)},
		{"LMI full status", ansiEnquiry(lmiReportFull, 1, 0)},
		{"LMI link integrity", ciscoEnquiry(lmiReportLIV, 1, 0)},
		{"unknown DLCI", frFrame(999, 0, 0, 1)},
	}
	out := NewOut(8, 2*MaxFrame)
	for _, tt := range tests {
		allocs := testing.AllocsPerRun(200, func() {
			out.Reset(0)
			f.Input(1, tt.frame, out)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per frame, want 0", tt.name, allocs)
		}
	}
}

// udpSwitchPort serves one port of f over UDP until conn is closed, the
// deadline passes or max datagrams were read: each datagram is a frame in,
// each emitted frame goes from its port's socket to that port's router.
func udpSwitchPort(f *FrameRelaySwitch, port int, conns map[int]*net.UDPConn, routers map[int]*net.UDPAddr, deadline time.Time, max int) {
	buf := make([]byte, MaxFrame+1)
	out := NewOut(8, 2*MaxFrame)
	conn := conns[port]
	for range max {
		if conn.SetReadDeadline(deadline) != nil {
			return
		}
		n, _, err := conn.ReadFromUDP(buf)
		if err != nil {
			return
		}
		out.Reset(time.Now().UnixNano())
		f.Input(port, buf[:n], out)
		for _, e := range out.Frames() {
			if c, r := conns[e.Port], routers[e.Port]; c != nil && r != nil {
				_, _ = c.WriteToUDP(e.Frame, r)
			}
		}
	}
}

// exchange sends frame from router to the switch port at to and returns
// the next datagram router receives (within 2 s).
func exchange(t *testing.T, router, to *net.UDPConn, frame []byte, from *net.UDPConn) []byte {
	t.Helper()
	if _, err := router.WriteToUDP(frame, to.LocalAddr().(*net.UDPAddr)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, MaxFrame)
	from.SetReadDeadline(time.Now().Add(2 * time.Second))
	n, _, err := from.ReadFromUDP(buf)
	if err != nil {
		t.Fatalf("no datagram: %v", err)
	}
	return buf[:n]
}

func TestFrameRelay_UDPPeer(t *testing.T) {
	f := newFR(t, map[string]string{"1:102": "2:201"})
	r1, r2 := listenLoopback(t), listenLoopback(t)
	conns := map[int]*net.UDPConn{1: listenLoopback(t), 2: listenLoopback(t)}
	routers := map[int]*net.UDPAddr{1: r1.LocalAddr().(*net.UDPAddr), 2: r2.LocalAddr().(*net.UDPAddr)}
	deadline := time.Now().Add(10 * time.Second)
	var wg sync.WaitGroup
	for port := range conns {
		wg.Go(func() { udpSwitchPort(f, port, conns, routers, deadline, 100) })
	}
	defer wg.Wait()
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()

	ip := []byte{0x03, 0xcc, 0x45, 0x00, 0x00, 0x14}
	if got, want := exchange(t, r1, conns[1], frFrame(102, 0, tBECN, ip...), r2), frFrame(201, 0, tBECN, ip...); !bytes.Equal(got, want) {
		t.Fatalf("router 2 got %x, want %x", got, want)
	}
	if got, want := exchange(t, r2, conns[2], frFrame(201, tCR, 0, ip...), r1), frFrame(102, tCR, 0, ip...); !bytes.Equal(got, want) {
		t.Fatalf("router 1 got %x, want %x", got, want)
	}
	want := []byte{0x00, 0x01, 0x03, 0x08, 0x00, 0x7d, 0x95, 0x01, 0x01, 0x00, 0x03, 0x02, 0x01, 0x01, 0x07, 0x03, 0x06, 0xb0, 0x82}
	if got := exchange(t, r1, conns[1], ansiEnquiry(lmiReportFull, 1, 0), r1); !bytes.Equal(got, want) {
		t.Fatalf("router 1 LMI reply %x, want %x", got, want)
	}
	want = []byte{0xfc, 0xf1, 0x03, 0x09, 0x00, 0x7d, 0x01, 0x01, 0x00, 0x03, 0x02, 0x01, 0x01, 0x07, 0x06, 0x00, 0xc9, 0x02, 0x00, 0x00, 0x00}
	if got := exchange(t, r2, conns[2], ciscoEnquiry(lmiReportFull, 1, 0), r2); !bytes.Equal(got, want) {
		t.Fatalf("router 2 LMI reply %x, want %x", got, want)
	}
}

func FuzzFrameRelayInput(f *testing.F) {
	f.Add(uint8(1), frFrame(101, 0, 0, 0x03, 0xcc, 0x45))
	f.Add(uint8(2), frFrame(202, tCR, tFECN|tDE, 0x03))
	f.Add(uint8(1), ansiEnquiry(lmiReportFull, 1, 0))
	f.Add(uint8(1), q933Enquiry(lmiReportLIV, 7, 6))
	f.Add(uint8(2), ciscoEnquiry(lmiReportFull, 255, 254))
	f.Add(uint8(1), []byte{0x00, 0x01, 0x03, 0x08, 0x00, 0x75, 0x95, 0x01, 0xff})
	f.Add(uint8(1), []byte{0x00, 0x01, 0x03, 0x08, 0x00, 0x75, 0x51, 0x01})
	f.Add(uint8(3), []byte{0xfc, 0xf1})
	f.Add(uint8(0), []byte{})
	sw := newFR(f, map[string]string{"1:101": "2:202", "1:1023": "3:0", "2:5": "3:7"})
	out := NewOut(8, 2*MaxFrame)
	f.Fuzz(func(t *testing.T, port uint8, frame []byte) {
		orig := slices.Clone(frame)
		out.Reset(0)
		p := int(port % 4)
		sw.Input(p, frame, out)
		if !bytes.Equal(frame, orig) {
			t.Fatalf("input modified: %x, was %x", frame, orig)
		}
		for _, e := range out.Frames() {
			switched := len(e.Frame) == len(frame) && bytes.Equal(e.Frame[2:], frame[2:])
			status := e.Port == p && len(e.Frame) >= 13 && e.Frame[5] == lmiStatus
			if !switched && !status {
				t.Fatalf("port %d frame %x: emitted %x on port %d", p, frame, e.Frame, e.Port)
			}
		}
	})
}

func BenchmarkFrameRelayInput(b *testing.B) {
	m := map[string]string{}
	for d := 16; d < 16+200; d++ {
		m["1:"+strconv.Itoa(d)] = "2:" + strconv.Itoa(d+300)
	}
	f := newFR(b, m)
	benches := []struct {
		name  string
		frame []byte
	}{
		{"switch-64B", frFrame(100, 0, 0, make([]byte, 62)...)},
		{"switch-1500B", frFrame(100, 0, 0, make([]byte, 1500)...)},
		{"unknown-DLCI", frFrame(999, 0, 0, make([]byte, 62)...)},
		{"LMI-link-integrity", ansiEnquiry(lmiReportLIV, 1, 0)},
		{"LMI-full-200-PVCs", ansiEnquiry(lmiReportFull, 1, 0)},
	}
	for _, bb := range benches {
		b.Run(bb.name, func(b *testing.B) {
			out := NewOut(8, 2*MaxFrame)
			b.ReportAllocs()
			b.SetBytes(int64(len(bb.frame)))
			for b.Loop() {
				out.Reset(0)
				f.Input(1, bb.frame, out)
			}
		})
	}
	b.Run("switch-64B-parallel", func(b *testing.B) {
		frame := frFrame(100, 0, 0, make([]byte, 62)...)
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			out := NewOut(8, 2*MaxFrame)
			for pb.Next() {
				out.Reset(0)
				f.Input(1, frame, out)
			}
		})
	})
}
