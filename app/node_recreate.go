package app

import (
	"context"
	"reflect"
)

// A running node of a type RemadeOnChange (Docker) takes changed
// settings as GNS3 gives them to it: it is made again. GNS3 destroys a
// container and creates it with the new settings, then starts it if it
// was running, so its clients (the GNS3 GUI's configuration dialog)
// change the start command, environment, console type or adapters of a
// running container and expect them in effect at once. nodedesk stops the
// node, stores the change and starts it again.

// remadeBy reports whether a change from before to after is one a node
// must be made again for: its name (a container's hostname), console,
// console type, adapters or properties. A move, a label or a symbol is
// not.
func remadeBy(before, after *Node) bool {
	return before.Name != after.Name || before.Console != after.Console || before.ConsoleType != after.ConsoleType ||
		!reflect.DeepEqual(before.CustomAdapters, after.CustomAdapters) ||
		!reflect.DeepEqual(before.Properties, after.Properties)
}

// remakeRunning applies u to read, a started local node of a type
// RemadeOnChange, by stopping the node, storing the change and starting
// it again; done is false (and nothing happened) for any other node or
// change. The node is read again under its lock, since a start or stop
// may have finished meanwhile. A change refused once the node is stopped
// leaves it started again as it was; a start that fails with the new
// settings leaves the node stopped with them, and the error says why.
func (s *Service) remakeRunning(ctx context.Context, read *Node, u NodeUpdate) (n *Node, done bool, err error) {
	if !read.Type.RemadeOnChange() || read.Remote() || read.Status != Started {
		return nil, false, nil
	}
	r := s.runner(read.Type)
	if r == nil {
		return nil, false, nil
	}
	unlock := s.lockNode(read.ID)
	defer unlock()
	ref := NodeRef{ProjectID: read.ProjectID, NodeID: read.ID}
	before, err := s.FindNode(ctx, ref)
	if err != nil || before.Status != Started {
		return nil, false, nil // it changed meanwhile: the plain update rules
	}
	after, err := u.apply(before)
	if err != nil || !remadeBy(before, after) {
		return nil, false, nil // refused or kept running: the plain update says so
	}
	if err := r.Stop(before.ID); err != nil {
		return nil, true, err
	}
	if _, err := s.recordStatus(ctx, ref, Stopped, nil); err != nil {
		return nil, true, err
	}
	changed, uerr := s.updateNode(ctx, before, u)
	started, serr := s.startProcess(ctx, r, ref)
	if uerr != nil {
		return nil, true, uerr
	}
	if serr != nil {
		return changed, true, serr
	}
	return started, true, nil
}
