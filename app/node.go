package app

import (
	"encoding/json"
	"maps"
)

// Node is one node of a project, stored once and shown through two views:
// the controller node (/v2/projects/...) and the compute node of its type
// (/v2/compute/projects/.../<type>/...).
//
// The JSON tags are the store's record format: renaming one needs a
// migration in package store.
type Node struct {
	ID        string   `json:"node_id"`
	ProjectID string   `json:"project_id"`
	Type      NodeType `json:"node_type"`
	Name      string   `json:"name"`
	Console   int      `json:"console,omitempty"` // 0: no console port
	// Aux is the TCP port of the node's auxiliary console (Docker's
	// shell), owned like Console; 0: none.
	Aux              int             `json:"aux,omitempty"`
	ConsoleType      ConsoleType     `json:"console_type,omitempty"`
	ConsoleAutoStart bool            `json:"console_auto_start,omitempty"`
	Status           Status          `json:"status"`
	X                int             `json:"x"`
	Y                int             `json:"y"`
	Z                int             `json:"z"`
	Locked           bool            `json:"locked,omitempty"`
	Symbol           *string         `json:"symbol"`
	Label            Label           `json:"label"`
	PortNameFormat   string          `json:"port_name_format"`
	PortSegmentSize  int             `json:"port_segment_size,omitempty"`
	FirstPortName    *string         `json:"first_port_name,omitempty"`
	CustomAdapters   []CustomAdapter `json:"custom_adapters,omitempty"`
	TemplateID       *string         `json:"template_id,omitempty"`
	CommandLine      *string         `json:"command_line,omitempty"`
	Properties       Properties      `json:"properties"`
	// UDPPorts is the local and remote UDP port of each port of a
	// process-run node, allocated at its first start, then, for a type
	// whose process may bind one more (VPCS's relay), that port
	// (claimUDPPorts): read the pairs with UDPPairs.
	UDPPorts []int `json:"udp_ports,omitempty"`
	// ComputeID is the remote compute the node lives on; empty: this
	// nodedesk ("local"). ComputeConsole is the console port that compute
	// gave it (Console stays 0: the port is not this machine's).
	ComputeID      string `json:"compute_id,omitempty"`
	ComputeConsole int    `json:"compute_console,omitempty"`
	// Seq orders a project's nodes by creation; the store assigns it.
	Seq uint64 `json:"seq"`
}

// Remote reports whether n lives on a remote compute.
func (n *Node) Remote() bool { return n.ComputeID != "" && n.ComputeID != LocalCompute }

// Compute is the id of the compute n lives on.
func (n *Node) Compute() string {
	if n.Remote() {
		return n.ComputeID
	}
	return LocalCompute
}

// Label is the text shown beside a node on the canvas.
type Label struct {
	Text     string  `json:"text"`
	Style    *string `json:"style"`
	X        *int    `json:"x"`
	Y        int     `json:"y"`
	Rotation int     `json:"rotation"`
}

// CustomAdapter overrides the name, type or MAC address of one adapter.
type CustomAdapter struct {
	AdapterNumber int    `json:"adapter_number"`
	PortName      string `json:"port_name,omitempty"`
	AdapterType   string `json:"adapter_type,omitempty"`
	MACAddress    string `json:"mac_address,omitempty"`
}

// Properties holds the type-specific fields of a node. Only the fields of
// the node's own type are used; Extra holds the free-form properties of the
// generic types (qemu, docker, ...), which nodedesk stores but does not run.
type Properties struct {
	StartupScript *string                    `json:"startup_script,omitempty"` // vpcs
	MACOffset     *int                       `json:"mac_offset,omitempty"`     // vpcs, from its first start
	SwitchPorts   []SwitchPort               `json:"switch_ports,omitempty"`   // ethernet_switch
	HubPorts      []HubPort                  `json:"hub_ports,omitempty"`      // ethernet_hub
	Mappings      map[string]string          `json:"mappings,omitempty"`       // frame_relay_switch
	Interfaces    []HostInterface            `json:"interfaces,omitempty"`     // cloud
	CloudPorts    []CloudPort                `json:"cloud_ports,omitempty"`    // cloud
	RemoteConsole *RemoteConsole             `json:"remote_console,omitempty"` // cloud
	Extra         map[string]json.RawMessage `json:"extra,omitempty"`          // generic types
	// Provisioned is what a Provisioner made for the node gave as its id
	// (a Docker container's), while it exists; runtime, as Status is.
	Provisioned string `json:"provisioned,omitempty"`
}

// SwitchPort is one port of an Ethernet switch.
type SwitchPort struct {
	Name       string  `json:"name"`
	PortNumber int     `json:"port_number"`
	Type       string  `json:"type"` // access, dot1q or qinq
	VLAN       int     `json:"vlan"`
	Ethertype  *string `json:"ethertype,omitempty"` // 0x8100, 0x88A8, 0x9100, 0x9200 or nil
}

// HubPort is one port of an Ethernet hub.
type HubPort struct {
	Name       string `json:"name"`
	PortNumber int    `json:"port_number"`
}

// HostInterface is a network interface of the machine nodedesk runs on, as a
// cloud node sees it.
type HostInterface struct {
	Name    string `json:"name"`
	Special bool   `json:"special"`
	Type    string `json:"type"` // ethernet or tap
}

// CloudPort is one port of a cloud: a host interface (ethernet, tap) or a
// UDP tunnel (udp).
type CloudPort struct {
	Name       string `json:"name"`
	PortNumber int    `json:"port_number"`
	Type       string `json:"type"`
	Interface  string `json:"interface,omitempty"` // ethernet, tap
	LPort      int    `json:"lport,omitempty"`     // udp
	RHost      string `json:"rhost,omitempty"`     // udp
	RPort      int    `json:"rport,omitempty"`     // udp
	// Unconfirmed marks a host port (ethernet, tap) whose interface came
	// from a project file (an import or a load) and that this machine's
	// user has not chosen: the data plane leaves it closed. It is stored
	// but never shown in a GNS3 view nor written to a project file; any
	// update of the cloud's ports_mapping confirms the ports it names.
	Unconfirmed bool `json:"unconfirmed,omitempty"`
}

// RemoteConsole is where a cloud's console points (a device outside the lab).
type RemoteConsole struct {
	Host     string `json:"host"`
	Port     *int   `json:"port"`
	Type     string `json:"type"`
	HTTPPath string `json:"http_path"`
}

// defaultRemoteConsole is GNS3's default for a new cloud.
func defaultRemoteConsole() *RemoteConsole {
	port := 23
	return &RemoteConsole{Host: "", Port: &port, Type: "none", HTTPPath: "/"}
}

// Size is the width and height of the node's symbol in pixels.
func (n *Node) Size() (width, height int) {
	if n.Symbol != nil {
		if s, ok := symbolSizes[*n.Symbol]; ok {
			return s[0], s[1]
		}
	}
	return defaultSymbolSize[0], defaultSymbolSize[1]
}

var defaultSymbolSize = [2]int{65, 59}

// Symbols lists the builtin symbols with their pixel sizes.
func Symbols() map[string][2]int { return maps.Clone(symbolSizes) }
