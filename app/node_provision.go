package app

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// What a Provisioner's nodes own from their creation (Docker's container,
// as GNS3 2.2.59 makes it with the node) follows the node, whatever made
// or removed it (a client, an undo, an import, a snapshot's restore): each
// committed write's events are looked at once (provisionAfter), and a
// local node of such a type that was made or changed is provisioned in the
// background, one that was deleted released. A project that opens has its
// nodes provisioned, one that closes or is deleted has them released
// before it is answered. nodedesk's start provisions the open projects'
// nodes again (their containers were removed by the runner's Open).
//
// A node is made at once even when its container cannot be (an image that
// must be pulled, or cannot be): GNS3 answers such a create with an
// error, nodedesk makes the node and tells the project's users why its
// container is not there; its start tries again and says so too.

// provisionWait bounds one provision: a pull of the image, within the
// runner's own bound, and the container's making.
const provisionWait = 3 * time.Minute

// provisions is the Service's book of its background provisions.
type provisions struct {
	mu     sync.Mutex
	wg     sync.WaitGroup
	closed bool // StopRunners has begun: no more
	// done holds, by node id, the settings (provisionKey) a node was last
	// provisioned with, so that a move does not ask the runner again.
	done map[string]string
	// told holds, by node id, the last refusal told, so that it is told once.
	told map[string]string
	// pending holds, by node id, a channel closed once the provision
	// begun at the node's creation, or the release begun at its delete,
	// has ended (awaitProvision).
	pending map[string]chan struct{}
}

// awaitWait is how long a node's create waits for its container, so that
// its answer shows container_id as GNS3's does, and its delete for its
// container's removal; a slower one (an image pulled) goes on in the
// background.
const awaitWait = 5 * time.Second

// awaitProvision waits, up to awaitWait, for the provision begun when
// node n was made (or the release begun when it was deleted), and
// returns n as it is then.
func (s *Service) awaitProvision(ctx context.Context, n *Node) *Node {
	s.prov.mu.Lock()
	done, ok := s.prov.pending[n.ID]
	s.prov.mu.Unlock()
	if !ok {
		return n
	}
	select {
	case <-done:
	case <-time.After(awaitWait):
		return n
	}
	if now, err := s.FindNode(ctx, NodeRef{ProjectID: n.ProjectID, NodeID: n.ID}); err == nil {
		return now
	}
	return n
}

// goTracked runs fn in the background as goProvision does, with a
// channel awaitProvision waits on for node nodeID.
func (s *Service) goTracked(nodeID string, fn func()) {
	done := make(chan struct{})
	s.prov.mu.Lock()
	if s.prov.pending == nil {
		s.prov.pending = map[string]chan struct{}{}
	}
	s.prov.pending[nodeID] = done
	s.prov.mu.Unlock()
	ended := func() {
		s.prov.mu.Lock()
		if s.prov.pending[nodeID] == done {
			delete(s.prov.pending, nodeID)
		}
		s.prov.mu.Unlock()
		close(done)
	}
	if !s.goProvision(func() { defer ended(); fn() }) {
		ended()
	}
}

// goProvision runs fn in the background unless the runners are
// stopping; ok says it runs.
func (s *Service) goProvision(fn func()) (ok bool) {
	p := &s.prov
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.wg.Go(fn)
	return true
}

// stopProvisions waits for the background provisions and refuses new ones:
// what StopRunners does first, so that no container is made after.
func (s *Service) stopProvisions() {
	s.prov.mu.Lock()
	s.prov.closed = true
	s.prov.mu.Unlock()
	s.prov.wg.Wait()
}

// provisioner is the Provisioner of a local node n, if its runner is one.
func (s *Service) provisioner(n *Node) (Provisioner, bool) {
	if n.Remote() {
		return nil, false
	}
	pv, ok := s.runner(n.Type).(Provisioner)
	return pv, ok
}

// provisionAfter looks at the events of a committed write: a node made or
// changed is provisioned, one deleted released, in the background.
func (s *Service) provisionAfter(events []Event) {
	for _, e := range events {
		n, ok := e.Payload.(*Node)
		if !ok {
			continue
		}
		pv, ok := s.provisioner(n)
		if !ok {
			continue
		}
		ref := NodeRef{ProjectID: n.ProjectID, NodeID: n.ID}
		switch e.Action {
		case EventNodeCreated:
			s.goTracked(n.ID, func() { s.provision(pv, ref) })
		case EventNodeUpdated:
			if s.provisionedAs(pv, n) {
				continue // moved, renamed nothing the runner uses
			}
			s.goProvision(func() { s.provision(pv, ref) })
		case EventNodeDeleted:
			s.goTracked(n.ID, func() { s.release(pv, ref) })
		}
	}
}

// provisionKey is what of a node its runner's Provision reads: a change
// of anything else (a move, a label) asks nothing of it.
func provisionKey(n *Node) string {
	props := n.Properties
	props.Provisioned = ""
	b, _ := json.Marshal(struct {
		Name, ConsoleType string
		Custom            []CustomAdapter
		Props             Properties
	}{n.Name, string(n.ConsoleType), n.CustomAdapters, props})
	return string(b)
}

// provisionedAs reports whether n was last provisioned as it is now and
// shows what it owns (a snapshot brought back may show an older id).
func (s *Service) provisionedAs(pv Provisioner, n *Node) bool {
	s.prov.mu.Lock()
	done := s.prov.done[n.ID]
	s.prov.mu.Unlock()
	return n.Properties.Provisioned != "" && done == provisionKey(n) && pv.Provisioned(n.ID) == n.Properties.Provisioned
}

// provision makes what node ref owns, if its project is open, under the
// node's lock (never beside a start or a stop), and keeps its id; a
// refusal is told once to the project's users.
func (s *Service) provision(pv Provisioner, ref NodeRef) {
	defer s.lockNode(ref.NodeID)()
	ctx, cancel := context.WithTimeout(context.Background(), provisionWait)
	defer cancel()
	n, err := s.FindNode(ctx, ref)
	if err != nil || s.provisionedAs(pv, n) {
		return // deleted meanwhile, or done
	}
	if p, err := s.FindProjectByID(ctx, ref.ProjectID); err != nil || p.Status != ProjectOpened {
		return
	}
	_, err = pv.Provision(ctx, s.processOf(n, nil))
	key := provisionKey(n)
	s.prov.mu.Lock()
	if s.prov.done == nil {
		s.prov.done, s.prov.told = map[string]string{}, map[string]string{}
	}
	if err == nil {
		s.prov.done[n.ID] = key
		delete(s.prov.told, n.ID)
	}
	tell := err != nil && s.prov.told[n.ID] != ErrorMessage(err)
	if tell {
		s.prov.told[n.ID] = ErrorMessage(err)
	}
	s.prov.mu.Unlock()
	if tell {
		s.tell(EventLogWarning, n.ProjectID, fmt.Sprintf("The container of %s could not be made yet (its start will try again): %s", n.Name, ErrorMessage(err)))
	}
	s.keepProvisioned(ctx, ref, pv.Provisioned(n.ID))
}

// keepProvisioned stores id as what node ref owns now (no history: it is
// runtime), announcing the change.
func (s *Service) keepProvisioned(ctx context.Context, ref NodeRef, id string) {
	err := s.updateUnrecorded(ctx, func(tx Tx, emit emitFunc) error {
		n, err := findNode(tx, ref)
		if err != nil {
			return err
		}
		if n.Properties.Provisioned == id {
			return errUnchanged
		}
		c := *n
		c.Properties.Provisioned = id
		emit(EventNodeUpdated, c.ProjectID, &c)
		return tx.PutNode(&c)
	})
	if err != nil && ErrorCode(err) != ENOTFOUND {
		s.c.Logger.Warn("a node's container id could not be kept", "node", ref.NodeID, "err", err)
	}
}

// release removes what node ref owns, under its lock, telling the
// project's users of a failure (the runner keeps its record: nodedesk's
// next start removes it).
func (s *Service) release(pv Provisioner, ref NodeRef) {
	defer s.lockNode(ref.NodeID)()
	s.prov.mu.Lock()
	delete(s.prov.done, ref.NodeID)
	delete(s.prov.told, ref.NodeID)
	s.prov.mu.Unlock()
	if err := pv.Release(ref.NodeID); err != nil {
		s.tell(EventLogWarning, ref.ProjectID, "A deleted node's container could not be removed: "+ErrorMessage(err))
	}
}

// releaseNodes releases what the given nodes own, at once, and forgets
// their ids: a project's close and delete.
func (s *Service) releaseNodes(ctx context.Context, nodes []*Node) {
	var wg sync.WaitGroup
	for _, n := range nodes {
		if pv, ok := s.provisioner(n); ok {
			ref := NodeRef{ProjectID: n.ProjectID, NodeID: n.ID}
			wg.Go(func() {
				s.release(pv, ref)
				s.keepProvisioned(ctx, ref, "")
			})
		}
	}
	wg.Wait()
}

// releaseProject releases what the nodes of a project that closes own.
func (s *Service) releaseProject(ctx context.Context, projectID string) {
	if nodes, err := s.FindNodes(ctx, projectID); err == nil {
		s.releaseNodes(ctx, nodes)
	}
}

// provisionProject provisions, in the background, the nodes of a project
// that opens.
func (s *Service) provisionProject(ctx context.Context, projectID string) {
	nodes, err := s.FindNodes(ctx, projectID)
	if err != nil {
		return
	}
	for _, n := range nodes {
		if pv, ok := s.provisioner(n); ok {
			ref := NodeRef{ProjectID: n.ProjectID, NodeID: n.ID}
			s.goProvision(func() { s.provision(pv, ref) })
		}
	}
}

// provisionOpenProjects provisions the nodes of every open project: what
// nodedesk's start does once the runners have removed what a previous
// nodedesk left.
func (s *Service) provisionOpenProjects(ctx context.Context) {
	projects, err := s.FindProjects(ctx)
	if err != nil {
		return
	}
	for _, p := range projects {
		if p.Status == ProjectOpened {
			s.provisionProject(ctx, p.ID)
		}
	}
}
