package dataplane

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"nodedesk/app"
)

// The reading side of the watch (watch.go): app.WireWatch on the fabric.
// It runs outside the frame path and may take the fabric's lock.

var _ app.WireWatch = (*Fabric)(nil)

// WireSeen returns what crossed each link of a project the fabric carries
// (app.WireWatch), links in id order.
func (f *Fabric) WireSeen(projectID string) []app.WireSeen {
	f.mu.Lock()
	var ids []string
	for id, l := range f.linkRecs {
		if l.ProjectID == projectID {
			ids = append(ids, id)
		}
	}
	f.mu.Unlock()
	slices.Sort(ids)
	t := f.topo.Load()
	out := []app.WireSeen{}
	for _, id := range ids {
		if w := t.links[id]; w != nil && w.watch != nil {
			out = append(out, w.seen(id))
		}
	}
	return out
}

// seen reads what w's watch holds, as the domain names it.
func (w *wire) seen(linkID string) app.WireSeen {
	ww := w.watch
	endOf := func(i int) app.WireEnd {
		e := w.ends[i&1]
		return app.WireEnd{NodeID: e.node, AdapterNumber: e.adapter, PortNumber: e.port}
	}
	s := app.WireSeen{LinkID: linkID, Since: ww.since, Kinds: map[string]app.KindSeen{},
		MACs: []app.MACSeen{}, Asks: []app.ARPAsk{}, Tags: []app.TagSeen{}, Recent: []app.SeenFrame{}}
	var any app.KindSeen
	for k := range ww.kinds {
		n := ww.kinds[k].n.Load()
		if n == 0 {
			continue
		}
		ks := app.KindSeen{Count: n, Last: time.Unix(0, ww.kinds[k].last.Load())}
		if k == kIPv4 || k == kIPv6 || k == kARP || k == kSTP || k == kCDP || k == kLLDP || k == kLMI || k == kOther {
			any.Count += n // each frame has one of these kinds; ICMP, OSPF, DHCP are IPv4 too, tagged frames their inner kind
		}
		if ks.Last.After(any.Last) {
			any.Last = ks.Last
		}
		if k != kOther {
			s.Kinds[string(kindNames[k])] = ks
		}
	}
	if any.Count > 0 {
		s.Kinds[string(app.FramesAny)] = any
	}
	for i := range ww.macs {
		m := &ww.macs[i]
		key := m.key.Load()
		if key == 0 {
			continue
		}
		ms := app.MACSeen{MAC: macString(key), From: endOf(int(m.from.Load()) - 1), IPv4: []string{}, Last: time.Unix(0, m.last.Load())}
		for j := range m.ips {
			if ip := m.ips[j].Load(); ip != 0 {
				ms.IPv4 = append(ms.IPv4, ipString(ip))
			}
		}
		slices.Sort(ms.IPv4)
		s.MACs = append(s.MACs, ms)
	}
	slices.SortFunc(s.MACs, func(a, b app.MACSeen) int { return strings.Compare(a.MAC, b.MAC) })
	for i := range ww.asks {
		a := &ww.asks[i]
		if a.key.Load() == 0 {
			continue
		}
		s.Asks = append(s.Asks, app.ARPAsk{AskerMAC: macString(a.asker.Load()), AskerIPv4: ipString(a.askerIP.Load()),
			Target: ipString(a.target.Load()), Asks: int(a.asks.Load()), Answered: a.answered.Load(), Last: time.Unix(0, a.last.Load())})
	}
	slices.SortFunc(s.Asks, func(a, b app.ARPAsk) int {
		return strings.Compare(a.AskerMAC+" "+a.Target, b.AskerMAC+" "+b.Target)
	})
	for i := range ww.tags {
		t := &ww.tags[i]
		key := t.key.Load()
		if key == 0 {
			continue
		}
		ts := app.TagSeen{At: endOf(int(key >> 16 & 1)), VLAN: int(key & 0xffff), Count: t.n.Load(), Last: time.Unix(0, t.last.Load())}
		s.Tags = append(s.Tags, ts)
		name := "vlan:" + strconv.Itoa(ts.VLAN)
		ks := s.Kinds[name]
		ks.Count += ts.Count
		if ts.Last.After(ks.Last) {
			ks.Last = ts.Last
		}
		s.Kinds[name] = ks
	}
	slices.SortFunc(s.Tags, func(a, b app.TagSeen) int {
		return cmpInts(a.VLAN, b.VLAN, a.At.NodeID < b.At.NodeID)
	})
	fr := ww.fr.Load()
	for _, sf := range ww.recentFrames() {
		s.Recent = append(s.Recent, app.SeenFrame{Time: sf.at, From: endOf(sf.from), Kind: mainKind(sf.kinds), Summary: summary(sf, fr)})
	}
	return s
}

func cmpInts(a, b int, less bool) int {
	switch {
	case a != b:
		return a - b
	case less:
		return -1
	}
	return 1
}

// mainKind is the kind a frame of kinds is named by: the most specific.
func mainKind(kinds uint16) app.FrameKind {
	for _, k := range []int{kICMP, kOSPF, kDHCP, kARP, kSTP, kCDP, kLLDP, kLMI, kIPv4, kIPv6, kTagged} {
		if kinds&(1<<k) != 0 {
			return kindNames[k]
		}
	}
	return app.FramesAny
}

// ofKind reports whether a frame of kinds and vlan is of kind want (a
// FrameKind, or "vlan:N").
func ofKind(kinds, vlan uint16, want app.FrameKind) bool {
	if want == app.FramesAny || want == "" {
		return true
	}
	if v, ok := strings.CutPrefix(string(want), "vlan:"); ok {
		n, err := strconv.Atoi(v)
		return err == nil && kinds&(1<<kTagged) != 0 && int(vlan) == n
	}
	for k, name := range kindNames {
		if name == want {
			return kinds&(1<<k) != 0
		}
	}
	return false
}

// CaptureSlice returns, as a pcap file, the newest frames (at most max)
// of kind the watch of a link kept, and how many it holds
// (app.WireWatch). Each frame holds its first 256 bytes, its length the
// frame's. An unknown link gives an empty capture.
func (f *Fabric) CaptureSlice(linkID string, kind app.FrameKind, max int) ([]byte, int) {
	var frames []seenFrame
	lt := layers.LinkTypeEthernet
	if w := f.topo.Load().links[linkID]; w != nil && w.watch != nil {
		if w.watch.fr.Load() {
			lt = layers.LinkTypeFRelay
		}
		for _, sf := range w.watch.recentFrames() {
			if ofKind(sf.kinds, sf.vlan, kind) {
				frames = append(frames, sf)
			}
		}
	}
	if max >= 0 && len(frames) > max {
		frames = frames[len(frames)-max:]
	}
	var buf bytes.Buffer
	pw := pcapgo.NewWriter(&buf)
	_ = pw.WriteFileHeader(captureSnapLen, lt) // into memory: no error
	for _, sf := range frames {
		_ = pw.WritePacket(gopacket.CaptureInfo{Timestamp: sf.at, CaptureLength: len(sf.data), Length: sf.length}, sf.data)
	}
	return buf.Bytes(), len(frames)
}

func macString(key uint64) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], key)
	return fmt.Sprintf("%02x:%02x:%02x:%02x:%02x:%02x", b[2], b[3], b[4], b[5], b[6], b[7])
}

func ipString(ip uint32) string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], ip)
	return netip.AddrFrom4(b).String()
}

func ipAt(p []byte) string { return netip.AddrFrom4([4]byte(p[:4])).String() }

// summary is the one line that says what a kept frame is.
func summary(sf seenFrame, fr bool) string {
	d := sf.data
	if fr {
		if sf.kinds&(1<<kLMI) != 0 && len(d) >= lmiMinFrame {
			what := "status"
			if d[5] == lmiEnquiry {
				what = "status enquiry"
			}
			return fmt.Sprintf("LMI %s on DLCI %d", what, frameDLCI(d))
		}
		if len(d) >= 4 {
			return fmt.Sprintf("Frame Relay DLCI %d: %s", frameDLCI(d), ipSummary(d[4:]))
		}
		return "Frame Relay frame"
	}
	if len(d) < 14 {
		return "runt frame"
	}
	src := macString(macWord(d[6:12]))
	switch {
	case sf.kinds&(1<<kSTP) != 0:
		return "STP BPDU from " + src
	case sf.kinds&(1<<kCDP) != 0:
		return "CDP from " + src
	}
	c := classify(d, false)
	prefix := ""
	if sf.kinds&(1<<kTagged) != 0 {
		prefix = "VLAN " + strconv.Itoa(int(sf.vlan)) + ": "
	}
	if c.l3 > len(d) {
		return prefix + "truncated frame from " + src
	}
	p := d[c.l3:]
	switch c.ethertype {
	case etARP:
		if len(p) >= 28 {
			switch binary.BigEndian.Uint16(p[6:]) {
			case 1:
				return prefix + "ARP who-has " + ipAt(p[24:]) + " tell " + ipAt(p[14:])
			case 2:
				return prefix + "ARP " + ipAt(p[14:]) + " is-at " + macString(macWord(p[8:14]))
			}
		}
		return prefix + "ARP from " + src
	case etIPv4:
		return prefix + ipSummary(p)
	case etLLDP:
		return prefix + "LLDP from " + src
	}
	return prefix + fmt.Sprintf("ethertype 0x%04x from %s", c.ethertype, src)
}

// ipSummary says what an IPv4 packet is.
func ipSummary(p []byte) string {
	if len(p) < 20 {
		return "IPv4 (truncated)"
	}
	ihl := int(p[0]&0x0f) * 4
	route := ipAt(p[12:]) + " > " + ipAt(p[16:])
	switch p[9] {
	case 1:
		if len(p) > ihl {
			switch p[ihl] {
			case 8:
				return "ICMP echo request " + route
			case 0:
				return "ICMP echo reply " + route
			}
			return "ICMP type " + strconv.Itoa(int(p[ihl])) + " " + route
		}
		return "ICMP " + route
	case 89:
		return "OSPF " + route
	case 17:
		if len(p) >= ihl+4 {
			sp, dp := binary.BigEndian.Uint16(p[ihl:]), binary.BigEndian.Uint16(p[ihl+2:])
			if (sp == 67 || sp == 68) && (dp == 67 || dp == 68) {
				return "DHCP " + route
			}
		}
		return "UDP " + route
	}
	return "IPv4 proto " + strconv.Itoa(int(p[9])) + " " + route
}
