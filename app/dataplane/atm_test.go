package dataplane

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"nodedesk/app"
)

// atmNode returns an atm_switch node with mappings m, stored as the
// Service stores them.
func atmNode(tb testing.TB, id string, m map[string]string) *app.Node {
	tb.Helper()
	raw, err := json.Marshal(m)
	if err != nil {
		tb.Fatal(err)
	}
	return &app.Node{ID: id, Type: app.ATMSwitch, Status: app.Started,
		Properties: app.Properties{Extra: map[string]json.RawMessage{"mappings": raw}}}
}

// newATM returns a switch configured with m.
func newATM(tb testing.TB, m map[string]string) *ATMSwitch {
	tb.Helper()
	s := NewATMSwitch()
	s.Configure(atmNode(tb, "atm", m))
	return s
}

// atmCell builds a 53-byte cell from the UNI/NNI header layout: VPI in
// the top 12 bits, then VCI (16), PTI (3) and CLP (1), the HEC, and 48
// bytes of payload, each fill.
func atmCell(vpi, vci int, pti, clp byte, fill byte) []byte {
	c := make([]byte, ATMCellSize)
	c[0] = byte(vpi >> 4)
	c[1] = byte(vpi<<4) | byte(vci>>12)
	c[2] = byte(vci >> 4)
	c[3] = byte(vci<<4) | pti<<1 | clp
	c[4] = atmHEC(c)
	for i := atmHeaderSize; i < ATMCellSize; i++ {
		c[i] = fill
	}
	return c
}

// atmInput runs one cell through s and returns what it emitted, copied.
func atmInput(s *ATMSwitch, port int, cell []byte) []Emitted {
	out := NewOut(8, 4*ATMCellSize)
	s.Input(port, cell, out)
	var got []Emitted
	for _, e := range out.Frames() {
		got = append(got, Emitted{e.Port, slices.Clone(e.Frame)})
	}
	return got
}

// TestATM_HEC: the HEC of ITU-T I.432's own cells (idle: 00 00 00 01 52;
// unassigned: 00 00 00 00 55), the value a PA-A1 and dynamips' switch put
// in byte 4.
func TestATM_HEC(t *testing.T) {
	for _, tc := range []struct {
		header []byte
		want   byte
	}{
		{[]byte{0, 0, 0, 1}, 0x52},
		{[]byte{0, 0, 0, 0}, 0x55},
	} {
		if got := atmHEC(tc.header); got != tc.want {
			t.Errorf("HEC of % x = %#02x, want %#02x", tc.header, got, tc.want)
		}
	}
}

func TestATM_Switch(t *testing.T) {
	s := newATM(t, map[string]string{"1:10:100": "2:20:200", "3:0:32": "1:1:33", "1:5": "3:7", "2:4095": "4:0"})
	tests := []struct {
		name             string
		port, vpi, vci   int
		pti, clp         byte
		wantPort         int
		wantVPI, wantVCI int
	}{
		{"VC rewrites VPI and VCI", 1, 10, 100, 0, 0, 2, 20, 200},
		{"VC back", 2, 20, 200, 0, 0, 1, 10, 100},
		{"VC keeps PTI and CLP", 1, 10, 100, 0b011, 1, 2, 20, 200},
		{"VC to a VPI of 1 on the same port as a path", 3, 0, 32, 0b001, 0, 1, 1, 33},
		{"VP rewrites the VPI, keeps the VCI", 1, 5, 42, 0, 0, 3, 7, 42},
		{"VP back, any VCI", 3, 7, 65535, 0b100, 1, 1, 5, 65535},
		{"VP highest VPI", 2, 4095, 0, 0, 0, 4, 0, 0},
		{"VP to highest VPI", 4, 0, 1234, 0b010, 0, 2, 4095, 1234},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := atmCell(tt.vpi, tt.vci, tt.pti, tt.clp, 0xa5)
			orig := slices.Clone(in)
			got := atmInput(s, tt.port, in)
			want := []Emitted{{tt.wantPort, atmCell(tt.wantVPI, tt.wantVCI, tt.pti, tt.clp, 0xa5)}}
			if !emittedEqual(got, want) {
				t.Fatalf("emitted %x, want %x", got, want)
			}
			if !bytes.Equal(in, orig) {
				t.Fatalf("input cell modified: %x, was %x", in, orig)
			}
		})
	}
}

func TestATM_BothDirectionsOnce(t *testing.T) {
	for _, m := range []map[string]string{
		{"1:10:100": "2:20:200", "2:20:200": "1:10:100"},
		{"2:20:200": "1:10:100"},
		{"1:10:100": "2:20:200"},
	} {
		s := newATM(t, m)
		if got := atmInput(s, 1, atmCell(10, 100, 0, 0, 1)); len(got) != 1 || got[0].Port != 2 {
			t.Fatalf("%v: 1:10:100 emitted %x, want one cell on port 2", m, got)
		}
		if got := atmInput(s, 2, atmCell(20, 200, 0, 0, 1)); len(got) != 1 || got[0].Port != 1 {
			t.Fatalf("%v: 2:20:200 emitted %x, want one cell on port 1", m, got)
		}
		want := []ATMConnection{{Ends: app.ATMConnection{{Port: 1, VPI: 10, VCI: 100}, {Port: 2, VPI: 20, VCI: 200}}, Forward: 1, Reverse: 1}}
		if got := s.Connections(); !slices.Equal(got, want) {
			t.Fatalf("%v: connections %+v, want %+v", m, got, want)
		}
	}
}

func TestATM_Drops(t *testing.T) {
	s := newATM(t, map[string]string{"1:10:100": "2:20:200", "3:5": "4:6"})
	tests := []struct {
		name string
		port int
		cell []byte
		want ATMDrops
	}{
		{"unknown VCI", 1, atmCell(10, 101, 0, 0, 0), ATMDrops{NoConnection: 1}},
		{"unknown VPI", 1, atmCell(11, 100, 0, 0, 0), ATMDrops{NoConnection: 1}},
		{"VC of another port", 2, atmCell(10, 100, 0, 0, 0), ATMDrops{NoConnection: 1}},
		{"VP of another port", 4, atmCell(5, 1, 0, 0, 0), ATMDrops{NoConnection: 1}},
		{"unmapped port", 9, atmCell(10, 100, 0, 0, 0), ATMDrops{NoConnection: 1}},
		{"short", 1, atmCell(10, 100, 0, 0, 0)[:52], ATMDrops{Malformed: 1}},
		{"long", 1, append(atmCell(10, 100, 0, 0, 0), 0), ATMDrops{Malformed: 1}},
		{"empty", 1, nil, ATMDrops{Malformed: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := s.Drops()
			if got := atmInput(s, tt.port, tt.cell); len(got) != 0 {
				t.Fatalf("emitted %x, want nothing", got)
			}
			after := s.Drops()
			got := ATMDrops{after.Malformed - before.Malformed, after.NoConnection - before.NoConnection, after.NoRoom - before.NoRoom}
			if got != tt.want {
				t.Fatalf("drops %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestATM_NoRoom(t *testing.T) {
	s := newATM(t, map[string]string{"1:10:100": "2:20:200"})
	out := NewOut(8, ATMCellSize-1)
	s.Input(1, atmCell(10, 100, 0, 0, 0), out)
	if len(out.Frames()) != 0 || s.Drops().NoRoom != 1 {
		t.Fatalf("emitted %d cells, drops %+v; want none and one NoRoom", len(out.Frames()), s.Drops())
	}
}

// TestATM_Reconfigure: a new configuration applies at once; connections
// that remain keep their counters, removed ones stop switching.
func TestATM_Reconfigure(t *testing.T) {
	s := newATM(t, map[string]string{"1:10:100": "2:20:200", "1:5": "3:7"})
	atmInput(s, 1, atmCell(10, 100, 0, 0, 0))
	atmInput(s, 1, atmCell(5, 1, 0, 0, 0))
	s.Configure(atmNode(t, "atm", map[string]string{"1:10:100": "2:20:200", "1:6": "3:7"}))
	if got := atmInput(s, 1, atmCell(5, 1, 0, 0, 0)); len(got) != 0 {
		t.Fatalf("a removed path still switches: %x", got)
	}
	if got := atmInput(s, 1, atmCell(6, 1, 0, 0, 0)); len(got) != 1 || got[0].Port != 3 {
		t.Fatalf("the new path emitted %x, want a cell on port 3", got)
	}
	want := []ATMConnection{
		{Ends: app.ATMConnection{{Port: 1, VPI: 6, VCI: app.ATMPath}, {Port: 3, VPI: 7, VCI: app.ATMPath}}, Forward: 1},
		{Ends: app.ATMConnection{{Port: 1, VPI: 10, VCI: 100}, {Port: 2, VPI: 20, VCI: 200}}, Forward: 1},
	}
	if got := s.Connections(); !slices.Equal(got, want) {
		t.Fatalf("connections %+v, want %+v", got, want)
	}
	s.Configure(nil)
	if got := atmInput(s, 1, atmCell(10, 100, 0, 0, 0)); len(got) != 0 || len(s.Connections()) != 0 {
		t.Fatalf("with no mappings: emitted %x, connections %+v", got, s.Connections())
	}
}

func TestATM_NoAllocs(t *testing.T) {
	s := newATM(t, map[string]string{"1:10:100": "2:20:200", "1:5": "3:7"})
	out := NewOut(8, 4*ATMCellSize)
	for _, cell := range [][]byte{atmCell(10, 100, 0, 0, 0), atmCell(5, 9, 0, 0, 0), atmCell(1, 1, 0, 0, 0)} {
		allocs := testing.AllocsPerRun(200, func() {
			out.Reset(0)
			s.Input(1, cell, out)
		})
		if allocs != 0 {
			t.Errorf("cell %x: %v allocations, want 0", cell[:5], allocs)
		}
	}
}

// TestATM_CellsOverUDPNIOs: GNS3's controller gives an ATM switch one UDP
// NIO per port, as to dynamips' atmsw; here the far ends are the test's
// sockets on 127.0.0.1 standing for PA-A1 ports, one cell a datagram.
// Cells cross by VC and VP, both ways, rewritten with a correct HEC;
// unmapped and malformed ones do not; a capture of port 1 holds its
// cells, both ways, as a pcap of ATM cells.
func TestATM_CellsOverUDPNIOs(t *testing.T) {
	f := NewFabric("127.0.0.1", slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer f.Close()
	sw := atmNode(t, "atm", map[string]string{"1:10:100": "2:20:200", "1:5": "3:7"})
	f.Load([]*app.Node{sw}, nil)

	capture := filepath.Join(t.TempDir(), "atm1.pcap")
	peers, lports, nios := map[int]*net.UDPConn{}, map[int]int{}, map[int]*app.NIO{}
	for _, port := range []int{1, 2, 3} {
		peers[port], lports[port] = listenLoopback(t), freeUDPPort(t)
		nios[port] = &app.NIO{ProjectID: "p", NodeID: "atm", PortNumber: port, Type: app.NIOTypeUDP, LPort: lports[port],
			RHost: "127.0.0.1", RPort: peers[port].LocalAddr().(*net.UDPAddr).Port}
		if port == 1 {
			nios[port].Capturing, nios[port].CaptureFilePath, nios[port].CaptureDataLinkType = true, &capture, "DLT_ATM_RFC1483"
		}
		f.Apply(app.Event{Action: app.EventNIOCreated, Payload: nios[port]})
	}
	send := func(from int, cell []byte) {
		t.Helper()
		if _, err := peers[from].WriteToUDP(cell, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: lports[from]}); err != nil {
			t.Fatal(err)
		}
	}
	// next reads the next datagram that reaches port's far end, or nil.
	next := func(port int, wait time.Duration) []byte {
		buf := make([]byte, 2048)
		_ = peers[port].SetReadDeadline(time.Now().Add(wait))
		n, err := peers[port].Read(buf)
		if err != nil {
			return nil
		}
		return buf[:n]
	}
	// The NIOs' sockets are read from the moment Apply returns; the
	// first cell is sent again until it crosses, in case it is not.
	first, firstOut := atmCell(10, 100, 0, 0, 0x01), atmCell(20, 200, 0, 0, 0x01)
	crossed := false
	for range 20 {
		send(1, first)
		if got := next(2, 250*time.Millisecond); bytes.Equal(got, firstOut) {
			crossed = true
			break
		}
	}
	if !crossed {
		t.Fatal("no cell crossed from port 1 to port 2 by VC 10/100 -> 20/200")
	}
	// Leftover copies of the first cell are read away by each check,
	// which looks for its own cell (each has its own payload).
	expect := func(from int, in []byte, to int, want []byte) {
		t.Helper()
		send(from, in)
		deadline := time.Now().Add(3 * time.Second)
		for time.Now().Before(deadline) {
			got := next(to, time.Until(deadline))
			if bytes.Equal(got, want) {
				return
			}
			if got != nil && got[ATMCellSize-1] == want[ATMCellSize-1] {
				t.Fatalf("port %d -> %d: got % x, want % x", from, to, got, want)
			}
		}
		t.Fatalf("port %d -> %d: no cell; want % x", from, to, want)
	}
	expect(2, atmCell(20, 200, 0b001, 1, 0x02), 1, atmCell(10, 100, 0b001, 1, 0x02)) // VC back, PTI and CLP kept
	expect(1, atmCell(5, 77, 0, 0, 0x03), 3, atmCell(7, 77, 0, 0, 0x03))             // VP: VPI rewritten, VCI kept
	expect(3, atmCell(7, 65535, 0b100, 0, 0x04), 1, atmCell(5, 65535, 0b100, 0, 0x04))

	// Unmapped and malformed cells do not cross; a marker sent after them
	// on the same path is the next thing port 2 sees.
	eng := f.topo.Load().engines["atm"].(*ATMSwitch)
	before := eng.Drops()
	send(1, atmCell(10, 101, 0, 0, 0x05))            // unmapped VCI
	send(1, atmCell(6, 100, 0, 0, 0x05))             // unmapped VPI
	send(1, atmCell(10, 100, 0, 0, 0x05)[:52])       // short
	send(1, append(atmCell(10, 100, 0, 0, 0x05), 0)) // long
	expect(1, atmCell(10, 100, 0, 0, 0x06), 2, atmCell(20, 200, 0, 0, 0x06))
	after := eng.Drops()
	if got := (ATMDrops{after.Malformed - before.Malformed, after.NoConnection - before.NoConnection, 0}); got != (ATMDrops{Malformed: 2, NoConnection: 2}) {
		t.Errorf("drops %+v, want 2 malformed and 2 of no connection", got)
	}
	for _, port := range []int{1, 3} {
		if got := next(port, 100*time.Millisecond); got != nil && got[ATMCellSize-1] == 0x05 {
			t.Errorf("a dropped cell reached port %d: % x", port, got)
		}
	}

	// Stopping the capture completes the file: port 1's cells, in and
	// out, each whole, under GNS3's ATM link type.
	stopped := *nios[1]
	stopped.Capturing = false
	f.Apply(app.Event{Action: app.EventNIOUpdated, Payload: &stopped})
	fh, err := os.Open(capture)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	r, err := pcapgo.NewReader(fh)
	if err != nil {
		t.Fatalf("the capture is not a pcap file: %v", err)
	}
	if r.LinkType() != layers.LinkTypeATM_RFC1483 {
		t.Errorf("capture link type %v, want ATM_RFC1483 (%d)", r.LinkType(), layers.LinkTypeATM_RFC1483)
	}
	var cells [][]byte
	for {
		data, _, err := r.ReadPacketData()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		cells = append(cells, data)
	}
	for _, want := range [][]byte{
		atmCell(10, 100, 0b001, 1, 0x02),  // out of port 1
		atmCell(5, 77, 0, 0, 0x03),        // into port 1
		atmCell(5, 65535, 0b100, 0, 0x04), // out of port 1
		atmCell(10, 100, 0, 0, 0x06),      // into port 1
	} {
		if !slices.ContainsFunc(cells, func(c []byte) bool { return bytes.Equal(c, want) }) {
			t.Errorf("the capture lacks cell % x; it has %d cells", want, len(cells))
		}
	}
}

// BenchmarkATMSwitchInput: cells switched per second by one core, VC and
// VP (the engine alone; the UDP tunnels cost what they cost every node).
func BenchmarkATMSwitchInput(b *testing.B) {
	s := newATM(b, map[string]string{"1:10:100": "2:20:200", "1:5": "3:7"})
	for _, bc := range []struct {
		name string
		cell []byte
	}{{"VC", atmCell(10, 100, 0, 0, 0)}, {"VP", atmCell(5, 9, 0, 0, 0)}} {
		b.Run(bc.name, func(b *testing.B) {
			out := NewOut(8, 4*ATMCellSize)
			b.SetBytes(ATMCellSize)
			b.ReportAllocs()
			for b.Loop() {
				out.Reset(0)
				s.Input(1, bc.cell, out)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cells/s")
		})
	}
}

// BenchmarkATMFabric: cells per second from one UDP endpoint (a PA-A1's
// port) through the ATM switch's VC to another, as the fabric's reader
// hands it each datagram, the UDP write included.
func BenchmarkATMFabric(b *testing.B) {
	h1, h2 := listenLoopback(b), listenLoopback(b)
	nodes, _ := relayTopology("relay", h1.LocalAddr().(*net.UDPAddr).Port, freeUDPPort(b), h2.LocalAddr().(*net.UDPAddr).Port, freeUDPPort(b))
	nodes = append(nodes, atmNode(b, "atm", map[string]string{"1:10:100": "2:20:200"}))
	link := func(id, n string, port int) *app.Link {
		return &app.Link{ID: id, Nodes: []app.LinkEnd{{NodeID: n}, {NodeID: "atm", PortNumber: port}}}
	}
	f := NewFabric("127.0.0.1", slog.New(slog.NewTextHandler(io.Discard, nil)))
	b.Cleanup(f.Close)
	f.Load(nodes, []*app.Link{link("l1", "n1", 1), link("l2", "n2", 2)})
	hf := &hotFabric{f: f, w: newWorker(f), h1: h1, h2: h2}
	cell := atmCell(10, 100, 0, 0, 0)
	hf.carry(end{"n1", 0, 0}, cell)
	buf := make([]byte, 2048)
	_ = h2.SetReadDeadline(time.Now().Add(2 * time.Second))
	if n, err := h2.Read(buf); err != nil || !bytes.Equal(buf[:n], atmCell(20, 200, 0, 0, 0)) {
		b.Fatalf("the cell did not cross the switch: % x, %v", buf[:n], err)
	}
	b.ReportAllocs()
	b.SetBytes(ATMCellSize)
	for b.Loop() {
		hf.carry(end{"n1", 0, 0}, cell)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cells/s")
}
