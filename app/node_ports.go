package app

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// Port is one network port of a node, as listed in the controller node's
// ports array. Links join two ports by AdapterNumber and PortNumber.
type Port struct {
	Name          string            `json:"name"`
	ShortName     string            `json:"short_name"`
	AdapterNumber int               `json:"adapter_number"`
	PortNumber    int               `json:"port_number"`
	LinkType      string            `json:"link_type"` // ethernet or serial
	DataLinkTypes map[string]string `json:"data_link_types"`
	// MACAddress is the port's interface's MAC address, for the types
	// whose ports GNS3 lists with it (Docker); "" for the others.
	MACAddress string `json:"mac_address,omitempty"`
}

// Ports lists the node's ports, derived from its properties by its type's
// entry in the node-type table (never stored).
func (n *Node) Ports() []Port { return n.Type.kind().props.ports(n) }

func ethernetPort(name, short string, adapter, port int) Port {
	return Port{Name: name, ShortName: short, AdapterNumber: adapter, PortNumber: port,
		LinkType: "ethernet", DataLinkTypes: map[string]string{"Ethernet": "DLT_EN10MB"}}
}

// indexedPorts gives a switch or hub one Ethernet port per entry of its
// port mapping, numbered by position (e0, e1, ...).
func indexedPorts[P any](mapping []P, name func(P) string) []Port {
	ports := make([]Port, len(mapping))
	for i, p := range mapping {
		ports[i] = ethernetPort(name(p), "e"+strconv.Itoa(i), 0, i)
	}
	return ports
}

// portClass is one kind of port of GNS3's port factory: its long and
// short name prefixes (FastEthernet, f), link type and capture types.
type portClass struct {
	long, short string
	linkType    string
	dlts        map[string]string
}

// atmPorts gives an ATM switch one port per port number its connections
// use ("1:0:100": "10:0:200" uses ports 1 and 10), in order, as GNS3 does.
func (n *Node) atmPorts() []Port {
	conns, _ := ATMConnections(n.ATMMappings())
	var nums []int
	for _, c := range conns {
		nums = append(nums, c[0].Port, c[1].Port)
	}
	slices.Sort(nums)
	nums = slices.Compact(nums)
	ports := make([]Port, len(nums))
	for i, num := range nums {
		ports[i] = atmClass.port(strconv.Itoa(num), "", 0, 0, num)
	}
	return ports
}

// frameRelayPorts gives a Frame Relay switch one serial port per port
// number its circuits use ("1:101" -> "2:202" uses ports 1 and 2), in
// order.
func frameRelayPorts(m map[string]string) []Port {
	circuits, _ := FrameRelayCircuits(m)
	var nums []int
	for _, c := range circuits {
		nums = append(nums, c[0].Port, c[1].Port)
	}
	slices.Sort(nums)
	nums = slices.Compact(nums)
	ports := make([]Port, len(nums))
	for i, num := range nums {
		s := strconv.Itoa(num)
		ports[i] = Port{Name: s, ShortName: s, PortNumber: num, LinkType: "serial",
			DataLinkTypes: map[string]string{"Frame Relay": "DLT_FRELAY"}}
	}
	return ports
}

// The port classes of GNS3 (its controller/ports package).
var (
	ethernetClass     = portClass{"Ethernet", "e", "ethernet", map[string]string{"Ethernet": "DLT_EN10MB"}}
	fastEthernetClass = portClass{"FastEthernet", "f", "ethernet", ethernetClass.dlts}
	gigabitClass      = portClass{"GigabitEthernet", "g", "ethernet", ethernetClass.dlts}
	serialClass       = portClass{"Serial", "s", "serial", map[string]string{"Frame Relay": "DLT_FRELAY", "Cisco HDLC": "DLT_C_HDLC", "Cisco PPP": "DLT_PPP_SERIAL"}}
	atmClass          = portClass{"ATM", "a", "serial", map[string]string{"ATM": "DLT_ATM_RFC1483"}}
	posClass          = portClass{"POS", "p", "serial", map[string]string{}}
)

// port is a port of class c. An empty short name is derived as GNS3
// derives it: the name with its long prefix shortened when it has a /
// (FastEthernet0/1 -> f0/1), the short prefix and the interface number
// when the name is the long prefix and that number (Ethernet2 -> e2), else
// the name itself.
func (c portClass) port(name, short string, iface, adapter, number int) Port {
	if short == "" {
		switch {
		case strings.Contains(name, "/"):
			short = strings.Replace(name, c.long, c.short, 1)
		case strings.HasPrefix(name, c.long+strconv.Itoa(iface)):
			short = c.short + strconv.Itoa(iface)
		default:
			short = name
		}
	}
	return Port{Name: name, ShortName: short, AdapterNumber: adapter, PortNumber: number, LinkType: c.linkType, DataLinkTypes: c.dlts}
}

// The ports of the emulated types nodedesk stores but does not run are
// derived from their free-form properties exactly as GNS3's controller
// derives them (its PortFactory), so that every link of a GNS3 project
// finds the port it names.

// extraInt reads an integer property of a generic node.
func (n *Node) extraInt(key string) (int, bool) {
	raw, ok := n.Properties.Extra[key]
	if !ok {
		return 0, false
	}
	var v int
	if json.Unmarshal(raw, &v) != nil {
		return 0, false
	}
	return v, true
}

// extraString reads a string property of a generic node ("" when it is
// missing, null or not a string).
func (n *Node) extraString(key string) string {
	var v string
	_ = json.Unmarshal(n.Properties.Extra[key], &v)
	return v
}

// maxAdapters bounds the adapters a node's properties may ask for, so that
// a hostile value cannot make a huge port list (QEMU allows 275).
const maxAdapters = 1024

// adapterCount reads a count of adapters, bounded; def when it is missing.
func (n *Node) adapterCount(key string, def int) int {
	v, ok := n.extraInt(key)
	if !ok {
		return def
	}
	return min(max(v, 0), maxAdapters)
}

// customAdapter returns the custom settings of an adapter, if any.
func (n *Node) customAdapter(adapter int) CustomAdapter {
	for _, c := range n.CustomAdapters {
		if c.AdapterNumber == adapter {
			return c
		}
	}
	return CustomAdapter{}
}

// standardPorts are the ports of QEMU, VirtualBox, VMware and IOU nodes
// (GNS3's StandardPortFactory): ethernet adapters ("ethernet_adapters",
// else "adapters", 1 by default) of perAdapter ports each, named from
// port_name_format, first_port_name naming adapter 0's, a custom adapter's
// port_name overriding either; then IOU's serial adapters
// ("serial_adapters"), Serial<segment>/<port>.
func (n *Node) standardPorts(perAdapter int) []Port {
	adapters := n.adapterCount("adapters", 1)
	if _, ok := n.Properties.Extra["ethernet_adapters"]; ok {
		adapters = n.adapterCount("ethernet_adapters", 0)
	}
	first := ""
	if n.FirstPortName != nil {
		first = *n.FirstPortName
	}
	var ports []Port
	iface, segment := 0, 0
	for a := 0; a < adapters; a++ {
		custom := n.customAdapter(a)
		for p := 0; p < perAdapter; p++ {
			if first != "" && a == 0 {
				name := cmp.Or(custom.PortName, first)
				ports = append(ports, ethernetClass.port(name, name, segment, a, p))
				continue
			}
			name := cmp.Or(custom.PortName, formatPortName(n.PortNameFormat, iface, segment, a))
			ports = append(ports, ethernetClass.port(name, "", segment, a, p))
			iface++
			if n.PortSegmentSize > 0 {
				if iface%n.PortSegmentSize == 0 {
					segment++
					iface = 0
				}
			} else {
				segment++
			}
		}
	}
	next := adapters
	for a := next; a < next+n.adapterCount("serial_adapters", 0); a++ {
		for p := 0; p < perAdapter; p++ {
			name := "Serial" + strconv.Itoa(segment) + "/" + strconv.Itoa(p)
			ports = append(ports, serialClass.port(name, "", segment, a, p))
		}
		segment++
	}
	return nonNil(ports)
}

// formatPortName fills a port_name_format as Python's str.format does with
// GNS3's arguments: {0} the interface number, {1} the segment number,
// {adapter}, {port0}…{port8} the interface number plus 0…8 and
// {segment0}…{segment8} the segment number plus 0…8; {{ and }} are braces.
// A field it does not know stays as written.
func formatPortName(format string, iface, segment, adapter int) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		switch {
		case (c == '{' || c == '}') && i+1 < len(format) && format[i+1] == c:
			b.WriteByte(c)
			i++
		case c == '{':
			end := strings.IndexByte(format[i:], '}')
			if end < 0 {
				b.WriteString(format[i:])
				return b.String()
			}
			field := format[i+1 : i+end]
			if v, ok := portNameField(field, iface, segment, adapter); ok {
				b.WriteString(strconv.Itoa(v))
			} else {
				b.WriteString(format[i : i+end+1])
			}
			i += end
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// portNameField is the value of one field of a port_name_format.
func portNameField(field string, iface, segment, adapter int) (int, bool) {
	switch field {
	case "0":
		return iface, true
	case "1":
		return segment, true
	case "adapter":
		return adapter, true
	}
	for prefix, base := range map[string]int{"port": iface, "segment": segment} {
		if d, ok := strings.CutPrefix(field, prefix); ok && len(d) == 1 && d[0] >= '0' && d[0] <= '8' {
			return base + int(d[0]-'0'), true
		}
	}
	return 0, false
}
