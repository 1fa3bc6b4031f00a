package app

// NodeCreate is a request for a new node: its type, an optional id, and
// any initial settings, which follow the same rules as an update. Fields
// left out get GNS3's defaults (newNode).
type NodeCreate struct {
	Type       NodeType
	ID         string        // optional; a fresh UUID when empty
	ComputeID  string        // optional; only "local" exists
	TemplateID Field[string] // optional
	// ReplaceTakenConsole: a console port another node owns is replaced
	// by a free one instead of refused, as a GNS3 compute's port manager
	// does (a controller's duplicate or reopen sends the ports it knew).
	ReplaceTakenConsole bool
	NodeUpdate
}

// newNode is a node of type t with GNS3's defaults: the type's symbol, its
// default console type, a label above it, "Ethernet{0}" port names, z 1, the
// type's initial status and default properties. Its name and console port
// are allocated by the Service.
func newNode(id, projectID string, t NodeType, env newNodeEnv) *Node {
	k := t.kind()
	n := &Node{
		ID: id, ProjectID: projectID, Type: t,
		ConsoleType:    k.consoles[0],
		Status:         k.lifecycle.initialStatus(),
		Z:              1,
		Symbol:         ptr(k.symbol),
		PortNameFormat: "Ethernet{0}",
	}
	_, h := n.Size()
	n.Label = Label{Y: -roundHalfEven(float64(h)/2 + 10)}
	k.props.init(n, env)
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
