package dataplane

import (
	"bytes"
	"encoding/binary"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"nodedesk/app"
	"nodedesk/app/kit"
)

// The watch (watch.go): what crossed a wire, told through app.WireWatch.

var (
	pc1MAC = net.HardwareAddr{0x00, 0x50, 0x79, 0x66, 0x68, 0x00}
	pc2MAC = net.HardwareAddr{0x00, 0x50, 0x79, 0x66, 0x68, 0x01}
	pc1IP  = net.IPv4(10, 0, 0, 1)
	pc2IP  = net.IPv4(10, 0, 0, 2)
	gwIP   = net.IPv4(10, 0, 0, 254)
)

// tagged is frame with an 802.1Q tag of vlan after its addresses.
func tagged(frame []byte, vlan uint16) []byte {
	out := append([]byte(nil), frame[:12]...)
	out = binary.BigEndian.AppendUint16(out, 0x8100)
	out = binary.BigEndian.AppendUint16(out, vlan)
	return append(out, frame[12:]...)
}

// seenOn is what the relay fabric's only link saw.
func seenOn(t *testing.T, hf *hotFabric) app.WireSeen {
	t.Helper()
	s := hf.f.WireSeen("")
	if len(s) != 1 || s[0].LinkID != "l1" {
		t.Fatalf("WireSeen: %+v, want link l1 only", s)
	}
	return s[0]
}

// TestWatch_KindsCounted: each kind of frame that crosses a link is
// counted under its kind (and "any"), a tagged one also under its VLAN.
func TestWatch_KindsCounted(t *testing.T) {
	hf := newHotFabric(t, "relay") // carries two 0x88b5 frames to begin with
	n1 := end{"n1", 0, 0}
	ospf := kit.ICMPEcho(8, kit.Broadcast, pc1MAC, pc1IP, net.IPv4(224, 0, 0, 5), 1, 1, 98)
	ospf[14+9] = 89
	stp := append([]byte{0x01, 0x80, 0xc2, 0, 0, 0}, pc1MAC...)
	stp = append(stp, 0, 38, 0x42, 0x42, 0x03)
	stp = append(stp, make([]byte, 40)...)
	cdp := append([]byte{0x01, 0x00, 0x0c, 0xcc, 0xcc, 0xcc}, pc1MAC...)
	cdp = append(cdp, make([]byte, 50)...)
	lldp := append([]byte{0x01, 0x80, 0xc2, 0, 0, 0x0e}, pc1MAC...)
	lldp = append(binary.BigEndian.AppendUint16(lldp, 0x88cc), make([]byte, 46)...)
	for _, fr := range [][]byte{
		kit.ARP(1, kit.Broadcast, pc1MAC, pc1IP, nil, pc2IP),
		kit.ICMPEcho(8, pc2MAC, pc1MAC, pc1IP, pc2IP, 1, 1, 98),
		ospf, stp, cdp, lldp,
		kit.DHCPDiscover(pc1MAC),
		tagged(kit.ICMPEcho(8, pc2MAC, pc1MAC, pc1IP, pc2IP, 1, 2, 98), 10),
	} {
		hf.carry(n1, fr)
	}
	kinds := seenOn(t, hf).Kinds
	want := map[string]uint64{"any": 10, "arp": 1, "ipv4": 4, "icmp": 2, "ospf": 1, "stp": 1, "cdp": 1, "lldp": 1, "dhcp": 1, "tagged": 1, "vlan:10": 1}
	for k, n := range want {
		if kinds[k].Count != n || kinds[k].Last.IsZero() {
			t.Errorf("kind %s: %+v, want %d frames with a time", k, kinds[k], n)
		}
	}
	if len(kinds) != len(want) {
		t.Errorf("kinds %v, want only %v", kinds, want)
	}
}

// TestWatch_LMIOnFrameRelay: on a serial link, Frame Relay's LMI and its
// IPv4 are told apart; the capture slice is Frame Relay's.
func TestWatch_LMIOnFrameRelay(t *testing.T) {
	h1, h2 := listenLoopback(t), listenLoopback(t)
	nodes, links := relayTopology("relay", h1.LocalAddr().(*net.UDPAddr).Port, freeUDPPort(t), h2.LocalAddr().(*net.UDPAddr).Port, freeUDPPort(t))
	links[0].LinkType = "serial"
	f := NewFabric("127.0.0.1", slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(f.Close)
	f.Load(nodes, links)
	hf := &hotFabric{f: f, w: newWorker(f), h1: h1, h2: h2}
	enquiry := []byte{0x00, 0x01, lmiUI, lmiPD, lmiCallRef, lmiEnquiry, lmiLockShift, 0x01, 0x01, 0x01, 0x03, 0x02, 0x01, 0x00}
	hi, lo := q922Address(102)
	ip := kit.ICMPEcho(8, pc2MAC, pc1MAC, pc1IP, pc2IP, 1, 1, 98)[14:]
	data := append([]byte{hi, lo, 0x03, 0xcc}, ip...)
	hf.carry(end{"n1", 0, 0}, enquiry)
	hf.carry(end{"n1", 0, 0}, data)
	s := seenOn(t, hf)
	if s.Kinds["lmi"].Count != 1 || s.Kinds["icmp"].Count != 1 || s.Kinds["any"].Count != 2 {
		t.Errorf("kinds %v, want one LMI and one ICMP frame", s.Kinds)
	}
	if len(s.Recent) != 2 || s.Recent[0].Summary != "LMI status enquiry on DLCI 0" || s.Recent[1].Summary != "Frame Relay DLCI 102: ICMP echo request 10.0.0.1 > 10.0.0.2" {
		t.Errorf("recent %+v", s.Recent)
	}
	pcap, n := f.CaptureSlice("l1", app.FramesLMI, 10)
	r, err := pcapgo.NewReader(bytes.NewReader(pcap))
	if err != nil || n != 1 || r.LinkType() != layers.LinkTypeFRelay {
		t.Fatalf("capture slice: %d frames, %v, link type %v", n, err, r.LinkType())
	}
	if got, _, err := r.ReadPacketData(); err != nil || !bytes.Equal(got, enquiry) {
		t.Errorf("captured %x, %v; want the enquiry", got, err)
	}
}

// TestWatch_ARPAndTags: ARP senders claim their addresses, from the end
// they sent at; asks are counted and marked answered by a reply; a tag is
// told at the end it arrived at; the recent frames say what they are.
func TestWatch_ARPAndTags(t *testing.T) {
	hf := newHotFabric(t, "relay")
	n1, n2 := end{"n1", 0, 0}, end{"n2", 0, 0}
	for range 3 {
		hf.carry(n1, kit.ARP(1, kit.Broadcast, pc1MAC, pc1IP, nil, gwIP))
	}
	hf.carry(n1, kit.ARP(1, kit.Broadcast, pc1MAC, pc1IP, nil, pc2IP))
	hf.carry(n2, kit.ARP(2, pc1MAC, pc2MAC, pc2IP, pc1MAC, pc1IP))
	hf.carry(n2, tagged(kit.ARP(1, kit.Broadcast, pc2MAC, pc2IP, nil, pc1IP), 30))
	s := seenOn(t, hf)

	if len(s.MACs) != 2 || s.MACs[0].MAC != pc1MAC.String() || !slices.Equal(s.MACs[0].IPv4, []string{"10.0.0.1"}) || s.MACs[0].From.NodeID != "n1" ||
		s.MACs[1].MAC != pc2MAC.String() || !slices.Equal(s.MACs[1].IPv4, []string{"10.0.0.2"}) || s.MACs[1].From.NodeID != "n2" {
		t.Errorf("MACs %+v", s.MACs)
	}
	asks := map[string]app.ARPAsk{}
	for _, a := range s.Asks {
		asks[a.AskerMAC+">"+a.Target] = a
	}
	if a := asks[pc1MAC.String()+">10.0.0.254"]; a.Asks != 3 || a.Answered || a.AskerIPv4 != "10.0.0.1" {
		t.Errorf("ask for the gateway: %+v", a)
	}
	if a := asks[pc1MAC.String()+">10.0.0.2"]; a.Asks != 1 || !a.Answered {
		t.Errorf("ask for 10.0.0.2: %+v", a)
	}
	if len(s.Tags) != 1 || s.Tags[0].VLAN != 30 || s.Tags[0].At.NodeID != "n1" || s.Tags[0].Count != 1 {
		t.Errorf("tags %+v, want VLAN 30 arrived at n1", s.Tags)
	}
	var lines []string
	for _, r := range s.Recent {
		lines = append(lines, r.From.NodeID+" "+string(r.Kind)+" "+r.Summary)
	}
	want := []string{
		"n1 arp ARP who-has 10.0.0.254 tell 10.0.0.1", "n1 arp ARP who-has 10.0.0.254 tell 10.0.0.1", "n1 arp ARP who-has 10.0.0.254 tell 10.0.0.1",
		"n1 arp ARP who-has 10.0.0.2 tell 10.0.0.1", "n2 arp ARP 10.0.0.2 is-at 00:50:79:66:68:01", "n2 arp VLAN 30: ARP who-has 10.0.0.1 tell 10.0.0.2",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("recent:\n%q\nwant\n%q", lines, want)
	}
	// The capture slice holds the newest ARP frames, whole (< 256 bytes).
	pcap, n := hf.f.CaptureSlice("l1", app.FramesARP, 2)
	r, err := pcapgo.NewReader(bytes.NewReader(pcap))
	if err != nil || n != 2 {
		t.Fatalf("capture slice: %d frames, %v", n, err)
	}
	first, _, _ := r.ReadPacketData()
	if !bytes.Equal(first, kit.ARP(2, pc1MAC, pc2MAC, pc2IP, pc1MAC, pc1IP)) {
		t.Errorf("first captured frame %x, want the reply", first)
	}
	if _, n := hf.f.CaptureSlice("l1", "vlan:30", 10); n != 1 {
		t.Errorf("vlan:30 slice: %d frames, want 1", n)
	}
	// A deleted link's records go with it.
	hf.f.Apply(app.Event{Action: app.EventLinkDeleted, Payload: &app.Link{ID: "l1", Nodes: []app.LinkEnd{{NodeID: "n1"}, {NodeID: "n2"}}}})
	if s := hf.f.WireSeen(""); len(s) != 0 {
		t.Errorf("after the link's delete: %+v", s)
	}
	if _, n := hf.f.CaptureSlice("l1", app.FramesAny, 10); n != 0 {
		t.Errorf("after the link's delete, the slice holds %d frames", n)
	}
}

// TestWatch_Bounded: a flood of ARP from random MACs asking for random
// addresses, and long frames, keep every table within its bound, and
// watching an interesting frame allocates nothing, so memory stays put.
func TestWatch_Bounded(t *testing.T) {
	hf := newHotFabric(t, "relay")
	rng := rand.New(rand.NewPCG(1, 2))
	mac := make(net.HardwareAddr, 6)
	for i := range 20000 {
		binary.BigEndian.PutUint32(mac[2:], rng.Uint32())
		mac[0] = 0x02
		fr := kit.ARP(1, kit.Broadcast, mac, net.IPv4(10, 1, byte(i>>8), byte(i)), nil, net.IPv4(10, 2, byte(i>>8), byte(i)))
		fr = append(fr, make([]byte, 1000)...) // longer than a copy
		hf.carry(end{"n1", 0, 0}, fr)
	}
	s := seenOn(t, hf)
	if len(s.MACs) > watchMACs || len(s.Asks) > watchAsks || len(s.Recent) != watchRecent || s.Kinds["arp"].Count != 20000 {
		t.Errorf("%d MACs, %d asks, %d recent, %d ARP counted", len(s.MACs), len(s.Asks), len(s.Recent), s.Kinds["arp"].Count)
	}
	if len(s.MACs) < watchMACs/2 {
		t.Errorf("only %d MACs kept of a flood", len(s.MACs))
	}
	pcap, n := hf.f.CaptureSlice("l1", app.FramesAny, 1000)
	r, _ := pcapgo.NewReader(bytes.NewReader(pcap))
	data, ci, err := r.ReadPacketData()
	if n != watchRecent || err != nil || len(data) != watchCopy || ci.Length != 1060 {
		t.Errorf("slice: %d frames; first %d bytes of %d, %v", n, len(data), ci.Length, err)
	}
	// A trunk carrying every VLAN keeps the first pairs it saw.
	for vlan := range uint16(4000) {
		hf.carry(end{"n1", 0, 0}, tagged(relayFrame(64, 1, 2, 1, 1), vlan+1))
	}
	s = seenOn(t, hf)
	if len(s.Tags) > watchTags || len(s.Tags) < watchTags/2 || s.Kinds["tagged"].Count != 4000 {
		t.Errorf("%d (VLAN, end) pairs kept of 4000, %d tagged frames counted", len(s.Tags), s.Kinds["tagged"].Count)
	}
	fr := kit.ARP(1, kit.Broadcast, pc1MAC, pc1IP, nil, gwIP)
	if allocs := testing.AllocsPerRun(200, func() { hf.carry(end{"n1", 0, 0}, fr) }); allocs != 0 {
		t.Errorf("watching an ARP frame: %v allocations", allocs)
	}
}

// TestWatch_Concurrent: frames carried on one wire by several workers at
// once, while the watch is read, are all counted, and (under -race) the
// watch has no data race: it is all atomics.
func TestWatch_Concurrent(t *testing.T) {
	hf := newHotFabric(t, "relay")
	const workers, each = 4, 2000
	var wg sync.WaitGroup
	for i := range workers {
		wg.Go(func() {
			w := newWorker(hf.f)
			src := net.HardwareAddr{0x02, 0, 0, 0, 0, byte(i)}
			for j := range each {
				w.now = w.now.Add(1)
				fr := kit.ARP(1, kit.Broadcast, src, net.IPv4(10, 0, 1, byte(i)), nil, net.IPv4(10, 0, 2, byte(j%50)))
				if j%2 == 1 {
					fr = tagged(kit.ICMPEcho(8, pc2MAC, src, pc1IP, pc2IP, 1, uint16(j), 98), uint16(i+1))
				}
				w.input(end{"n1", 0, 0}, fr)
				w.flush()
			}
		})
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 50 {
			_ = hf.f.WireSeen("")
			_, _ = hf.f.CaptureSlice("l1", app.FramesICMP, 8)
		}
	}()
	wg.Wait()
	<-done
	s := seenOn(t, hf)
	if s.Kinds["arp"].Count != workers*each/2 || s.Kinds["icmp"].Count != workers*each/2 || s.Kinds["any"].Count != workers*each+2 {
		t.Errorf("kinds %v", s.Kinds)
	}
	if len(s.Tags) != workers {
		t.Errorf("tags %+v, want one per worker's VLAN", s.Tags)
	}
	for _, r := range s.Recent {
		if r.Summary == "" || (r.Kind != app.FramesARP && r.Kind != app.FramesICMP) {
			t.Errorf("recent frame %+v", r)
		}
	}
}

// BenchmarkWatchSee is the watch's own cost per frame: a bulk frame (one
// counter), and interesting ones (tables and the ring).
func BenchmarkWatchSee(b *testing.B) {
	ww := newWireWatch()
	for _, c := range []struct {
		name  string
		frame []byte
	}{
		{"bulk/64", relayFrame(64, 1, 2, 1, 1)},
		{"bulk/1500", relayFrame(1500, 1, 2, 1, 1)},
		{"arp", kit.ARP(1, kit.Broadcast, pc1MAC, pc1IP, nil, gwIP)},
		{"icmp/98", kit.ICMPEcho(8, pc2MAC, pc1MAC, pc1IP, pc2IP, 1, 1, 98)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			now := time.Now().UnixNano()
			for b.Loop() {
				now += 1000
				ww.see(now, 1, c.frame)
			}
		})
	}
}

// TestWatch_ClosedProjectDropsRecords: closing a project drops what its
// wires saw; opened again, its links start afresh.
func TestWatch_ClosedProjectDropsRecords(t *testing.T) {
	hf := newHotFabric(t, "relay")
	hf.carry(end{"n1", 0, 0}, kit.ARP(1, kit.Broadcast, pc1MAC, pc1IP, nil, gwIP))
	if s := seenOn(t, hf); len(s.MACs) != 1 {
		t.Fatalf("before the close: %+v", s.MACs)
	}
	hf.f.Apply(app.Event{Action: app.EventProjectClosed, Payload: &app.Project{ID: "", Status: app.ProjectClosed}})
	if s := hf.f.WireSeen(""); len(s) != 0 {
		t.Errorf("after the close: %+v", s)
	}
	if _, n := hf.f.CaptureSlice("l1", app.FramesAny, 10); n != 0 {
		t.Errorf("after the close, the slice holds %d frames", n)
	}
}
