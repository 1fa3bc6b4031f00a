package app

import (
	"encoding/json"
	"slices"
	"strings"
)

// NodeType is the kind of a node, spelled as GNS3 spells it.
type NodeType string

// The node types of the spec.
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
	TraceNG          NodeType = "traceng"
	VirtualBox       NodeType = "virtualbox"
	VMware           NodeType = "vmware"
	IOU              NodeType = "iou"
	QEMU             NodeType = "qemu"
)

// Lifecycle says what a node type's status follows.
type Lifecycle string

// The lifecycles.
const (
	// ProcessRun nodes are stopped until started, and their status follows
	// a process (VPCS, and the emulated types nodedesk stores but does not
	// run).
	ProcessRun Lifecycle = "process"
	// AlwaysRunning nodes (switches, hubs, clouds) are started from their
	// creation and every action leaves them started.
	AlwaysRunning Lifecycle = "always_running"
)

// nodeKind is everything that differs between node types. kinds has one
// entry per type: adding a type, or a behaviour of one, is one entry there.
type nodeKind struct {
	title      string        // what messages call the type ("VPCS", "Ethernet switch")
	nameFormat string        // default name; {0} is the first free number
	symbol     string        // default symbol
	consoles   []ConsoleType // allowed console types; the first is the default
	lifecycle  Lifecycle
	folder     string       // sub-folder of project-files/ holding its node folders; "" for none
	props      propertyKind // its own properties, defaults and ports
	// hostSide types (cloud, NAT) stand for the host network: two of them
	// cannot be linked together, only to nodes of the lab.
	hostSide bool
	// stored types are emulators nodedesk keeps (so that a project can go
	// back to GNS3) but does not run: their nodes cannot start.
	stored bool
	// traffic says what nodedesk does with the frames of a node of the
	// type, for the user (the node's panel): which types forward is the
	// data plane's (app/dataplane), and its tests hold this text to it.
	traffic string
	// computeView lists what the type's compute view shows besides name,
	// node_id, project_id and status: controller fields and property keys.
	// nil: the type has no compute view.
	computeView []string
	// noNIOUpdate types have no PUT …/nio on a GNS3 compute: a change of
	// a link's filters is not sent to their remote side.
	noNIOUpdate bool
	// noFilters types never carry a link's filters: GNS3 applies them at
	// the link's other end (or nowhere, between two such nodes).
	noFilters bool
	// startShowsNode types answer a start on a GNS3 compute with the
	// node (200) rather than with no content (204).
	startShowsNode bool
	// files are the files of its node folder that are properties of the
	// node (node_files.go): the store keeps them, and every view of the
	// folder (node files, project files, export, import) shows them.
	files []nodeFile
	// scratch are patterns (path.Match, on a file name) of the files its
	// emulator writes under project-files/<folder>/ that a next start
	// makes again: working state, not the user's (a router's ghost RAM).
	// An export, an import and a snapshot leave them out (Exportable).
	scratch []string
	// firstFile, when set, is what a file of the node's folder that its
	// runner writes at the first start holds until then (a router's
	// startup config): reading it shows that, not "not found". ok is
	// false for any other file.
	firstFile func(n *Node, name string) (content string, ok bool)
	// computeCreate are properties a GNS3 compute is sent when a node of
	// the type is made there without them, as GNS3's controller sends a
	// template's base files (a router's base config, with %h for its name).
	computeCreate map[string]any
	// cloudPorts types have their ports in Properties.CloudPorts: host
	// interfaces and TAP devices the data plane opens, and UDP tunnels
	// bound on this machine (cloud_hostports.go, cloud_tunnels.go).
	cloudPorts bool
	// images are the property keys that name an image file (a disk, a
	// kernel): what a start finds in the image folders of imageKind.
	images    []string
	imageKind ImageKind
	// appliance, for the types whose GNS3 appliance files (.gns3a)
	// import as templates, turns the emulator's settings of an appliance
	// into template properties (appliance.go); nil: such appliances are
	// refused.
	appliance func(settings map[string]json.RawMessage, template TemplateSettings) error
	// macOffset types vary one byte of a fixed MAC address (VPCS): each
	// running node gets an offset unique in its project (runner.go).
	macOffset bool
	// veths types (Docker) have, while they run, one veth pair per port
	// instead of a UDP pair: the runner moves one end into the node, the
	// data plane reads and writes the other (VethName).
	veths bool
	// netio types (IOU) exchange their frames, while they run, over IOU's
	// unix datagram sockets (Node.NetIO) instead of UDP pairs.
	netio bool
	// relayUDP, when not 0, is a port beyond its UDP pairs that the
	// type's process may bind: its first pair's local port + relayUDP.
	// VPCS before 0.8 always opens its relay there and cannot be told
	// not to; nodedesk hands out pairs two by two, so that port would be
	// another node's end. It is claimed with the pairs (claimUDPPorts),
	// so no other end is ever there (decision 0066).
	relayUDP int
	// settings, when set, are the emulator's own settings, kept as a
	// whole (emulator_settings.go): IOU's licence.
	settings *emulatorSettings
	// suspendIgnored types keep running when suspended, as GNS3's compute
	// answers a suspend of them (IOU: 204, nothing done).
	suspendIgnored bool
	// aux types have an auxiliary console (Docker's shell in the
	// container): a second TCP port, owned like the console's.
	aux bool
	// remade types (Docker) take a change of their settings while they
	// run by being stopped and started again with it, as GNS3 makes a
	// container again (node_recreate.go).
	remade bool
	// endHost types are end hosts (a PC, a container, a VM): those a
	// connectivity matrix pings from and to; routers and switches are
	// not (HostAddress.EndHost).
	endHost bool
	// configured, for the types whose configuration names the IPv4
	// addresses of their ports (a VPCS script, a router's startup config,
	// a container's interfaces file), is where it is and how it reads
	// (lint_config.go); nil: lint knows no address of such nodes.
	configured *configReader
	// forwards says how a node of the type passes frames between its
	// ports, for lint's segments (lint_segments.go): not at all (hosts,
	// routers: the zero value), to every other port (a hub), per VLAN (a
	// switch) or per DLCI circuit (a Frame Relay switch).
	forwards forwarding
}

// kinds is the node-type table, in the spec's order.
var kinds = []struct {
	t NodeType
	k nodeKind
}{
	{Cloud, nodeKind{title: "Cloud", nameFormat: "Cloud{0}", symbol: ":/symbols/cloud.svg",
		traffic:  "Its UDP tunnels carry frames to the peers they name; while linked, its Ethernet ports bridge frames to their host interface and its TAP ports to their TAP device (created if missing), on Linux, which needs CAP_NET_RAW and CAP_NET_ADMIN.",
		consoles: noConsole, lifecycle: AlwaysRunning,
		folder: "builtin", hostSide: true, cloudPorts: true, props: cloudProps, computeView: []string{"node_directory", "interfaces", "ports_mapping"}}},
	{NAT, nodeKind{title: "NAT", nameFormat: "NAT{0}", symbol: ":/symbols/nat.svg",
		traffic:  "It is a gateway to the host network from the moment it exists, without root: 192.168.122.1 on 192.168.122.0/24 answers ping, leases .2-.254 by DHCP, answers DNS through the host's resolver and carries TCP and UDP out through nodedesk's own sockets; TCP and UDP to 192.168.122.1 reach the host's services that listen on its network addresses, as GNS3's NAT does (those that listen only on 127.0.0.1 too, when allow_host_loopback is on), except nodedesk's API. Pings beyond the gateway are sent from the host, which needs net.ipv4.ping_group_range to include nodedesk's group or CAP_NET_RAW (nodedesk logs the command once if neither is there).",
		consoles: noConsole, lifecycle: AlwaysRunning,
		folder: "builtin", hostSide: true, props: natProps, computeView: []string{"ports_mapping"}}},
	{EthernetHub, nodeKind{title: "Ethernet hub", nameFormat: "Hub{0}", symbol: ":/symbols/hub.svg",
		traffic:  "It repeats each frame to all its other linked ports, from the moment it exists.",
		consoles: noConsole, lifecycle: AlwaysRunning,
		props: hubProps, computeView: []string{"ports_mapping"}, noNIOUpdate: true, noFilters: true, forwards: forwardsAll}},
	// The switch's telnet console is nodedesk's own shell (MAC table, counters).
	{EthernetSwitch, nodeKind{title: "Ethernet switch", nameFormat: "Switch{0}", symbol: ":/symbols/ethernet_switch.svg",
		traffic:  "It switches frames between its ports, per VLAN, from the moment it exists.",
		consoles: []ConsoleType{ConsoleNone, ConsoleTelnet}, lifecycle: AlwaysRunning,
		props: switchProps, computeView: []string{"console", "console_type", "ports_mapping"}, noNIOUpdate: true, noFilters: true,
		forwards: forwardsByVLAN}},
	{FrameRelaySwitch, nodeKind{title: "Frame Relay switch", nameFormat: "FRSW{0}", symbol: ":/symbols/frame_relay_switch.svg",
		traffic:  "It switches frames between its DLCI circuits and answers LMI, from the moment it exists.",
		consoles: noConsole, lifecycle: AlwaysRunning,
		props: frameRelayProps, computeView: []string{"mappings"}, noFilters: true, forwards: forwardsByDLCI}},
	{ATMSwitch, nodeKind{title: "ATM switch", nameFormat: "ATMSW{0}", symbol: ":/symbols/atm_switch.svg",
		traffic:  "It switches ATM cells between its ports, by VPI and VCI (a virtual channel) or by VPI alone (a virtual path), from the moment it exists: each UDP datagram is one 53-byte cell, as Dynamips' ATM port adapters send them.",
		consoles: noConsole, lifecycle: AlwaysRunning,
		props: atmProps, computeView: []string{"mappings"}, noFilters: true}},
	// GNS3's Docker VNC console runs an X server on the host; nodedesk
	// serves telnet and HTTP consoles and the aux shell.
	{Docker, nodeKind{title: "Docker", nameFormat: "Docker{0}", symbol: ":/symbols/docker_guest.svg",
		traffic:  "Its frames cross its links while it runs: each adapter is a veth pair, one end in the container as eth<n>, the other read and written by nodedesk.",
		consoles: []ConsoleType{ConsoleTelnet, ConsoleHTTP, ConsoleNone}, lifecycle: ProcessRun,
		folder: "docker", props: dockerProps, veths: true, aux: true, remade: true, computeView: dockerComputeView,
		firstFile: dockerFirstFile, endHost: true, configured: dockerConfig}},
	// GNS3 2.2's Dynamips consoles are telnet or none; nodedesk serves
	// them (and the aux console) in front of Dynamips' own.
	{Dynamips, nodeKind{title: "Dynamips", nameFormat: "R{0}", symbol: ":/symbols/router.svg",
		traffic:  "Its frames cross its links while it runs: each port is a UDP tunnel of its Dynamips process to nodedesk.",
		consoles: []ConsoleType{ConsoleTelnet, ConsoleNone}, lifecycle: ProcessRun,
		folder: "dynamips", props: dynamipsProps, images: []string{"image"}, imageKind: IOSImages, aux: true,
		// Ghost RAM images (<image>-<RAM>.ghost), the translation caches
		// (ilt_*), RAM and ROM files and locks: never NVRAM, flash or disks.
		scratch:     []string{"*.ghost", "ilt_*", "*_ram", "*_rom", "*_lock"},
		computeView: dynamipsComputeView, firstFile: dynamipsFirstFile,
		computeCreate: map[string]any{"startup_config_content": IOSBaseConfig}, configured: dynamipsConfig}},
	{VPCS, nodeKind{title: "VPCS", nameFormat: "PC{0}", symbol: ":/symbols/vpcs_guest.svg",
		traffic:  "Its frames cross its link while it runs.",
		consoles: []ConsoleType{ConsoleTelnet}, lifecycle: ProcessRun,
		folder: "vpcs", props: vpcsProps, files: []nodeFile{vpcsScript}, startShowsNode: true, macOffset: true,
		relayUDP:    9, // vpcs -s N opens its relay at N+9 (-R, from 0.8 on, turns it off)
		computeView: []string{"command_line", "console", "console_type", "node_directory", "startup_script", "startup_script_path"},
		endHost:     true, configured: vpcsConfig}},
	{TraceNG, nodeKind{title: "TraceNG", stored: true, nameFormat: "TraceNG{0}", symbol: ":/symbols/computer.svg",
		traffic:  notRun,
		consoles: noConsole, lifecycle: ProcessRun,
		props: traceNGProps}},
	{VirtualBox, nodeKind{title: "VirtualBox", stored: true, nameFormat: "VBox{0}", symbol: ":/symbols/vbox_guest.svg",
		traffic:  notRun,
		consoles: anyConsole(ConsoleNone), lifecycle: ProcessRun,
		props: vmProps}},
	{VMware, nodeKind{title: "VMware", stored: true, nameFormat: "VMware{0}", symbol: ":/symbols/vmware_guest.svg",
		traffic:  notRun,
		consoles: anyConsole(ConsoleNone), lifecycle: ProcessRun,
		props: vmProps}},
	// GNS3 2.2 runs IOU with a uBridge per node; nodedesk's data plane is
	// the bridge itself (Node.NetIO).
	{IOU, nodeKind{title: "IOU", nameFormat: "IOU{0}", symbol: ":/symbols/multilayer_switch.svg",
		traffic:  "Its frames cross its links while it runs: nodedesk is the bridge IOU sends each interface's frames to, over IOU's own sockets, with no uBridge and no root.",
		consoles: []ConsoleType{ConsoleTelnet, ConsoleNone}, lifecycle: ProcessRun,
		folder: "iou", props: iouProps, files: iouConfigFiles, images: []string{"path"}, imageKind: IOUImages,
		netio: true, startShowsNode: true, computeView: iouComputeView, settings: &iouLicence, suspendIgnored: true,
		configured: iouConfig}},
	// GNS3's QEMU also has SPICE consoles; nodedesk serves VNC instead.
	{QEMU, nodeKind{title: "QEMU", nameFormat: "QEMU{0}", symbol: ":/symbols/qemu_guest.svg",
		traffic:  "Its frames cross its links while it runs: each adapter is a UDP socket of its QEMU process to nodedesk.",
		consoles: []ConsoleType{ConsoleTelnet, ConsoleVNC, ConsoleNone}, lifecycle: ProcessRun,
		folder: "qemu", props: qemuProps, images: qemuImages, imageKind: QEMUImages, startShowsNode: true, appliance: qemuAppliance,
		computeView: qemuComputeView, endHost: true}},
}

// symbolSizes are the builtin symbols and their pixel sizes: GNS3's
// classic sizes, which the GNS3 GUI lays nodes out by; any other symbol is
// drawn at the size of the computer symbol, as GNS3 does. Each has its
// drawing, of that size, in api/symbols (served by GET
// /v2/symbols/{id}/raw, shown by nodedesk's UI); the default symbol of
// every node type (kinds) is one of them.
var symbolSizes = map[string][2]int{
	":/symbols/computer.svg":           {65, 59},
	":/symbols/vpcs_guest.svg":         {65, 59},
	":/symbols/qemu_guest.svg":         {65, 59},
	":/symbols/docker_guest.svg":       {65, 59},
	":/symbols/ethernet_switch.svg":    {72, 32},
	":/symbols/hub.svg":                {72, 32},
	":/symbols/multilayer_switch.svg":  {51, 48},
	":/symbols/frame_relay_switch.svg": {51, 48},
	":/symbols/atm_switch.svg":         {51, 48},
	":/symbols/cloud.svg":              {159, 71},
	":/symbols/nat.svg":                {159, 71},
	":/symbols/router.svg":             {66, 45},
	// The sizes of nodedesk's own drawings, not checked against GNS3's.
	":/symbols/vbox_guest.svg":   {65, 59},
	":/symbols/vmware_guest.svg": {65, 59},
	":/symbols/firewall.svg":     {66, 45},
	":/symbols/server.svg":       {39, 60},
}

// The kinds of images.
const (
	QEMUImages ImageKind = "QEMU" // disks, kernels, initrds, BIOS and CD-ROM images of QEMU nodes
	IOSImages  ImageKind = "IOS"  // Cisco IOS images of Dynamips nodes
	IOUImages  ImageKind = "IOU"  // IOU binaries
)

// imageKinds is the image-kind table: each kind and the files it takes,
// told apart as GNS3 2.2.59 does (utils/images.py) by their first
// ImageHeaderLen bytes. An IOS image is a 32-bit big-endian ELF file of
// version 1 (what Dynamips loads; GNS3 also refuses to start a router
// whose image is not one), an IOU binary a 32- or 64-bit little-endian
// one; a shorter file is neither. Any file is a QEMU image: GNS3 leaves
// ELF files out of that list, but QEMU boots ELF kernels, which
// nodedesk's QEMU nodes take.
var imageKinds = []imageKindRow{
	{QEMUImages, func([]byte) bool { return true }},
	{IOSImages, elfHeader("\x7fELF\x01\x02\x01")},
	{IOUImages, elfHeader("\x7fELF\x02\x01\x01", "\x7fELF\x01\x01\x01")},
}

// imageKindRow is one kind of images and the files it takes.
type imageKindRow struct {
	kind    ImageKind
	accepts func(header []byte) bool
}

// elfHeader accepts a file whose header is one of these.
func elfHeader(headers ...string) func([]byte) bool {
	return func(h []byte) bool {
		return len(h) >= ImageHeaderLen && slices.Contains(headers, string(h[:ImageHeaderLen]))
	}
}

// imageKindOf is k's entry of the image-kind table.
func imageKindOf(k ImageKind) (e imageKindRow, ok bool) {
	for _, e := range imageKinds {
		if e.kind == k {
			return e, true
		}
	}
	return e, false
}

// notRun is the traffic of the types nodedesk stores but does not run.
const notRun = "nodedesk does not run this emulator: no traffic reaches it."

// byType indexes kinds.
var byType = func() map[NodeType]*nodeKind {
	m := make(map[NodeType]*nodeKind, len(kinds))
	for i := range kinds {
		m[kinds[i].t] = &kinds[i].k
	}
	return m
}()

// unknownKind is what an unknown type looks like: a generic node, so that
// no lookup can fail; Valid tells it apart.
var unknownKind = nodeKind{consoles: noConsole, lifecycle: AlwaysRunning, props: genericProps}

// kind returns t's entry of the table.
func (t NodeType) kind() *nodeKind {
	if k, ok := byType[t]; ok {
		return k
	}
	return &unknownKind
}

// NodeTypes lists every node type in the spec's order.
var NodeTypes = func() []NodeType {
	ts := make([]NodeType, len(kinds))
	for i, e := range kinds {
		ts[i] = e.t
	}
	return ts
}()

// ComputeTypes lists the types served under /v2/compute/projects/{id}/<type>:
// those whose entry lists a compute view, in the table's order.
var ComputeTypes = slices.DeleteFunc(slices.Clone(NodeTypes), func(t NodeType) bool { return !t.HasComputeView() })

var noConsole = []ConsoleType{ConsoleNone}

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

// Title is what a message calls nodes of type t ("VPCS", "Ethernet
// switch"); an unknown type is called by its name.
func (t NodeType) Title() string {
	if k, ok := byType[t]; ok {
		return k.title
	}
	return string(t)
}

// Valid reports whether t is one of the spec's node types.
func (t NodeType) Valid() bool { _, ok := byType[t]; return ok }

// HasComputeView reports whether t is served under the compute paths.
func (t NodeType) HasComputeView() bool { return t.kind().computeView != nil }

// ComputeView lists what t's compute view shows besides name, node_id,
// project_id and status: controller fields and property keys.
func (t NodeType) ComputeView() []string { return t.kind().computeView }

// UpdatesNIO reports whether a GNS3 compute takes a change (PUT) of a NIO
// of a node of type t; switches and hubs do not.
func (t NodeType) UpdatesNIO() bool { return !t.kind().noNIOUpdate }

// CarriesFilters reports whether a link's filters may be applied at a node
// of type t: GNS3 gives them to the first end of such a type.
func (t NodeType) CarriesFilters() bool { return t.Valid() && !t.kind().noFilters }

// ComputeStartShowsNode reports whether a GNS3 compute answers the start
// of a node of type t with the node (200) rather than no content (204).
func (t NodeType) ComputeStartShowsNode() bool { return t.kind().startShowsNode }

// ComputeCreateDefaults are the properties a GNS3 compute is sent when a
// node of type t is made there without them (a router's base config);
// nil: none.
func (t NodeType) ComputeCreateDefaults() map[string]any { return t.kind().computeCreate }

// ImageProperties lists the property keys of a node of type t that name
// an image file (hda_disk_image, kernel_image, ...); nil: none.
func (t NodeType) ImageProperties() []string { return t.kind().images }

// UsesCloudPorts reports whether a node of type t has its ports in
// Properties.CloudPorts: host interfaces and TAP devices that the data
// plane opens, and UDP tunnels bound on this machine (a cloud).
func (t NodeType) UsesCloudPorts() bool { return t.kind().cloudPorts }

// UsesVeths reports whether a running node of type t has a veth pair per
// port (named by VethName) where other process-run types have UDP pairs.
func (t NodeType) UsesVeths() bool { return t.kind().veths }

// RemadeOnChange reports whether a running node of type t takes a change
// of its settings by being stopped and started again with it.
func (t NodeType) RemadeOnChange() bool { return t.kind().remade }

// HasConsole reports whether a node of type t may have a console at all.
func (t NodeType) HasConsole() bool {
	return slices.ContainsFunc(t.kind().consoles, func(c ConsoleType) bool { return c != ConsoleNone })
}

// Lifecycle says what t's status follows.
func (t NodeType) Lifecycle() Lifecycle { return t.kind().lifecycle }

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

// UnmarshalJSON reads a console type; "none", which the GNS3 desktop GUI
// sends, means no console, as null does.
func (c *ConsoleType) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s == "none" {
		s = ""
	}
	*c = ConsoleType(s)
	return nil
}

// allowsConsole reports whether a node of type t may have console type c.
func (t NodeType) allowsConsole(c ConsoleType) bool { return slices.Contains(t.kind().consoles, c) }

// consoleTypeNames lists the console types t allows, for error messages.
func (t NodeType) consoleTypeNames() string {
	names := make([]string, len(t.kind().consoles))
	for i, c := range t.kind().consoles {
		names[i] = consoleTypeName(c)
	}
	return strings.Join(names, ", ")
}

func consoleTypeName(c ConsoleType) string {
	if c == ConsoleNone {
		return "null"
	}
	return string(c)
}

// NodeTypeInfo describes a node type to a client (GET /v2/node_types): what
// the UI needs to know about a type without repeating a rule of its own.
type NodeTypeInfo struct {
	Type NodeType `json:"node_type"`
	// ConsoleTypes lists the console types a node of the type accepts;
	// null stands for "no console". The first is the default.
	ConsoleTypes []*ConsoleType `json:"console_types"`
	Lifecycle    Lifecycle      `json:"lifecycle"`
	// Properties lists the keys of the type's properties object; nil for
	// the free-form properties of the types nodedesk stores but does not run.
	Properties  []string `json:"properties"`
	ComputeView bool     `json:"compute_view"`
	// DefaultName and Symbol are what a new node of the type gets.
	DefaultName string `json:"default_name_format"`
	Symbol      string `json:"symbol"`
	// Traffic says what nodedesk does with the frames of such a node.
	Traffic string `json:"traffic"`
	// Runs says whether nodedesk runs nodes of the type: false for the
	// emulators it keeps, for the project's sake, but does not run (their
	// start answers 409), so that a client offers no Start for them.
	Runs bool `json:"runs"`
}

// NodeTypeInfos describes every node type, in the spec's order.
func NodeTypeInfos() []NodeTypeInfo {
	out := make([]NodeTypeInfo, len(kinds))
	for i, e := range kinds {
		cts := make([]*ConsoleType, len(e.k.consoles))
		for j, c := range e.k.consoles {
			if c != ConsoleNone {
				cts[j] = ptr(c)
			}
		}
		out[i] = NodeTypeInfo{Type: e.t, ConsoleTypes: cts, Lifecycle: e.k.lifecycle, Properties: e.k.props.keys,
			ComputeView: e.k.computeView != nil, DefaultName: e.k.nameFormat, Symbol: e.k.symbol, Traffic: e.k.traffic, Runs: !e.k.stored}
	}
	return out
}

// builtinTemplates are GNS3's builtin templates; their ids are GNS3's
// uuid3(NAMESPACE_DNS, type).
var builtinTemplates = []Template{
	withSettings(builtin("19021f99-e36f-394d-b4a1-8aaa902ab9cc", "VPCS", VPCS, "guest"), "base_script_file", `"vpcs_base_config.txt"`),
	builtin("1966b864-93e7-32d5-965f-001384eec461", "Ethernet switch", EthernetSwitch, "switch"),
	builtin("b4503ea9-d6b6-3695-9fe4-1db3b39290b0", "Ethernet hub", EthernetHub, "switch"),
	builtin("dd0f6f3a-ba58-3249-81cb-a1dd88407a47", "Frame Relay switch", FrameRelaySwitch, "switch"),
	builtin("39e257dc-8412-3174-b6b3-0ee3ed6a43e9", "Cloud", Cloud, "guest"),
	builtin("df8f4ea9-33b7-3e96-86a2-c39bc9bb649c", "NAT", NAT, "guest"),
	builtin("aaa764e2-b383-300f-8a0e-3493bbfdb7d2", "ATM switch", ATMSwitch, "switch"),
}
