package app

// NodeType is the kind of a node, spelled as GNS3 spells it.
type NodeType string

// The node types of the spec. The first five have a compute view of their
// own (see Compute); the others are stored as generic controller nodes.
const (
	Cloud            NodeType = "cloud"
	NAT              NodeType = "nat"
	EthernetHub      NodeType = "ethernet_hub"
	EthernetSwitch   NodeType = "ethernet_switch"
	FrameRelaySwitch NodeType = "frame_relay_switch"
	ATMSwitch        NodeType = "atm_switch"
	Docker           NodeType = "docker"
	Dynamips         NodeType = "dynamips"
	VPCS             NodeType = "vpcs"
	VirtualBox       NodeType = "virtualbox"
	VMware           NodeType = "vmware"
	IOU              NodeType = "iou"
	QEMU             NodeType = "qemu"
)

// NodeTypes lists every node type in the spec's order.
var NodeTypes = []NodeType{Cloud, NAT, EthernetHub, EthernetSwitch, FrameRelaySwitch, ATMSwitch,
	Docker, Dynamips, VPCS, VirtualBox, VMware, IOU, QEMU}

// ComputeTypes lists the types served under /v2/compute/projects/{id}/<type>.
var ComputeTypes = []NodeType{VPCS, Cloud, EthernetSwitch, EthernetHub, FrameRelaySwitch}

// typeInfo is everything that differs between node types: the one table a
// newcomer reads to learn what a new node of a type looks like.
type typeInfo struct {
	nameFormat   string        // default name; {0} is the first free number
	symbol       string        // default symbol
	consoleTypes []ConsoleType // allowed console types; the first is the default
	processBound bool          // status follows a process (stopped until started)
	compute      bool          // has a compute view of its own
}

var types = map[NodeType]typeInfo{
	VPCS:             {nameFormat: "PC{0}", symbol: ":/symbols/vpcs_guest.svg", consoleTypes: []ConsoleType{ConsoleTelnet}, processBound: true, compute: true},
	EthernetSwitch:   {nameFormat: "Switch{0}", symbol: ":/symbols/ethernet_switch.svg", consoleTypes: []ConsoleType{ConsoleNone}, compute: true},
	EthernetHub:      {nameFormat: "Hub{0}", symbol: ":/symbols/hub.svg", consoleTypes: []ConsoleType{ConsoleNone}, compute: true},
	FrameRelaySwitch: {nameFormat: "FRSW{0}", symbol: ":/symbols/frame_relay_switch.svg", consoleTypes: []ConsoleType{ConsoleNone}, compute: true},
	Cloud:            {nameFormat: "Cloud{0}", symbol: ":/symbols/cloud.svg", consoleTypes: []ConsoleType{ConsoleNone}, compute: true},
	NAT:              {nameFormat: "NAT{0}", symbol: ":/symbols/nat.svg", consoleTypes: []ConsoleType{ConsoleNone}},
	ATMSwitch:        {nameFormat: "ATMSW{0}", symbol: ":/symbols/atm_switch.svg", consoleTypes: []ConsoleType{ConsoleNone}},
	QEMU:             {nameFormat: "QEMU{0}", symbol: ":/symbols/qemu_guest.svg", consoleTypes: anyConsole(ConsoleTelnet), processBound: true},
	Docker:           {nameFormat: "Docker{0}", symbol: ":/symbols/docker_guest.svg", consoleTypes: anyConsole(ConsoleTelnet), processBound: true},
	Dynamips:         {nameFormat: "R{0}", symbol: ":/symbols/router.svg", consoleTypes: anyConsole(ConsoleTelnet), processBound: true},
	IOU:              {nameFormat: "IOU{0}", symbol: ":/symbols/multilayer_switch.svg", consoleTypes: anyConsole(ConsoleTelnet), processBound: true},
	VirtualBox:       {nameFormat: "VBox{0}", symbol: ":/symbols/vbox_guest.svg", consoleTypes: anyConsole(ConsoleNone), processBound: true},
	VMware:           {nameFormat: "VMware{0}", symbol: ":/symbols/vmware_guest.svg", consoleTypes: anyConsole(ConsoleNone), processBound: true},
}

// anyConsole allows every console type, with def as the default.
func anyConsole(def ConsoleType) []ConsoleType {
	all := []ConsoleType{def}
	for _, c := range []ConsoleType{ConsoleTelnet, ConsoleVNC, ConsoleHTTP, ConsoleNone} {
		if c != def {
			all = append(all, c)
		}
	}
	return all
}

// Valid reports whether t is one of the spec's node types.
func (t NodeType) Valid() bool { _, ok := types[t]; return ok }

// HasComputeView reports whether t is served under the compute paths.
func (t NodeType) HasComputeView() bool { return types[t].compute }

// ProcessBound reports whether a node of type t runs as a process, so that
// its status is stopped until it is started. Switches, hubs, Frame Relay
// switches, clouds and NATs are always running.
func (t NodeType) ProcessBound() bool { return types[t].processBound }

// ConsoleType is how a node's console is reached. ConsoleNone (the empty
// string) means the node has no console and is written as JSON null.
type ConsoleType string

// The console types of the spec.
const (
	ConsoleNone   ConsoleType = ""
	ConsoleTelnet ConsoleType = "telnet"
	ConsoleVNC    ConsoleType = "vnc"
	ConsoleHTTP   ConsoleType = "http"
)

// allowsConsole reports whether a node of type t may have console type c.
func (t NodeType) allowsConsole(c ConsoleType) bool {
	for _, a := range types[t].consoleTypes {
		if a == c {
			return true
		}
	}
	return false
}

// consoleTypeNames lists the console types t allows, for error messages.
func (t NodeType) consoleTypeNames() string {
	s := ""
	for i, c := range types[t].consoleTypes {
		if i > 0 {
			s += ", "
		}
		if c == ConsoleNone {
			s += "null"
		} else {
			s += string(c)
		}
	}
	return s
}

// Status is the run state of a node.
type Status string

// The statuses of the spec.
const (
	Stopped   Status = "stopped"
	Started   Status = "started"
	Suspended Status = "suspended"
)

// initialStatus is the status of a new node of type t: process-bound nodes
// start stopped, the others (switch, hub, Frame Relay switch, cloud) are
// always running, as in GNS3.
func (t NodeType) initialStatus() Status {
	if t.ProcessBound() {
		return Stopped
	}
	return Started
}
