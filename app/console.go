package app

import "context"

// Console ports. Every node that has a console owns one TCP port of this
// machine, unique across all projects. A new node gets the lowest free port
// of ConsolePortMin–ConsolePortMax; a client may ask for any other
// unprivileged port. The port is stored, so it never moves by itself.

// The range new console ports are allocated from.
const (
	ConsolePortMin = 5000
	ConsolePortMax = 10000
)

// checkConsolePort checks a console port a client asked for.
func checkConsolePort(port int) error {
	if port < 1024 || port > 65535 {
		return Invalid("console", "Console port %d cannot be used: choose a port from 1024 to 65535 (new nodes get one from %d–%d)",
			port, ConsolePortMin, ConsolePortMax)
	}
	return nil
}

// NodeKey identifies a node across projects.
type NodeKey struct {
	ProjectID string
	NodeID    string
}

// claimConsole makes sure n owns its console port, inside tx: a port another
// node owns is a conflict that names that node; a node whose console type
// needs a port and has none gets the lowest free one.
func claimConsole(tx Tx, n *Node) error {
	if n.ConsoleType == ConsoleNone {
		n.Console = 0
		return nil
	}
	if n.Console == 0 {
		port, err := freeConsolePort(tx)
		if err != nil {
			return err
		}
		n.Console = port
		return nil
	}
	owner, ok, err := tx.ConsoleOwner(n.Console)
	if err != nil || !ok || owner == (NodeKey{n.ProjectID, n.ID}) {
		return err
	}
	name, where := owner.NodeID, ""
	if o, err := tx.Node(owner.ProjectID, owner.NodeID); err == nil && o != nil {
		name = o.Name
	}
	if owner.ProjectID != n.ProjectID {
		where = " of another project"
		if p, err := tx.Project(owner.ProjectID); err == nil && p != nil {
			where = " of project " + p.Name
		}
	}
	return Conflict("console", "Console port %d is already used by node %s%s; choose another port or leave console out",
		n.Console, name, where)
}

// freeConsolePort returns the lowest console port of the range no node owns.
func freeConsolePort(tx Tx) (int, error) {
	for p := ConsolePortMin; p <= ConsolePortMax; p++ {
		_, ok, err := tx.ConsoleOwner(p)
		if err != nil {
			return 0, err
		}
		if !ok {
			return p, nil
		}
	}
	return 0, Errorf(ECONFLICT, "No console port is free in %d–%d; delete nodes you no longer need or give this node a port outside the range",
		ConsolePortMin, ConsolePortMax)
}

// ConsolePorts lists the console ports nodes own, ascending.
func (s *Service) ConsolePorts(ctx context.Context) ([]int, error) {
	var ports []int
	err := s.view(func(tx Tx) (err error) {
		ports, err = tx.ConsolePorts()
		return err
	})
	return ports, err
}
