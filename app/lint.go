package app

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// Lint (decision 0070): what will not work in a project, found from the
// project alone, before anything runs: its records and the configurations
// in its node folders (lint_config.go), read as the node files are
// (os.Root), whether the project is open or closed. The segments the
// rules reason about are lint_segments.go's.

// The lint rules' codes.
const (
	LintDuplicateAddress = "duplicate_address"
	LintSubnetMismatch   = "subnet_mismatch"
	LintGatewayOffSubnet = "gateway_off_subnet"
	LintVLANNotOnTrunk   = "vlan_not_on_trunk"
	LintDLCIAsymmetric   = "dlci_asymmetric"
	LintMissingPort      = "missing_port"
	LintShutInterface    = "shut_interface"
	LintLinkSuspended    = "link_suspended"
)

// lintLab is what lint reads of a project.
type lintLab struct {
	nodes   []*Node
	links   []*Link
	graph   *labGraph
	configs map[string][]portConfig // by node id
	files   map[string]string       // the config file each node's come from
}

// readLintLab reads a project's nodes, links and configurations.
func (s *Service) readLintLab(ctx context.Context, projectID string) (*lintLab, error) {
	lab := &lintLab{configs: map[string][]portConfig{}, files: map[string]string{}}
	err := s.view(func(tx Tx) error {
		p, err := findProject(tx, projectID)
		if err != nil {
			return err
		}
		if lab.nodes, err = tx.Nodes(p.ID); err != nil {
			return err
		}
		lab.links, err = tx.Links(p.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, n := range lab.nodes {
		r := n.Type.kind().configured
		if r == nil || n.Remote() {
			continue
		}
		name := r.file(n)
		b, err := s.ReadNodeFile(ctx, NodeRef{ProjectID: n.ProjectID, NodeID: n.ID}, name)
		if err != nil {
			continue // no configuration: no address known
		}
		lab.configs[n.ID] = r.read(n.Ports(), string(b))
		lab.files[n.ID] = name
	}
	lab.graph = newLabGraph(lab.nodes, lab.links)
	return lab, nil
}

// HostAddresses returns the IPv4 addresses the project's nodes hold as
// their configurations say (Source "config"), in the order of the nodes,
// then of their ports: a VPCS script's, the interfaces of a router's
// startup config (a shut interface's too, marked Shut), the static
// interfaces of a container's interfaces file. An address on an
// interface the node has no port for is left out. Codes: ENOTFOUND.
func (s *Service) HostAddresses(ctx context.Context, projectID string) ([]HostAddress, error) {
	lab, err := s.readLintLab(ctx, projectID)
	if err != nil {
		return nil, err
	}
	out := []HostAddress{}
	for _, n := range lab.nodes {
		for _, c := range lab.configs[n.ID] {
			if !c.addr.IsValid() || !c.found {
				continue
			}
			h := HostAddress{NodeID: n.ID, Name: n.Name, AdapterNumber: c.adapter, PortNumber: c.port,
				Address: c.addr.String(), Source: "config", EndHost: n.Type.kind().endHost, Shut: c.shut}
			if c.gateway.IsValid() {
				h.Gateway = c.gateway.String()
			}
			out = append(out, h)
		}
	}
	return out, nil
}

// Lint returns what lint finds in a project: each rule's findings, in the
// order of lintRules. Codes: ENOTFOUND.
func (s *Service) Lint(ctx context.Context, projectID string) (*LintReport, error) {
	lab, err := s.readLintLab(ctx, projectID)
	if err != nil {
		return nil, err
	}
	rep := &LintReport{Findings: []LintFinding{}}
	a := lab.addressed()
	for _, rule := range lintRules {
		for _, f := range rule(lab, a) {
			f.NodeIDs = nonNil(uniq(f.NodeIDs))
			f.LinkIDs = nonNil(uniq(f.LinkIDs))
			rep.Findings = append(rep.Findings, f)
		}
	}
	return rep, nil
}

// lintRules are the rules, in the order a report lists their findings.
var lintRules = []func(*lintLab, *addressed) []LintFinding{
	lintMissingPorts, lintDuplicates, lintGateways, lintShutInterfaces, lintSubnets, lintVLANSplits, lintDLCIs, lintSuspended,
}

// lintSuspended finds suspended links: nothing crosses them.
func lintSuspended(lab *lintLab, _ *addressed) []LintFinding {
	var out []LintFinding
	for _, l := range lab.links {
		if !l.Suspend || len(l.Nodes) != 2 {
			continue
		}
		var ends []string
		for _, e := range l.Nodes {
			n := lab.graph.nodes[e.NodeID]
			if n == nil {
				continue
			}
			ends = append(ends, n.Name+" "+portName(n, e.AdapterNumber, e.PortNumber))
		}
		out = append(out, LintFinding{Code: LintLinkSuspended, Severity: SeverityWarning, NodeIDs: lab.otherEnds(l, ""), LinkIDs: []string{l.ID},
			Message: fmt.Sprintf("The link between %s is suspended: nothing crosses it. Resume it if the lab should use it.", joinAnd(ends))})
	}
	return out
}

// hostAt is one address a configuration gives a port of a node.
type hostAt struct {
	n   *Node
	c   portConfig
	end endpoint
	seg int
}

// addressed are the addresses of a lab's configurations that its nodes
// hold (not refused), on ports the nodes have, and their segments.
type addressed struct {
	hosts []hostAt
	segs  segments
}

func (lab *lintLab) addressed() *addressed {
	a := &addressed{}
	var ends []endpoint
	for _, n := range lab.nodes {
		for _, c := range lab.configs[n.ID] {
			if !c.addr.IsValid() || !c.found || c.refused != "" {
				continue
			}
			e := endpoint{portRef{n.ID, c.adapter, c.port}, c.vlan}
			a.hosts = append(a.hosts, hostAt{n: n, c: c, end: e})
			if !c.shut {
				ends = append(ends, e)
			}
		}
	}
	a.segs = lab.graph.segmentsOf(ends)
	for i := range a.hosts {
		a.hosts[i].seg = -1
		if id, ok := a.segs.of[a.hosts[i].end]; ok && !a.hosts[i].c.shut {
			a.hosts[i].seg = id
		}
	}
	return a
}

// where says where a node's configuration names c: "line 2 of
// startup.vpc", "FastEthernet0/0, line 14 of
// configs/i1_startup-config.cfg".
func (lab *lintLab) where(n *Node, c portConfig) string {
	w := lab.files[n.ID]
	if c.line > 0 {
		w = "line " + strconv.Itoa(c.line) + " of " + w
	}
	if c.iface != "" {
		w = c.iface + ", " + w
	}
	return w
}

// portName is a port of a node as a person reads it ("FastEthernet0/0",
// "port 1/0" when the node has no such port).
func portName(n *Node, adapter, port int) string {
	if n != nil {
		if p, ok := findPort(n, adapter, port); ok {
			return p.Name
		}
	}
	return "port " + strconv.Itoa(adapter) + "/" + strconv.Itoa(port)
}

// linkIDAt is the id of the link at a port ("" for none).
func (lab *lintLab) linkIDAt(p portRef) string {
	if l := lab.graph.linkAt[p]; l != nil {
		return l.ID
	}
	return ""
}

// lintMissingPorts finds links that end at a port their node does not
// have (its adapters shrank after the link was made) or at a node that
// does not exist.
func lintMissingPorts(lab *lintLab, _ *addressed) []LintFinding {
	var out []LintFinding
	for _, l := range lab.links {
		for _, e := range l.Nodes {
			n := lab.graph.nodes[e.NodeID]
			if n == nil {
				out = append(out, LintFinding{Code: LintMissingPort, Severity: SeverityError, LinkIDs: []string{l.ID},
					NodeIDs: lab.otherEnds(l, e.NodeID),
					Message: fmt.Sprintf("Link %s ends at node %s, which is not in the project: delete the link, then link the port again to a node that exists.", l.ID, e.NodeID)})
				continue
			}
			if _, ok := findPort(n, e.AdapterNumber, e.PortNumber); !ok {
				out = append(out, LintFinding{Code: LintMissingPort, Severity: SeverityError, LinkIDs: []string{l.ID}, NodeIDs: []string{n.ID},
					Message: fmt.Sprintf("A link ends at port %d/%d of %s, which %s does not have (its adapters changed after the link was made): nothing crosses that link. Delete the link, or give %s back the adapter.",
						e.AdapterNumber, e.PortNumber, n.Name, n.Name, n.Name)})
			}
		}
	}
	return out
}

// otherEnds are the ids of the nodes of l other than id that exist.
func (lab *lintLab) otherEnds(l *Link, id string) []string {
	var ids []string
	for _, e := range l.Nodes {
		if e.NodeID != id && lab.graph.nodes[e.NodeID] != nil {
			ids = append(ids, e.NodeID)
		}
	}
	return ids
}

// lintDuplicates finds an IPv4 address that two nodes hold.
func lintDuplicates(lab *lintLab, a *addressed) []LintFinding {
	byAddr := map[netip.Addr][]hostAt{}
	var order []netip.Addr
	for _, h := range a.hosts {
		ip := h.c.addr.Addr()
		if len(byAddr[ip]) == 0 {
			order = append(order, ip)
		}
		if !slices.ContainsFunc(byAddr[ip], func(o hostAt) bool { return o.n.ID == h.n.ID }) {
			byAddr[ip] = append(byAddr[ip], h)
		}
	}
	var out []LintFinding
	for _, ip := range order {
		hs := byAddr[ip]
		if len(hs) < 2 {
			continue
		}
		f := LintFinding{Code: LintDuplicateAddress, Severity: SeverityError}
		var names []string
		for _, h := range hs {
			names = append(names, fmt.Sprintf("%s (%s)", h.n.Name, lab.where(h.n, h.c)))
			f.NodeIDs = append(f.NodeIDs, h.n.ID)
			if id := lab.linkIDAt(h.end.portRef); id != "" {
				f.LinkIDs = append(f.LinkIDs, id)
			}
		}
		f.Message = fmt.Sprintf("%s is configured on %s: hosts that share an address answer ARP for each other, and their traffic goes to one or the other at random. Give each its own address.",
			ip, joinAnd(names))
		out = append(out, f)
	}
	return out
}

// lintGateways finds end hosts whose gateway is outside their subnet.
func lintGateways(lab *lintLab, a *addressed) []LintFinding {
	var out []LintFinding
	for _, n := range lab.nodes {
		if !n.Type.kind().endHost {
			continue
		}
		for _, c := range lab.configs[n.ID] {
			if !c.addr.IsValid() || !c.gateway.IsValid() || c.addr.Masked().Contains(c.gateway) {
				continue
			}
			net := c.addr.Masked()
			msg := fmt.Sprintf("%s's gateway %s is outside its subnet %s (%s): it cannot reach its gateway, so it reaches no other subnet.",
				n.Name, c.gateway, net, lab.where(n, c))
			if c.refused != "" {
				msg += " " + c.refused + "."
			}
			msg += " Give it a gateway in " + net.String()
			if r := a.routerIn(net, endpoint{portRef{n.ID, c.adapter, c.port}, c.vlan}); r != nil {
				msg += fmt.Sprintf(", such as %s's %s", r.n.Name, r.c.addr.Addr())
			}
			msg += ", or change its address to the gateway's subnet."
			f := LintFinding{Code: LintGatewayOffSubnet, Severity: SeverityError, NodeIDs: []string{n.ID}, Message: msg}
			if id := lab.linkIDAt(portRef{n.ID, c.adapter, c.port}); id != "" {
				f.LinkIDs = []string{id}
			}
			out = append(out, f)
		}
	}
	return out
}

// routerIn is an address of a node other than e's in subnet net, on e's
// segment when e has one; nil: none.
func (a *addressed) routerIn(net netip.Prefix, e endpoint) *hostAt {
	seg, ok := a.segs.of[e]
	for i, h := range a.hosts {
		if h.end.node != e.node && h.c.addr.Masked() == net && !h.n.Type.kind().endHost && (!ok || h.seg == seg) {
			return &a.hosts[i]
		}
	}
	return nil
}

// lintShutInterfaces finds router interfaces with an address that their
// startup config shuts down while a link uses their port.
func lintShutInterfaces(lab *lintLab, _ *addressed) []LintFinding {
	var out []LintFinding
	for _, n := range lab.nodes {
		for _, c := range lab.configs[n.ID] {
			if !c.shut || !c.addr.IsValid() || !c.found {
				continue
			}
			at := portRef{n.ID, c.adapter, c.port}
			l := lab.graph.linkAt[at]
			if l == nil {
				continue
			}
			peer := "another node"
			ids := []string{n.ID}
			for _, e := range l.Nodes {
				if o := lab.graph.nodes[e.NodeID]; o != nil && o.ID != n.ID {
					peer = o.Name
					ids = append(ids, o.ID)
				}
			}
			out = append(out, LintFinding{Code: LintShutInterface, Severity: SeverityWarning, NodeIDs: ids[:1], LinkIDs: []string{l.ID},
				Message: fmt.Sprintf("%s's %s (%s) is shut down in its startup config (%s) but linked to %s: nothing crosses it. Remove its \"shutdown\" line, or type \"no shutdown\" on the interface and save with \"write memory\".",
					n.Name, c.iface, c.addr, lab.files[n.ID], peer)})
		}
	}
	return out
}

// lintSubnets finds hosts on one segment in different subnets: each
// address outside the subnet most of its segment's addresses are in.
func lintSubnets(lab *lintLab, a *addressed) []LintFinding {
	bySeg := map[int][]hostAt{}
	var segs []int
	for _, h := range a.hosts {
		if h.seg < 0 {
			continue
		}
		if len(bySeg[h.seg]) == 0 {
			segs = append(segs, h.seg)
		}
		bySeg[h.seg] = append(bySeg[h.seg], h)
	}
	var out []LintFinding
	for _, seg := range segs {
		hs := bySeg[seg]
		count := map[netip.Prefix]int{}
		for _, h := range hs {
			count[h.c.addr.Masked()]++
		}
		if len(count) < 2 {
			continue
		}
		major := hs[0].c.addr.Masked()
		for _, h := range hs {
			if count[h.c.addr.Masked()] > count[major] {
				major = h.c.addr.Masked()
			}
		}
		ref := hs[slices.IndexFunc(hs, func(h hostAt) bool { return h.c.addr.Masked() == major })]
		for _, h := range hs {
			net := h.c.addr.Masked()
			if net == major {
				continue
			}
			var msg string
			if net.Contains(ref.c.addr.Addr()) || major.Contains(h.c.addr.Addr()) {
				msg = fmt.Sprintf("%s (%s) is on the same segment as %s (%s) with another mask: they disagree on which addresses are local, so some of their traffic goes to a gateway or nowhere. Give %s the mask /%d, as %s has (its address is set at %s).",
					h.n.Name, h.c.addr, ref.n.Name, ref.c.addr, h.n.Name, major.Bits(), ref.n.Name, lab.where(h.n, h.c))
			} else {
				msg = fmt.Sprintf("%s (%s) is on the same segment as %s (%s) but in another subnet: they cannot reach each other without a router. Give %s an address in %s (its address is set at %s), or link it to a segment of its own subnet.",
					h.n.Name, h.c.addr, ref.n.Name, ref.c.addr, h.n.Name, major, lab.where(h.n, h.c))
			}
			f := LintFinding{Code: LintSubnetMismatch, Severity: SeverityWarning, NodeIDs: []string{h.n.ID, ref.n.ID}, Message: msg}
			if id := lab.linkIDAt(h.end.portRef); id != "" {
				f.LinkIDs = []string{id}
			}
			out = append(out, f)
		}
	}
	return out
}

// lintVLANSplits finds hosts of one subnet whose cables join them but
// whose switches keep their frames apart: in different VLANs, or across a
// link between switches whose ends do not agree (an access port against a
// trunk, two access ports of different VLANs, trunks of different native
// VLANs). nodedesk's trunks carry every VLAN, so an access VLAN is never
// missing from a trunk: a VLAN is split by such a link or by a port in
// another VLAN. One finding per pair of segments.
func lintVLANSplits(lab *lintLab, a *addressed) []LintFinding {
	type pair struct{ a, b int }
	done := map[pair]bool{}
	var out []LintFinding
	for i, x := range a.hosts {
		for _, y := range a.hosts[i+1:] {
			if x.seg < 0 || y.seg < 0 || x.seg == y.seg || x.n.ID == y.n.ID || x.c.addr.Masked() != y.c.addr.Masked() {
				continue
			}
			// Hosts of one segment share its cables: one pair of
			// segments is one answer.
			k := pair{min(x.seg, y.seg), max(x.seg, y.seg)}
			if done[k] {
				continue
			}
			done[k] = true
			path := lab.graph.cablePath(x.end.portRef, y.end.portRef)
			if path == nil {
				continue
			}
			out = append(out, lab.vlanSplit(a, x, y, path))
		}
	}
	return out
}

// vlanSplit says why hosts x and y, joined by the links of path, are kept
// apart.
func (lab *lintLab) vlanSplit(a *addressed, x, y hostAt, path []*Link) LintFinding {
	f := LintFinding{Code: LintVLANNotOnTrunk, Severity: SeverityError, NodeIDs: []string{x.n.ID, y.n.ID}}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s) and %s (%s) are in one subnet and joined by cables, but the switches keep their frames apart",
		x.n.Name, x.c.addr, y.n.Name, y.c.addr)
	var odd, short []string
	ex, ey := a.segs.entry[x.end], a.segs.entry[y.end]
	vlan := 0 // the VLAN both hosts are in, if they are
	if ex != nil && ey != nil && !ex.dropped && !ey.dropped && ex.vlan == ey.vlan {
		vlan = ex.vlan
	}
	fmt.Fprintf(&b, ": %s's frames %s; %s's %s.", x.n.Name, ex, y.n.Name, ey)
	for _, l := range path {
		if len(l.Nodes) != 2 {
			continue
		}
		n0, n1 := lab.graph.nodes[l.Nodes[0].NodeID], lab.graph.nodes[l.Nodes[1].NodeID]
		if n0 == nil || n1 == nil || n0.Type.kind().forwards != forwardsByVLAN || n1.Type.kind().forwards != forwardsByVLAN {
			continue
		}
		m0, m1 := switchMode(n0, l.Nodes[0].PortNumber), switchMode(n1, l.Nodes[1].PortNumber)
		ends := fmt.Sprintf("%s %s (%s) to %s %s (%s)", n0.Name, portName(n0, 0, l.Nodes[0].PortNumber), m0,
			n1.Name, portName(n1, 0, l.Nodes[1].PortNumber), m1)
		switch {
		case !m0.matches(m1):
			odd = append(odd, ends)
		case vlan != 0 && !(m0.carries(vlan) && m1.carries(vlan)):
			short = append(short, ends)
		default:
			continue
		}
		f.LinkIDs = append(f.LinkIDs, l.ID)
		f.NodeIDs = append(f.NodeIDs, n0.ID, n1.ID)
	}
	if len(odd) > 0 {
		fmt.Fprintf(&b, " The link from %s joins switch ports that do not match.", joinAnd(odd))
	}
	if len(short) > 0 {
		fmt.Fprintf(&b, " The link from %s does not carry VLAN %d.", joinAnd(short), vlan)
	}
	if len(odd)+len(short) == 0 {
		for _, l := range path {
			f.LinkIDs = append(f.LinkIDs, l.ID)
		}
	}
	b.WriteString(" Put both hosts' switch ports in one VLAN, and make each link between switches a dot1q trunk at both ends with the same native VLAN (a trunk carries every VLAN); or give each VLAN its own subnet and a router between them.")
	f.Message = b.String()
	return f
}

// lintDLCIs finds Frame Relay circuits that cannot carry: a switch whose
// mappings give one port:DLCI two circuits (the data plane keeps the
// first), two linked switches that map different DLCIs on the link, and
// a router that names a DLCI its switch's port does not map.
func lintDLCIs(lab *lintLab, _ *addressed) []LintFinding {
	var out []LintFinding
	dlcis := map[portRef][]int{} // the DLCIs each Frame Relay switch port maps
	for _, n := range lab.nodes {
		if n.Type.kind().forwards != forwardsByDLCI {
			continue
		}
		circuits, err := FrameRelayCircuits(n.Properties.Mappings)
		if err != nil {
			out = append(out, LintFinding{Code: LintDLCIAsymmetric, Severity: SeverityError, NodeIDs: []string{n.ID},
				Message: fmt.Sprintf("%s's DLCI mappings disagree: %s. nodedesk keeps the first circuit of each port:DLCI and drops the others. Map each port:DLCI to one other only, the same both ways.",
					n.Name, strings.TrimSuffix(ErrorMessage(err), "."))})
		}
		for _, c := range circuits {
			for _, e := range c {
				p := portRef{n.ID, 0, e.Port}
				dlcis[p] = append(dlcis[p], e.DLCI)
			}
		}
	}
	for _, d := range dlcis {
		slices.Sort(d)
	}
	for _, l := range lab.links {
		if len(l.Nodes) != 2 {
			continue
		}
		a := portRef{l.Nodes[0].NodeID, l.Nodes[0].AdapterNumber, l.Nodes[0].PortNumber}
		b := portRef{l.Nodes[1].NodeID, l.Nodes[1].AdapterNumber, l.Nodes[1].PortNumber}
		na, nb := lab.graph.nodes[a.node], lab.graph.nodes[b.node]
		if na == nil || nb == nil {
			continue
		}
		fa, fb := na.Type.kind().forwards == forwardsByDLCI, nb.Type.kind().forwards == forwardsByDLCI
		switch {
		case fa && fb:
			if !slices.Equal(dlcis[a], dlcis[b]) {
				out = append(out, LintFinding{Code: LintDLCIAsymmetric, Severity: SeverityError, NodeIDs: []string{na.ID, nb.ID}, LinkIDs: []string{l.ID},
					Message: fmt.Sprintf("The link between %s port %d and %s port %d carries DLCIs %s on %s's side but %s on %s's: a circuit whose DLCI the other switch does not map ends there. Map the same DLCIs on both ports.",
						na.Name, a.port, nb.Name, b.port, dlciList(dlcis[a]), na.Name, dlciList(dlcis[b]), nb.Name)})
			}
		case fa != fb:
			router, sw := a, b
			if fa {
				router, sw = b, a
			}
			out = append(out, lab.routerDLCIs(router, sw, dlcis[sw], l)...)
		}
	}
	return out
}

// routerDLCIs finds the DLCIs the configuration of the node at port r
// names on it that the Frame Relay switch port sw, linked by l, does not
// map.
func (lab *lintLab) routerDLCIs(r, sw portRef, mapped []int, l *Link) []LintFinding {
	n, s := lab.graph.nodes[r.node], lab.graph.nodes[sw.node]
	var out []LintFinding
	for _, c := range lab.configs[r.node] {
		if !c.found || c.adapter != r.adapter || c.port != r.port {
			continue
		}
		var missing []int
		for _, d := range c.dlcis {
			if !slices.Contains(mapped, d) && !slices.Contains(missing, d) {
				missing = append(missing, d)
			}
		}
		if len(missing) == 0 {
			continue
		}
		has := "no circuit there"
		if len(mapped) > 0 {
			has = "it maps " + dlciList(mapped)
		}
		out = append(out, LintFinding{Code: LintDLCIAsymmetric, Severity: SeverityError, NodeIDs: []string{n.ID, s.ID}, LinkIDs: []string{l.ID},
			Message: fmt.Sprintf("%s's %s uses DLCI %s (%s), but %s has no circuit on it at port %d (%s): that circuit stays inactive. Map %d:%d in %s, or use one of its DLCIs.",
				n.Name, c.iface, dlciList(missing), lab.where(n, c), s.Name, sw.port, has, sw.port, missing[0], s.Name)})
	}
	return out
}

func dlciList(d []int) string {
	if len(d) == 0 {
		return "none"
	}
	s := make([]string, len(d))
	for i, v := range d {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ", ")
}

// uniq drops repeated strings and empty ones, keeping the first order.
func uniq(s []string) []string {
	var out []string
	for _, v := range s {
		if v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
