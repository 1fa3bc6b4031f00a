package dataplane

import (
	"errors"
	"fmt"

	"nodedesk/app"
)

// The ends of process-run nodes' UDP pairs (app.LinkEnds): opened before
// the node's process starts, so that a port another program holds fails
// the start; and, once carried, an end whose socket fails is told to the
// Service, which stops the node and says so (decision 0066).

var _ app.LinkEnds = (*Fabric)(nil)

// OpenEnds binds the data plane's end of each of n's UDP pairs, as if n
// ran, and keeps them until putNode takes them (when n is recorded
// started) or DropEnds closes them. An end already carried or kept is
// left as it is.
func (f *Fabric) OpenEnds(n *app.Node) error {
	c := *n
	c.Status = app.Started
	want := udpEndpoints(&c, f.host)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shut {
		return app.Errorf(app.ECONFLICT, "nodedesk is shutting down: %s was not started", n.Name)
	}
	if f.kept == nil {
		f.kept = map[end]*udpPort{}
	}
	t := f.topo.Load()
	var opened []end
	for at, p := range want {
		if p.bind == netioBind {
			continue // IOU's bridge: not a UDP pair
		}
		if u := t.udp[at]; u != nil && u.peer == p {
			continue
		}
		if u := f.kept[at]; u != nil && u.peer == p {
			continue
		}
		u, err := f.openUDP(at, p)
		if err != nil {
			for _, o := range opened {
				f.kept[o].close()
				delete(f.kept, o)
			}
			if app.ErrorCode(err) == app.ECONFLICT { // the bind failed
				return &app.EndTaken{Port: p.local, Err: err}
			}
			return err
		}
		f.kept[at] = u
		opened = append(opened, at)
	}
	return nil
}

// DropEnds closes the ends OpenEnds kept for node nodeID that no start
// took.
func (f *Fabric) DropEnds(nodeID string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for at, u := range f.kept {
		if at.node == nodeID {
			u.close()
			delete(f.kept, at)
		}
	}
}

// takeKept hands putNode the end OpenEnds kept for at, if it has the
// peer p; one kept with another peer is closed. It runs under mu.
func (f *Fabric) takeKept(at end, p udpPeer) *udpPort {
	u := f.kept[at]
	if u == nil {
		return nil
	}
	delete(f.kept, at)
	if u.peer != p {
		u.close()
		return nil
	}
	return u
}

// endFailed is told, from a reader or a writer of u (the frame path: it
// neither waits nor locks), that u's socket failed for good. The first
// time, the Service is told in the background: it stops the node, whose
// link carries nothing any more, and says so.
func (f *Fabric) endFailed(u *udpPort, err error) {
	if u.bridge != nil || !u.failed.CompareAndSwap(false, true) {
		return // an IOU bridge says so itself; a failure is told once
	}
	f.log.Error("dataplane: a port's frames cannot be carried: its socket failed", "node", u.at.node, "port", u.peer.local, "err", err)
	go func() {
		f.mu.Lock()
		cn, ok := f.carriedNodes[u.at.node]
		svc := f.svc
		f.mu.Unlock()
		if ok && svc != nil {
			svc.OnEndFailed(cn.project, u.at.node, u.peer.local, err.Error())
		}
	}()
}

// errBroken is the failure BreakEnds gives the ends it breaks.
var errBroken = errors.New("its socket was broken on purpose (BreakEnds)")

// BreakEnds, for tests, makes the carried ends of node nodeID fail as a
// socket that breaks under nodedesk would: each is closed and its
// failure told, through the path a real one takes. It returns the ports
// it broke.
func (f *Fabric) BreakEnds(nodeID string) ([]int, error) {
	f.mu.Lock()
	var broken []*udpPort
	for at, u := range f.topo.Load().udp {
		if at.node == nodeID && u.bridge == nil {
			broken = append(broken, u)
		}
	}
	f.mu.Unlock()
	if len(broken) == 0 {
		return nil, fmt.Errorf("node %s has no UDP end carried", nodeID)
	}
	var ports []int
	for _, u := range broken {
		f.change(func(d *draft) {
			if d.r().udp[u.at] == u {
				u.close()
				delete(d.w().udp, u.at)
			}
		})
		f.endFailed(u, errBroken)
		ports = append(ports, u.peer.local)
	}
	return ports, nil
}
