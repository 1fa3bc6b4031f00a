package app

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
)

// The wire map (decision 0070): per link, the addresses that live there
// and what crossed it, and the faults the wire shows. The data plane
// reports what it saw (WireWatch); the rules of what is wrong live here.

// UseWireWatch makes s read what crossed the links from w. Call it before
// the API serves (the data plane's Attach does).
func (s *Service) UseWireWatch(w WireWatch) { s.wireWatch = w }

// gatewaySilentAsks is how many ARP asks for one address, never answered,
// make a silent gateway.
const gatewaySilentAsks = 3

// WireMap returns a project's wire map: empty links while the project is
// closed. Codes: ENOTFOUND.
func (s *Service) WireMap(ctx context.Context, projectID string) (*WireMap, error) {
	var (
		p     *Project
		nodes []*Node
		links []*Link
	)
	err := s.view(func(tx Tx) error {
		var err error
		if p, err = findProject(tx, projectID); err != nil {
			return err
		}
		if nodes, err = tx.Nodes(p.ID); err != nil {
			return err
		}
		links, err = tx.Links(p.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	m := &WireMap{ProjectID: p.ID, Links: []WireLink{}, Faults: []WireFault{}}
	if p.Status == ProjectClosed || s.wireWatch == nil {
		return m, nil
	}
	var gateways []HostAddress
	if addrs, err := s.HostAddresses(ctx, p.ID); err == nil {
		gateways = addrs
	}
	seen := s.wireWatch.WireSeen(p.ID)
	return buildWireMap(m, nodes, links, seen, gateways), nil
}

// buildWireMap fills m from what the wire showed on each link (seen) of a
// project of nodes and links; addrs are the addresses the configs give.
func buildWireMap(m *WireMap, nodes []*Node, links []*Link, seen []WireSeen, addrs []HostAddress) *WireMap {
	w := newWireFacts(nodes, links, seen)
	for _, l := range links {
		wl := WireLink{LinkID: l.ID, Hosts: []WireHost{}, Kinds: map[string]KindSeen{}}
		if ws, ok := w.seen[l.ID]; ok {
			since := ws.Since
			wl.Since, wl.Kinds = &since, ws.Kinds
			for _, mac := range ws.MACs {
				wl.Hosts = append(wl.Hosts, WireHost{MAC: mac.MAC, IPv4: mac.IPv4, NodeID: w.macNode[mac.MAC]})
			}
		}
		m.Links = append(m.Links, wl)
	}
	m.Faults = append(m.Faults, w.duplicateIPs()...)
	m.Faults = append(m.Faults, w.silentGateways(addrs)...)
	m.Faults = append(m.Faults, w.taggedOnAccess()...)
	return m
}

// wireFacts is what the wire map's rules read: what each link saw, and
// the nodes behind the MACs.
type wireFacts struct {
	nodes   map[string]*Node
	links   map[string]*Link
	seen    map[string]WireSeen // by link id
	order   []string            // link ids as seen lists them
	macNode map[string]string   // MAC -> node id
}

func newWireFacts(nodes []*Node, links []*Link, seen []WireSeen) *wireFacts {
	w := &wireFacts{nodes: map[string]*Node{}, links: map[string]*Link{}, seen: map[string]WireSeen{}, macNode: map[string]string{}}
	for _, n := range nodes {
		w.nodes[n.ID] = n
	}
	for _, l := range links {
		w.links[l.ID] = l
	}
	for _, ws := range seen {
		if w.links[ws.LinkID] != nil {
			w.seen[ws.LinkID] = ws
			w.order = append(w.order, ws.LinkID)
		}
	}
	// The MACs nodes are known to use, then, surer, the MACs whose frames
	// came straight from a node's own port.
	for _, n := range nodes {
		for _, mac := range knownMACs(n) {
			w.macNode[mac] = n.ID
		}
	}
	for _, id := range w.order {
		for _, mac := range w.seen[id].MACs {
			if n := w.nodes[mac.From.NodeID]; n != nil && n.Type.Lifecycle() == ProcessRun {
				w.macNode[mac.MAC] = n.ID
			}
		}
	}
	return w
}

// knownMACs lists the MAC addresses a node's configuration gives it: its
// ports' (Docker), its mac_address and the adapters after it (QEMU), the
// one its mac_offset gives (macOffsetBase), and those its application id
// gives its ports (applicationMACs).
func knownMACs(n *Node) []string {
	var macs []string
	for _, p := range n.Ports() {
		if p.MACAddress != "" {
			macs = append(macs, strings.ToLower(p.MACAddress))
		}
	}
	if base, ok := n.PropertiesView()["mac_address"].(string); ok && base != "" {
		for a := range max(len(n.Ports()), 1) {
			if mac := AdapterMAC(base, a); mac != "" {
				macs = append(macs, strings.ToLower(mac))
			}
		}
	}
	if n.Properties.MACOffset != nil {
		macs = append(macs, AdapterMAC(macOffsetBase, *n.Properties.MACOffset))
	}
	return append(macs, applicationMACs(n)...)
}

// name is what a person calls node id: its name, or its id.
func (w *wireFacts) name(id string) string {
	if n := w.nodes[id]; n != nil {
		return n.Name
	}
	return id
}

// macName is a MAC with the node behind it, when known.
func (w *wireFacts) macName(mac string) string {
	if id := w.macNode[mac]; id != "" {
		return mac + " (" + w.name(id) + ")"
	}
	return mac
}

// duplicateIPs finds the addresses two MACs claim (as ARP senders: their
// requests, replies and announcements).
func (w *wireFacts) duplicateIPs() []WireFault {
	claims := map[string][]string{} // address -> MACs
	where := map[string][]string{}  // address -> links
	for _, id := range w.order {
		for _, mac := range w.seen[id].MACs {
			for _, ip := range mac.IPv4 {
				if !slices.Contains(claims[ip], mac.MAC) {
					claims[ip] = append(claims[ip], mac.MAC)
				}
				if !slices.Contains(where[ip], id) {
					where[ip] = append(where[ip], id)
				}
			}
		}
	}
	var faults []WireFault
	for _, ip := range sortedKeys(claims) {
		macs := claims[ip]
		if len(macs) < 2 {
			continue
		}
		slices.Sort(macs)
		var names, nodes []string
		for _, mac := range macs {
			names = append(names, w.macName(mac))
			if id := w.macNode[mac]; id != "" && !slices.Contains(nodes, id) {
				nodes = append(nodes, id)
			}
		}
		faults = append(faults, WireFault{Code: FaultDuplicateIP, Address: ip, MACs: macs, NodeIDs: orEmpty(nodes), LinkIDs: sorted(where[ip]),
			Message: fmt.Sprintf("%d hosts answer for %s: %s. Give each host its own address.", len(macs), ip, strings.Join(names, " and "))})
	}
	return faults
}

// silentGateways finds the addresses a host asked for by ARP at least
// gatewaySilentAsks times with no answer seen on any link. When the
// configs name the host's gateway, only an ask for it counts.
func (w *wireFacts) silentGateways(addrs []HostAddress) []WireFault {
	type key struct{ mac, target string }
	asks := map[key]ARPAsk{}
	where := map[key][]string{}
	answered := map[string]bool{} // addresses that answered, or live, somewhere
	for _, id := range w.order {
		ws := w.seen[id]
		for _, mac := range ws.MACs {
			for _, ip := range mac.IPv4 {
				answered[ip] = true
			}
		}
		for _, a := range ws.Asks {
			if a.Answered {
				answered[a.Target] = true
			}
			k := key{a.AskerMAC, a.Target}
			cur := asks[k]
			if a.Asks > cur.Asks {
				cur.Asks = a.Asks
			}
			cur.AskerMAC, cur.AskerIPv4, cur.Target = a.AskerMAC, a.AskerIPv4, a.Target
			asks[k] = cur
			where[k] = append(where[k], id)
		}
	}
	keys := make([]key, 0, len(asks))
	for k := range asks {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int { return cmp.Or(strings.Compare(a.mac, b.mac), strings.Compare(a.target, b.target)) })
	var faults []WireFault
	for _, k := range keys {
		a := asks[k]
		if a.Asks < gatewaySilentAsks || answered[a.Target] {
			continue
		}
		node := w.macNode[a.AskerMAC]
		gw := gatewayOf(addrs, node)
		if gw != "" && gw != a.Target {
			continue // not its gateway: an address nobody holds, which a reach check shows
		}
		who := w.macName(a.AskerMAC)
		if a.AskerIPv4 != "" {
			who = fmt.Sprintf("%s at %s", who, a.AskerIPv4)
		}
		msg := fmt.Sprintf("%s asked %d times who has %s and nothing answered. Check that a host or router holds %s on this segment (its interface is up, in the same VLAN and subnet), or correct the asking host's gateway.", who, a.Asks, a.Target, a.Target)
		if gw != "" {
			msg = fmt.Sprintf("The gateway %s of %s never answers: it asked %d times who has it and nothing answered. Check that the router holds %s on this segment and that its interface is up, in the same VLAN and subnet, or correct the host's gateway.", a.Target, who, a.Asks, a.Target)
		}
		f := WireFault{Code: FaultGatewaySilent, Address: a.Target, MACs: []string{a.AskerMAC}, NodeIDs: []string{}, LinkIDs: sorted(where[k]), Message: msg}
		if node != "" {
			f.NodeIDs = []string{node}
		}
		faults = append(faults, f)
	}
	return faults
}

// gatewayOf is the gateway the configs give node, or "".
func gatewayOf(addrs []HostAddress, node string) string {
	for _, a := range addrs {
		if a.NodeID == node && node != "" && a.Gateway != "" {
			return a.Gateway
		}
	}
	return ""
}

// taggedOnAccess finds 802.1Q-tagged frames that arrived at an access
// port of an Ethernet switch.
func (w *wireFacts) taggedOnAccess() []WireFault {
	var faults []WireFault
	for _, id := range w.order {
		ws := w.seen[id]
		byPort := map[WireEnd][]int{}
		var ports []WireEnd
		for _, t := range ws.Tags {
			if _, ok := w.accessPort(t.At); !ok {
				continue
			}
			if byPort[t.At] == nil {
				ports = append(ports, t.At)
			}
			if !slices.Contains(byPort[t.At], t.VLAN) {
				byPort[t.At] = append(byPort[t.At], t.VLAN)
			}
		}
		for _, at := range ports {
			sp, _ := w.accessPort(at)
			vlans := byPort[at]
			slices.Sort(vlans)
			words := make([]string, len(vlans))
			for i, v := range vlans {
				words[i] = fmt.Sprint(v)
			}
			plural := ""
			if len(vlans) > 1 {
				plural = "s"
			}
			node := w.nodes[at.NodeID]
			far := w.farEnd(id, at)
			msg := fmt.Sprintf("Frames tagged with VLAN%s %s arrive at %s's port %s, an access port of VLAN %d, from %s: a switch drops or misplaces them. Make %s a dot1q trunk, or make %s send untagged frames (an access port, or no VLAN sub-interface).",
				plural, strings.Join(words, ", "), node.Name, portName(node, at.AdapterNumber, at.PortNumber), sp.VLAN, w.name(far), portName(node, at.AdapterNumber, at.PortNumber), w.name(far))
			nodes := []string{at.NodeID}
			if far != "" && far != at.NodeID {
				nodes = append(nodes, far)
			}
			faults = append(faults, WireFault{Code: FaultTaggedOnAccess, Message: msg, LinkIDs: []string{id}, NodeIDs: nodes, MACs: []string{}})
		}
	}
	return faults
}

// accessPort is the switch port at, when it is an access port.
func (w *wireFacts) accessPort(at WireEnd) (SwitchPort, bool) {
	n := w.nodes[at.NodeID]
	if n == nil {
		return SwitchPort{}, false
	}
	for _, sp := range n.Properties.SwitchPorts {
		if sp.PortNumber == at.PortNumber {
			return sp, sp.Type == "access"
		}
	}
	return SwitchPort{}, false
}

// farEnd is the node at the other end of link id from at.
func (w *wireFacts) farEnd(id string, at WireEnd) string {
	for _, e := range w.links[id].Nodes {
		if e.NodeID != at.NodeID || e.AdapterNumber != at.AdapterNumber || e.PortNumber != at.PortNumber {
			return e.NodeID
		}
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return compareIPs(a, b) })
	return keys
}

// compareIPs orders dotted addresses numerically, anything else after.
func compareIPs(a, b string) int {
	ia, ib := net.ParseIP(a).To4(), net.ParseIP(b).To4()
	if ia != nil && ib != nil {
		return slices.Compare(ia, ib)
	}
	return strings.Compare(a, b)
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
