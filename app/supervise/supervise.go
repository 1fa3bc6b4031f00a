// Package supervise is the lifecycle half that every runner of nodedesk
// shares, written once: the table of the processes it runs by node id,
// their records (app/procrecord) and the ending of what a killed nodedesk
// left, stopping them all at the end, resetting a console, and telling
// the Service (app.Observer) of an end nobody asked for and of notes.
//
// A runner keeps a Table of its own process type and embeds the Table's
// Lifecycle, which gives it app.Supervised (Observe, Open, StopAll) and
// ResetConsole. What differs (how a process starts and stops, what its
// console is, what Docker reaps) the runner gives in Config.
package supervise

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync"

	"nodedesk/app"
	"nodedesk/app/procrecord"
)

// Config is what a runner tells its Table.
type Config[P any] struct {
	// What names the runner's processes in the log, in the plural: "QEMU
	// guests".
	What string
	// Records keep a record of each process (Keep), which Open uses to
	// end those a killed nodedesk left; Dir "" keeps none.
	Records procrecord.Records
	// Reap, if set, ends what a killed nodedesk left instead of Records
	// (Docker removes containers by records of its own). It returns the
	// nodes it found.
	Reap func(ctx context.Context) (ended []string, err error)
	// Probe, if set, is begun in the background by Open: a slow check the
	// first start should not wait for (QEMU's KVM probe).
	Probe func(ctx context.Context)
	// Stop stops one node; StopAll calls it for every node at once.
	Stop func(nodeID string) error
	// Reset disconnects every client of a process's consoles
	// (ResetConsole); nil: it has none.
	Reset  func(p P)
	Logger *slog.Logger
}

// Table is the processes a runner runs, by node id: P is the runner's own
// type of one (a pointer). It is safe for concurrent use.
type Table[P comparable] struct {
	c     Config[P]
	mu    sync.Mutex
	procs map[string]P
	obs   app.Observer
	told  map[string]bool // projects FirstInProject has seen
}

// New returns an empty Table.
func New[P comparable](c Config[P]) *Table[P] {
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return &Table[P]{c: c, procs: map[string]P{}, told: map[string]bool{}}
}

// RunDir is a runner's own folder of records under env.RunDir, named
// after its node type; "" when env keeps none.
func RunDir(env app.RunnerEnv, t app.NodeType) string {
	if env.RunDir == "" {
		return ""
	}
	return filepath.Join(env.RunDir, string(t))
}

// Get returns the process of a node; ok is false when it runs none.
func (t *Table[P]) Get(nodeID string) (p P, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok = t.procs[nodeID]
	return p, ok
}

// Put records the process of a node.
func (t *Table[P]) Put(nodeID string, p P) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.procs[nodeID] = p
}

// Start runs start with the table locked and records the process it
// returns: a process that ends at once finds itself in the table when it
// is Forgotten. start must not call the table.
func (t *Table[P]) Start(nodeID string, start func() (P, error)) (P, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, err := start()
	if err == nil {
		t.procs[nodeID] = p
	}
	return p, err
}

// Forget removes p, which has ended or is being stopped, and its record,
// if it is still the node's process (a new one may have started since).
// It reports whether it was.
func (t *Table[P]) Forget(nodeID string, p P) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if cur, ok := t.procs[nodeID]; !ok || cur != p {
		return false
	}
	delete(t.procs, nodeID)
	// The record goes under the lock too: a Stop and the exit it causes
	// both forget, and whichever loses must not return before it is gone.
	t.c.Records.Forget(nodeID)
	return true
}

// Len is the number of processes the table holds.
func (t *Table[P]) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.procs)
}

// Each calls fn with every process, under the table's lock (fn must not
// call the table).
func (t *Table[P]) Each(fn func(p P)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range t.procs {
		fn(p)
	}
}

// Keep writes the record of a node's process that has started (it leads
// its own process group); a record that cannot be written is logged. A
// process that ended and was forgotten already gets none.
func (t *Table[P]) Keep(nodeID, name string, pid int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.procs[nodeID]; !ok {
		return
	}
	if err := t.c.Records.Keep(nodeID, name, pid); err != nil {
		t.c.Logger.Error("a running process could not be recorded", "what", t.c.What, "node", name, "err", err)
	}
}

// Ended forgets p, whose process has ended, and, unless a stop ended it,
// tells the observer that the node stopped by itself, with detail (what
// the process last said). detail is called after the table's lock was
// taken, so it may read what Start set under it.
func (t *Table[P]) Ended(ref app.NodeRef, p P, stopped bool, detail func() string) {
	t.Forget(ref.NodeID, p)
	if !stopped {
		t.Exited(ref, detail())
	}
}

// Exited tells the observer that a node's process ended by itself.
func (t *Table[P]) Exited(ref app.NodeRef, detail string) {
	if o := t.observer(); o != nil {
		o.OnProcessExit(ref.ProjectID, ref.NodeID, detail)
	}
}

// SaveFiles gives the observer the files a node saved itself.
func (t *Table[P]) SaveFiles(ref app.NodeRef, files map[string]string) {
	if o := t.observer(); o != nil {
		o.OnNodeFiles(ref.ProjectID, ref.NodeID, files)
	}
}

// Note tells the observer something the user should know of a node.
func (t *Table[P]) Note(ref app.NodeRef, note app.Note) {
	if o := t.observer(); o != nil {
		o.OnProcessNote(ref.ProjectID, ref.NodeID, note)
	}
}

// FirstInProject reports whether it is the first time it is asked of the
// project: what is said once a project (and each node's panel says
// anyway).
func (t *Table[P]) FirstInProject(projectID string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	first := !t.told[projectID]
	t.told[projectID] = true
	return first
}

func (t *Table[P]) observer() app.Observer {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.obs
}

// Lifecycle is what the runner that owns the table embeds.
func (t *Table[P]) Lifecycle() Lifecycle { return Lifecycle{t} }

func (t *Table[P]) observe(o app.Observer) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.obs = o
}

func (t *Table[P]) open(ctx context.Context) ([]string, error) {
	if t.c.Probe != nil {
		go t.c.Probe(ctx)
	}
	reap := t.c.Reap
	if reap == nil {
		reap = func(context.Context) ([]string, error) { return t.c.Records.ReapOrphans() }
	}
	ended, err := reap(ctx)
	if len(ended) > 0 {
		t.c.Logger.Warn("ended the "+t.c.What+" a previous nodedesk left running", "nodes", ended)
	}
	return ended, err
}

func (t *Table[P]) stopAll() {
	t.mu.Lock()
	ids := make([]string, 0, len(t.procs))
	for id := range t.procs {
		ids = append(ids, id)
	}
	t.mu.Unlock()
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() { _ = t.c.Stop(id) })
	}
	wg.Wait()
}

func (t *Table[P]) resetConsole(nodeID string) {
	if p, ok := t.Get(nodeID); ok && t.c.Reset != nil {
		t.c.Reset(p)
	}
}

// lifecycle is a Table of any process type.
type lifecycle interface {
	observe(o app.Observer)
	open(ctx context.Context) ([]string, error)
	stopAll()
	resetConsole(nodeID string)
}

// Lifecycle is the half of app.Runner, app.Supervised and
// app.ConsoleServer that a runner embeds from its Table.
type Lifecycle struct{ t lifecycle }

// Observe sets who is told when a node's process ends by itself or has
// something to say (app.Supervised).
func (l Lifecycle) Observe(o app.Observer) { l.t.observe(o) }

// Open ends what a previous nodedesk that was killed left running, by the
// records, and logs the nodes it names; it begins the runner's probe, if
// any (app.Supervised).
func (l Lifecycle) Open(ctx context.Context) (ended []string, err error) { return l.t.open(ctx) }

// StopAll stops every node the runner runs, all at once: the last thing
// nodedesk does (app.Supervised).
func (l Lifecycle) StopAll() { l.t.stopAll() }

// ResetConsole disconnects every client of a node's consoles; the process
// and its listeners stay (app.ConsoleServer). A node that does not run has
// no client.
func (l Lifecycle) ResetConsole(nodeID string) { l.t.resetConsole(nodeID) }

// Funcs is an app.Observer made of two functions (a test's); a nil one
// is told nothing.
type Funcs struct {
	Exit  func(projectID, nodeID, detail string)
	Note  func(projectID, nodeID string, note app.Note)
	Files func(projectID, nodeID string, files map[string]string)
}

// OnNodeFiles calls f.Files, if any.
func (f Funcs) OnNodeFiles(projectID, nodeID string, files map[string]string) {
	if f.Files != nil {
		f.Files(projectID, nodeID, files)
	}
}

// OnProcessExit calls f.Exit, if any.
func (f Funcs) OnProcessExit(projectID, nodeID, detail string) {
	if f.Exit != nil {
		f.Exit(projectID, nodeID, detail)
	}
}

// OnProcessNote calls f.Note, if any.
func (f Funcs) OnProcessNote(projectID, nodeID string, note app.Note) {
	if f.Note != nil {
		f.Note(projectID, nodeID, note)
	}
}
