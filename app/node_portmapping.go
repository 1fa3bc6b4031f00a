package app

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// The rules for the port lists of switches, hubs and clouds, and for the
// DLCI mappings of Frame Relay switches.

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
	type entry struct {
		key, value string
		from, to   FrameRelayEnd
	}
	var first error
	fault := func(err error) {
		if first == nil {
			first = err
		}
	}
	entries := make([]entry, 0, len(m))
	for k, v := range m {
		a, err1 := parseDLCIEnd(k)
		b, err2 := parseDLCIEnd(v)
		switch {
		case err1 != nil || err2 != nil:
			fault(cmp.Or(err1, err2))
		case a == b:
			fault(Invalid("properties.mappings", "Frame Relay circuit %s -> %s ends where it starts; map it to another port:DLCI", k, v))
		default:
			entries = append(entries, entry{k, v, a, b})
		}
	}
	slices.SortFunc(entries, func(x, y entry) int { return x.from.compare(y.from) })
	peer := map[FrameRelayEnd]FrameRelayEnd{} // each end -> the other end of its circuit
	var circuits []FrameRelayCircuit
	for _, e := range entries {
		pa, usedA := peer[e.from]
		pb, usedB := peer[e.to]
		if usedA && usedB && pa == e.to && pb == e.from {
			continue // the same circuit, given the other way round
		}
		if usedA || usedB {
			taken := e.key
			if !usedA {
				taken = e.value
			}
			fault(Invalid("properties.mappings", "Frame Relay end %s is used by two circuits; each port:DLCI can carry one circuit", taken))
			continue
		}
		peer[e.from], peer[e.to] = e.to, e.from
		c := FrameRelayCircuit{e.from, e.to}
		if c[1].compare(c[0]) < 0 {
			c[0], c[1] = c[1], c[0]
		}
		circuits = append(circuits, c)
	}
	slices.SortFunc(circuits, func(x, y FrameRelayCircuit) int { return x[0].compare(y[0]) })
	return circuits, first
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
