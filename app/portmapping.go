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
			return nil, Errorf(EINVALID, "Port %s has VLAN %d; use a VLAN from 1 to 4094", p.Name, p.VLAN)
		}
		if p.Ethertype != nil && *p.Ethertype == "" {
			p.Ethertype = nil
		}
		out[i] = p
	}
	return out, nil
}

// checkHubPorts checks an Ethernet hub's port mapping.
func checkHubPorts(in []HubPort) error {
	return checkPortNumbers(in, func(p HubPort) int { return p.PortNumber })
}

// checkCloudPorts checks a cloud's port mapping.
func checkCloudPorts(in []CloudPort) error {
	return checkPortNumbers(in, func(p CloudPort) int { return p.PortNumber })
}

// checkPortNumbers refuses a port mapping that gives two ports one number.
func checkPortNumbers[P any](ports []P, number func(P) int) error {
	seen := map[int]bool{}
	for _, p := range ports {
		n := number(p)
		if seen[n] {
			return Errorf(EINVALID, "Port number %d appears twice in ports_mapping; each port needs its own number", n)
		}
		seen[n] = true
	}
	return nil
}

// checkFrameRelayMappings checks a Frame Relay switch's virtual circuits:
// each key and value is "<port>:<dlci>", a DLCI is 0–1023 (the 10-bit field
// of the Frame Relay header), and each port:DLCI end is used once.
func checkFrameRelayMappings(m map[string]string) error {
	used := map[string]bool{}
	for k, v := range m {
		for _, end := range []string{k, v} {
			if _, _, err := parseDLCIEnd(end); err != nil {
				return err
			}
			if used[end] {
				return Errorf(EINVALID, "Frame Relay end %s is used by two circuits; each port:DLCI can carry one circuit", end)
			}
			used[end] = true
		}
	}
	return nil
}

// parseDLCIEnd parses "<port>:<dlci>".
func parseDLCIEnd(s string) (port, dlci int, err error) {
	bad := Errorf(EINVALID, "Frame Relay mapping %q is not of the form port:DLCI (for example \"1:101\": \"2:201\")", s)
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
		return 0, 0, Errorf(EINVALID, "DLCI %d in Frame Relay mapping %q is out of range; use 0 to 1023", dlci, s)
	}
	return port, dlci, nil
}
