package app

import (
	"encoding/json"
	"maps"
	"strings"
	"unicode"
	"unicode/utf8"
)

// NodeUpdate is a change to a node: every field is optional. The doors fill
// it from a controller PUT, a compute PUT or the desktop window alike; the
// read-only fields of a node (ports, status, width, ...) are not part of it,
// so a client that sends them back changes nothing.
type NodeUpdate struct {
	Name             Field[string]          `json:"name"`         // null keeps the name
	Console          Field[int]             `json:"console"`      // null keeps the port
	ConsoleType      Field[ConsoleType]     `json:"console_type"` // null: no console
	ConsoleAutoStart Field[bool]            `json:"console_auto_start"`
	X                Field[int]             `json:"x"`
	Y                Field[int]             `json:"y"`
	Z                Field[int]             `json:"z"`
	Locked           Field[bool]            `json:"locked"`
	Symbol           Field[string]          `json:"symbol"`
	Label            Field[Label]           `json:"label"`
	PortNameFormat   Field[string]          `json:"port_name_format"`
	PortSegmentSize  Field[int]             `json:"port_segment_size"`
	FirstPortName    Field[string]          `json:"first_port_name"`
	CustomAdapters   Field[[]CustomAdapter] `json:"custom_adapters"`
	Properties       PropertiesUpdate       `json:"-"`
}

// PropertiesUpdate is a change to the type-specific fields of a node. Only
// the fields of the node's own type may be set (DecodeProperties fills them).
type PropertiesUpdate struct {
	StartupScript     Field[string]
	SwitchPorts       Field[[]SwitchPort]
	HubPorts          Field[[]HubPort]
	CloudPorts        Field[[]CloudPort]
	Interfaces        Field[[]HostInterface]
	Mappings          Field[map[string]string]
	RemoteConsoleHost Field[string]
	RemoteConsolePort Field[int]
	RemoteConsoleType Field[string]
	RemoteConsolePath Field[string]
	// Extra holds the free-form properties of generic node types; a JSON
	// null removes a key.
	Extra map[string]json.RawMessage
}

// DecodeProperties reads the type-specific fields of a node of type t from a
// JSON object: the "properties" object of a controller node, or the body of
// a compute request, where the same fields sit at the top level. Keys of
// other types are not read. The shape (types, enums) is assumed checked by
// the door's schema; the rules are checked when the update is applied.
func DecodeProperties(t NodeType, raw []byte) (PropertiesUpdate, error) {
	var u PropertiesUpdate
	if len(raw) == 0 {
		return u, nil
	}
	var err error
	switch t {
	case VPCS:
		var in struct {
			StartupScript Field[string] `json:"startup_script"`
		}
		err = json.Unmarshal(raw, &in)
		u.StartupScript = in.StartupScript
	case EthernetSwitch:
		var in struct {
			PortsMapping Field[[]SwitchPort] `json:"ports_mapping"`
		}
		err = json.Unmarshal(raw, &in)
		u.SwitchPorts = in.PortsMapping
	case EthernetHub:
		var in struct {
			PortsMapping Field[[]HubPort] `json:"ports_mapping"`
		}
		err = json.Unmarshal(raw, &in)
		u.HubPorts = in.PortsMapping
	case FrameRelaySwitch:
		var in struct {
			Mappings Field[map[string]string] `json:"mappings"`
		}
		err = json.Unmarshal(raw, &in)
		u.Mappings = in.Mappings
	case Cloud:
		var in struct {
			PortsMapping Field[[]CloudPort]     `json:"ports_mapping"`
			Interfaces   Field[[]HostInterface] `json:"interfaces"`
			Host         Field[string]          `json:"remote_console_host"`
			Port         Field[int]             `json:"remote_console_port"`
			Type         Field[string]          `json:"remote_console_type"`
			Path         Field[string]          `json:"remote_console_http_path"`
		}
		err = json.Unmarshal(raw, &in)
		u.CloudPorts, u.Interfaces = in.PortsMapping, in.Interfaces
		u.RemoteConsoleHost, u.RemoteConsolePort, u.RemoteConsoleType, u.RemoteConsolePath = in.Host, in.Port, in.Type, in.Path
	default:
		err = json.Unmarshal(raw, &u.Extra)
	}
	if err != nil {
		return PropertiesUpdate{}, Errorf(EINVALID, "Invalid properties for a %s node: %v", t, err)
	}
	return u, nil
}

// apply checks u against the rules of n's type and returns the changed node;
// n itself is not modified. It checks everything that needs no other node;
// names and console ports, which must be unique, are checked by the Service
// inside the same transaction.
func (u NodeUpdate) apply(n *Node) (*Node, error) {
	c := *n
	if u.Name.has() {
		if c.Label.Text == c.Name && !u.Label.Set {
			c.Label.Text = u.Name.Value // the label follows the name unless the user set it
		}
		c.Name = u.Name.Value
	}
	if err := checkName("node", c.Name); err != nil {
		return nil, err
	}
	if u.ConsoleType.Set {
		ct := ConsoleNone
		if !u.ConsoleType.Null {
			ct = u.ConsoleType.Value
		}
		if !c.Type.allowsConsole(ct) {
			return nil, Errorf(EINVALID, "A %s node cannot have console type %s; allowed: %s",
				c.Type, consoleTypeName(ct), c.Type.consoleTypeNames())
		}
		c.ConsoleType = ct
		if ct == ConsoleNone {
			c.Console = 0
		}
	}
	if u.Console.has() {
		if c.ConsoleType == ConsoleNone {
			return nil, Errorf(EINVALID, "Node %s has no console (console type null), so it cannot take console port %d; set console_type first", c.Name, u.Console.Value)
		}
		if err := checkConsolePort(u.Console.Value); err != nil {
			return nil, err
		}
		c.Console = u.Console.Value
	}
	setIf(&c.ConsoleAutoStart, u.ConsoleAutoStart)
	setIf(&c.X, u.X)
	setIf(&c.Y, u.Y)
	setIf(&c.Z, u.Z)
	setIf(&c.Locked, u.Locked)
	if u.Symbol.Set {
		c.Symbol = ptrOrNil(u.Symbol)
	}
	if u.Label.has() {
		if err := checkLabel(u.Label.Value); err != nil {
			return nil, err
		}
		c.Label = u.Label.Value
	}
	setIf(&c.PortNameFormat, u.PortNameFormat)
	if u.PortSegmentSize.has() {
		if u.PortSegmentSize.Value < 0 {
			return nil, Errorf(EINVALID, "port_segment_size cannot be negative")
		}
		c.PortSegmentSize = u.PortSegmentSize.Value
	}
	if u.FirstPortName.Set {
		c.FirstPortName = ptrOrNil(u.FirstPortName)
	}
	if u.CustomAdapters.Set {
		c.CustomAdapters = u.CustomAdapters.Value
		if len(c.CustomAdapters) == 0 {
			c.CustomAdapters = nil // none, however it was said
		}
	}
	props, err := u.Properties.apply(c.Type, c.Properties)
	if err != nil {
		return nil, err
	}
	c.Properties = props
	return &c, nil
}

// apply returns p changed by u, after checking the rules of type t.
func (u PropertiesUpdate) apply(t NodeType, p Properties) (Properties, error) {
	other := func(field string) error {
		return Errorf(EINVALID, "A %s node has no property %s", t, field)
	}
	switch {
	case u.StartupScript.Set && t != VPCS:
		return p, other("startup_script")
	case (u.SwitchPorts.Set && t != EthernetSwitch) || (u.HubPorts.Set && t != EthernetHub) ||
		(u.CloudPorts.Set && t != Cloud):
		return p, other("ports_mapping")
	case u.Mappings.Set && t != FrameRelaySwitch:
		return p, other("mappings")
	case (u.Interfaces.Set || u.RemoteConsoleHost.Set || u.RemoteConsolePort.Set ||
		u.RemoteConsoleType.Set || u.RemoteConsolePath.Set) && t != Cloud:
		return p, other("interfaces or remote_console_*")
	case len(u.Extra) > 0 && t.HasComputeView():
		return p, other("of a generic node")
	}
	if u.StartupScript.Set {
		p.StartupScript = ptrOrNil(u.StartupScript)
	}
	if u.SwitchPorts.Set {
		ports, err := checkSwitchPorts(u.SwitchPorts.Value)
		if err != nil {
			return p, err
		}
		p.SwitchPorts = ports
	}
	if u.HubPorts.Set {
		if err := checkHubPorts(u.HubPorts.Value); err != nil {
			return p, err
		}
		p.HubPorts = u.HubPorts.Value
	}
	if u.CloudPorts.Set {
		if err := checkCloudPorts(u.CloudPorts.Value); err != nil {
			return p, err
		}
		p.CloudPorts = u.CloudPorts.Value
	}
	if u.Interfaces.Set {
		p.Interfaces = u.Interfaces.Value
	}
	if u.Mappings.Set {
		if err := checkFrameRelayMappings(u.Mappings.Value); err != nil {
			return p, err
		}
		p.Mappings = u.Mappings.Value
	}
	if t == Cloud && (u.RemoteConsoleHost.Set || u.RemoteConsolePort.Set || u.RemoteConsoleType.Set || u.RemoteConsolePath.Set) {
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
	if len(u.Extra) > 0 {
		extra := maps.Clone(p.Extra)
		if extra == nil {
			extra = map[string]json.RawMessage{}
		}
		for k, v := range u.Extra {
			if string(v) == "null" {
				delete(extra, k)
			} else {
				extra[k] = v
			}
		}
		p.Extra = extra
	}
	return p, nil
}

func setIf[T any](dst *T, f Field[T]) {
	if f.has() {
		*dst = f.Value
	}
}

func ptrOrNil[T any](f Field[T]) *T {
	if f.Null {
		return nil
	}
	v := f.Value
	return &v
}

// maxNameLength bounds node and project names, in characters.
const maxNameLength = 255

func checkName(kind, name string) error {
	switch {
	case name == "":
		return Errorf(EINVALID, "A %s name cannot be empty", kind)
	case utf8.RuneCountInString(name) > maxNameLength:
		return Errorf(EINVALID, "A %s name can have at most %d characters", kind, maxNameLength)
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return Errorf(EINVALID, "A %s name cannot contain control characters (such as a NUL or a line break)", kind)
	}
	return nil
}

func consoleTypeName(c ConsoleType) string {
	if c == ConsoleNone {
		return "null"
	}
	return string(c)
}

func checkLabel(l Label) error {
	if l.Rotation < -359 || l.Rotation > 360 {
		return Errorf(EINVALID, "Label rotation %d is out of range; use -359 to 360 degrees", l.Rotation)
	}
	return nil
}
