package dataplane

import (
	"net"
	"strconv"

	"nodedesk/app"
)

// NIOs: the UDP tunnels a controller gives the ports of this compute's
// nodes (app.NIO). A NIO is a wire, as a link is, between the node's port
// and a pseudo end of its own (end{WireID, 0, 0}) where a UDP endpoint talks
// to the tunnel's far end: so filters, suspend and capture act on a NIO's
// frames exactly as on a link's. A VPCS keeps its own UDP pair with the
// fabric and the NIO's wire joins it, as GNS3 runs VPCS behind ubridge; a
// host port (a cloud's, a container's veth) is open while a NIO links it,
// as while a link does.
//
// A NIO that nodedesk's own controller made for one of its links (LinkID
// set: a link to a node on a remote compute) holds the port end in the
// link's stead: the link gets no wire of its own, its filters, suspend and
// capture act on the NIO's wire, and its capture is followed by the link
// id.

// bindFor is the address a tunnel's socket binds: this machine's loopback
// host when the far end is on this machine, else every address (the socket
// is connected, so only the far end is heard).
func bindFor(rhost, host string) string {
	if app.IsLoopback(rhost) {
		return host
	}
	return ""
}

// nioFor returns the NIO that holds the port end of link linkID, if any.
// It runs under mu.
func (f *Fabric) nioFor(linkID string) *app.NIO {
	for _, n := range f.nios {
		if n.LinkID == linkID {
			return n
		}
	}
	return nil
}

// putNIO wires a NIO as it now is: its wire (which takes the port's end
// from any wire there before), its UDP endpoint, and its filters and
// capture (or its link's).
func (f *Fabric) putNIO(d *draft, n *app.NIO) {
	id := n.WireID()
	at, ps := end{n.NodeID, n.AdapterNumber, n.PortNumber}, end{id, 0, 0}
	w := d.r().links[id]
	if w == nil {
		t := d.w()
		var unlinked []end
		if we := t.wires[at]; we != nil { // a link's wire gives the port end up
			delete(t.wires, at)
			if fe := t.wires[we.far]; fe != nil && fe.w == we.w {
				delete(t.wires, we.far)
				unlinked = append(unlinked, we.far)
			}
		}
		var fromAt, fromPS *wireEnd
		w, fromAt, fromPS = newWire(at, ps)
		t.links[id] = w
		t.wires[at] = fromAt
		t.wires[ps] = fromPS
		f.syncHostPortsAt(d, append(unlinked, at)...)
	}
	if old := d.r().links[n.LinkID]; n.LinkID != "" && old != w {
		if old != nil {
			old.stopCapture() // the link's capture goes on on the NIO's wire
		}
		d.w().links[n.LinkID] = w
	}
	peer := udpPeer{local: n.LPort, bind: bindFor(n.RHost, f.host), remote: net.JoinHostPort(n.RHost, strconv.Itoa(n.RPort))}
	if u := d.r().udp[ps]; u != nil && u.peer != peer {
		u.close()
		delete(d.w().udp, ps)
	}
	if d.r().udp[ps] == nil {
		u, err := f.openUDP(ps, peer)
		if err != nil {
			f.log.Error("dataplane: a NIO's frames cannot be carried", "node", n.NodeID, "port", n.PortNumber, "lport", n.LPort, "err", err)
		} else {
			d.w().udp[ps] = u
		}
	}
	if f.nios == nil {
		f.nios = map[string]*app.NIO{}
	}
	f.nios[id] = n
	f.setNIOWire(w, n)
}

// setNIOWire gives a NIO's wire its filters and capture: its link's, when
// nodedesk's controller made it for a link the fabric knows, else its own.
func (f *Fabric) setNIOWire(w *wire, n *app.NIO) {
	if l := f.linkRecs[n.LinkID]; n.LinkID != "" && l != nil {
		f.setWire(w, l)
		return
	}
	flt, err := NewFilter(app.ActiveNIOFilters(n))
	if err != nil { // the Service stored them normalized: only a bug gets here
		f.log.Error("dataplane: NIO filters not applied", "nio", n.WireID(), "err", err)
	}
	w.filter.Store(flt)
	want := ""
	if n.Capturing && n.CaptureFilePath != nil {
		want = *n.CaptureFilePath
	}
	f.captureTo(w, n.WireID(), want, n.CaptureDataLinkType)
}

// dropNIO removes a NIO's wire and endpoint; the link it held the port
// for, if the fabric still knows it, gets its own wire back.
func (f *Fabric) dropNIO(d *draft, n *app.NIO) {
	id := n.WireID()
	delete(f.nios, id)
	w := d.r().links[id]
	if w == nil {
		return
	}
	t := d.w()
	if u := t.udp[w.ends[1]]; u != nil {
		u.close()
		delete(t.udp, w.ends[1])
	}
	for _, e := range w.ends {
		if we := t.wires[e]; we != nil && we.w == w {
			delete(t.wires, e)
		}
	}
	delete(t.links, id)
	w.stopCapture()
	if n.LinkID != "" && t.links[n.LinkID] == w {
		delete(t.links, n.LinkID)
		if l := f.linkRecs[n.LinkID]; l != nil {
			f.putLink(d, l) // opens the host ports it links again
		}
	}
	f.syncHostPortsAt(d, w.ends[0])
}

// dropNodeNIOs removes the NIOs of a node being deleted (the store deletes
// their records with it).
func (f *Fabric) dropNodeNIOs(d *draft, nodeID string) {
	for _, n := range f.nios {
		if n.NodeID == nodeID {
			f.dropNIO(d, n)
		}
	}
}

// LoadNIOs wires a project's NIOs (at start-up), as one change, after its
// nodes and links (Load).
func (f *Fabric) LoadNIOs(nios []*app.NIO) {
	f.change(func(d *draft) {
		for _, n := range nios {
			f.putNIO(d, n)
		}
	})
}
