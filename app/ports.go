package app

import (
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

// adapterPorts gives generic nodes one port per adapter (the "adapters"
// property, 1 by default), named from port_name_format: {0} or {port0} is the
// interface number, {port1} that number plus one, {segment0}/{segment1} the
// segment when port_segment_size is set. first_port_name names the first.
func (n *Node) adapterPorts() []Port {
	adapters := 1
	if raw, ok := n.Properties.Extra["adapters"]; ok {
		if v, err := strconv.Atoi(string(raw)); err == nil && v >= 0 && v <= 64 {
			adapters = v
		}
	}
	ports := make([]Port, 0, adapters)
	iface, segment := 0, 0
	for a := 0; a < adapters; a++ {
		name := ""
		if a == 0 && n.FirstPortName != nil && *n.FirstPortName != "" {
			name = *n.FirstPortName
		} else {
			name = strings.NewReplacer(
				"{0}", strconv.Itoa(iface), "{port0}", strconv.Itoa(iface), "{port1}", strconv.Itoa(iface+1),
				"{1}", strconv.Itoa(segment), "{segment0}", strconv.Itoa(segment), "{segment1}", strconv.Itoa(segment+1),
			).Replace(n.PortNameFormat)
			iface++
			if n.PortSegmentSize > 0 && iface%n.PortSegmentSize == 0 {
				segment++
				iface = 0
			}
		}
		ports = append(ports, ethernetPort(name, "e"+strconv.Itoa(a), a, 0))
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
