package app

import (
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
	// PropertiesOf, when set, gives Properties once the node's type is
	// known: a controller PUT's "properties" object, whose schema follows
	// the type. UpdateNode calls it after its one read of the node.
	PropertiesOf func(NodeType) (PropertiesUpdate, error) `json:"-"`
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
			return nil, Invalid("console_type", "A %s node cannot have console_type %s; allowed: %s",
				c.Type, consoleTypeName(ct), c.Type.consoleTypeNames())
		}
		if ct == ConsoleNone || ct == ConsoleVNC && c.ConsoleType != ConsoleVNC && c.Console < VNCPortMin {
			c.Console = 0 // none, or a fresh port where VNC displays are
		}
		c.ConsoleType = ct
	}
	if u.Console.has() {
		if c.ConsoleType == ConsoleNone {
			return nil, Invalid("console", "Node %s has no console (console type null), so it cannot take console port %d; set console_type first", c.Name, u.Console.Value)
		}
		if err := checkConsolePort(u.Console.Value, c.ConsoleType); err != nil {
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
			return nil, Invalid("port_segment_size", "port_segment_size cannot be negative")
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
	props := c.Properties
	if err := applyProperties(c.Type, u.Properties, &props); err != nil {
		return nil, err
	}
	c.Properties = props
	return &c, nil
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
		return Invalid("name", "A %s name cannot be empty", kind)
	case utf8.RuneCountInString(name) > maxNameLength:
		return Invalid("name", "A %s name can have at most %d characters", kind, maxNameLength)
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return Invalid("name", "A %s name cannot contain control characters (such as a NUL or a line break)", kind)
	}
	return nil
}

func checkLabel(l Label) error {
	if l.Rotation < -359 || l.Rotation > 360 {
		return Invalid("label.rotation", "Label rotation %d is out of range; use -359 to 360 degrees", l.Rotation)
	}
	return nil
}
