package dataplane

import (
	"maps"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"nodedesk/app"
)

// MACAging is how long the switch remembers an address it no longer hears.
const MACAging = 300 * time.Second

const (
	// macTableMax bounds the MAC table: past it the switch learns no new
	// address (and floods to it) until aged entries are swept out.
	macTableMax = 1 << 14
	// sweepEvery is how often, at most, learning sweeps aged entries out.
	sweepEvery = int64(30 * time.Second)
)

// EthernetSwitch is the Engine of an Ethernet switch node: a learning
// switch with a MAC table per VLAN and access, 802.1Q trunk (dot1q) and
// Q-in-Q tunnel (qinq) ports, forwarding as dynamips' Ethernet switch does.
// Create it with NewEthernetSwitch.
type EthernetSwitch struct {
	mu    sync.RWMutex
	ports []swPort             // by engine port; replaced whole by Configure
	names []string             // port names, by engine port (for the console)
	stats []*portStats         // counters, by engine port; kept by Configure
	gen   uint64               // counts Configure calls
	macs  map[uint64]*macEntry // by macKey(VLAN, MAC); entries change under the read lock
	swept int64                // Out.Now of the last sweep of aged entries
}

// NewEthernetSwitch returns a switch with no port; Configure gives it its
// ports.
func NewEthernetSwitch() *EthernetSwitch {
	return &EthernetSwitch{macs: make(map[uint64]*macEntry)}
}

// MACEntry is one address of the switch's MAC table, as its console shows
// it.
type MACEntry struct {
	VLAN int
	MAC  net.HardwareAddr
	Port int           // engine port the address was last heard on
	Age  time.Duration // since the address was last heard
}

// macEntry is where an address was last heard, and when. Both fields change
// under the read lock as frames arrive, hence atomics.
type macEntry struct {
	port atomic.Int32
	seen atomic.Int64
}

// fresh reports whether e has not aged out at now.
func (e *macEntry) fresh(now int64) bool { return now-e.seen.Load() < int64(MACAging) }

// portStats counts one port's traffic; atomics, as frames of several
// ports are switched at once under the read lock.
type portStats struct {
	inFrames, inBytes, outFrames, outBytes, dropped atomic.Uint64
}

// PortCounters is what one switch port received, sent and dropped since
// the switch was created or its counters cleared, as its console shows it.
type PortCounters struct {
	Name      string // the port's name in ports_mapping
	Mode      string // access, dot1q or qinq; "off" for an invalid entry
	VLAN      int
	InFrames  uint64
	InBytes   uint64
	OutFrames uint64
	OutBytes  uint64
	Dropped   uint64 // frames refused on the way in (a Q-in-Q port takes only tagged ones) or out
}

// portKind is how a switch port admits and sends frames.
type portKind uint8

const (
	portOff    portKind = iota // misconfigured: nothing in, nothing out
	portAccess                 // untagged, in one VLAN
	portDot1Q                  // 802.1Q trunk: every VLAN, its native VLAN untagged
	portQinQ                   // Q-in-Q tunnel: all it receives goes into one VLAN
)

// String is the port kind as ports_mapping writes it.
func (k portKind) String() string {
	return [...]string{portOff: "off", portAccess: "access", portDot1Q: "dot1q", portQinQ: "qinq"}[k]
}

// swPort is one configured switch port.
type swPort struct {
	kind portKind
	vlan uint16 // access VLAN, native VLAN or outer (service) VLAN
	tpid uint16 // tag that frames entering here wear on a trunk
}

// newSwPort reads one entry of ports_mapping; an invalid entry gives a port
// that is off.
func newSwPort(p app.SwitchPort) swPort {
	if p.VLAN < app.MinVLAN || p.VLAN > app.MaxVLAN {
		return swPort{}
	}
	vlan := uint16(p.VLAN)
	switch p.Type {
	case "access":
		return swPort{kind: portAccess, vlan: vlan, tpid: tpidDot1Q}
	case "dot1q":
		return swPort{kind: portDot1Q, vlan: vlan, tpid: tpidDot1Q}
	case "qinq":
		if tpid, ok := parseTPID(p.Ethertype); ok {
			return swPort{kind: portQinQ, vlan: vlan, tpid: tpid}
		}
	}
	return swPort{}
}

// carries reports whether frames of vlan may leave by p.
func (p swPort) carries(vlan uint16) bool {
	return p.kind == portDot1Q || p.kind != portOff && p.vlan == vlan
}

// sameDomain reports whether p and q admit frames into the same VLANs, so
// that addresses learnt on one still hold on the other.
func (p swPort) sameDomain(q swPort) bool { return p.kind == q.kind && p.vlan == q.vlan }

// switched is one input frame as it travels inside the switch: its VLAN,
// the frame, and the tag it wears on a trunk. The frames it leaves as are
// built at most once per input frame, whatever the number of output ports.
type switched struct {
	frame     []byte
	vlan      uint16
	tagged    bool   // frame's outer tag is the one that gave it its VLAN
	tpid, tci uint16 // its tag on a trunk that does not carry it untagged
	alwaysTag bool   // entered by a Q-in-Q port: tagged even on the native VLAN
	bare      []byte // built: frame without the VLAN tag
	onTrunk   []byte // built: frame with tag (tpid, tci)
}

// ingress classifies frame, arrived on p; false means p drops it.
func (p swPort) ingress(frame []byte) (switched, bool) {
	switch p.kind {
	case portAccess:
		// Tagged or not, the frame is payload of the access VLAN (dynamips).
		return switched{frame: frame, vlan: p.vlan, tpid: p.tpid, tci: p.vlan}, true
	case portQinQ:
		// dynamips takes only tagged frames in a tunnel.
		if len(frame) < taggedHdr || !isTPID(outerType(frame)) {
			return switched{}, false
		}
		return switched{frame: frame, vlan: p.vlan, tpid: p.tpid, tci: p.vlan, alwaysTag: true}, true
	case portDot1Q:
		return p.trunkIngress(frame)
	}
	return switched{}, false
}

// trunkIngress classifies frame, arrived on the trunk p: an untagged frame
// is of the native VLAN, a priority-tagged one (VID 0) too with its
// priority kept, a tagged one of its VID.
func (p swPort) trunkIngress(frame []byte) (switched, bool) {
	tpid := outerType(frame)
	if !isTPID(tpid) {
		return switched{frame: frame, vlan: p.vlan, tpid: tpidDot1Q, tci: p.vlan}, true
	}
	if len(frame) < taggedHdr {
		return switched{}, false
	}
	tci := outerTCI(frame)
	vid := tci & vidMask
	switch vid {
	case vidReserved:
		return switched{}, false
	case 0:
		vid = p.vlan
	}
	return switched{frame: frame, vlan: vid, tagged: true, tpid: tpid, tci: tci&^vidMask | vid}, true
}

// egress returns f as it leaves by p, or nil when out's arena is full.
func (f *switched) egress(p swPort, out *Out) []byte {
	if p.kind == portDot1Q && (p.vlan != f.vlan || f.alwaysTag) {
		return f.trunkFrame(out)
	}
	return f.bareFrame(out)
}

// bareFrame is f without its VLAN tag.
func (f *switched) bareFrame(out *Out) []byte {
	if !f.tagged {
		return f.frame
	}
	if f.bare == nil {
		f.bare = popTag(out, f.frame)
	}
	return f.bare
}

// trunkFrame is f with its VLAN tag.
func (f *switched) trunkFrame(out *Out) []byte {
	if f.onTrunk != nil {
		return f.onTrunk
	}
	switch {
	case !f.tagged:
		f.onTrunk = pushTag(out, f.frame, f.tpid, f.tci)
	case outerTCI(f.frame) != f.tci:
		f.onTrunk = retag(out, f.frame, f.tpid, f.tci)
	default:
		f.onTrunk = f.frame
	}
	return f.onTrunk
}

// Input switches one frame arrived on port: learns its source address in
// its VLAN, then sends it to the port its destination was learnt on, or
// floods it to every other port of its VLAN.
func (s *EthernetSwitch) Input(port int, frame []byte, out *Out) {
	if !frameSizeOK(len(frame)) {
		return
	}
	s.mu.RLock()
	gen := s.gen
	src, learn := s.switchFrame(port, frame, out)
	s.mu.RUnlock()
	if learn {
		s.learn(gen, port, src, out.Now)
	}
}

// switchFrame forwards frame under the read lock. It returns the source's
// key and whether the table has yet to learn it.
func (s *EthernetSwitch) switchFrame(port int, frame []byte, out *Out) (uint64, bool) {
	if port < 0 || port >= len(s.ports) {
		return 0, false
	}
	st := s.stats[port]
	st.inFrames.Add(1)
	st.inBytes.Add(uint64(len(frame)))
	f, ok := s.ports[port].ingress(frame)
	if !ok {
		st.dropped.Add(1)
		return 0, false
	}
	srcMAC := frame[macLen:typeOffset]
	src := macKey(f.vlan, srcMAC)
	learn := !isGroupMAC(srcMAC) && !s.refresh(src, port, out.Now)
	s.forward(port, &f, out)
	return src, learn
}

// refresh notes that the address key was heard on port at now; false
// means the table does not hold key.
func (s *EthernetSwitch) refresh(key uint64, port int, now int64) bool {
	e := s.macs[key]
	if e == nil {
		return false
	}
	if e.port.Load() != int32(port) {
		e.port.Store(int32(port))
	}
	e.seen.Store(now)
	return true
}

// forward sends f, arrived on port in, to its destination's port, or
// floods it in its VLAN.
func (s *EthernetSwitch) forward(in int, f *switched, out *Out) {
	dst := f.frame[:macLen]
	if !isGroupMAC(dst) {
		if e := s.macs[macKey(f.vlan, dst)]; e != nil && e.fresh(out.Now) {
			if p := int(e.port.Load()); p != in {
				s.emit(p, f, out)
			}
			return
		}
	}
	for p, op := range s.ports {
		if p != in && op.carries(f.vlan) {
			s.emit(p, f, out)
		}
	}
}

// emit sends f out of port p. Addresses are only learnt on ports that
// carry their VLAN, and Configure forgets them when that changes, so p
// always carries f's VLAN here.
func (s *EthernetSwitch) emit(p int, f *switched, out *Out) {
	st := s.stats[p]
	b := f.egress(s.ports[p], out)
	if b == nil {
		st.dropped.Add(1)
		return
	}
	out.Emit(p, b)
	st.outFrames.Add(1)
	st.outBytes.Add(uint64(len(b)))
}

// learn adds the address key, heard on port at now, unless Configure ran
// since the frame was switched (generation gen) or the table is full.
func (s *EthernetSwitch) learn(gen uint64, port int, key uint64, now int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen != s.gen || s.refresh(key, port, now) {
		return
	}
	s.sweep(now)
	if len(s.macs) >= macTableMax {
		return
	}
	e := new(macEntry)
	e.port.Store(int32(port))
	e.seen.Store(now)
	s.macs[key] = e
}

// sweep deletes aged entries, at most once every sweepEvery. It runs under
// the write lock.
func (s *EthernetSwitch) sweep(now int64) {
	if now-s.swept < sweepEvery {
		return
	}
	s.swept = now
	maps.DeleteFunc(s.macs, func(_ uint64, e *macEntry) bool { return !e.fresh(now) })
}

// Configure applies the node's ports_mapping: engine port p is entry p.
// Addresses learnt on a port that is gone, or whose type or VLAN changed,
// are forgotten; the others are kept. An invalid entry (unknown type, VLAN
// outside 1..4094, unknown ethertype) makes a port that is off.
func (s *EthernetSwitch) Configure(n *app.Node) {
	ports := make([]swPort, len(n.Properties.SwitchPorts))
	names := make([]string, len(ports))
	for i, p := range n.Properties.SwitchPorts {
		ports[i], names[i] = newSwPort(p), p.Name
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.ports
	maps.DeleteFunc(s.macs, func(_ uint64, e *macEntry) bool {
		p := int(e.port.Load())
		return p >= len(ports) || !ports[p].sameDomain(old[p])
	})
	stats := make([]*portStats, len(ports))
	copy(stats, s.stats) // a port keeps its counters; a new port starts at 0
	for i := range stats {
		if stats[i] == nil {
			stats[i] = new(portStats)
		}
	}
	s.ports, s.names, s.stats, s.gen = ports, names, stats, s.gen+1
}

// Counters returns each port's counters, by engine port.
func (s *EthernetSwitch) Counters() []PortCounters {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c := make([]PortCounters, len(s.ports))
	for i, p := range s.ports {
		st := s.stats[i]
		c[i] = PortCounters{Name: s.names[i], Mode: p.kind.String(), VLAN: int(p.vlan),
			InFrames: st.inFrames.Load(), InBytes: st.inBytes.Load(),
			OutFrames: st.outFrames.Load(), OutBytes: st.outBytes.Load(), Dropped: st.dropped.Load()}
	}
	return c
}

// ClearCounters sets every port's counters to 0.
func (s *EthernetSwitch) ClearCounters() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.stats {
		s.stats[i] = new(portStats)
	}
}

// MACTable returns the addresses the switch knows at now (Out.Now's
// clock), sorted by VLAN then MAC; aged addresses are left out.
func (s *EthernetSwitch) MACTable(now int64) []MACEntry {
	s.mu.RLock()
	defer s.mu.RUnlock()
	keys := make([]uint64, 0, len(s.macs))
	for k, e := range s.macs {
		if e.fresh(now) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	table := make([]MACEntry, len(keys))
	for i, k := range keys {
		e := s.macs[k]
		table[i] = MACEntry{
			VLAN: int(k >> 48),
			MAC:  keyMAC(k),
			Port: int(e.port.Load()),
			Age:  time.Duration(max(now-e.seen.Load(), 0)),
		}
	}
	return table
}

// ClearMACTable forgets every learnt address.
func (s *EthernetSwitch) ClearMACTable() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.macs)
}
