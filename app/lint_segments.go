package app

import (
	"slices"
	"strconv"
	"strings"
)

// Segments, for lint (decision 0070): which ports of a project's hosts and
// routers exchange Ethernet frames with each other, as nodedesk's data
// plane forwards them. A plain link joins its two ports; a hub repeats a
// frame to every other port; an Ethernet switch forwards it within its
// VLAN as app/dataplane/ethswitch.go does: an access port puts what it
// takes into its VLAN and sends that VLAN's frames as they are; a dot1q
// trunk carries every VLAN, tagged but for its native VLAN, and puts an
// untagged frame into the native VLAN; a qinq port takes only tagged
// frames, puts them whole into its VLAN and sends its VLAN's frames with
// the outer tag off. Suspended links carry nothing. This file is the one
// place the domain models that forwarding (the domain cannot ask the data
// plane, an adapter): a change to the data plane's switch is a change
// here too (decision 0073).

// forwarding is how a node type passes frames between its ports (the
// node-type table's forwards column).
type forwarding uint8

// The ways of forwarding.
const (
	forwardsNone   forwarding = iota // a host or a router: frames end here
	forwardsAll                      // a hub: to every other port
	forwardsByVLAN                   // an Ethernet switch: within a VLAN
	forwardsByDLCI                   // a Frame Relay switch: by DLCI circuit, no Ethernet
)

// portRef is one port of one node.
type portRef struct {
	node          string
	adapter, port int
}

// endpoint is where a host's or a router's frames start and end: one of
// its ports and the 802.1Q tag its frames wear there (0: none; a router's
// dot1Q subinterface tags them).
type endpoint struct {
	portRef
	vlan int
}

// labGraph is a project's nodes and the links that carry frames.
type labGraph struct {
	nodes  map[string]*Node
	peer   map[portRef]portRef // the other end of each carrying link
	linkAt map[portRef]*Link   // the link at each linked port, suspended or not
	linked map[string][]portRef
}

// newLabGraph indexes a project's nodes and links.
func newLabGraph(nodes []*Node, links []*Link) *labGraph {
	g := &labGraph{nodes: map[string]*Node{}, peer: map[portRef]portRef{}, linkAt: map[portRef]*Link{}, linked: map[string][]portRef{}}
	for _, n := range nodes {
		g.nodes[n.ID] = n
	}
	for _, l := range links {
		if len(l.Nodes) != 2 {
			continue
		}
		a := portRef{l.Nodes[0].NodeID, l.Nodes[0].AdapterNumber, l.Nodes[0].PortNumber}
		b := portRef{l.Nodes[1].NodeID, l.Nodes[1].AdapterNumber, l.Nodes[1].PortNumber}
		g.linkAt[a], g.linkAt[b] = l, l
		if l.Suspend {
			continue
		}
		g.peer[a], g.peer[b] = b, a
		g.linked[a.node] = append(g.linked[a.node], a)
		g.linked[b.node] = append(g.linked[b.node], b)
	}
	return g
}

// forwards is how node id forwards frames (a missing node: not at all).
func (g *labGraph) forwards(id string) forwarding {
	if n := g.nodes[id]; n != nil {
		return n.Type.kind().forwards
	}
	return forwardsNone
}

// maxTags bounds the 802.1Q tags lint follows on a frame (Q-in-Q loops).
const maxTags = 4

// swMode is how one switch port takes and sends frames, as the data plane
// reads its entry of ports_mapping; an entry it refuses (a VLAN out of
// range, an unknown type, a qinq port's unknown ethertype) is a port that
// is off.
type swMode struct {
	kind string // "access", "dot1q", "qinq"; "": off
	vlan int
}

// switchMode reads port i of switch n.
func switchMode(n *Node, i int) swMode {
	if i < 0 || i >= len(n.Properties.SwitchPorts) {
		return swMode{}
	}
	p := n.Properties.SwitchPorts[i]
	if p.VLAN < MinVLAN || p.VLAN > MaxVLAN {
		return swMode{}
	}
	switch p.Type {
	case "access", "dot1q":
		return swMode{p.Type, p.VLAN}
	case "qinq":
		if p.Ethertype == nil || *p.Ethertype == "" {
			return swMode{p.Type, p.VLAN}
		}
		if v, err := strconv.ParseUint(*p.Ethertype, 0, 16); err == nil && slices.Contains([]uint64{0x8100, 0x88a8, 0x9100, 0x9200}, v) {
			return swMode{p.Type, p.VLAN}
		}
	}
	return swMode{}
}

// String says the mode as a person reads it.
func (m swMode) String() string {
	switch m.kind {
	case "access":
		return "access, VLAN " + strconv.Itoa(m.vlan)
	case "dot1q":
		return "dot1q trunk, native VLAN " + strconv.Itoa(m.vlan)
	case "qinq":
		return "qinq tunnel, VLAN " + strconv.Itoa(m.vlan)
	}
	return "off: its entry is invalid"
}

// inSwitch is a frame inside a switch: its VLAN, the tags it carries
// beyond the one that gave it its VLAN, and whether it entered by a qinq
// port (then it is tagged even on a trunk's native VLAN).
type inSwitch struct {
	vlan    int
	payload []int
	always  bool
}

// ingress takes a frame wearing tags (outer first) into the switch by a
// port of mode m; false: the port drops it.
func (m swMode) ingress(tags []int) (inSwitch, bool) {
	switch m.kind {
	case "access":
		return inSwitch{vlan: m.vlan, payload: tags}, true
	case "qinq":
		if len(tags) == 0 {
			return inSwitch{}, false
		}
		return inSwitch{vlan: m.vlan, payload: tags, always: true}, true
	case "dot1q":
		if len(tags) == 0 {
			return inSwitch{vlan: m.vlan}, true
		}
		switch tags[0] {
		case 4095:
			return inSwitch{}, false
		case 0:
			return inSwitch{vlan: m.vlan, payload: tags[1:]}, true
		}
		return inSwitch{vlan: tags[0], payload: tags[1:]}, true
	}
	return inSwitch{}, false
}

// carries reports whether frames of vlan leave by a port of mode m.
func (m swMode) carries(vlan int) bool {
	return m.kind == "dot1q" || m.kind != "" && m.vlan == vlan
}

// matches reports whether the ports at the two ends of a link between
// switches agree: both access ports of one VLAN, both trunks of one
// native VLAN, or a trunk into a qinq port (a Q-in-Q tunnel's customer
// side).
func (m swMode) matches(o swMode) bool {
	return m == o || m.kind == "dot1q" && o.kind == "qinq" || m.kind == "qinq" && o.kind == "dot1q"
}

// egress is the tags f wears leaving by a port of mode m.
func (m swMode) egress(f inSwitch) []int {
	if m.kind == "dot1q" && (f.vlan != m.vlan || f.always) {
		return append([]int{f.vlan}, f.payload...)
	}
	return f.payload
}

// switchEntry is where a host's frames first enter a switch: the switch,
// its port and the VLAN they are in there, or dropped when the port
// takes none of them.
type switchEntry struct {
	node    *Node
	port    int
	vlan    int
	dropped bool
}

// String says it as a person reads it: "in VLAN 10 at SW1 (Ethernet1)".
func (e *switchEntry) String() string {
	if e == nil {
		return "reach no switch"
	}
	at := e.node.Name + " (" + portName(e.node, 0, e.port) + ")"
	if e.dropped {
		return "are dropped at " + at + ", whose port (" + switchMode(e.node, e.port).String() + ") takes none of them"
	}
	return "are in VLAN " + strconv.Itoa(e.vlan) + " at " + at
}

// reach follows the frames start sends and returns the endpoints that take
// them (a host or router port receiving them with its own tag, start
// itself left out) and the first switch they enter (nil: none).
func (g *labGraph) reach(start endpoint) ([]endpoint, *switchEntry) {
	type frame struct {
		at   portRef
		tags []int
	}
	seen := map[string]bool{}
	var queue []frame
	send := func(from portRef, tags []int) {
		to, ok := g.peer[from]
		if !ok || len(tags) > maxTags {
			return
		}
		k := frameKey(to, tags)
		if !seen[k] {
			seen[k] = true
			queue = append(queue, frame{to, tags})
		}
	}
	var first []int
	if start.vlan != 0 {
		first = []int{start.vlan}
	}
	send(start.portRef, first)
	var ends []endpoint
	var entry *switchEntry
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		n := g.nodes[f.at.node]
		if n == nil {
			continue
		}
		switch n.Type.kind().forwards {
		case forwardsNone:
			e := endpoint{portRef: f.at}
			switch len(f.tags) {
			case 0:
			case 1:
				e.vlan = f.tags[0]
			default:
				continue
			}
			if e != start {
				ends = append(ends, e)
			}
		case forwardsAll:
			for _, q := range g.linked[n.ID] {
				if q != f.at {
					send(q, f.tags)
				}
			}
		case forwardsByVLAN:
			in, ok := switchMode(n, f.at.port).ingress(f.tags)
			if entry == nil {
				entry = &switchEntry{node: n, port: f.at.port, vlan: in.vlan, dropped: !ok}
			}
			if !ok || f.at.adapter != 0 {
				continue
			}
			for _, q := range g.linked[n.ID] {
				if out := switchMode(n, q.port); q != f.at && q.adapter == 0 && out.carries(in.vlan) {
					send(q, out.egress(in))
				}
			}
		}
	}
	return ends, entry
}

func frameKey(at portRef, tags []int) string {
	var b strings.Builder
	b.WriteString(at.node + "/" + strconv.Itoa(at.adapter) + "/" + strconv.Itoa(at.port))
	for _, t := range tags {
		b.WriteString("." + strconv.Itoa(t))
	}
	return b.String()
}

// segments are the L2 segments of a project: the endpoints whose frames
// reach each other, each with the first switch its frames enter.
type segments struct {
	of    map[endpoint]int
	entry map[endpoint]*switchEntry
}

// segmentsOf groups the endpoints ends (and those their frames reach)
// into segments.
func (g *labGraph) segmentsOf(ends []endpoint) segments {
	s := segments{of: map[endpoint]int{}, entry: map[endpoint]*switchEntry{}}
	next := 0
	for _, e := range ends {
		if _, ok := s.of[e]; ok {
			// Reached from another end: its own frames' first switch
			// is still its own.
			if _, known := s.entry[e]; !known {
				_, s.entry[e] = g.reach(e)
			}
			continue
		}
		reached, entry := g.reach(e)
		s.entry[e] = entry
		id := next
		next++
		s.of[e] = id
		for _, r := range reached {
			if old, ok := s.of[r]; ok && old != id {
				for k, v := range s.of { // join two segments found apart
					if v == old {
						s.of[k] = id
					}
				}
			}
			s.of[r] = id
		}
	}
	return s
}

// cablePath returns the links a frame crosses from port a to port b when
// every hub and switch passes every frame (the cables alone: VLANs
// left out); nil: the cables do not join them.
func (g *labGraph) cablePath(a, b portRef) []*Link {
	type step struct {
		at   portRef
		prev int
	}
	steps := []step{{a, -1}}
	seen := map[portRef]bool{a: true}
	for i := 0; i < len(steps); i++ {
		at := steps[i].at
		to, ok := g.peer[at]
		if !ok {
			continue
		}
		if to == b {
			var path []*Link
			for j := i; j >= 0; j = steps[j].prev {
				path = append(path, g.linkAt[steps[j].at])
			}
			slices.Reverse(path)
			return path
		}
		if g.forwards(to.node) != forwardsAll && g.forwards(to.node) != forwardsByVLAN {
			continue
		}
		for _, q := range g.linked[to.node] {
			if q != to && !seen[q] {
				seen[q] = true
				steps = append(steps, step{q, i})
			}
		}
	}
	return nil
}
