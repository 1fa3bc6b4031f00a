package app

import (
	"context"
	"errors"
	"fmt"
)

// The data plane's ends of the UDP pairs of process-run nodes. A node's
// process binds the local port of each pair; nodedesk's data plane binds
// the remote one. Both are opened by a start, so that a port another
// program holds fails the start (409, naming who holds it) instead of
// leaving a node shown started whose link carries nothing; and an end
// that fails later stops its node and says so (decision 0066).

// LinkEnds is the data plane's side of the UDP pairs. The data plane
// implements it; the Service asks it before a process-run node starts.
type LinkEnds interface {
	// OpenEnds binds the data plane's end of each of n's UDP pairs (as
	// if n ran) and keeps it for n's start. A port it cannot bind fails
	// it with an *EndTaken, and nothing stays open.
	OpenEnds(n *Node) error
	// DropEnds closes the ends OpenEnds kept for a node that its start
	// did not take (a start that failed).
	DropEnds(nodeID string)
}

// EndTaken is the error of an end of a UDP pair that could not be bound,
// the data plane's (OpenEnds) or the process's own (Runner.Start): the
// port and why. The Service names who holds it.
type EndTaken struct {
	Port int
	Err  error
}

func (e *EndTaken) Error() string { return fmt.Sprintf("UDP port %d: %v", e.Port, e.Err) }

// UseLinkEnds makes s open the data plane's ends with e before a node
// starts. Call it before the API serves (the data plane's Attach does).
func (s *Service) UseLinkEnds(e LinkEnds) { s.linkEnds = e }

// openEnds opens n's data plane ends before its process starts; without
// a data plane there is nothing to open. The returned function lets go
// of those the start did not take.
func (s *Service) openEnds(n *Node) (release func(), err error) {
	if s.linkEnds == nil || len(n.UDPPairs()) == 0 {
		return func() {}, nil
	}
	if err := s.linkEnds.OpenEnds(n); err != nil {
		return nil, s.endTaken(n, err)
	}
	return func() { s.linkEnds.DropEnds(n.ID) }, nil
}

// endTaken is err as the caller of a start is told it: an *EndTaken (of
// the data plane's end, or of the process's own, which a Runner returns)
// becomes a conflict that names the node, the port, who holds it and
// what to do; any other error is left as it is.
func (s *Service) endTaken(n *Node, err error) error {
	var taken *EndTaken
	if !errors.As(err, &taken) {
		return err
	}
	return Errorf(ECONFLICT, "UDP port %d of %s's link is held by %s, so %s was not started: its link would carry nothing. Stop that program, or start %s again: it is then given ports nobody holds",
		taken.Port, n.Name, s.udpHolder(taken.Port), n.Name, n.Name)
}

// udpHolder names who holds UDP port on this machine, as the host probe
// finds it ("pid 42 (vpcs)"), or "another program".
func (s *Service) udpHolder(port int) string {
	if s.c.UDPHolder != nil {
		if h := s.c.UDPHolder(port); h != "" {
			return h
		}
	}
	return "another program"
}

// OnEndFailed is what the data plane calls when the end of a running
// node's UDP pair stops working (its socket fails): the node's link
// carries nothing any more, so the node is stopped (its status says so)
// and the project's stream says what happened and what to do.
func (s *Service) OnEndFailed(projectID, nodeID string, port int, detail string) {
	ref := NodeRef{ProjectID: projectID, NodeID: nodeID}
	unlock := s.lockNode(nodeID)
	defer unlock()
	n, err := s.FindNode(context.Background(), ref)
	if err != nil || !n.Active() {
		return // deleted or stopped meanwhile
	}
	if r := s.runner(n.Type); r != nil {
		if err := r.Stop(nodeID); err != nil {
			s.c.Logger.Error("a node whose link failed could not be stopped", "node", n.Name, "err", err)
		}
	}
	if _, err := s.recordStatus(context.Background(), ref, Stopped, nil); err != nil {
		s.c.Logger.Error("a node whose link failed could not be recorded stopped", "node", n.Name, "err", err)
	}
	s.tell(EventLogError, projectID, fmt.Sprintf("%s's link stopped carrying frames: nodedesk's end of it, UDP port %d, failed (%s). %s was stopped so that it does not show running with a dead link; start %s again",
		n.Name, port, detail, n.Name, n.Name))
}
