package app

import "sync"

// Event is a change committed to the store, published once after commit.
// Action follows GNS3's notification names (node.created, node.updated,
// node.deleted, project.updated, project.closed, project.deleted); Payload
// is the *Node or *Project as it is after the change (before, for deletes).
type Event struct {
	Action    string
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
