package app

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// The rules for the port lists of switches, hubs and clouds, for the DLCI
// mappings of Frame Relay switches and for the VPI/VCI mappings of ATM
// switches.

// The VLANs a switch port may be in: 0 and 4095 are reserved by 802.1Q.
const (
	MinVLAN = 1
	MaxVLAN = 4094
)

// checkSwitchPorts checks an Ethernet switch's port mapping and returns it
// normalised: a missing VLAN is VLAN 1, and an ethertype of "" (as GNS3 2.2
// clients send it) is no ethertype.
func checkSwitchPorts(in []SwitchPort) ([]SwitchPort, error) {
	if err := checkPortNumbers(in, func(p SwitchPort) int { return p.PortNumber }); err != nil {
		return nil, err
	}
	out := make([]SwitchPort, len(in))
	for i, p := range in {
		if p.VLAN == 0 {
			p.VLAN = 1
		}
		if p.VLAN < MinVLAN || p.VLAN > MaxVLAN {
			return nil, Invalid(portsField(i, "vlan"), "Port %s has VLAN %d; use a VLAN from %d to %d", p.Name, p.VLAN, MinVLAN, MaxVLAN)
		}
		if p.Ethertype != nil && *p.Ethertype == "" {
			p.Ethertype = nil
		}
		out[i] = p
	}
	return out, nil
}

// portsField is the path of a field of the i-th entry of ports_mapping.
func portsField(i int, field string) string {
	return "properties.ports_mapping." + strconv.Itoa(i) + "." + field
}

// checkPortNumbers refuses a port mapping that gives two ports one number.
func checkPortNumbers[P any](ports []P, number func(P) int) error {
	seen := map[int]bool{}
	for i, p := range ports {
		n := number(p)
		if seen[n] {
			return Invalid(portsField(i, "port_number"), "Port number %d appears twice in ports_mapping; each port needs its own number", n)
		}
		seen[n] = true
	}
	return nil
}

// FrameRelayEnd is one end of a Frame Relay virtual circuit.
type FrameRelayEnd struct{ Port, DLCI int }

// FrameRelayCircuit is one bidirectional virtual circuit, its lower end
// (by port, then DLCI) first.
type FrameRelayCircuit [2]FrameRelayEnd

// FrameRelayCircuits reads a Frame Relay switch's mappings: each key and
// value is "<port>:<dlci>", a DLCI is 0–1023 (the 10-bit field of the Frame
// Relay header), and each entry is one bidirectional circuit. A circuit
// may be written in both directions ("1:101": "2:202" and "2:202":
// "1:101"): that is the same circuit given twice, as GNS3 accepts it, and
// it is returned once. Entries are read in the order of their key (port,
// then DLCI); one that does not parse, ends where it starts, or uses an end
// an earlier circuit holds is left out, and the first such fault is the
// error. Circuits come sorted by their lower end.
//
// The Service refuses mappings with a fault (checkFrameRelayMappings); the
// data plane and the ports array use what holds.
func FrameRelayCircuits(m map[string]string) ([]FrameRelayCircuit, error) {
	return pairEnds[FrameRelayEnd, FrameRelayCircuit](m, pairRules[FrameRelayEnd]{
		parse:   parseDLCIEnd,
		compare: FrameRelayEnd.compare,
		check: func(k, v string, a, b FrameRelayEnd) error {
			if a == b {
				return Invalid("properties.mappings", "Frame Relay circuit %s -> %s ends where it starts; map it to another port:DLCI", k, v)
			}
			return nil
		},
		usedTwice: func(end string) error {
			return Invalid("properties.mappings", "Frame Relay end %s is used by two circuits; each port:DLCI can carry one circuit", end)
		},
	})
}

// pairRules are what a switch's mappings reader tells pairEnds: how an end
// parses and sorts, the faults of one entry alone, the fault of an end two
// entries use, and (optionally) admit, which may refuse an entry given
// those accepted before it and records the ones it lets through.
type pairRules[E comparable] struct {
	parse     func(string) (E, error)
	compare   func(a, b E) int
	check     func(key, value string, a, b E) error
	usedTwice func(end string) error
	admit     func(a, b E) error
}

// pairEnds reads mappings whose entries each join two ends both ways (the
// Frame Relay and ATM switches'): entries are read in the order of their
// key; an entry written both ways is one pair; one that does not parse,
// fails check, uses an end an earlier pair holds, or is refused by admit
// is left out, and the first such fault is the error. Pairs come with
// their lower end first, sorted by it.
func pairEnds[E comparable, P ~[2]E](m map[string]string, r pairRules[E]) ([]P, error) {
	type entry struct {
		key, value string
		from, to   E
	}
	var first error
	fault := func(err error) {
		if first == nil {
			first = err
		}
	}
	entries := make([]entry, 0, len(m))
	for k, v := range m {
		a, err1 := r.parse(k)
		b, err2 := r.parse(v)
		if err := cmp.Or(err1, err2); err != nil {
			fault(err)
		} else if err := r.check(k, v, a, b); err != nil {
			fault(err)
		} else {
			entries = append(entries, entry{k, v, a, b})
		}
	}
	slices.SortFunc(entries, func(x, y entry) int { return r.compare(x.from, y.from) })
	peer := map[E]E{} // each end -> the other end of its pair
	var pairs []P
	for _, e := range entries {
		pa, usedA := peer[e.from]
		pb, usedB := peer[e.to]
		if usedA && usedB && pa == e.to && pb == e.from {
			continue // the same pair, given the other way round
		}
		if usedA || usedB {
			taken := e.key
			if !usedA {
				taken = e.value
			}
			fault(r.usedTwice(taken))
			continue
		}
		if r.admit != nil {
			if err := r.admit(e.from, e.to); err != nil {
				fault(err)
				continue
			}
		}
		peer[e.from], peer[e.to] = e.to, e.from
		pair := P{e.from, e.to}
		if r.compare(pair[1], pair[0]) < 0 {
			pair[0], pair[1] = pair[1], pair[0]
		}
		pairs = append(pairs, pair)
	}
	slices.SortFunc(pairs, func(x, y P) int { return r.compare(x[0], y[0]) })
	return pairs, first
}

func (a FrameRelayEnd) compare(b FrameRelayEnd) int {
	return cmp.Or(cmp.Compare(a.Port, b.Port), cmp.Compare(a.DLCI, b.DLCI))
}

// checkFrameRelayMappings refuses mappings with any fault FrameRelayCircuits
// finds.
func checkFrameRelayMappings(m map[string]string) error {
	_, err := FrameRelayCircuits(m)
	return err
}

// parseDLCIEnd parses "<port>:<dlci>".
func parseDLCIEnd(s string) (FrameRelayEnd, error) {
	bad := Invalid("properties.mappings", "Frame Relay mapping %q is not of the form port:DLCI (for example \"1:101\": \"2:201\")", s)
	ps, ds, ok := strings.Cut(s, ":")
	if !ok {
		return FrameRelayEnd{}, bad
	}
	port, err1 := strconv.Atoi(ps)
	dlci, err2 := strconv.Atoi(ds)
	if err1 != nil || err2 != nil || port < 0 || port > 65535 || strconv.Itoa(port)+":"+strconv.Itoa(dlci) != s {
		return FrameRelayEnd{}, bad
	}
	if dlci < 0 || dlci > 1023 {
		return FrameRelayEnd{}, Invalid("properties.mappings", "DLCI %d in Frame Relay mapping %q is out of range; use 0 to 1023", dlci, s)
	}
	return FrameRelayEnd{port, dlci}, nil
}

// The ranges of an ATM cell header's fields as Dynamips' ATM switch reads
// and writes them (GNS3 runs it for atm_switch nodes): a 12-bit VPI and a
// 16-bit VCI.
const (
	MaxVPI = 4095
	MaxVCI = 65535
)

// ATMPath is the VCI of an ATMEnd that is a whole virtual path.
const ATMPath = -1

// ATMEnd is one end of an ATM connection: a port and a VPI, and the VCI of
// a virtual channel, or ATMPath for a virtual path (every VCI of the VPI).
type ATMEnd struct{ Port, VPI, VCI int }

// IsPath reports whether e is a virtual path's end.
func (e ATMEnd) IsPath() bool { return e.VCI == ATMPath }

// String is e as a mapping writes it: "port:vpi:vci", or "port:vpi" for a
// path.
func (e ATMEnd) String() string {
	s := strconv.Itoa(e.Port) + ":" + strconv.Itoa(e.VPI)
	if !e.IsPath() {
		s += ":" + strconv.Itoa(e.VCI)
	}
	return s
}

func (e ATMEnd) compare(f ATMEnd) int {
	return cmp.Or(cmp.Compare(e.Port, f.Port), cmp.Compare(e.VPI, f.VPI), cmp.Compare(e.VCI, f.VCI))
}

// ATMConnection is one bidirectional connection of an ATM switch, a
// virtual channel (both ends have a VCI) or a virtual path (neither has),
// its lower end (by port, VPI, then VCI) first.
type ATMConnection [2]ATMEnd

// ATMConnections reads an ATM switch's mappings as GNS3 writes them: each
// key and value is "<port>:<vpi>:<vci>" (a virtual channel, switched by
// VPI and VCI, both rewritten) or "<port>:<vpi>" (a virtual path, switched
// by VPI alone, its VCIs kept), a VPI is 0–4095 and a VCI 0–65535 (the
// header's fields), and each entry is one bidirectional connection, as
// GNS3 maps both directions of an entry. A connection may be written in
// both directions: it is the same connection given twice, returned once.
// Entries are read in the order of their key; one that does not parse,
// maps a channel to a path, ends where it starts, uses an end an earlier
// connection holds, or puts a channel in a VPI of its port that a path
// switches whole (the path would take its cells) is left out, and the
// first such fault is the error. Connections come sorted by their lower
// end.
//
// The Service refuses mappings with a fault (checkATMMappings); the data
// plane and the ports array use what holds.
func ATMConnections(m map[string]string) ([]ATMConnection, error) {
	paths := map[[2]int]ATMEnd{} // port, VPI -> the path end that switches it whole
	chans := map[[2]int]ATMEnd{} // port, VPI -> a channel end in it
	return pairEnds[ATMEnd, ATMConnection](m, pairRules[ATMEnd]{
		parse:   parseATMEnd,
		compare: ATMEnd.compare,
		check: func(k, v string, a, b ATMEnd) error {
			switch {
			case a.IsPath() != b.IsPath():
				return Invalid("properties.mappings", "ATM mapping %s -> %s joins a virtual channel (port:VPI:VCI) and a virtual path (port:VPI); map a channel to a channel or a path to a path", k, v)
			case a == b:
				return Invalid("properties.mappings", "ATM connection %s -> %s ends where it starts; map it to another port, VPI or VCI", k, v)
			}
			return nil
		},
		usedTwice: func(end string) error {
			return Invalid("properties.mappings", "ATM end %s is used by two connections; each port:VPI:VCI or port:VPI can carry one", end)
		},
		admit: func(a, b ATMEnd) error {
			if err := atmPathClash(a, b, paths, chans); err != nil {
				return err
			}
			for _, end := range []ATMEnd{a, b} {
				if end.IsPath() {
					paths[[2]int{end.Port, end.VPI}] = end
				} else {
					chans[[2]int{end.Port, end.VPI}] = end
				}
			}
			return nil
		},
	})
}

// atmPathClash refuses a connection one of whose ends is a channel in a
// VPI a path switches whole on its port, or a path over a VPI that
// channels of its port use: Dynamips switches such a VPI's cells by the
// path, so the channel would never carry a cell.
func atmPathClash(a, b ATMEnd, paths, chans map[[2]int]ATMEnd) error {
	for _, end := range []ATMEnd{a, b} {
		k := [2]int{end.Port, end.VPI}
		other, clash := paths[k]
		if end.IsPath() {
			other, clash = chans[k]
		}
		if !clash {
			continue
		}
		path, ch := end, other
		if !end.IsPath() {
			path, ch = other, end
		}
		return Invalid("properties.mappings", "ATM virtual channel %s lies in virtual path %s, which is switched whole (its cells never reach the channel); give the channel another VPI or map the path's channels one by one", ch, path)
	}
	return nil
}

// checkATMMappings refuses mappings with any fault ATMConnections finds.
func checkATMMappings(m map[string]string) error {
	_, err := ATMConnections(m)
	return err
}

// parseATMEnd parses "<port>:<vpi>:<vci>" or "<port>:<vpi>".
func parseATMEnd(s string) (ATMEnd, error) {
	bad := Invalid("properties.mappings", "ATM mapping %q is not of the form port:VPI:VCI (a virtual channel, for example \"1:10:100\": \"2:20:200\") or port:VPI (a virtual path, for example \"1:10\": \"2:20\")", s)
	parts := strings.Split(s, ":")
	if len(parts) != 2 && len(parts) != 3 {
		return ATMEnd{}, bad
	}
	nums := []int{0, 0, ATMPath}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || strconv.Itoa(n) != p {
			return ATMEnd{}, bad
		}
		nums[i] = n
	}
	e := ATMEnd{Port: nums[0], VPI: nums[1], VCI: nums[2]}
	switch {
	case e.Port > 65535:
		return ATMEnd{}, Invalid("properties.mappings", "Port %d in ATM mapping %q is out of range; use 0 to 65535", e.Port, s)
	case e.VPI > MaxVPI:
		return ATMEnd{}, Invalid("properties.mappings", "VPI %d in ATM mapping %q is out of range; use 0 to %d (the cell header's 12-bit VPI)", e.VPI, s, MaxVPI)
	case e.VCI > MaxVCI:
		return ATMEnd{}, Invalid("properties.mappings", "VCI %d in ATM mapping %q is out of range; use 0 to %d", e.VCI, s, MaxVCI)
	}
	return e, nil
}
