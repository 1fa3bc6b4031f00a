package app

import "strconv"

// NodeCreate is a request for a new node: its type, an optional id, and
// any initial settings, which follow the same rules as an update. Fields
// left out get GNS3's defaults (newNode).
type NodeCreate struct {
	Type       NodeType
	ID         string        // optional; a fresh UUID when empty
	ComputeID  string        // optional; only "local" exists
	TemplateID Field[string] // optional
	NodeUpdate
}

// newNode is a node of type t with GNS3's defaults: the type's symbol, a
// label above it, "Ethernet{0}" port names, z 1, the type's initial status
// and properties. Its name and console port are allocated by the Service.
func newNode(id, projectID string, t NodeType, hostInterfaces []HostInterface) *Node {
	info := types[t]
	symbol := info.symbol
	n := &Node{
		ID: id, ProjectID: projectID, Type: t,
		ConsoleType:    info.consoleTypes[0],
		Status:         t.initialStatus(),
		Z:              1,
		Symbol:         &symbol,
		PortNameFormat: "Ethernet{0}",
	}
	_, h := n.Size()
	n.Label = Label{Y: -roundHalfEven(float64(h)/2 + 10)}
	switch t {
	case VPCS:
		empty := ""
		n.CommandLine = &empty
	case EthernetSwitch:
		for i := range 8 {
			n.Properties.SwitchPorts = append(n.Properties.SwitchPorts,
				SwitchPort{Name: "Ethernet" + strconv.Itoa(i), PortNumber: i, Type: "access", VLAN: 1})
		}
	case EthernetHub:
		for i := range 8 {
			n.Properties.HubPorts = append(n.Properties.HubPorts, HubPort{Name: "Ethernet" + strconv.Itoa(i), PortNumber: i})
		}
	case FrameRelaySwitch:
		n.Properties.Mappings = map[string]string{}
	case Cloud:
		n.Properties.Interfaces = hostInterfaces
		n.Properties.RemoteConsole = defaultRemoteConsole()
		for _, iface := range hostInterfaces {
			if !iface.Special {
				n.Properties.CloudPorts = append(n.Properties.CloudPorts, CloudPort{
					Name: iface.Name, PortNumber: len(n.Properties.CloudPorts), Type: iface.Type, Interface: iface.Name})
			}
		}
	}
	return n
}

// roundHalfEven rounds like Python's round(), which GNS3 uses for the
// label offset (39.5 -> 40, 25.5 -> 26, 26.5 -> 26).
func roundHalfEven(f float64) int {
	i := int(f)
	switch frac := f - float64(i); {
	case frac > 0.5 || (frac == 0.5 && i%2 == 1):
		return i + 1
	default:
		return i
	}
}
