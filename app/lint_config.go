package app

import (
	"bufio"
	"net/netip"
	"strconv"
	"strings"
)

// What the configurations of a project's nodes say of their ports, for
// lint (decision 0070): the address each port holds, its gateway, whether
// it is shut down, its 802.1Q tag and its Frame Relay DLCIs. Each type
// whose configuration names addresses says, in its row of the node-type
// table (nodeKind.configured), which file holds that configuration and
// how it reads (in its properties file); the IOS configs that Cisco
// emulators share are read here (iosPortConfigs).

// configReader is how a node type's configuration names its addresses: the
// file of the node's folder that holds it, and how it reads.
type configReader struct {
	file func(n *Node) string
	read func(ports []Port, text string) []portConfig
}

// portConfig is what a node's configuration says of one interface.
type portConfig struct {
	iface string // as the configuration names it ("FastEthernet0/0.10", "eth0"); "" for a one-port host
	line  int    // the line that sets its address, from 1; 0: none
	// adapter and port are the node's port the interface is on; found is
	// false when the node has no such port.
	adapter, port int
	found         bool
	addr          netip.Prefix // invalid: no fixed IPv4 address
	gateway       netip.Addr   // invalid: none
	shut          bool         // administratively down
	vlan          int          // the 802.1Q tag its frames wear (a dot1Q subinterface); 0: none
	dlcis         []int        // the Frame Relay DLCIs it names
	// refused says why the emulator refuses this address (VPCS refuses a
	// gateway outside the address's subnet); "": it takes it.
	refused string
}

// portByName finds the port among ports an interface name names: its name or
// short name, or an abbreviation of its name (Fa0/0 for FastEthernet0/0),
// as IOS takes them, whatever the case.
func portByName(ports []Port, name string) (Port, bool) {
	alpha, num := splitIfaceName(name)
	if alpha == "" && num == "" {
		return Port{}, false
	}
	for _, p := range ports {
		if strings.EqualFold(p.Name, name) || strings.EqualFold(p.ShortName, name) {
			return p, true
		}
	}
	for _, p := range ports {
		pa, pn := splitIfaceName(p.Name)
		if pn == num && alpha != "" && strings.HasPrefix(pa, alpha) {
			return p, true
		}
	}
	return Port{}, false
}

// splitIfaceName splits "FastEthernet0/1" into "fastethernet" and "0/1".
func splitIfaceName(name string) (alpha, num string) {
	i := strings.IndexAny(name, "0123456789")
	if i < 0 {
		return strings.ToLower(strings.TrimSpace(name)), ""
	}
	return strings.ToLower(strings.TrimSpace(name[:i])), strings.TrimSpace(name[i:])
}

// maskBits is the prefix length of a dotted netmask ("255.255.255.0" →
// 24); false when it is not a netmask.
func maskBits(mask string) (int, bool) {
	a, err := netip.ParseAddr(mask)
	if err != nil || !a.Is4() {
		return 0, false
	}
	b := a.As4()
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	ones := 0
	for ones < 32 && v&(1<<(31-ones)) != 0 {
		ones++
	}
	if v<<ones != 0 {
		return 0, false
	}
	return ones, true
}

// iosPortConfigs reads an IOS startup config (a Dynamips router's, an
// IOU node's): each interface block's "ip address A M" (secondary ones
// too), "shutdown", "encapsulation dot1Q N" of a subinterface, and the
// DLCIs of "frame-relay interface-dlci" and "frame-relay map"; a
// subinterface is on its main interface's port (among ports), and shut
// when it is.
func iosPortConfigs(ports []Port, text string) []portConfig {
	var out []portConfig
	type block struct {
		name      string
		sub       bool
		shut      bool
		vlan      int
		dlcis     []int
		primary   *portConfig
		secondary []portConfig
	}
	var blocks []*block
	var cur *block
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64*1024), MaxNodeFileBytes)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		raw := strings.TrimRight(sc.Text(), "\r")
		f := strings.Fields(raw)
		if len(f) == 0 {
			continue
		}
		lower := strings.Fields(strings.ToLower(raw))
		if raw[0] != ' ' && raw[0] != '\t' {
			cur = nil
			if len(f) >= 2 && abbrev(lower[0], "interface", 3) {
				name := f[1]
				if !strings.ContainsAny(name, "0123456789") && len(f) >= 3 {
					name += f[2] // "interface FastEthernet 0/0"
				}
				cur = &block{name: name, sub: strings.Contains(name, ".")}
				blocks = append(blocks, cur)
			}
			continue
		}
		if cur == nil {
			continue
		}
		switch {
		case len(lower) == 1 && abbrev(lower[0], "shutdown", 4):
			cur.shut = true
		case len(lower) == 2 && lower[0] == "no" && abbrev(lower[1], "shutdown", 4):
			cur.shut = false
		case len(lower) >= 4 && lower[0] == "ip" && abbrev(lower[1], "address", 3):
			a, err := netip.ParseAddr(f[2])
			bits, ok := maskBits(f[3])
			if err != nil || !a.Is4() || !ok {
				continue
			}
			pc := portConfig{line: lineNo, addr: netip.PrefixFrom(a, bits)}
			if len(lower) >= 5 && abbrev(lower[4], "secondary", 3) {
				cur.secondary = append(cur.secondary, pc)
			} else {
				cur.primary = &pc // a primary address replaces the one before
			}
		case len(lower) >= 3 && lower[0] == "no" && lower[1] == "ip" && abbrev(lower[2], "address", 3):
			cur.primary, cur.secondary = nil, nil
		case len(lower) >= 3 && abbrev(lower[0], "encapsulation", 3) && lower[1] == "dot1q":
			if v, err := strconv.Atoi(f[2]); err == nil && (len(lower) < 4 || lower[3] != "native") {
				cur.vlan = v // a native VLAN's frames go untagged
			}
		case len(lower) >= 3 && lower[0] == "frame-relay" && lower[1] == "interface-dlci":
			if d, err := strconv.Atoi(f[2]); err == nil {
				cur.dlcis = append(cur.dlcis, d)
			}
		case len(lower) >= 5 && lower[0] == "frame-relay" && lower[1] == "map":
			// frame-relay map <protocol> <address> <dlci> [broadcast]
			if d, err := strconv.Atoi(f[4]); err == nil {
				cur.dlcis = append(cur.dlcis, d)
			}
		}
	}
	shutMain := map[string]bool{}
	for _, b := range blocks {
		if !b.sub {
			shutMain[strings.ToLower(b.name)] = b.shut
		}
	}
	for _, b := range blocks {
		main, _, _ := strings.Cut(b.name, ".")
		port, found := portByName(ports, main)
		shut := b.shut || shutMain[strings.ToLower(main)]
		base := portConfig{iface: b.name, adapter: port.AdapterNumber, port: port.PortNumber, found: found,
			shut: shut, vlan: b.vlan, dlcis: b.dlcis}
		addrs := b.secondary
		if b.primary != nil {
			addrs = append([]portConfig{*b.primary}, addrs...)
		}
		if len(addrs) == 0 {
			if len(b.dlcis) > 0 {
				out = append(out, base)
			}
			continue
		}
		for _, a := range addrs {
			pc := base
			pc.line, pc.addr = a.line, a.addr
			out = append(out, pc)
		}
	}
	return out
}

// abbrev reports whether word is full or an abbreviation of it at least
// min letters long, as IOS takes its keywords ("int", "shut", "ip add").
func abbrev(word, full string, min int) bool {
	return len(word) >= min && strings.HasPrefix(full, word)
}
