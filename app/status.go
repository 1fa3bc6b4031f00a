package app

import "context"

// Action is a lifecycle request for a node.
type Action string

// The lifecycle actions of the GNS3 API.
const (
	Start   Action = "start"
	Stop    Action = "stop"
	Suspend Action = "suspend"
	Reload  Action = "reload"
)

// Actions lists the lifecycle actions.
var Actions = []Action{Start, Stop, Suspend, Reload}

// nextStatus is the one place status transitions are decided.
//
// Nodes that run as a process (VPCS and the generic emulated types) go
// stopped -> started on start, started -> suspended on suspend (a stopped
// node stays stopped), anything -> stopped on stop, and come back started
// from a reload, as from a start. Switches, hubs, Frame Relay switches,
// clouds and NATs are always running: every action leaves them started.
func (t NodeType) nextStatus(from Status, a Action) Status {
	if !t.ProcessBound() {
		return Started
	}
	switch a {
	case Start, Reload:
		return Started
	case Stop:
		return Stopped
	case Suspend:
		if from == Started {
			return Suspended
		}
	}
	return from
}

// NodeAction starts, stops, suspends or reloads one node and returns it
// with its new status. Codes: EINVALID, ENOTFOUND.
func (s *Service) NodeAction(ctx context.Context, ref NodeRef, a Action) (*Node, error) {
	var n *Node
	err := s.update(func(tx Tx, emit emitFunc) (err error) {
		if n, err = findNode(tx, ref); err != nil {
			return err
		}
		before := n.Status
		if n, err = setStatus(tx, emit, n, a); err == nil && n.Status == before {
			return errUnchanged
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return n, nil
}

// ProjectAction applies a lifecycle action to every node of a project.
// Codes: ENOTFOUND.
func (s *Service) ProjectAction(ctx context.Context, projectID string, a Action) error {
	return s.update(func(tx Tx, emit emitFunc) error {
		p, err := findProject(tx, projectID)
		if err != nil {
			return err
		}
		ns, err := tx.Nodes(p.ID)
		if err != nil {
			return err
		}
		changed := false
		for _, n := range ns {
			after, err := setStatus(tx, emit, n, a)
			if err != nil {
				return err
			}
			changed = changed || after.Status != n.Status
		}
		if !changed {
			return errUnchanged
		}
		return nil
	})
}

// setStatus applies a to n inside tx, storing and announcing a change.
func setStatus(tx Tx, emit emitFunc, n *Node, a Action) (*Node, error) {
	next := n.Type.nextStatus(n.Status, a)
	if next == n.Status {
		return n, nil
	}
	c := *n
	c.Status = next
	emit("node.updated", c.ProjectID, &c)
	return &c, tx.PutNode(&c)
}
