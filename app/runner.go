package app

import (
	"context"
	"fmt"
	"hash/fnv"
	"sync"
)

// Nodes that run as processes. A Runner (package app/vpcs for VPCS) starts
// and supervises them; the Service decides when, records their status and
// gives each node the resources it needs: a MAC offset unique in its
// project and a UDP port pair unique on this machine, stored so that they
// stay the same from one start to the next.

// Runner runs the nodes of the types it handles as real processes. Its
// errors are *Error values whose messages say what to do.
type Runner interface {
	// Runs reports whether the runner handles nodes of type t.
	Runs(t NodeType) bool
	// Start starts a node and returns once it is up, with the command
	// line it ran.
	Start(p Process) (commandLine string, err error)
	// Stop ends a node's process, politely then by force.
	Stop(nodeID string) error
	// Suspend pauses a node's process; Resume continues it.
	Suspend(nodeID string) error
	Resume(nodeID string) error
}

// Process is what a Runner needs to start one node.
type Process struct {
	ProjectID, NodeID, Name string
	Dir                     string  // working folder
	Console                 int     // TCP port of the telnet console
	StartupScript           *string // nil: none
	MACOffset               int     // 0–254, unique in the project
	UDPLocal, UDPRemote     int     // the port pair of its link
}

// maxMACOffset bounds MAC offsets: VPCS varies one byte of its address.
const maxMACOffset = 254

// OnProcessExit is what a Runner calls when a process ends by itself: the
// node is recorded as stopped and the change published.
func (s *Service) OnProcessExit(projectID, nodeID, detail string) {
	unlock := s.lockNode(nodeID)
	defer unlock()
	n, err := s.recordStatus(context.Background(), NodeRef{ProjectID: projectID, NodeID: nodeID}, Stopped, nil)
	if err == nil && n != nil && s.c.Events != nil { // a GNS3 controller tells its user, as GNS3's VPCS does
		s.c.Events.Publish(Event{Action: EventLogError, ProjectID: projectID,
			Payload: &LogMessage{Message: fmt.Sprintf("%s has stopped by itself: %s", n.Name, detail)}})
	}
}

// claimProcessResources gives n a MAC offset and a UDP port pair if it has
// none yet, inside tx. A pair has two ports no node owns and no other
// program of this machine holds.
func (s *Service) claimProcessResources(tx Tx, n *Node) error {
	if n.Properties.MACOffset == nil {
		used := map[int]bool{}
		nodes, err := tx.Nodes(n.ProjectID)
		if err != nil {
			return err
		}
		for _, o := range nodes {
			if o.ID != n.ID && o.Properties.MACOffset != nil {
				used[*o.Properties.MACOffset] = true
			}
		}
		// The search starts at a place the node's id gives, so that VPCS
		// nodes of one lab on two computes (each numbering its own) rarely
		// share a MAC address.
		h := fnv.New32a()
		h.Write([]byte(n.ID))
		start := int(h.Sum32() % (maxMACOffset + 1))
		for i := 0; i <= maxMACOffset && n.Properties.MACOffset == nil; i++ {
			if m := (start + i) % (maxMACOffset + 1); !used[m] {
				n.Properties.MACOffset = ptr(m)
			}
		}
		if n.Properties.MACOffset == nil {
			return Errorf(ECONFLICT, "All %d MAC addresses of this project are in use; a project can run at most that many VPCS nodes", maxMACOffset+1)
		}
	}
	if len(n.UDPPorts) != 2 {
		r := s.c.UDPPorts
		for p := r.From; p+1 <= r.To; p += 2 {
			a, err := s.udpPortFree(tx, p)
			if err != nil {
				return err
			}
			b, err := s.udpPortFree(tx, p+1)
			if err != nil {
				return err
			}
			if a && b {
				n.UDPPorts = []int{p, p + 1}
				return nil
			}
		}
		return Errorf(ECONFLICT, "No UDP port pair is free in %d–%d; delete nodes you no longer need", r.From, r.To)
	}
	return nil
}

// lockNode serialises the lifecycle calls of one node: a start and a stop
// of the same node never overlap.
func (s *Service) lockNode(nodeID string) (unlock func()) {
	m, _ := s.nodeLocks.LoadOrStore(nodeID, new(sync.Mutex))
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// ReconcileStatuses records as stopped every process-run node that a
// previous nodedesk left started or suspended (it ended without stopping
// them, e.g. it crashed): at start-up none of them runs.
func (s *Service) ReconcileStatuses(ctx context.Context) error {
	return s.update(ctx, func(tx Tx, emit emitFunc) error {
		active, err := tx.ActiveNodes()
		if err != nil {
			return err
		}
		changed := false
		for _, k := range active {
			n, err := tx.Node(k.ProjectID, k.NodeID)
			if err != nil || n == nil || s.runner(n.Type) == nil || n.Remote() {
				continue // a remote node runs on its compute
			}
			c := *n
			c.Status = Stopped
			emit(EventNodeUpdated, c.ProjectID, &c)
			if err := tx.PutNode(&c); err != nil {
				return err
			}
			changed = true
		}
		if !changed {
			return errUnchanged
		}
		return nil
	})
}

// StopProcesses stops every running process-run node and records it as
// stopped: what quitting nodedesk does.
func (s *Service) StopProcesses(ctx context.Context) error {
	var active []NodeKey
	if err := s.view(func(tx Tx) (err error) {
		active, err = tx.ActiveNodes()
		return err
	}); err != nil {
		return err
	}
	var first error
	for _, k := range active {
		if n, err := s.FindNode(ctx, NodeRef{ProjectID: k.ProjectID, NodeID: k.NodeID}); err == nil && n.Remote() {
			continue // its compute keeps running it
		}
		if _, err := s.NodeAction(ctx, NodeRef{ProjectID: k.ProjectID, NodeID: k.NodeID}, Stop); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// runner is the Runner of type t's nodes; nil when nodedesk has none.
func (s *Service) runner(t NodeType) Runner {
	for _, r := range s.c.Runners {
		if r.Runs(t) {
			return r
		}
	}
	return nil
}
