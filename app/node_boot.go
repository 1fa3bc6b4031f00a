package app

import (
	"context"
	"runtime"
	"sync"
	"time"
)

// A node is booting from the moment its process runs until its console
// has shown that it booted (decision 0077): its status is "started" all
// along, as GNS3's clients expect, and the controller view says
// "booting": true meanwhile. What "booted" means is the runner's
// knowledge (BootWatcher); a runner that does not watch boots its nodes
// at once. Booting is runtime: kept in memory only, never stored nor in
// history, and gone with the process.

// BootWatcher is a runner that tells when a node it started has booted.
type BootWatcher interface {
	// Booted returns a channel closed once the node's console has shown
	// that it booted (a QEMU guest's first serial output, IOU's "Press
	// RETURN"), or once its process has ended; nil when it runs none.
	Booted(nodeID string) <-chan struct{}
}

// boots is the nodes that are booting, by node id: the channel their
// watch waits on, so that a watch of an older process clears nothing.
type boots struct {
	mu      sync.Mutex
	booting map[string]<-chan struct{}
	// queues are each project's Start all queue (startQueue).
	queues map[string]*startQueue
}

// startQueue is what is left of a Start all: the nodes that wait for
// their turn, ended by a new action on the project.
type startQueue struct {
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex     // orders a start's begin with the end
	starts sync.WaitGroup // the starts under way
}

// begin notes a start of the queue under way, unless it has ended.
func (q *startQueue) begin() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.ctx.Err() != nil {
		return false
	}
	q.starts.Add(1)
	return true
}

// end ends the queue and waits for the starts under way: what a new
// action reads of the nodes then holds them.
func (q *startQueue) end() {
	q.mu.Lock()
	q.cancel()
	q.mu.Unlock()
	q.starts.Wait()
}

// startQueue ends what is left of a project's last Start all (the nodes
// still waiting for their turn) and, for a Start, returns the new one's
// queue; for another action, an ended one.
func (s *Service) startQueue(projectID string, a Action) *startQueue {
	s.boot.mu.Lock()
	old := s.boot.queues[projectID]
	delete(s.boot.queues, projectID)
	q := &startQueue{}
	q.ctx, q.cancel = context.WithCancel(context.Background())
	if a == Start {
		if s.boot.queues == nil {
			s.boot.queues = map[string]*startQueue{}
		}
		s.boot.queues[projectID] = q
	} else {
		q.cancel()
	}
	s.boot.mu.Unlock()
	if old != nil {
		old.end()
	}
	return q
}

// Booting reports whether the node with id runs and has not booted yet.
func (s *Service) Booting(nodeID string) bool {
	s.boot.mu.Lock()
	defer s.boot.mu.Unlock()
	_, ok := s.boot.booting[nodeID]
	return ok
}

// watchBoot notes that the node ref's process, just started by r, is
// booting if r watches its boot and it has not booted yet; a watch then
// clears it once it has and announces the change. It returns the
// channel (nil: booted already).
func (s *Service) watchBoot(r Runner, ref NodeRef) <-chan struct{} {
	bw, ok := r.(BootWatcher)
	if !ok {
		return nil
	}
	ch := bw.Booted(ref.NodeID)
	if ch == nil {
		return nil
	}
	select {
	case <-ch:
		return nil
	default:
	}
	s.boot.mu.Lock()
	if s.boot.booting == nil {
		s.boot.booting = map[string]<-chan struct{}{}
	}
	s.boot.booting[ref.NodeID] = ch
	s.boot.mu.Unlock()
	go func() {
		t := time.NewTimer(bootGiveUp)
		defer t.Stop()
		select {
		case <-ch:
		case <-t.C: // it never showed its prompt: say no more than that it runs
		}
		if s.clearBoot(ref.NodeID, ch) {
			// Under the node's lock, so that a stop under way (whose
			// process's end closes ch too) is recorded first: the node
			// is told booted only while it still runs, never after the
			// news that it stopped.
			unlock := s.lockNode(ref.NodeID)
			defer unlock()
			if n, err := s.FindNode(context.Background(), ref); err == nil && n.Status != Stopped {
				s.publish(EventNodeUpdated, n.ProjectID, n)
			}
		}
	}()
	return ch
}

// bootGiveUp is how long a node may be booting: a guest whose console
// never shows a prompt nodedesk knows is then shown as booted.
const bootGiveUp = 5 * time.Minute

// clearBoot forgets that a node is booting, if ch (nil: any) is still
// what it waits on; it reports whether it was.
func (s *Service) clearBoot(nodeID string, ch <-chan struct{}) bool {
	s.boot.mu.Lock()
	defer s.boot.mu.Unlock()
	cur, ok := s.boot.booting[nodeID]
	if !ok || (ch != nil && cur != ch) {
		return false
	}
	delete(s.boot.booting, nodeID)
	return true
}

// startPace is the rule of how a project's Start all paces the nodes
// that boot (decision 0077): at most startWidth of them boot at once,
// one core each, and the next starts when one of them has booted or
// after bootBound, whichever comes first. Guests that share two cores
// all at once each boot slower than they would in turn, so the last is
// up later than when they are paced (measured in the decision).
var startPace = struct {
	width int
	bound time.Duration
}{width: max(2, runtime.NumCPU()), bound: 60 * time.Second}

// pacesStart reports whether a project-wide action is a Start all that
// startPace paces: nodedesk's own page's or window's. A REST client's
// (GNS3's GUI, a script) starts every node as GNS3 does, and its answer
// says that every node started.
func pacesStart(ctx context.Context, a Action) bool {
	return a == Start && SourceOf(ctx).Origin != OriginAPI
}

// bootWait is the channel closed once the node with id has booted; nil
// when it is not booting.
func (s *Service) bootWait(nodeID string) <-chan struct{} {
	s.boot.mu.Lock()
	defer s.boot.mu.Unlock()
	return s.boot.booting[nodeID]
}

// awaitBoot is what ProjectAction's Start waits on, after a node's start,
// before the next node may take its slot: its boot, or the bound.
func (s *Service) awaitBoot(ctx context.Context, nodeID string) {
	s.boot.mu.Lock()
	ch, ok := s.boot.booting[nodeID]
	s.boot.mu.Unlock()
	if !ok {
		return
	}
	t := time.NewTimer(startPace.bound)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	case <-ctx.Done():
	}
}
