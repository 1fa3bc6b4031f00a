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
// tunnels and before did not: no node owns them for its link ports and
// no program of this machine (another cloud's tunnel included) holds them.
func (s *Service) claimTunnelPorts(tx Tx, before, after *Node) error {
	if after.Type != Cloud {
		return nil
	}
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
		owner, taken, err := tx.UDPOwner(p.LPort)
		if err != nil {
			return err
		}
		if taken {
			return Conflict(portsField(i, "lport"), "Local UDP port %d is a link port of node %s; choose another lport", p.LPort, ownerName(tx, owner))
		}
		if !s.c.PortFree("udp", p.LPort) {
			return Conflict(portsField(i, "lport"), "Local UDP port %d is in use on this machine (another cloud's tunnel or another program); choose another lport", p.LPort)
		}
	}
	return nil
}
