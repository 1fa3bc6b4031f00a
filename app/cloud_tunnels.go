package app

// A cloud's UDP tunnels (ports_mapping entries of type udp): nodedesk binds
// each one's lport on this machine, so an lport is a host port like a
// console port, and the same rules hold: two tunnels never share one, and
// a port that another node or program holds is refused when it is given,
// not discovered when frames fail to flow.

// checkTunnelPorts refuses a cloud's ports in which two tunnels share an
// lport.
func checkTunnelPorts(ports []CloudPort) error {
	seen := map[int]bool{}
	for i, p := range ports {
		if p.Type != "udp" {
			continue
		}
		if seen[p.LPort] {
			return Invalid(portsField(i, "lport"), "Local UDP port %d is used by two tunnels of this cloud; give each its own", p.LPort)
		}
		seen[p.LPort] = true
	}
	return nil
}

// claimTunnelPorts checks, inside tx, the lports that after gives its
// tunnels and before did not: no node owns them for its link ports and,
// while its project is open, no program of this machine (another cloud's
// tunnel included) holds them.
func (s *Service) claimTunnelPorts(tx Tx, before, after *Node) error {
	if after.Remote() {
		return nil // a remote cloud's tunnels are its compute's ports
	}
	i, port, owner, err := s.takenTunnelPort(tx, before, after)
	switch {
	case err != nil || i < 0:
		return err
	case owner != nil:
		return Conflict(portsField(i, "lport"), "Local UDP port %d is a link port of node %s; choose another lport", port, ownerName(tx, *owner))
	}
	return Conflict(portsField(i, "lport"), "Local UDP port %d is in use on this machine (another cloud's tunnel or another program); choose another lport", port)
}

// takenTunnelPort returns the first tunnel of after (its index in the
// cloud's ports, and its lport) whose lport before did not have and that
// is taken: by a node's link port (owner), or by a program of this machine
// (owner nil); index -1 when there is none.
func (s *Service) takenTunnelPort(tx Tx, before, after *Node) (index, port int, owner *NodeKey, err error) {
	if !after.Type.UsesCloudPorts() {
		return -1, 0, nil, nil
	}
	// A closed project binds nothing (the project a GNS3 import makes is
	// one), so its tunnels are not checked against this machine's ports:
	// GNS3's compute reserves a tunnel's port only when the project opens
	// and makes its cloud (compute/project.py, reserve_udp_port).
	p, err := tx.Project(after.ProjectID)
	if err != nil {
		return -1, 0, nil, err
	}
	probe := p == nil || p.Status != ProjectClosed
	had := map[int]bool{}
	if before != nil {
		for _, p := range before.Properties.CloudPorts {
			if p.Type == "udp" {
				had[p.LPort] = true
			}
		}
	}
	for i, p := range after.Properties.CloudPorts {
		if p.Type != "udp" || had[p.LPort] {
			continue
		}
		o, taken, err := tx.UDPOwner(p.LPort)
		switch {
		case err != nil:
			return -1, 0, nil, err
		case taken && o.NodeID != "":
			return i, p.LPort, &o, nil
		case taken: // reserved by a project (ports/udp)
			return i, p.LPort, nil, nil
		case probe && !s.c.PortFree("udp", p.LPort):
			return i, p.LPort, nil, nil
		}
	}
	return -1, 0, nil, nil
}
