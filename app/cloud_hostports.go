package app

// A cloud's host ports (ports_mapping entries of type ethernet and tap)
// carry the lab's frames to a host interface or a TAP device. That takes
// privileges this process may not have (CAP_NET_RAW, CAP_NET_ADMIN) and an
// interface that exists, so a link to such a port is checked before it is
// written: a port the data plane could not open is refused with the reason
// (and the command that grants the privileges), rather than stored and
// left dead.

// HostPorts checks whether this process can open a cloud's host port. The
// data plane implements it (it is what opens them); the Service asks it
// before the write that links such a port.
type HostPorts interface {
	// CheckHostPort returns nil when the data plane can open p (of type
	// ethernet or tap) now, else an ECONFLICT error saying why: the
	// privilege it lacks and the command that grants it, or the host
	// interface that does not exist.
	CheckHostPort(p CloudPort) error
}

// IsHostPort reports whether a cloud port is a host port (ethernet or tap)
// rather than a UDP tunnel.
func IsHostPort(p CloudPort) bool { return p.Type == "ethernet" || p.Type == "tap" }

// UseHostPorts makes s check cloud host ports with h before it links them.
// Call it before the API serves (the data plane's Attach does).
func (s *Service) UseHostPorts(h HostPorts) { s.hostPorts = h }

// checkLinkHostPorts checks, before the write that creates a link, that the
// data plane can open the cloud host ports the link would join; without a
// data plane there is nothing to open and nothing to check. A missing
// node or port is left to the write, which refuses it.
func (s *Service) checkLinkHostPorts(projectID string, u LinkUpdate) error {
	if s.hostPorts == nil || !u.Nodes.has() {
		return nil
	}
	var check []CloudPort
	err := s.view(func(tx Tx) error {
		for _, e := range u.Nodes.Value {
			n, err := findNode(tx, NodeRef{ProjectID: projectID, NodeID: e.NodeID})
			if err != nil || !n.Type.UsesCloudPorts() || e.AdapterNumber != 0 {
				continue
			}
			if e.PortNumber >= 0 && e.PortNumber < len(n.Properties.CloudPorts) {
				if p := n.Properties.CloudPorts[e.PortNumber]; IsHostPort(p) {
					check = append(check, p)
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.checkHostPorts(check)
}

// checkLinkedHostPorts refuses, inside tx, an edit of a cloud that turns a
// linked port into a host port or changes a linked host port: the check
// that the data plane can open it runs when the port is linked, so such a
// port is changed by deleting its link first (GNS3 refuses any change to
// a linked cloud).
func checkLinkedHostPorts(tx Tx, before, after *Node) error {
	if !after.Type.UsesCloudPorts() {
		return nil
	}
	links, err := tx.NodeLinks(after.ProjectID, after.ID)
	if err != nil {
		return err
	}
	for _, l := range links {
		for _, e := range l.Nodes {
			i := e.PortNumber
			if e.NodeID != after.ID || i < 0 || i >= len(after.Properties.CloudPorts) {
				continue
			}
			p := after.Properties.CloudPorts[i]
			if !IsHostPort(p) || (i < len(before.Properties.CloudPorts) && sameHostPort(before.Properties.CloudPorts[i], p)) {
				continue
			}
			return Conflict(portsField(i, "type"), "Cloud port %s of %s is linked; delete link %s before making it a host interface or TAP port", p.Name, after.Name, l.ID)
		}
	}
	return nil
}

// A project file names its author's host interfaces. Importing or loading
// one must not put this machine's interfaces into a lab unasked, so the
// host ports of a cloud made from a file are unconfirmed (they carry
// nothing) until this machine's user names them in an update of the
// cloud's ports_mapping (docs/decisions/0040).

// checkConfirmedHostPorts checks, before the write that confirms them,
// that the data plane can open the linked host ports an update of a
// cloud's ports_mapping confirms (names as they are): agreeing to a
// linked port from a file is checked as linking a port chosen here is.
// n is the cloud as read before the write; a missing port is left to it.
func (s *Service) checkConfirmedHostPorts(n *Node, u NodeUpdate) error {
	cu, ok := u.Properties.(*CloudUpdate)
	if s.hostPorts == nil || !ok || !cu.PortsMapping.Set || !n.Type.UsesCloudPorts() {
		return nil
	}
	var check []CloudPort
	err := s.view(func(tx Tx) error {
		links, err := tx.NodeLinks(n.ProjectID, n.ID)
		if err != nil {
			return err
		}
		for _, l := range links {
			for _, e := range l.Nodes {
				i := e.PortNumber
				if e.NodeID != n.ID || i < 0 || i >= len(n.Properties.CloudPorts) || i >= len(cu.PortsMapping.Value) {
					continue
				}
				p, named := n.Properties.CloudPorts[i], cu.PortsMapping.Value[i]
				named.PortNumber = i // numbered by position, as apply numbers them
				if p.Unconfirmed && IsHostPort(p) && sameHostPort(p, named) {
					check = append(check, p)
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.checkHostPorts(check)
}

// markFilePorts marks the host ports of n, a node made from a project
// file, unconfirmed. It reports whether it marked any.
func markFilePorts(n *Node) bool {
	if !n.Type.UsesCloudPorts() {
		return false
	}
	marked := false
	for i, p := range n.Properties.CloudPorts {
		if IsHostPort(p) {
			n.Properties.CloudPorts[i].Unconfirmed = true
			marked = true
		}
	}
	return marked
}

// WaitingPorts names the ports of n that carry nothing until this
// machine's user confirms them: host ports that came from a project file.
// It is nil when there are none.
func (n *Node) WaitingPorts() []string {
	var names []string
	if n.Type.UsesCloudPorts() {
		for _, p := range n.Properties.CloudPorts {
			if p.Unconfirmed && IsHostPort(p) {
				names = append(names, p.Name)
			}
		}
	}
	return names
}

// cloudPortsView is a cloud's ports as its views and files show them:
// without the confirmation mark, which is this machine's, not GNS3's.
func cloudPortsView(ports []CloudPort) []CloudPort {
	v := make([]CloudPort, len(ports))
	for i, p := range ports {
		p.Unconfirmed = false
		v[i] = p
	}
	return v
}

// sameHostPort reports whether a and b are the same port but for the
// confirmation mark: confirming a linked port is not changing it.
func sameHostPort(a, b CloudPort) bool {
	a.Unconfirmed, b.Unconfirmed = false, false
	return a == b
}

// checkHostPorts asks the data plane whether it can open each of ports
// now; the first it cannot is the answer.
func (s *Service) checkHostPorts(ports []CloudPort) error {
	for _, p := range ports {
		if err := s.hostPorts.CheckHostPort(p); err != nil {
			return err
		}
	}
	return nil
}
