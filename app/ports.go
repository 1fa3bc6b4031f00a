package app

import (
	"sort"
	"strconv"
	"strings"
)

// Port is one network port of a node, as listed in the controller node's
// ports array. Links (a later feature) join two ports by AdapterNumber and
// PortNumber.
type Port struct {
	Name          string            `json:"name"`
	ShortName     string            `json:"short_name"`
	AdapterNumber int               `json:"adapter_number"`
	PortNumber    int               `json:"port_number"`
	LinkType      string            `json:"link_type"` // ethernet or serial
	DataLinkTypes map[string]string `json:"data_link_types"`
}

// Ports lists the node's ports. This is the one place that derives them:
// from the port mapping of switches, hubs and clouds, from the DLCI mappings
// of a Frame Relay switch, and from the adapters of the other types.
func (n *Node) Ports() []Port {
	ports := []Port{}
	switch n.Type {
	case VPCS:
		ports = append(ports, ethernetPort("Ethernet0", "e0", 0, 0))
	case EthernetSwitch:
		for i, p := range n.Properties.SwitchPorts {
			ports = append(ports, ethernetPort(p.Name, "e"+strconv.Itoa(i), 0, i))
		}
	case EthernetHub:
		for i, p := range n.Properties.HubPorts {
			ports = append(ports, ethernetPort(p.Name, "e"+strconv.Itoa(i), 0, i))
		}
	case Cloud:
		for i, p := range n.Properties.CloudPorts {
			ports = append(ports, ethernetPort(p.Name, p.Name, 0, i))
		}
	case NAT:
		// One port into the host's NAT network, as GNS3's NAT node has.
		ports = append(ports, ethernetPort("nat0", "nat0", 0, 0))
	case FrameRelaySwitch:
		for _, num := range frameRelayPortNumbers(n.Properties.Mappings) {
			s := strconv.Itoa(num)
			ports = append(ports, Port{Name: s, ShortName: s, PortNumber: num, LinkType: "serial",
				DataLinkTypes: map[string]string{"Frame Relay": "DLT_FRELAY"}})
		}
	case ATMSwitch:
		// ATM ports carry ATM cells, a link type the API does not model.
	default:
		ports = n.adapterPorts()
	}
	return ports
}

func ethernetPort(name, short string, adapter, port int) Port {
	return Port{Name: name, ShortName: short, AdapterNumber: adapter, PortNumber: port,
		LinkType: "ethernet", DataLinkTypes: map[string]string{"Ethernet": "DLT_EN10MB"}}
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

// frameRelayPortNumbers is the sorted set of port numbers used on either side
// of a Frame Relay switch's mappings ("1:101" -> "2:202" uses ports 1 and 2).
func frameRelayPortNumbers(m map[string]string) []int {
	seen := map[int]bool{}
	for k, v := range m {
		for _, end := range []string{k, v} {
			if p, _, err := parseDLCIEnd(end); err == nil {
				seen[p] = true
			}
		}
	}
	nums := make([]int, 0, len(seen))
	for p := range seen {
		nums = append(nums, p)
	}
	sort.Ints(nums)
	return nums
}
