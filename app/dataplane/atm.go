package dataplane

import (
	"encoding/binary"
	"sync"
	"sync/atomic"

	"nodedesk/app"
)

// The ATM switch behaves as dynamips' (common/atm.c), which GNS3 runs for
// its atm_switch nodes:
//
//   - each datagram of a port's UDP tunnel is one 53-byte cell, as a
//     PA-A1 port adapter sends it: a 5-byte header (big-endian: a 12-bit
//     VPI, a 16-bit VCI, the 3-bit PTI and CLP, then the HEC) and 48
//     bytes of payload; any other size is dropped;
//   - a cell is switched by (input port, VPI) when a virtual path uses
//     that VPI on the port, else by (input port, VPI, VCI); a cell of no
//     connection is dropped;
//   - the switched cell leaves by the far end's port with the far end's
//     VPI (a path: its VCI kept) or VPI and VCI (a channel), PTI, CLP and
//     payload kept, and its HEC computed again over the new header; the
//     HEC of an arriving cell is not checked, as dynamips does not;
//   - each mapping is a connection both ways (GNS3 creates the two
//     directions of an entry).

// Sizes of an ATM cell.
const (
	ATMCellSize   = 53
	atmHeaderSize = 5
)

// The fields of the first four bytes of a cell header, big-endian.
const (
	atmVPIShift = 20
	atmVCIShift = 4
	atmVPIMask  = 0xfff << atmVPIShift
	atmVCIMask  = 0xffff << atmVCIShift
)

// ATMSwitch is the Engine of an atm_switch node. Its zero value is not
// usable; call NewATMSwitch.
type ATMSwitch struct {
	mu    sync.Mutex               // serialises Configure
	table atomic.Pointer[atmTable] // read by Input without locking
	drops [atmDropKinds]atomic.Uint64
}

var _ Engine = (*ATMSwitch)(nil)

// The kinds of drops an ATMSwitch counts.
const (
	atmDropMalformed = iota
	atmDropNoConnection
	atmDropNoRoom
	atmDropKinds
)

// ATMDrops counts the cells an ATMSwitch dropped, by cause.
type ATMDrops struct {
	// Malformed: a datagram that is not one 53-byte cell.
	Malformed uint64
	// NoConnection: no connection for the cell's port and VPI (and VCI).
	NoConnection uint64
	// NoRoom: the Out arena had no room for the switched cell.
	NoRoom uint64
}

// ATMConnection is one connection of an ATMSwitch and its counters: its
// ends as app.ATMConnections gives them (lower end first; VCI app.ATMPath
// for a virtual path), Forward the cells switched from the lower end to
// the higher, Reverse the other way.
type ATMConnection struct {
	Ends             app.ATMConnection
	Forward, Reverse uint64
}

// atmKey is where a cell arrived: a port, its VPI and (for a channel) its
// VCI; a path's key has vci -1.
type atmKey struct {
	port, vpi, vci int32
}

// atmEnd is one end of a connection, as a cell arriving there sees it.
type atmEnd struct {
	farPort   int
	header    uint32 // the far end's VPI (and VCI) in place
	keep      uint32 // the bits of the arriving header kept: VCI (a path), PTI, CLP
	delivered *atomic.Uint64
}

// atmCounters are the counters of one connection, kept across
// reconfigurations that keep it: [0] from its lower end, [1] from its
// higher end.
type atmCounters [2]atomic.Uint64

type atmConn struct {
	ends     app.ATMConnection
	counters *atmCounters
}

// atmTable is one configuration of the switch. It is immutable once
// published; only its counters change.
type atmTable struct {
	paths    map[atmKey]atmEnd // by port and VPI, vci -1
	channels map[atmKey]atmEnd // by port, VPI and VCI
	conns    []atmConn         // sorted by lower end
}

// NewATMSwitch returns an ATM switch with no connection.
func NewATMSwitch() *ATMSwitch {
	s := &ATMSwitch{}
	s.table.Store(&atmTable{})
	return s
}

// Configure applies n's mappings at once. Connections that remain keep
// their counters.
func (s *ATMSwitch) Configure(n *app.Node) {
	var m map[string]string
	if n != nil {
		m = n.ATMMappings()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	conns, _ := app.ATMConnections(m) // entries with a fault are left out
	s.table.Store(buildATMTable(conns, s.table.Load()))
}

// Input switches one cell that arrived on port. It never modifies cell
// and allocates nothing.
func (s *ATMSwitch) Input(port int, cell []byte, out *Out) {
	if len(cell) != ATMCellSize {
		s.drops[atmDropMalformed].Add(1)
		return
	}
	t := s.table.Load()
	h := binary.BigEndian.Uint32(cell)
	vpi := int32(h & atmVPIMask >> atmVPIShift)
	e, ok := t.paths[atmKey{int32(port), vpi, app.ATMPath}]
	if !ok {
		e, ok = t.channels[atmKey{int32(port), vpi, int32(h & atmVCIMask >> atmVCIShift)}]
	}
	if !ok {
		s.drops[atmDropNoConnection].Add(1)
		return
	}
	b := out.Alloc(ATMCellSize)
	if b == nil {
		s.drops[atmDropNoRoom].Add(1)
		return
	}
	copy(b, cell)
	binary.BigEndian.PutUint32(b, h&e.keep|e.header)
	b[4] = atmHEC(b)
	e.delivered.Add(1)
	out.Emit(e.farPort, b)
}

// Connections returns the switch's connections, sorted by lower end,
// with their counters.
func (s *ATMSwitch) Connections() []ATMConnection {
	t := s.table.Load()
	out := make([]ATMConnection, len(t.conns))
	for i, c := range t.conns {
		out[i] = ATMConnection{Ends: c.ends, Forward: c.counters[0].Load(), Reverse: c.counters[1].Load()}
	}
	return out
}

// Drops returns how many cells the switch dropped, by cause.
func (s *ATMSwitch) Drops() ATMDrops {
	return ATMDrops{
		Malformed:    s.drops[atmDropMalformed].Load(),
		NoConnection: s.drops[atmDropNoConnection].Load(),
		NoRoom:       s.drops[atmDropNoRoom].Load(),
	}
}

// buildATMTable makes the table of conns, reusing old's counters for the
// connections that remain.
func buildATMTable(conns []app.ATMConnection, old *atmTable) *atmTable {
	kept := make(map[app.ATMConnection]*atmCounters, len(old.conns))
	for _, c := range old.conns {
		kept[c.ends] = c.counters
	}
	t := &atmTable{paths: map[atmKey]atmEnd{}, channels: map[atmKey]atmEnd{}}
	for _, c := range conns {
		counters := kept[c]
		if counters == nil {
			counters = new(atmCounters)
		}
		t.conns = append(t.conns, atmConn{c, counters})
		t.addEnd(c[0], c[1], &counters[0])
		t.addEnd(c[1], c[0], &counters[1])
	}
	return t
}

// addEnd records the end from, whose cells go to the end to.
func (t *atmTable) addEnd(from, to app.ATMEnd, delivered *atomic.Uint64) {
	k := atmKey{int32(from.Port), int32(from.VPI), int32(from.VCI)}
	e := atmEnd{farPort: to.Port, header: uint32(to.VPI) << atmVPIShift, keep: ^uint32(atmVPIMask), delivered: delivered}
	if to.IsPath() {
		t.paths[k] = e
		return
	}
	e.header |= uint32(to.VCI) << atmVCIShift
	e.keep &^= atmVCIMask
	t.channels[k] = e
}

// atmHEC is the header error control byte of a cell header's first four
// bytes (ITU-T I.432: the CRC-8 of x^8+x^2+x+1, XORed with 0x55).
func atmHEC(header []byte) byte {
	var crc byte
	for _, b := range header[:4] {
		crc = atmCRC8[crc^b]
	}
	return crc ^ 0x55
}

// atmCRC8 is the CRC-8 (x^8+x^2+x+1) of each byte.
var atmCRC8 = func() (t [256]byte) {
	for i := range t {
		c := byte(i)
		for range 8 {
			if c&0x80 != 0 {
				c = c<<1 ^ 0x07
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}()
