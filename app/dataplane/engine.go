// Package dataplane carries the frames of a running lab: it is nodedesk's
// own ubridge and dynamips. Each link is a wire between two ports; a port
// is either a UDP endpoint (a VPCS process, a cloud's UDP tunnel; later any
// UDP peer such as a GNS3 compute) or a port of one of nodedesk's own
// forwarding nodes (Ethernet switch, Ethernet hub, Frame Relay switch, and
// the NAT node's user-mode gateway, nat.go), whose Engine decides where
// each frame goes. It also serves the consoles of those nodes that have one
// (the Ethernet switch's shell).
//
// dataplane imports app, app/telnet (its consoles) and app/natgw (the NAT
// gateway) and nothing else of this repository; app never imports it. It
// never decides a rule: it applies the nodes and links that the Service has
// committed.
package dataplane

import (
	"nodedesk/app"
)

// MaxFrame is the largest frame carried, in bytes: an Ethernet jumbo frame
// with room for two VLAN tags. Larger datagrams are dropped as giants.
const MaxFrame = 9216 + 8

// Engine is the forwarding behaviour of one node. Input is called for
// every frame that arrives on one of the node's ports; the engine appends
// what the node sends in answer to out. Input and Configure may be called
// from several goroutines at once, so an engine guards its own state; it
// never blocks and never keeps frame or out after it returns.
//
// Ports are numbered as the node's link ends number them (app.LinkEnd's
// PortNumber; the adapter is always 0 for these nodes): for a switch or hub
// the index in its ports_mapping, for a Frame Relay switch the port number
// of its mappings.
type Engine interface {
	// Input handles one frame that arrived on port.
	Input(port int, frame []byte, out *Out)
	// Configure applies the node's settings (ports_mapping, mappings) at
	// once, keeping what still holds (learnt MAC addresses of ports that
	// keep their VLAN, for instance).
	Configure(n *app.Node)
}

// Emitted is one frame an engine sends out of one of its ports.
type Emitted struct {
	Port  int
	Frame []byte
}

// Out collects the frames an engine emits for one input frame, without
// allocating: its slots and its arena are reused from one frame to the
// next. The fabric owns it and drains it after Input returns.
type Out struct {
	// Now is the arrival time of the input frame, in nanoseconds since the
	// Unix epoch (time.Now().UnixNano()): engines age their tables by it.
	Now int64
	// Dropped counts emissions refused because Out was full.
	Dropped int

	items []Emitted
	arena []byte
	used  int
}

// NewOut returns an Out with room for slots frames and arena bytes of
// frames built by the engine (Alloc).
func NewOut(slots, arena int) *Out {
	return &Out{items: make([]Emitted, 0, slots), arena: make([]byte, arena)}
}

// Reset empties o for the next input frame, arrived at now.
func (o *Out) Reset(now int64) {
	o.items, o.used, o.Now, o.Dropped = o.items[:0], 0, now, 0
}

// Emit sends frame out of port. frame must stay valid until o is drained:
// the input frame itself (engines may forward it unchanged to any number
// of ports, but must never modify it) or a slice returned by Alloc.
func (o *Out) Emit(port int, frame []byte) {
	if len(o.items) == cap(o.items) {
		o.Dropped++
		return
	}
	o.items = append(o.items, Emitted{Port: port, Frame: frame})
}

// Alloc returns n bytes of o's arena for the engine to build a frame in
// (a frame with a tag pushed or popped, an LMI reply), or nil when the
// arena is full (the engine then drops that emission: count it in Dropped).
func (o *Out) Alloc(n int) []byte {
	if o.used+n > len(o.arena) {
		o.Dropped++
		return nil
	}
	b := o.arena[o.used : o.used+n : o.used+n]
	o.used += n
	return b
}

// Frames returns what was emitted since the last Reset.
func (o *Out) Frames() []Emitted { return o.items }
