package dataplane

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"sync/atomic"
	"time"

	"nodedesk/app"
)

// Watching the wire (decision 0070, issue 39): every frame that crosses a
// wire is classified and counted by kind, and the few that say who lives
// on the link (ARP, ICMP echo, hellos, tagged frames) also update small
// fixed tables of the wire: the source MACs and the addresses they claim,
// the ARP asks and whether they were answered, the VLAN tags by the end
// they arrived at, and the newest frames themselves. The domain reads it
// all through app.WireWatch and makes the wire map of it (app/wiremap.go).
//
// The frame path takes no lock (rule 19). Everything a frame writes is an
// atomic word of a table whose size is fixed when the wire is made: a
// counter per kind, slots found by hashing (a full table takes over its
// stalest slot), and a ring of recent frames whose slot a writer claims
// with one atomic add and whose bytes are atomic words guarded by the
// slot's sequence number (a seqlock: a reader keeps a copy only if the
// number was even and unchanged across it). Bulk frames (anything that is
// not interesting) cost one atomic add and, at most once a millisecond, a
// store of the time.

// Frame kinds as the watch counts them: an index into a wire's counters.
const (
	kOther = iota // none of the kinds below
	kARP
	kIPv4
	kICMP
	kIPv6
	kOSPF
	kSTP
	kCDP
	kLLDP
	kDHCP
	kLMI
	kTagged
	numKinds
)

// kindNames are the app.FrameKind of each counted kind.
var kindNames = [numKinds]app.FrameKind{
	kARP: app.FramesARP, kIPv4: app.FramesIPv4, kICMP: app.FramesICMP, kIPv6: app.FramesIPv6,
	kOSPF: app.FramesOSPF, kSTP: app.FramesSTP, kCDP: app.FramesCDP, kLLDP: app.FramesLLDP,
	kDHCP: app.FramesDHCP, kLMI: app.FramesLMI, kTagged: app.FramesTagged,
}

// The bounds of a wire's tables.
const (
	watchMACs    = 64  // source MACs
	watchIPs     = 4   // IPv4 addresses one MAC claims
	watchAsks    = 64  // ARP asks
	watchTags    = 64  // (VLAN, end) pairs
	watchRecent  = 32  // newest interesting frames
	watchCopy    = 256 // bytes kept of each of them
	watchProbe   = 8   // slots a key may live in
	lastInterval = int64(time.Millisecond)
)

// classified is what classify found in a frame.
type classified struct {
	kinds       uint16 // bit k: the frame is of kind k
	vlan        uint16 // its outer 802.1Q VLAN, 0 when untagged
	interesting bool   // it says who lives on the link: tables and ring
	l3          int    // offset of its ethertype's payload (Ethernet)
	ethertype   uint16 // after the tags (Ethernet)
}

// The ethertypes and addresses classify knows.
const (
	etARP  = 0x0806
	etIPv4 = 0x0800
	etIPv6 = 0x86dd
	etLLDP = 0x88cc
)

var (
	macSTP = [6]byte{0x01, 0x80, 0xc2, 0x00, 0x00, 0x00}
	macCDP = [6]byte{0x01, 0x00, 0x0c, 0xcc, 0xcc, 0xcc}
)

// classify tells the kinds of an Ethernet frame, or of a Frame Relay
// frame on a wire whose ends speak it (fr). It only reads a few bytes.
func classify(frame []byte, fr bool) classified {
	if fr {
		return classifyFR(frame)
	}
	var c classified
	if len(frame) < 14 {
		return classified{kinds: 1 << kOther}
	}
	if frame[0]&1 != 0 { // a multicast destination: the hellos of layer 2
		switch [6]byte(frame[:6]) {
		case macSTP:
			return classified{kinds: 1 << kSTP, interesting: true}
		case macCDP:
			return classified{kinds: 1 << kCDP, interesting: true}
		}
	}
	off := 12
	et := binary.BigEndian.Uint16(frame[off:])
	for tags := 0; isTPID(et) && tags < 2 && len(frame) >= off+6; tags++ {
		if tags == 0 {
			c.vlan = binary.BigEndian.Uint16(frame[off+2:]) & 0x0fff
			c.kinds |= 1 << kTagged
		}
		off += 4
		et = binary.BigEndian.Uint16(frame[off:])
	}
	c.l3, c.ethertype = off+2, et
	switch et {
	case etARP:
		c.kinds |= 1 << kARP
		c.interesting = true
	case etIPv4:
		c.kinds |= ipv4Kinds(frame[off+2:], &c.interesting)
	case etIPv6:
		c.kinds |= 1 << kIPv6
	case etLLDP:
		c.kinds |= 1 << kLLDP
		c.interesting = true
	default:
		if et <= 1500 && len(frame) >= off+5 && frame[0]&1 != 0 && frame[off+2] == 0x42 { // 802.3 with STP's LLC
			c.kinds |= 1 << kSTP
			c.interesting = true
		} else {
			c.kinds |= 1 << kOther
		}
	}
	return c
}

// ipv4Kinds tells the kinds of an IPv4 packet: ICMP (echo is interesting),
// OSPF and DHCP are hellos of theirs.
func ipv4Kinds(p []byte, interesting *bool) uint16 {
	k := uint16(1 << kIPv4)
	if len(p) < 20 || p[0]>>4 != 4 {
		return k
	}
	ihl := int(p[0]&0x0f) * 4
	switch p[9] {
	case 1:
		k |= 1 << kICMP
		if len(p) > ihl && (p[ihl] == 8 || p[ihl] == 0) {
			*interesting = true
		}
	case 89:
		k |= 1 << kOSPF
		*interesting = true
	case 17:
		if len(p) >= ihl+4 {
			sp, dp := binary.BigEndian.Uint16(p[ihl:]), binary.BigEndian.Uint16(p[ihl+2:])
			if (sp == 67 || sp == 68) && (dp == 67 || dp == 68) {
				k |= 1 << kDHCP
				*interesting = true
			}
		}
	}
	return k
}

// classifyFR tells the kinds of a Frame Relay frame: LMI on DLCI 0 or 1023
// (lmi.go), or IPv4 in RFC 2427's NLPID 0xCC or Cisco's ethertype.
func classifyFR(frame []byte) classified {
	if len(frame) < 4 {
		return classified{kinds: 1 << kOther}
	}
	dlci := frameDLCI(frame)
	if (dlci == lmiDLCI || dlci == lmiCiscoDLCI) && frame[2] == lmiUI && len(frame) >= lmiMinFrame &&
		(frame[3] == lmiPD || frame[3] == lmiCiscoPD) {
		return classified{kinds: 1 << kLMI, interesting: true}
	}
	var c classified
	switch {
	case frame[2] == 0x03 && frame[3] == 0xcc:
		c.kinds = ipv4Kinds(frame[4:], &c.interesting)
	case binary.BigEndian.Uint16(frame[2:]) == etIPv4:
		c.kinds = ipv4Kinds(frame[4:], &c.interesting)
	default:
		c.kinds = 1 << kOther
	}
	return c
}

// kindCount is one kind's counter on a wire.
type kindCount struct {
	n    atomic.Uint64
	last atomic.Int64 // ns since the epoch, within lastInterval
}

// macSlot is one source MAC of a wire.
type macSlot struct {
	key  atomic.Uint64 // 1<<63 | the MAC; 0: empty
	from atomic.Uint32 // 1 + the index of the end its frames came from
	last atomic.Int64
	ips  [watchIPs]atomic.Uint32 // claimed addresses; 0: none
}

// askSlot is one address asked for by ARP by one asker.
type askSlot struct {
	key      atomic.Uint64 // 1<<63 | target<<16 | 16 bits of the asker's MAC hash; 0: empty
	asker    atomic.Uint64 // the asker's MAC
	askerIP  atomic.Uint32
	target   atomic.Uint32
	asks     atomic.Uint32
	answered atomic.Bool
	last     atomic.Int64
}

// tagSlot is the frames of one VLAN that arrived at one end of a wire.
type tagSlot struct {
	key  atomic.Uint32 // 1<<31 | at<<16 | VLAN; 0: empty
	n    atomic.Uint64
	last atomic.Int64
}

// recentSlot is one frame of the ring of recent interesting frames.
type recentSlot struct {
	seq   atomic.Uint64 // 2*claim+1 while written, 2*claim+2 once done
	at    atomic.Int64  // ns since the epoch
	meta  atomic.Uint64 // kinds | vlan<<16 | from<<28 | copied<<32 | length<<48
	bytes [watchCopy / 8]atomic.Uint64
}

// wireWatch is what one wire saw. Its tables never grow.
type wireWatch struct {
	since  time.Time
	fr     atomic.Bool // the wire carries Frame Relay
	kinds  [numKinds]kindCount
	macs   [watchMACs]macSlot
	asks   [watchAsks]askSlot
	tags   [watchTags]tagSlot
	next   atomic.Uint64 // claims of the ring
	recent [watchRecent]recentSlot
}

func newWireWatch() *wireWatch { return &wireWatch{since: time.Now()} }

// seed hashes keys of the tables.
var seed = maphash.MakeSeed()

func slotOf(key uint64) int { return int(maphash.Comparable(seed, key) >> 1) }

// see records a frame that crossed the wire towards its end at (0 or 1),
// at now (ns since the epoch).
func (ww *wireWatch) see(now int64, at int, frame []byte) {
	if ww == nil { // unwatched (the benchmark's twin)
		return
	}
	fr := ww.fr.Load()
	c := classify(frame, fr)
	for k := c.kinds; k != 0; k &= k - 1 {
		kc := &ww.kinds[bits.TrailingZeros16(k)]
		kc.n.Add(1)
		if now-kc.last.Load() >= lastInterval {
			kc.last.Store(now)
		}
	}
	newTag := false
	if c.vlan != 0 || c.kinds&(1<<kTagged) != 0 {
		newTag = ww.tag(now, at, c.vlan)
	}
	if !c.interesting && !newTag {
		return
	}
	ww.remember(now, 1-at, c, frame)
	if fr || len(frame) < 14 { // Frame Relay has no MACs
		return
	}
	src := macWord(frame[6:12])
	if src == 0 || frame[6]&1 != 0 {
		return
	}
	m := ww.mac(now, 1-at, src)
	if c.kinds&(1<<kARP) != 0 {
		ww.arp(now, m, frame[c.l3:])
	}
}

// macWord is a MAC address as the low 48 bits of a word.
func macWord(b []byte) uint64 {
	return uint64(b[0])<<40 | uint64(b[1])<<32 | uint64(b[2])<<24 | uint64(b[3])<<16 | uint64(b[4])<<8 | uint64(b[5])
}

// tag counts a tagged frame of vlan arrived at end at; it reports whether
// the pair is new to the table.
func (ww *wireWatch) tag(now int64, at int, vlan uint16) bool {
	key := 1<<31 | uint32(at)<<16 | uint32(vlan)
	h := slotOf(uint64(key))
	for i := range watchProbe {
		s := &ww.tags[(h+i)%watchTags]
		k := s.key.Load()
		if k == 0 && s.key.CompareAndSwap(0, key) {
			k = key
			s.n.Add(1)
			s.last.Store(now)
			return true
		}
		if k == key {
			s.n.Add(1)
			if now-s.last.Load() >= lastInterval {
				s.last.Store(now)
			}
			return false
		}
	}
	return false // the probed slots are full: the first pairs seen are kept
}

// mac finds or takes the slot of source MAC src, seen from end from, and
// marks it seen at now.
func (ww *wireWatch) mac(now int64, from int, src uint64) *macSlot {
	key := 1<<63 | src
	h := slotOf(key)
	var stalest *macSlot
	for i := range watchProbe {
		s := &ww.macs[(h+i)%watchMACs]
		k := s.key.Load()
		if k == key {
			s.from.Store(uint32(from) + 1)
			s.last.Store(now)
			return s
		}
		if k == 0 && s.key.CompareAndSwap(0, key) {
			s.from.Store(uint32(from) + 1)
			s.last.Store(now)
			return s
		}
		if stalest == nil || s.last.Load() < stalest.last.Load() {
			stalest = s
		}
	}
	// The probed slots are full: the stalest makes room.
	old := stalest.key.Load()
	if stalest.key.CompareAndSwap(old, key) {
		for i := range stalest.ips {
			stalest.ips[i].Store(0)
		}
	}
	stalest.from.Store(uint32(from) + 1)
	stalest.last.Store(now)
	return stalest
}

// claim records that m's MAC claimed ip.
func (m *macSlot) claim(ip uint32) {
	if ip == 0 {
		return
	}
	for i := range m.ips {
		v := m.ips[i].Load()
		if v == ip {
			return
		}
		if v == 0 && m.ips[i].CompareAndSwap(0, ip) {
			return
		}
	}
	m.ips[ip%watchIPs].Store(ip) // full: one of them goes
}

// arp records an ARP packet p (after the Ethernet header) whose sender's
// frame is m: its sender claims its address; a request is an ask for its
// target, a reply answers every ask for its sender's address.
func (ww *wireWatch) arp(now int64, m *macSlot, p []byte) {
	if len(p) < 28 || binary.BigEndian.Uint16(p[0:]) != 1 || binary.BigEndian.Uint16(p[2:]) != etIPv4 || p[4] != 6 || p[5] != 4 {
		return
	}
	op := binary.BigEndian.Uint16(p[6:])
	spa, tpa := binary.BigEndian.Uint32(p[14:]), binary.BigEndian.Uint32(p[24:])
	m.claim(spa)
	switch op {
	case 1:
		if spa == 0 || spa == tpa { // a probe or a gratuitous ARP: no ask
			return
		}
		ww.ask(now, m.key.Load()&^(1<<63), spa, tpa)
	case 2:
		for i := range ww.asks {
			s := &ww.asks[i]
			if s.key.Load() != 0 && s.target.Load() == spa {
				s.answered.Store(true)
			}
		}
	}
}

// ask counts an ARP request of asker (at askerIP) for target.
func (ww *wireWatch) ask(now int64, asker uint64, askerIP, target uint32) {
	key := 1<<63 | uint64(target)<<16 | uint64(uint16(slotOf(asker)))
	h := slotOf(key)
	var stalest *askSlot
	for i := range watchProbe {
		s := &ww.asks[(h+i)%watchAsks]
		k := s.key.Load()
		if k == key {
			s.asks.Add(1)
			s.last.Store(now)
			return
		}
		if k == 0 && s.key.CompareAndSwap(0, key) {
			ww.fillAsk(s, now, asker, askerIP, target)
			return
		}
		if stalest == nil || s.last.Load() < stalest.last.Load() {
			stalest = s
		}
	}
	if old := stalest.key.Load(); stalest.key.CompareAndSwap(old, key) {
		ww.fillAsk(stalest, now, asker, askerIP, target)
	}
}

func (ww *wireWatch) fillAsk(s *askSlot, now int64, asker uint64, askerIP, target uint32) {
	s.asker.Store(asker)
	s.askerIP.Store(askerIP)
	s.target.Store(target)
	s.answered.Store(false)
	s.asks.Store(1)
	s.last.Store(now)
}

// remember puts frame, seen from end from, in the ring of recent frames.
func (ww *wireWatch) remember(now int64, from int, c classified, frame []byte) {
	claim := ww.next.Add(1) - 1
	s := &ww.recent[claim%watchRecent]
	s.seq.Store(2*claim + 1)
	n := min(len(frame), watchCopy)
	s.at.Store(now)
	s.meta.Store(uint64(c.kinds) | uint64(c.vlan)<<16 | uint64(from)<<28 | uint64(n)<<32 | uint64(min(len(frame), 0xffff))<<48)
	var word [8]byte
	for i := 0; i < n; i += 8 {
		clear(word[:])
		copy(word[:], frame[i:min(i+8, n)])
		s.bytes[i/8].Store(binary.LittleEndian.Uint64(word[:]))
	}
	s.seq.CompareAndSwap(2*claim+1, 2*claim+2)
}

// seenFrame is a frame of the ring as read back.
type seenFrame struct {
	at     time.Time
	from   int
	kinds  uint16
	vlan   uint16
	length int
	data   []byte
}

// recentFrames returns the ring's frames, oldest first; a slot being
// written is left out.
func (ww *wireWatch) recentFrames() []seenFrame {
	next := ww.next.Load()
	first := uint64(0)
	if next > watchRecent {
		first = next - watchRecent
	}
	var out []seenFrame
	for claim := first; claim < next; claim++ {
		s := &ww.recent[claim%watchRecent]
		seq := s.seq.Load()
		if seq != 2*claim+2 {
			continue
		}
		at, meta := s.at.Load(), s.meta.Load()
		n := int(meta >> 32 & 0xffff)
		data := make([]byte, (n+7)/8*8)
		for i := range (n + 7) / 8 {
			binary.LittleEndian.PutUint64(data[i*8:], s.bytes[i].Load())
		}
		if s.seq.Load() != seq {
			continue
		}
		out = append(out, seenFrame{at: time.Unix(0, at), from: int(meta >> 28 & 1), kinds: uint16(meta),
			vlan: uint16(meta>>16) & 0x0fff, length: int(meta >> 48), data: data[:n]})
	}
	return out
}

// isFrameRelay reports whether eng is a Frame Relay switch: the wires to
// its ports carry Frame Relay frames.
func isFrameRelay(eng Engine) bool { _, ok := eng.(*FrameRelaySwitch); return ok }
