package app

import "context"

// Idle-PC of the routers that spin a CPU core without one (Dynamips):
// the Service checks the node and its state, the runner that runs it
// finds the values (app/dynamips).

// IdlePCFinder is a Runner that finds idle-PC values of its running
// nodes.
type IdlePCFinder interface {
	// IdlePCProposals returns the idle-PC proposals of a running node.
	IdlePCProposals(nodeID string) ([]string, error)
	// AutoIdlePC finds an idle-PC value that brings the node's CPU use
	// down, and leaves the node running with it; when it fails, the node
	// runs again with the idle PC it had.
	AutoIdlePC(nodeID string) (string, error)
}

// IdlePCProposals returns the idle-PC proposals of a running router, as
// GNS3's idlepc_proposals does. Codes: ENOTFOUND, EINVALID (a node
// without idle PC), ECONFLICT (not running, or Dynamips failed).
func (s *Service) IdlePCProposals(ctx context.Context, ref NodeRef) ([]string, error) {
	f, n, err := s.idlePCFinder(ctx, ref)
	if err != nil {
		return nil, err
	}
	unlock := s.lockNode(n.ID)
	defer unlock()
	return f.IdlePCProposals(n.ID)
}

// AutoIdlePC finds an idle-PC value for a running router, as GNS3's
// auto_idlepc does, and keeps it as the router's idlepc. Whatever
// happens, the router runs afterwards with the idle PC its node keeps:
// the value found, or on any failure the one it had. Codes: those of
// IdlePCProposals.
func (s *Service) AutoIdlePC(ctx context.Context, ref NodeRef) (string, error) {
	f, n, err := s.idlePCFinder(ctx, ref)
	if err != nil {
		return "", err
	}
	unlock := s.lockNode(n.ID)
	v, err := f.AutoIdlePC(n.ID)
	unlock()
	if err != nil {
		return "", err
	}
	raw, _ := DecodeProperties(n.Type, []byte(`{"idlepc":"`+v+`"}`))
	if _, err := s.UpdateNode(ctx, ref, NodeUpdate{Properties: raw}); err != nil {
		// The router runs with v, the node keeps its former value: the
		// router gets the node's back, so that both agree.
		if kept, ferr := s.FindNode(ctx, ref); ferr == nil {
			s.tune(kept)
		}
		return "", err
	}
	return v, nil
}

// idlePCFinder finds a running node and the runner that finds its idle PC.
func (s *Service) idlePCFinder(ctx context.Context, ref NodeRef) (IdlePCFinder, *Node, error) {
	n, err := s.FindNode(ctx, ref)
	if err != nil {
		return nil, nil, err
	}
	f, ok := s.runner(n.Type).(IdlePCFinder)
	if !ok || n.Remote() {
		return nil, nil, Errorf(EINVALID, "%s is a %s node: only routers running here have an idle PC", n.Name, n.Type)
	}
	if n.Status != Started {
		return nil, nil, Errorf(ECONFLICT, "%s is %s: start it and let IOS boot, then find its idle PC", n.Name, n.Status)
	}
	return f, n, nil
}
