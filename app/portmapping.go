package app

import (
	"strconv"
	"strings"
)

// The rules for the port lists of switches, hubs and clouds, and for the
// DLCI mappings of Frame Relay switches.

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
		if p.VLAN < 1 || p.VLAN > 4094 {
			return nil, Invalid(portsField(i, "vlan"), "Port %s has VLAN %d; use a VLAN from 1 to 4094", p.Name, p.VLAN)
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

// checkFrameRelayMappings checks a Frame Relay switch's virtual circuits:
// each key and value is "<port>:<dlci>", a DLCI is 0–1023 (the 10-bit field
// of the Frame Relay header), and each port:DLCI end belongs to one
// circuit. A circuit may be written in both directions ("1:101": "2:202"
// and "2:202": "1:101"): that is the same circuit given twice, as GNS3
// accepts it.
func checkFrameRelayMappings(m map[string]string) error {
	peer := map[string]string{} // each end -> the other end of its circuit
	for k, v := range m {
		for _, end := range []string{k, v} {
			if _, _, err := parseDLCIEnd(end); err != nil {
				return err
			}
		}
		if k == v {
			return Invalid("properties.mappings", "Frame Relay circuit %s -> %s ends where it starts; map it to another port:DLCI", k, v)
		}
		for _, e := range [][2]string{{k, v}, {v, k}} {
			if other, used := peer[e[0]]; used && other != e[1] {
				return Invalid("properties.mappings", "Frame Relay end %s is used by two circuits; each port:DLCI can carry one circuit", e[0])
			}
			peer[e[0]] = e[1]
		}
	}
	return nil
}

// parseDLCIEnd parses "<port>:<dlci>".
func parseDLCIEnd(s string) (port, dlci int, err error) {
	bad := Invalid("properties.mappings", "Frame Relay mapping %q is not of the form port:DLCI (for example \"1:101\": \"2:201\")", s)
	ps, ds, ok := strings.Cut(s, ":")
	if !ok {
		return 0, 0, bad
	}
	port, err1 := strconv.Atoi(ps)
	dlci, err2 := strconv.Atoi(ds)
	if err1 != nil || err2 != nil || port < 0 || port > 65535 || strconv.Itoa(port)+":"+strconv.Itoa(dlci) != s {
		return 0, 0, bad
	}
	if dlci < 0 || dlci > 1023 {
		return 0, 0, Invalid("properties.mappings", "DLCI %d in Frame Relay mapping %q is out of range; use 0 to 1023", dlci, s)
	}
	return port, dlci, nil
}
