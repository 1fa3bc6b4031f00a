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
// committed write's events are looked at once (provisionAfter), and the
// one background worker of a local node of such a type that was made,
// changed or deleted brings its container in line with the node as it is
// then (settleNode): provisioned if it exists, released if it is gone, so
// that a delete and a create of one node (a restore) end as the last
// says. A project that opens has its nodes provisioned, one that closes or
// is deleted has them released before it is answered. nodedesk's start
// provisions the open projects' nodes again (their containers were
// removed by the runner's Open). A provision (an image's pull) does not
// hold up its node's delete, a snapshot's restore or nodedesk's quitting:
// they cancel it.
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
	// ctx is what every provision's context derives from: stopProvisions
	// cancels it, so that quitting waits for no pull.
	ctx    context.Context
	cancel context.CancelFunc
	// done holds, by node id, the settings (provisionKey) a node was last
	// provisioned with, so that a move does not ask the runner again.
	done map[string]string
	// told holds, by node id, the last refusal told, so that it is told once.
	told map[string]string
	// work holds, by node id, the one worker that brings the node's
	// container in line with the node as it is now (settleNode): events
	// of one node are handled in their order, the last one deciding.
	work map[string]*nodeWork
}

// nodeWork is the worker of one node.
type nodeWork struct {
	pv     Provisioner
	ref    NodeRef
	again  bool               // an event came since it last looked
	cancel context.CancelFunc // of the provision under way, if any
	// cancelled says the next provision is cancelled before it begins.
	cancelled bool
	ended     chan struct{} // closed when it has nothing more to do
}

// base is the context provisions derive from (made at first use).
func (p *provisions) base() context.Context {
	if p.ctx == nil {
		p.ctx, p.cancel = context.WithCancel(context.Background())
	}
	return p.ctx
}

// awaitWait is how long a node's create waits for its container, so that
// its answer shows container_id as GNS3's does, and its delete for its
// container's removal; a slower one (an image pulled) goes on in the
// background.
const awaitWait = 5 * time.Second

// awaitProvision waits, up to awaitWait, for the worker of node n (its
// container made at its creation, or removed at its delete) to end, and
// returns n as it is then.
func (s *Service) awaitProvision(ctx context.Context, n *Node) *Node {
	s.prov.mu.Lock()
	w, ok := s.prov.work[n.ID]
	s.prov.mu.Unlock()
	if !ok {
		return n
	}
	select {
	case <-w.ended:
	case <-time.After(awaitWait):
		return n
	}
	if now, err := s.FindNode(ctx, NodeRef{ProjectID: n.ProjectID, NodeID: n.ID}); err == nil {
		return now
	}
	return n
}

// settleLater has the worker of node ref look at it again, starting one
// if it has none, unless the runners are stopping.
func (s *Service) settleLater(pv Provisioner, ref NodeRef) {
	p := &s.prov
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	if w, ok := p.work[ref.NodeID]; ok {
		w.pv, w.ref, w.again = pv, ref, true
		return
	}
	if p.work == nil {
		p.work = map[string]*nodeWork{}
	}
	w := &nodeWork{pv: pv, ref: ref, again: true, ended: make(chan struct{})}
	p.work[ref.NodeID] = w
	p.wg.Go(func() { s.drain(w) })
}

// drain is the worker of one node: it settles the node until no event
// came meanwhile.
func (s *Service) drain(w *nodeWork) {
	p := &s.prov
	for {
		p.mu.Lock()
		if !w.again || p.closed {
			delete(p.work, w.ref.NodeID)
			p.mu.Unlock()
			close(w.ended)
			return
		}
		w.again = false
		ctx, cancel := context.WithTimeout(p.base(), provisionWait)
		w.cancel = cancel
		if w.cancelled {
			w.cancelled = false
			cancel()
		}
		pv, ref := w.pv, w.ref
		p.mu.Unlock()
		s.settleNode(ctx, pv, ref)
		p.mu.Lock()
		w.cancel = nil
		p.mu.Unlock()
		cancel()
	}
}

// cancelProvision ends the provision of node nodeID under way, if any (an
// image's pull): what its delete does first, so that it waits for none.
func (s *Service) cancelProvision(nodeID string) {
	s.prov.mu.Lock()
	defer s.prov.mu.Unlock()
	switch w, ok := s.prov.work[nodeID]; {
	case !ok:
	case w.cancel != nil:
		w.cancel()
	default:
		w.cancelled = true // about to begin
	}
}

// stopProvisions cancels the background provisions, waits for them and
// refuses new ones: what StopRunners does first, so that no container is
// made after.
func (s *Service) stopProvisions() {
	s.prov.mu.Lock()
	s.prov.closed = true
	s.prov.base()
	s.prov.cancel()
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

// provisionAfter looks at the events of a committed write: the worker of
// a node made, changed or deleted settles it in the background (a delete
// cancels its provision under way).
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
			s.settleLater(pv, ref)
		case EventNodeUpdated:
			if s.provisionedAs(pv, n) {
				continue // moved, renamed nothing the runner uses
			}
			s.settleLater(pv, ref)
		case EventNodeDeleted:
			s.cancelProvision(n.ID)
			s.settleLater(pv, ref)
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

// projectOpen reports whether project id exists and is open.
func (s *Service) projectOpen(id string) bool {
	p, err := s.FindProjectByID(context.Background(), id)
	return err == nil && p.Status == ProjectOpened
}

// settleNode brings what node ref owns in line with the node as it is
// now, under its lock (never beside a start or a stop): a node gone is
// released; one of an open project is provisioned and keeps its id (a
// refusal is told once to the project's users). A provision that finds
// its project closed or gone once it is done releases what it made: the
// close or delete may have read the project's nodes before.
func (s *Service) settleNode(ctx context.Context, pv Provisioner, ref NodeRef) {
	defer s.lockNode(ref.NodeID)()
	bg := context.Background() // the store's reads and writes: not cancelled
	n, err := s.FindNode(bg, ref)
	if ErrorCode(err) == ENOTFOUND {
		s.release(pv, ref)
		return
	}
	if err != nil || !s.projectOpen(ref.ProjectID) || s.provisionedAs(pv, n) {
		return // closed (its close released it), or done
	}
	_, err = pv.Provision(ctx, s.processOf(n, nil))
	if !s.projectOpen(ref.ProjectID) {
		s.release(pv, ref)
		s.keepProvisioned(bg, ref, "")
		return
	}
	if err != nil && ctx.Err() != nil {
		return // cancelled: deleted, or nodedesk quits
	}
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
	s.keepProvisioned(bg, ref, pv.Provisioned(n.ID))
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

// release removes what node ref owns, telling the project's users of a
// failure (the runner keeps its record: nodedesk's next start removes
// it). Its caller holds the node's lock.
func (s *Service) release(pv Provisioner, ref NodeRef) {
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
				unlock := s.lockNode(ref.NodeID)
				s.release(pv, ref)
				unlock()
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
			s.settleLater(pv, NodeRef{ProjectID: n.ProjectID, NodeID: n.ID})
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
