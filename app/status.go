package app

import (
	"cmp"
	"context"
)

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
// with its new status. For a node a Runner handles (VPCS), the process is
// started or stopped first and the status records what happened; for the
// other types the status alone changes. Codes: EINVALID, ENOTFOUND,
// ECONFLICT (the process could not start: console port taken, simulator
// missing).
func (s *Service) NodeAction(ctx context.Context, ref NodeRef, a Action) (*Node, error) {
	n, err := s.FindNode(ctx, ref)
	if err != nil {
		return nil, err
	}
	unlock := s.lockNode(n.ID)
	defer unlock()
	if n, err = s.FindNode(ctx, ref); err != nil { // as it is now we hold the lock
		return nil, err
	}
	next := n.Type.nextStatus(n.Status, a)
	if !s.runs(n.Type) {
		return s.recordStatus(ref, next, nil)
	}
	r := s.c.Runner
	switch {
	case a == Suspend && n.Status == Started:
		err = r.Suspend(n.ID)
	case a == Start && n.Status == Suspended:
		err = r.Resume(n.ID)
	case (a == Stop || a == Reload) && n.Status != Stopped:
		if err = r.Stop(n.ID); err == nil && a == Reload {
			if n, err = s.recordStatus(ref, Stopped, nil); err == nil {
				return s.startProcess(ref)
			}
		}
	case (a == Start || a == Reload) && n.Status == Stopped:
		return s.startProcess(ref)
	}
	if err != nil {
		return nil, err
	}
	return s.recordStatus(ref, next, nil)
}

// startProcess starts a stopped node's process (its resources claimed and
// stored first) and records it started with the command line it ran.
func (s *Service) startProcess(ref NodeRef) (*Node, error) {
	var n *Node
	err := s.update(func(tx Tx, emit emitFunc) (err error) {
		if n, err = findNode(tx, ref); err != nil {
			return err
		}
		before := n.Properties.MACOffset != nil && len(n.UDPPorts) == 2
		if err := claimProcessResources(tx, n); err != nil || before {
			return cmp.Or(err, errUnchanged)
		}
		return tx.PutNode(n) // nothing a client sees changed: no event
	})
	if err != nil {
		return nil, err
	}
	cmdline, err := s.c.Runner.Start(Process{
		ProjectID: n.ProjectID, NodeID: n.ID, Name: n.Name, Dir: *s.NodeDirectory(n), Console: n.Console,
		StartupScript: n.Properties.StartupScript, MACOffset: *n.Properties.MACOffset,
		UDPLocal: n.UDPPorts[0], UDPRemote: n.UDPPorts[1],
	})
	if err != nil {
		return nil, err
	}
	return s.recordStatus(ref, Started, &cmdline)
}

// recordStatus stores a node's status (and command line, if given) and
// publishes the change.
func (s *Service) recordStatus(ref NodeRef, st Status, commandLine *string) (*Node, error) {
	var n *Node
	err := s.update(func(tx Tx, emit emitFunc) (err error) {
		if n, err = findNode(tx, ref); err != nil {
			return err
		}
		if n.Status == st && (commandLine == nil || (n.CommandLine != nil && *n.CommandLine == *commandLine)) {
			return errUnchanged
		}
		c := *n
		c.Status = st
		if commandLine != nil {
			c.CommandLine = commandLine
		}
		n = &c
		emit("node.updated", c.ProjectID, &c)
		return tx.PutNode(&c)
	})
	return n, err
}

// ProjectAction applies a lifecycle action to every node of a project. All
// nodes are tried; the first error, if any, is returned. Codes: ENOTFOUND,
// and those of NodeAction.
func (s *Service) ProjectAction(ctx context.Context, projectID string, a Action) error {
	nodes, err := s.FindNodes(ctx, projectID)
	if err != nil {
		return err
	}
	var first error
	for _, n := range nodes {
		if n.Type.nextStatus(n.Status, a) == n.Status && !(a == Reload && n.Type.ProcessBound()) {
			continue
		}
		if _, err := s.NodeAction(ctx, NodeRef{ProjectID: n.ProjectID, NodeID: n.ID}, a); err != nil && first == nil {
			first = err
		}
	}
	return first
}
