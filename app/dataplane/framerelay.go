package dataplane

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"

	"nodedesk/app"
)

// The Frame Relay switch behaves as dynamips' (common/frame_relay.c),
// which GNS3 runs for its frame_relay_switch nodes:
//
//   - a frame starts with a 2-byte Q.922 address: DLCI high 6 bits, C/R,
//     EA=0 | DLCI low 4 bits, FECN, BECN, DE, EA=1;
//   - a frame on DLCI 0 is LMI, never switched;
//   - otherwise the frame is switched by (input port, DLCI) to the far
//     end's port with the far end's DLCI written in the address, every
//     other bit of the address (C/R, FECN, BECN, DE, EA) kept; a frame of
//     no circuit is dropped;
//   - each mapping is a circuit both ways (GNS3 creates the two VCs of an
//     entry and skips an entry one of whose ends is already mapped, so a
//     circuit given in both directions is mapped once);
//   - a port carries nothing until a circuit uses it (dynamips only
//     listens on a port from its first VC).
//
// Beyond dynamips, which only speaks ANSI LMI and drops the rest, the
// switch also answers ITU-T Q.933 Annex A enquiries on DLCI 0 and Cisco
// LMI enquiries on DLCI 1023 (a DLCI 1023 that is mapped is switched, as
// dynamips does), and it drops what dynamips would have passed on
// blindly: runts, giants and frames whose address is not 2 bytes long.

// frMinFrame is the shortest frame switched: a 2-byte address and at least
// one byte of information (Q.922 refuses fewer than 5 bytes between flags,
// 2 of them the FCS, which the UDP encapsulation does not carry).
const frMinFrame = 3

// frMaxPort is the highest port number of a mapping.
const frMaxPort = 65535

// FrameRelaySwitch is the Engine of a frame_relay_switch node. Its zero
// value is not usable; call NewFrameRelaySwitch.
type FrameRelaySwitch struct {
	mu    sync.Mutex              // serialises Configure
	table atomic.Pointer[frTable] // read by Input without locking
	lmi   map[int]*lmiPort        // by port; guarded by mu
	drops [frDropKinds]atomic.Uint64
}

var _ Engine = (*FrameRelaySwitch)(nil)

// The kinds of drops a FrameRelaySwitch counts.
const (
	frDropMalformed = iota
	frDropNoCircuit
	frDropNoRoom
	frDropKinds
)

// FrameRelayDrops counts the frames a FrameRelaySwitch dropped, by cause.
type FrameRelayDrops struct {
	// Malformed: shorter than 3 bytes, longer than MaxFrame, or with an
	// address that is not a 2-byte Q.922 address.
	Malformed uint64
	// NoCircuit: no circuit for the frame's port and DLCI (including any
	// frame on a port that no circuit uses).
	NoCircuit uint64
	// NoRoom: the Out arena had no room for the switched copy or the LMI
	// reply.
	NoRoom uint64
}

// Circuit is one virtual circuit of a FrameRelaySwitch and its counters.
// Port:DLCI is the lower of its two ends (by port, then DLCI).
type Circuit struct {
	Port, DLCI       int
	FarPort, FarDLCI int
	// Forward counts frames switched from Port:DLCI to FarPort:FarDLCI,
	// Reverse the other way.
	Forward, Reverse uint64
}

// frEndKey packs a port and a DLCI into a map key.
type frEndKey uint32

// frKey returns the key of port:dlci; ok is false for a port out of range.
func frKey(port int, dlci uint16) (k frEndKey, ok bool) {
	if port < 0 || port > frMaxPort {
		return 0, false
	}
	return frEndKey(uint32(port)<<10 | uint32(dlci)), true
}

// frEnd is one end of a circuit, as a frame arriving there sees it.
type frEnd struct {
	farPort   int
	hi, lo    byte           // the far DLCI in the address: bits of byte 0 and byte 1
	delivered *atomic.Uint64 // frames switched from this end
}

// frCounters are the counters of one circuit, kept across
// reconfigurations that keep it: [0] from its lower end, [1] from its
// higher end.
type frCounters [2]atomic.Uint64

// frCircuit is one circuit of a table, its lower end first, with its
// counters.
type frCircuit struct {
	ends     app.FrameRelayCircuit
	counters *frCounters
}

// frPort is what a table knows of one port used by circuits.
type frPort struct {
	lmi  *lmiPort
	pvcs [len(lmiIEs)][]byte // encoded PVC status elements, by dialect
}

// frTable is one configuration of the switch. It is immutable once
// published; only its counters change.
type frTable struct {
	ends     map[frEndKey]frEnd
	ports    map[int]*frPort
	circuits []frCircuit // sorted by lower end
}

// NewFrameRelaySwitch returns a Frame Relay switch with no circuit.
func NewFrameRelaySwitch() *FrameRelaySwitch {
	f := &FrameRelaySwitch{lmi: map[int]*lmiPort{}}
	f.table.Store(&frTable{})
	return f
}

// Configure applies n's mappings at once. Circuits that remain keep their
// counters and ports that remain keep their LMI state.
func (f *FrameRelaySwitch) Configure(n *app.Node) {
	var m map[string]string
	if n != nil {
		m = n.Properties.Mappings
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	circuits, _ := app.FrameRelayCircuits(m) // entries with a fault are left out
	f.table.Store(f.build(circuits, f.table.Load()))
}

// Input switches one frame that arrived on port, or answers it if it is
// an LMI enquiry. It never modifies frame and allocates nothing.
func (f *FrameRelaySwitch) Input(port int, frame []byte, out *Out) {
	if len(frame) < frMinFrame || len(frame) > MaxFrame || frame[0]&0x01 != 0 || frame[1]&0x01 != 1 {
		f.drops[frDropMalformed].Add(1)
		return
	}
	t := f.table.Load()
	dlci := frameDLCI(frame)
	if dlci != lmiDLCI {
		if k, ok := frKey(port, dlci); ok {
			if e, ok := t.ends[k]; ok {
				f.forward(e, frame, out)
				return
			}
		}
	}
	if p := t.ports[port]; p != nil && (dlci == lmiDLCI || dlci == lmiCiscoDLCI) {
		f.answerLMI(p, port, dlci, frame, out)
		return
	}
	f.drops[frDropNoCircuit].Add(1)
}

// forward emits a copy of frame on e's far port with e's far DLCI.
func (f *FrameRelaySwitch) forward(e frEnd, frame []byte, out *Out) {
	b := out.Alloc(len(frame))
	if b == nil {
		f.drops[frDropNoRoom].Add(1)
		return
	}
	copy(b, frame)
	b[0] = frame[0]&0x03 | e.hi
	b[1] = frame[1]&0x0f | e.lo
	e.delivered.Add(1)
	out.Emit(e.farPort, b)
}

// answerLMI answers a STATUS ENQUIRY that arrived on port (p) on dlci.
func (f *FrameRelaySwitch) answerLMI(p *frPort, port int, dlci uint16, frame []byte, out *Out) {
	q, ok := parseLMIEnquiry(dlci, frame)
	if !ok {
		p.lmi.invalid.Add(1)
		return
	}
	send := p.lmi.answer(q)
	var pvcs []byte
	if q.report == lmiReportFull {
		pvcs = p.pvcs[q.variant]
	}
	b := out.Alloc(lmiStatusLen(q, pvcs))
	if b == nil {
		f.drops[frDropNoRoom].Add(1)
		return
	}
	writeLMIStatus(b, q, send, pvcs)
	out.Emit(port, b)
}

// Circuits returns the switch's circuits, sorted by lower end, with their
// counters.
func (f *FrameRelaySwitch) Circuits() []Circuit {
	t := f.table.Load()
	out := make([]Circuit, len(t.circuits))
	for i, c := range t.circuits {
		out[i] = Circuit{
			Port: c.ends[0].Port, DLCI: c.ends[0].DLCI, FarPort: c.ends[1].Port, FarDLCI: c.ends[1].DLCI,
			Forward: c.counters[0].Load(), Reverse: c.counters[1].Load(),
		}
	}
	return out
}

// LMIStats returns the LMI state of each port that circuits use, sorted
// by port.
func (f *FrameRelaySwitch) LMIStats() []LMIStats {
	t := f.table.Load()
	out := make([]LMIStats, 0, len(t.ports))
	for port, p := range t.ports {
		out = append(out, p.lmi.stats(port))
	}
	slices.SortFunc(out, func(a, b LMIStats) int { return cmp.Compare(a.Port, b.Port) })
	return out
}

// Drops returns how many frames the switch dropped, by cause.
func (f *FrameRelaySwitch) Drops() FrameRelayDrops {
	return FrameRelayDrops{
		Malformed: f.drops[frDropMalformed].Load(),
		NoCircuit: f.drops[frDropNoCircuit].Load(),
		NoRoom:    f.drops[frDropNoRoom].Load(),
	}
}

// frameDLCI reads the DLCI of a frame's 2-byte address.
func frameDLCI(frame []byte) uint16 {
	return uint16(frame[0]>>2)<<4 | uint16(frame[1]>>4)
}

// q922Address returns the 2-byte address of dlci with C/R, FECN, BECN and
// DE clear.
func q922Address(dlci uint16) (byte, byte) {
	return byte(dlci>>4) << 2, byte(dlci&0x0f)<<4 | 0x01
}

// build makes the table of circuits, reusing old's counters for circuits
// that remain and f's LMI state for ports that remain. f.mu is held.
func (f *FrameRelaySwitch) build(circuits []app.FrameRelayCircuit, old *frTable) *frTable {
	kept := make(map[app.FrameRelayCircuit]*frCounters, len(old.circuits))
	for _, c := range old.circuits {
		kept[c.ends] = c.counters
	}
	t := &frTable{ends: make(map[frEndKey]frEnd, 2*len(circuits)), ports: map[int]*frPort{}}
	for _, c := range circuits {
		counters := kept[c]
		if counters == nil {
			counters = new(frCounters)
		}
		t.circuits = append(t.circuits, frCircuit{c, counters})
		t.addEnd(c[0], c[1], &counters[0])
		t.addEnd(c[1], c[0], &counters[1])
	}
	f.attachLMI(t)
	t.encodePVCs()
	return t
}

// addEnd records the end from, whose frames go to the end to.
func (t *frTable) addEnd(from, to app.FrameRelayEnd, delivered *atomic.Uint64) {
	k, _ := frKey(from.Port, uint16(from.DLCI)) // app checked the port and DLCI
	hi, lo := q922Address(uint16(to.DLCI))
	t.ends[k] = frEnd{farPort: to.Port, hi: hi, lo: lo &^ 0x01, delivered: delivered}
	if t.ports[from.Port] == nil {
		t.ports[from.Port] = &frPort{}
	}
}

// attachLMI gives each port of t its LMI state, kept from before if the
// port was already used, and forgets the state of ports no longer used.
// f.mu is held.
func (f *FrameRelaySwitch) attachLMI(t *frTable) {
	for port, p := range t.ports {
		if f.lmi[port] == nil {
			f.lmi[port] = new(lmiPort)
		}
		p.lmi = f.lmi[port]
	}
	for port := range f.lmi {
		if t.ports[port] == nil {
			delete(f.lmi, port)
		}
	}
}

// encodePVCs prepares, for each port and dialect, the PVC status elements
// of a full status: one per circuit end on the port, by ascending DLCI
// (dynamips keeps each port's list sorted so), every PVC active.
func (t *frTable) encodePVCs() {
	dlcis := map[int][]uint16{}
	for _, c := range t.circuits {
		for _, e := range c.ends {
			dlcis[e.Port] = append(dlcis[e.Port], uint16(e.DLCI))
		}
	}
	for port, ds := range dlcis {
		slices.Sort(ds)
		p := t.ports[port]
		for v := LMIANSI; v <= LMICisco; v++ {
			for _, d := range ds {
				p.pvcs[v] = appendPVCStatus(p.pvcs[v], v, d)
			}
		}
	}
}
