package app

import (
	"strings"
	"sync"
)

// EventAction names a change, as GNS3's notifications name it.
type EventAction string

// The event actions.
const (
	EventProjectCreated EventAction = "project.created"
	EventProjectUpdated EventAction = "project.updated"
	EventProjectOpened  EventAction = "project.opened"
	EventProjectClosed  EventAction = "project.closed"
	EventProjectDeleted EventAction = "project.deleted"
	EventNodeCreated    EventAction = "node.created"
	EventNodeUpdated    EventAction = "node.updated"
	EventNodeDeleted    EventAction = "node.deleted"
	EventLinkCreated    EventAction = "link.created"
	EventLinkUpdated    EventAction = "link.updated"
	EventLinkDeleted    EventAction = "link.deleted"
	EventDrawingCreated EventAction = "drawing.created"
	EventDrawingUpdated EventAction = "drawing.updated"
	EventDrawingDeleted EventAction = "drawing.deleted"
	// EventSnapshotRestored follows the changes of a restore; GNS3's GUI
	// reloads the project when it hears it.
	EventSnapshotRestored EventAction = "snapshot.restored"
	// EventHistoryUpdated says what undo and redo would now take in a
	// project (a *HistoryState), after each change, undo and redo:
	// nodedesk's own, which GNS3 clients ignore.
	EventHistoryUpdated EventAction = "history.updated"
	// EventCheckRunUpdated carries a run of a project's checks (a whole
	// *CheckRun) at its start, after each verdict and at its end:
	// nodedesk's own, which GNS3 clients ignore (decision 0070).
	EventCheckRunUpdated EventAction = "check.run.updated"
	// EventNIOCreated, EventNIOUpdated and EventNIODeleted follow the NIOs
	// a controller sets on this compute (payload *NIO): for the data
	// plane only (Internal).
	EventNIOCreated EventAction = "nio.created"
	EventNIOUpdated EventAction = "nio.updated"
	EventNIODeleted EventAction = "nio.deleted"
	// EventLogError is a compute's message to its controller (GNS3's
	// log.error, payload *LogMessage): on the compute stream only
	// (ComputeOnly).
	EventLogError EventAction = "log.error"
	// EventLogWarning is a compute's warning to its controller (GNS3's
	// log.warning), as EventLogError.
	EventLogWarning EventAction = "log.warning"
	// EventTemplateCreated, EventTemplateUpdated and EventTemplateDeleted
	// follow the user templates (payload *Template, as a template is
	// shown; before, for deletes), on the controller stream as GNS3's
	// controller sends them: its GUI learns the templates it makes only
	// from these.
	EventTemplateCreated EventAction = "template.created"
	EventTemplateUpdated EventAction = "template.updated"
	EventTemplateDeleted EventAction = "template.deleted"
)

// LogMessage is the payload of a log.* event: a sentence for the user,
// and (nodedesk's extension, which GNS3 clients ignore) the technical
// detail behind it, which nodedesk's page shows one click away.
type LogMessage struct {
	Message string `json:"message"`
	Detail  string `json:"detail,omitempty"`
}

// Note is something the user should know of a node, in plain words: what
// happened and what to do (Message), and the technical detail behind it
// (Detail: a program's own words, a device path), which may be empty.
type Note struct {
	Message string
	Detail  string
}

// ComputeOnly reports whether a goes to the compute stream only (GNS3's
// log.*, which a GNS3 controller shows its users); nodedesk's own clients
// learn the same from the change that caused it (a node.updated).
func (a EventAction) ComputeOnly() bool { return strings.HasPrefix(string(a), "log.") }

// ComputeOnly reports whether e goes to the compute stream only: a log.*
// this nodedesk says as a compute. One a remote compute said
// (*ComputeMessage) goes to its project's streams instead.
func (e Event) ComputeOnly() bool {
	_, relayed := e.Payload.(*ComputeMessage)
	return e.Action.ComputeOnly() && !relayed
}

// Internal reports whether a is for nodedesk's own hooks (the data plane)
// only and never goes to a client's stream: a GNS3 client has no use for
// it, and its GUI would pass an unknown action on or choke on it.
func (a EventAction) Internal() bool { return strings.HasPrefix(string(a), "nio.") }

// ProjectWide reports whether a is about a project itself (the controller
// stream carries these), rather than about what a project holds.
func (a EventAction) ProjectWide() bool { return strings.HasPrefix(string(a), "project.") }

// AboutCompute reports whether a is about a remote compute (compute.*:
// the controller stream carries these too).
func (a EventAction) AboutCompute() bool { return strings.HasPrefix(string(a), "compute.") }

// AboutTemplate reports whether a is about a template (template.*: the
// controller stream carries these too).
func (a EventAction) AboutTemplate() bool { return strings.HasPrefix(string(a), "template.") }

// Event is a change committed to the store, published once after commit.
// Payload is the *Node, *Link, *Drawing, *Project or *Template as it is
// after the change (before, for deletes); a drawing.updated carries a
// *DrawingChanged, a history.updated a *HistoryState.
type Event struct {
	Action    EventAction
	ProjectID string
	Payload   any
}

// Broker fans events out to subscribers. Publish never blocks: a subscriber
// whose buffer is full is dropped (its channel is closed), so a slow or dead
// listener cannot hold up a writer.
type Broker struct {
	mu    sync.Mutex
	subs  map[chan Event]struct{}
	hooks []func(Event)
}

// OnPublish registers f to be called with every event, synchronously and
// in publishing order, before the event goes to subscribers: for caches
// that must never serve what a committed change has replaced. f must be
// quick and must not publish.
func (b *Broker) OnPublish(f func(Event)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.hooks = append(b.hooks, f)
}

// NewBroker returns a Broker with no subscribers.
func NewBroker() *Broker { return &Broker{subs: map[chan Event]struct{}{}} }

// Subscribe returns a channel of future events, buffered to size, and a
// function that ends the subscription.
func (b *Broker) Subscribe(size int) (<-chan Event, func()) {
	ch := make(chan Event, size)
	b.mu.Lock()
	b.subs[ch] = struct{}{}
	b.mu.Unlock()
	return ch, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if _, ok := b.subs[ch]; ok {
			delete(b.subs, ch)
			close(ch)
		}
	}
}

// Publish sends e to every subscriber without waiting.
func (b *Broker) Publish(e Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, f := range b.hooks {
		f(e)
	}
	for ch := range b.subs {
		select {
		case ch <- e:
		default:
			delete(b.subs, ch)
			close(ch)
		}
	}
}
