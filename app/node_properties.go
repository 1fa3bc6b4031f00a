package app

import (
	"cmp"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// The type-specific half of each node type: its properties (how a change
// is read, checked and applied; what a new node gets; how they are shown)
// and the ports they give the node. node_type.go's table names one
// propertyKind per type.

// propertyKind is the type-specific behaviour of one node type.
type propertyKind struct {
	// keys are the keys of the type's properties object (nil: free-form).
	keys []string
	// newUpdate returns an empty change of this type's properties, which
	// DecodeProperties fills from JSON.
	newUpdate func() PropertiesUpdate
	// init gives a new node the type's default properties.
	init func(n *Node, env newNodeEnv)
	// ports derives the node's ports from its properties.
	ports func(n *Node) []Port
	// view is the properties object as GNS3 keys it.
	view func(n *Node) map[string]any
	// usesHost says init reads the host's network interfaces (a system
	// call, made before the write transaction, for the types that need it).
	usesHost bool
	// upgrade rewrites, in place, the properties a GNS3 topology of
	// revision rev gives a node of the type into today's keys, as GNS3
	// converts older topologies; nil: nothing to rewrite.
	upgrade func(rev int, p map[string]json.RawMessage)
	// unique are the keys of Properties.Extra a copy of the node does not
	// keep (a MAC address), as GNS3 drops them when it duplicates a node:
	// the copy gets the default of its own id (renewUnique).
	unique []string
	// template is what a user template of the type starts with
	// (templates.go).
	template templateKind
	// named settles the properties that hold the node's name once its
	// name is known: on creation (oldName "") and on each change (oldName
	// the name before it); nil: none do.
	named func(p *Properties, oldName, name string)
	// ownDefaults are the keys of the view that GNS3 does not know
	// (nodedesk's own), with their defaults: a project file and a compute
	// get such a key only when it differs from its default, since GNS3
	// 2.2's compute refuses a key it does not know (propertiesWithout).
	ownDefaults map[string]any
	// claim settles, inside the transaction that stores a node (its
	// creation, and each start), a property unique in its project
	// (a Dynamips router's dynamips_id); nil: none.
	claim func(c claimEnv, n *Node) error
}

// claimEnv is what a claim may look at: the transaction, and held, which
// reports whether another program of the machine holds an id (nil: the
// type's runner cannot tell).
type claimEnv struct {
	tx   Tx
	held func(id int) bool
}

// settleName applies the type's named rule to n, whose name was oldName
// ("" for a new node).
func (n *Node) settleName(oldName string) {
	if named := n.Type.kind().props.named; named != nil {
		named(&n.Properties, oldName, n.Name)
	}
}

// newNodeEnv is what a new node's defaults may depend on.
type newNodeEnv struct {
	hostInterfaces []HostInterface // filled only for a type that usesHost
}

// newNodeEnvFor gathers what a new node of type t needs from the host.
func newNodeEnvFor(t NodeType, hostInterfaces func() []HostInterface) newNodeEnv {
	if !t.kind().props.usesHost {
		return newNodeEnv{}
	}
	return newNodeEnv{hostInterfaces: hostInterfaces()}
}

// PropertiesUpdate is a change to the type-specific fields of a node: a
// VPCSUpdate, SwitchUpdate, HubUpdate, FrameRelayUpdate, ATMUpdate, CloudUpdate, NATUpdate,
// QEMUUpdate or GenericUpdate. A nil PropertiesUpdate changes nothing.
type PropertiesUpdate interface {
	// apply checks the change against its type's rules and applies it to p.
	apply(p *Properties) error
}

// imageUpdate is a PropertiesUpdate of a type whose properties name image
// files (the node-type table's images column; QEMUUpdate): the Service
// rewrites the names it gives as a node keeps them (settleImages).
type imageUpdate interface {
	PropertiesUpdate
	// givenImages are the non-empty image names the change gives, by key,
	// of keys (its type's ImageProperties).
	givenImages(keys []string) map[string]string
	// withImages is a copy of the change with each key of kept set to its
	// name and, when its sum is known, its checksum property to the sum.
	withImages(kept map[string]keptImage) PropertiesUpdate
}

// keptImage is an image name as a node keeps it and the MD5 sum of the
// image ("" when unknown here); foreign, when the name given was a path of
// another machine found here by its file name, is what the user is told
// (foundImage.foreignNote).
type keptImage struct{ name, sum, foreign string }

// DecodeProperties reads the type-specific fields of a node of type t from a
// JSON object: the "properties" object of a controller node, or the body of
// a compute request, where the same fields sit at the top level. Keys of
// other types are not read. The shape (types, enums) is assumed checked by
// the door's schema; the rules are checked when the update is applied.
func DecodeProperties(t NodeType, raw []byte) (PropertiesUpdate, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	u := t.kind().props.newUpdate()
	if err := json.Unmarshal(raw, u); err != nil {
		return nil, Invalid("properties", "Invalid properties for a %s node: %v", t, err)
	}
	return u, nil
}

// sameKind reports whether two property changes are of one node type.
func sameKind(a, b PropertiesUpdate) bool { return reflect.TypeOf(a) == reflect.TypeOf(b) }

// applyProperties applies u to the properties of a node of type t, after
// checking that u is a change of t's properties.
func applyProperties(t NodeType, u PropertiesUpdate, p *Properties) error {
	if u == nil {
		return nil
	}
	if want := t.kind().props.newUpdate(); !sameKind(want, u) {
		return Invalid("properties", "A %s node has no such properties; it takes %s", t, describeKeys(t.kind().props.keys))
	}
	return u.apply(p)
}

func describeKeys(keys []string) string {
	if keys == nil {
		return "free-form properties"
	}
	return cmp.Or(strings.Join(keys, ", "), "none")
}

// defaultPorts is the port list of a new switch or hub, as GNS3 gives it:
// eight ports, Ethernet0 to Ethernet7.
func defaultPorts[P any](port func(name string, number int) P) []P {
	ports := make([]P, 8)
	for i := range ports {
		ports[i] = port("Ethernet"+strconv.Itoa(i), i)
	}
	return ports
}

// runScript is the startup script a VPCS runs: its own, with each "%h"
// the node's name, as GNS3 writes it (its builtin VPCS template's script
// is "set pcname %h").
func runScript(n *Node) *string {
	if n.Properties.StartupScript == nil {
		return nil
	}
	return ptr(strings.ReplaceAll(*n.Properties.StartupScript, "%h", n.Name))
}

// Ethernet switch.

var switchProps = propertyKind{
	keys:      []string{"ports_mapping"},
	newUpdate: func() PropertiesUpdate { return &SwitchUpdate{} },
	init: func(n *Node, _ newNodeEnv) {
		n.Properties.SwitchPorts = defaultPorts(func(name string, i int) SwitchPort {
			return SwitchPort{Name: name, PortNumber: i, Type: "access", VLAN: 1}
		})
	},
	ports: func(n *Node) []Port {
		return indexedPorts(n.Properties.SwitchPorts, func(p SwitchPort) string { return p.Name })
	},
	view: func(n *Node) map[string]any { return map[string]any{"ports_mapping": nonNil(n.Properties.SwitchPorts)} },
}

// SwitchUpdate is a change to an Ethernet switch's properties.
type SwitchUpdate struct {
	PortsMapping Field[[]SwitchPort] `json:"ports_mapping"`
}

func (u *SwitchUpdate) apply(p *Properties) error {
	if !u.PortsMapping.Set {
		return nil
	}
	ports, err := checkSwitchPorts(u.PortsMapping.Value)
	if err != nil {
		return err
	}
	p.SwitchPorts = ports
	return nil
}

// Ethernet hub.

var hubProps = propertyKind{
	keys:      []string{"ports_mapping"},
	newUpdate: func() PropertiesUpdate { return &HubUpdate{} },
	init: func(n *Node, _ newNodeEnv) {
		n.Properties.HubPorts = defaultPorts(func(name string, i int) HubPort { return HubPort{Name: name, PortNumber: i} })
	},
	ports: func(n *Node) []Port {
		return indexedPorts(n.Properties.HubPorts, func(p HubPort) string { return p.Name })
	},
	view: func(n *Node) map[string]any { return map[string]any{"ports_mapping": nonNil(n.Properties.HubPorts)} },
}

// HubUpdate is a change to an Ethernet hub's properties.
type HubUpdate struct {
	PortsMapping Field[[]HubPort] `json:"ports_mapping"`
}

func (u *HubUpdate) apply(p *Properties) error {
	if !u.PortsMapping.Set {
		return nil
	}
	if err := checkPortNumbers(u.PortsMapping.Value, func(p HubPort) int { return p.PortNumber }); err != nil {
		return err
	}
	p.HubPorts = u.PortsMapping.Value
	return nil
}

// Frame Relay switch.

var frameRelayProps = propertyKind{
	keys:      []string{"mappings"},
	newUpdate: func() PropertiesUpdate { return &FrameRelayUpdate{} },
	init:      func(n *Node, _ newNodeEnv) { n.Properties.Mappings = map[string]string{} },
	ports:     func(n *Node) []Port { return frameRelayPorts(n.Properties.Mappings) },
	view: func(n *Node) map[string]any {
		m := n.Properties.Mappings
		if m == nil {
			m = map[string]string{}
		}
		return map[string]any{"mappings": m}
	},
}

// FrameRelayUpdate is a change to a Frame Relay switch's properties.
type FrameRelayUpdate struct {
	Mappings Field[map[string]string] `json:"mappings"`
}

func (u *FrameRelayUpdate) apply(p *Properties) error {
	if !u.Mappings.Set {
		return nil
	}
	if err := checkFrameRelayMappings(u.Mappings.Value); err != nil {
		return err
	}
	p.Mappings = u.Mappings.Value
	return nil
}

// Cloud.

var cloudProps = propertyKind{
	keys: []string{"interfaces", "ports_mapping", "remote_console_host", "remote_console_port",
		"remote_console_type", "remote_console_http_path"},
	newUpdate: func() PropertiesUpdate { return &CloudUpdate{} },
	usesHost:  true,
	init: func(n *Node, env newNodeEnv) {
		ifaces := env.hostInterfaces
		n.Properties.Interfaces = ifaces
		n.Properties.RemoteConsole = defaultRemoteConsole()
		for _, iface := range ifaces {
			if !iface.Special {
				n.Properties.CloudPorts = append(n.Properties.CloudPorts, CloudPort{
					Name: iface.Name, PortNumber: len(n.Properties.CloudPorts), Type: iface.Type, Interface: iface.Name})
			}
		}
	},
	ports: func(n *Node) []Port {
		ports := make([]Port, len(n.Properties.CloudPorts))
		for i, p := range n.Properties.CloudPorts {
			ports[i] = ethernetPort(p.Name, p.Name, 0, i)
		}
		return ports
	},
	view: func(n *Node) map[string]any {
		p := n.Properties
		rc := p.RemoteConsole
		if rc == nil {
			rc = defaultRemoteConsole()
		}
		return map[string]any{"interfaces": nonNil(p.Interfaces), "ports_mapping": cloudPortsView(p.CloudPorts),
			"remote_console_host": rc.Host, "remote_console_port": rc.Port, "remote_console_type": rc.Type,
			"remote_console_http_path": rc.HTTPPath}
	},
}

// CloudUpdate is a change to a cloud's properties.
type CloudUpdate struct {
	PortsMapping      Field[[]CloudPort]     `json:"ports_mapping"`
	Interfaces        Field[[]HostInterface] `json:"interfaces"`
	RemoteConsoleHost Field[string]          `json:"remote_console_host"`
	RemoteConsolePort Field[int]             `json:"remote_console_port"`
	RemoteConsoleType Field[string]          `json:"remote_console_type"`
	RemoteConsolePath Field[string]          `json:"remote_console_http_path"`
}

func (u *CloudUpdate) apply(p *Properties) error {
	if u.PortsMapping.Set {
		// A cloud's ports are numbered by position, as GNS3's cloud
		// renumbers them: the GNS3 GUI numbers a new port by count, so
		// after a deletion it sends a number twice.
		ports := slices.Clone(u.PortsMapping.Value)
		// Naming a port here is choosing it on this machine: a port
		// that came from a project file is confirmed by it.
		for i := range ports {
			ports[i].PortNumber = i
			ports[i].Unconfirmed = false
		}
		if err := checkTunnelPorts(ports); err != nil {
			return err
		}
		p.CloudPorts = ports
	}
	if u.Interfaces.Set {
		p.Interfaces = u.Interfaces.Value
	}
	if u.RemoteConsoleHost.Set || u.RemoteConsolePort.Set || u.RemoteConsoleType.Set || u.RemoteConsolePath.Set {
		rc := *defaultRemoteConsole()
		if p.RemoteConsole != nil {
			rc = *p.RemoteConsole
		}
		setIf(&rc.Host, u.RemoteConsoleHost)
		if u.RemoteConsolePort.Set {
			rc.Port = ptrOrNil(u.RemoteConsolePort)
		}
		setIf(&rc.Type, u.RemoteConsoleType)
		setIf(&rc.HTTPPath, u.RemoteConsolePath)
		p.RemoteConsole = &rc
	}
	return nil
}

// NAT.

// natPort is the NAT node's one port, nat0, into the host's network, as
// GNS3's NAT node has it. nodedesk's gateway is not a host interface: the
// port names itself as its interface.
var natPort = CloudPort{Name: "nat0", PortNumber: 0, Type: "ethernet", Interface: "nat0"}

// natLoopbackKey is the NAT node's one setting of its own: whether the
// gateway's address reaches the host's loopback (127.0.0.1), so services
// that listen only there (databases, other programs' admin ports, other
// nodedesks' APIs); off, the default, it reaches only what listens on the
// host's network addresses, as GNS3's NAT (libvirt's virbr0) does.
const natLoopbackKey = "allow_host_loopback"

// natProps: a NAT node's ports_mapping is fixed (GNS3 ignores a change of
// it); the node keeps allow_host_loopback, in Extra, only while it is on.
// The other free-form keys an older record or a project file gave it stay
// stored but are not shown. allow_host_loopback is nodedesk's own: a
// project file names it only when it is on, so a project with the default
// goes to GNS3 as it always did.
var natProps = propertyKind{
	keys:      []string{natLoopbackKey, "ports_mapping"},
	newUpdate: func() PropertiesUpdate { return &NATUpdate{} },
	init:      func(*Node, newNodeEnv) {},
	ports:     func(*Node) []Port { return []Port{ethernetPort(natPort.Name, natPort.Name, 0, natPort.PortNumber)} },
	view: func(n *Node) map[string]any {
		return map[string]any{"ports_mapping": []CloudPort{natPort}, natLoopbackKey: loopbackAllowed(n.Properties)}
	},
	ownDefaults: map[string]any{natLoopbackKey: false},
}

// NATUpdate is a change to a NAT node's properties: whether its gateway
// reaches the host's loopback (allow_host_loopback; null: off, the
// default); its ports_mapping is read and ignored, as GNS3 does, since the
// NAT node's one port is fixed.
type NATUpdate struct {
	AllowHostLoopback Field[bool]            `json:"allow_host_loopback"`
	PortsMapping      Field[json.RawMessage] `json:"ports_mapping"`
}

func (u *NATUpdate) apply(p *Properties) error {
	if !u.AllowHostLoopback.Set {
		return nil
	}
	p.Extra = maps.Clone(p.Extra)
	delete(p.Extra, natLoopbackKey)
	if u.AllowHostLoopback.Value {
		if p.Extra == nil {
			p.Extra = map[string]json.RawMessage{}
		}
		p.Extra[natLoopbackKey] = json.RawMessage("true")
	}
	if len(p.Extra) == 0 {
		p.Extra = nil
	}
	return nil
}

// AllowsHostLoopback reports whether n, a NAT node, lets its gateway's
// address reach the host's loopback (allow_host_loopback); false for
// every other node.
func (n *Node) AllowsHostLoopback() bool {
	return slices.Contains(n.Type.kind().props.keys, natLoopbackKey) && loopbackAllowed(n.Properties)
}

// loopbackAllowed reports whether p keeps allow_host_loopback on.
func loopbackAllowed(p Properties) bool {
	var on bool
	return json.Unmarshal(p.Extra[natLoopbackKey], &on) == nil && on
}

// ATM switch: its mappings (ATMUpdate), kept in Properties.Extra as GNS3
// keys them, and the ports GNS3 derives from them (node_ports.go).

var atmProps = withPorts(propertyKind{
	keys:      []string{atmMappingsKey},
	newUpdate: func() PropertiesUpdate { return &ATMUpdate{} },
	init: func(n *Node, _ newNodeEnv) {
		n.Properties.Extra = map[string]json.RawMessage{atmMappingsKey: json.RawMessage("{}")}
	},
	view: genericProps.view,
}, (*Node).atmPorts)

// ATMUpdate is a change to an ATM switch's properties: its mappings, which
// must be an object of ATM connections (ATMConnections), which GNS3's
// Dynamips would otherwise refuse or mis-switch; null is no mapping.
type ATMUpdate struct {
	Mappings Field[json.RawMessage] `json:"mappings"`
}

func (u *ATMUpdate) apply(p *Properties) error {
	if !u.Mappings.Set {
		return nil
	}
	m := map[string]string{}
	if !u.Mappings.Null {
		if err := json.Unmarshal(u.Mappings.Value, &m); err != nil || m == nil {
			return Invalid("properties.mappings", "ATM mappings must be an object of strings, each \"port:VPI:VCI\": \"port:VPI:VCI\" or \"port:VPI\": \"port:VPI\"")
		}
	}
	if err := checkATMMappings(m); err != nil {
		return err
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return err
	}
	p.Extra = maps.Clone(p.Extra)
	if p.Extra == nil {
		p.Extra = map[string]json.RawMessage{}
	}
	p.Extra[atmMappingsKey] = raw
	return nil
}

// atmMappingsKey is the property holding an ATM switch's mappings.
const atmMappingsKey = "mappings"

// ATMMappings are an ATM switch's mappings as stored (nil when it has none
// or they are not an object of strings).
func (n *Node) ATMMappings() map[string]string {
	var m map[string]string
	if json.Unmarshal(n.Properties.Extra[atmMappingsKey], &m) != nil {
		return nil
	}
	return m
}

// The emulated types nodedesk stores but does not run (docker, ...):
// free-form properties, kept as given, and the ports GNS3 derives from
// them (node_ports.go).

var (
	traceNGProps = withPorts(genericProps, func(*Node) []Port { return []Port{ethernetPort("Ethernet0", "e0", 0, 0)} })
	// vmProps are the free-form properties of VirtualBox and VMware
	// nodes.
	vmProps = withUpgrade(genericProps, onClose)
)

func withPorts(k propertyKind, ports func(*Node) []Port) propertyKind {
	k.ports = ports
	return k
}

func withUpgrade(k propertyKind, upgrade func(rev int, p map[string]json.RawMessage)) propertyKind {
	k.upgrade = upgrade
	return k
}

// configsInFolder is GNS3's 2.0 → 2.1 conversion (revision 8) of Dynamips
// and IOU nodes: their configs live in the node's folder, not in
// properties.
func configsInFolder(rev int, p map[string]json.RawMessage) {
	if rev >= 8 {
		return
	}
	for _, k := range []string{"startup_config", "private_config", "startup_config_content", "private_config_content"} {
		delete(p, k)
	}
}

// onClose is GNS3's 2.1 → 2.2 conversion (revision 9) of the virtual
// machines: acpi_shutdown became on_close.
func onClose(rev int, p map[string]json.RawMessage) {
	if rev >= 9 {
		return
	}
	if v, ok := p["acpi_shutdown"]; ok {
		p["on_close"] = json.RawMessage(`"power_off"`)
		if string(v) == "true" {
			p["on_close"] = json.RawMessage(`"save_vm_state"`)
		}
		delete(p, "acpi_shutdown")
	}
	delete(p, "save_vm_state")
}

// genericProps are the free-form properties of an unknown type, and the
// base of the stored types': one port per adapter.
var genericProps = propertyKind{
	newUpdate: func() PropertiesUpdate { return &GenericUpdate{} },
	init:      func(*Node, newNodeEnv) {},
	ports:     func(n *Node) []Port { return n.standardPorts(1) },
	view: func(n *Node) map[string]any {
		m := make(map[string]any, len(n.Properties.Extra))
		for k, v := range n.Properties.Extra {
			m[k] = v
		}
		return m
	},
}

// GenericUpdate is a change to the free-form properties of a generic node;
// a JSON null removes a key.
type GenericUpdate map[string]json.RawMessage

func (u *GenericUpdate) apply(p *Properties) error {
	if len(*u) == 0 {
		return nil
	}
	extra := maps.Clone(p.Extra)
	if extra == nil {
		extra = map[string]json.RawMessage{}
	}
	for k, v := range *u {
		if string(v) == "null" {
			delete(extra, k)
		} else {
			extra[k] = v
		}
	}
	p.Extra = extra
	return nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// PropertiesView is the node's properties object as GNS3 keys it: the
// "properties" of the controller view, and the type-specific fields of the
// compute view.
func (n *Node) PropertiesView() map[string]any { return n.Type.kind().props.view(n) }

// renewUnique gives n, a copy of another node, its own values of the
// properties no two nodes share (its type's unique keys): the defaults
// its id gives, as GNS3 drops them from a copy and derives them again.
func (n *Node) renewUnique() {
	keys := n.Type.kind().props.unique
	if len(keys) == 0 || n.Properties.Extra == nil {
		return
	}
	n.Properties.Extra = maps.Clone(n.Properties.Extra)
	for _, k := range keys {
		delete(n.Properties.Extra, k)
	}
	v := n.PropertiesView()
	for _, k := range keys {
		n.Properties.Extra[k], _ = json.Marshal(v[k])
	}
}

// UpgradeProperties rewrites, in place, the properties that a GNS3
// topology of revision rev gives a node of type t into today's keys, as
// GNS3 converts older topologies (package app/gns3file reads them).
func (t NodeType) UpgradeProperties(rev int, p map[string]json.RawMessage) {
	if u := t.kind().props.upgrade; u != nil {
		u(rev, p)
	}
}
