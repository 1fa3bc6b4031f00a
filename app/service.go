package app

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"reflect"
	"sync"
	"time"

	"github.com/google/uuid"
)

// LocalCompute is the id of the one compute nodedesk has: itself.
const LocalCompute = "local"

// GNS3Version is the GNS3 version nodedesk speaks: the server version its
// API answers to, and the version its project files say wrote them.
const GNS3Version = "2.2.59"

// Publisher receives every committed change, once, after commit.
type Publisher interface {
	Publish(Event)
}

// Config wires a Service to its store and environment.
type Config struct {
	Store  Store
	Events Publisher // nil: changes are not published
	// DataDir is the folder beside the store; projects' working folders
	// live in DataDir/projects/<project_id>.
	DataDir string
	// ConsoleHost is the address clients use to reach console ports.
	ConsoleHost string
	// HostInterfaces lists this machine's network interfaces for new
	// clouds (hostnet.Interfaces); nil: none.
	HostInterfaces func() []HostInterface
	// NetworkInterfaces lists them as a GNS3 compute describes them
	// (hostnet.NetworkInterfaces); nil: none.
	NetworkInterfaces func() []NetworkInterface
	// NewID returns a fresh UUID string; nil means uuid.NewString.
	NewID func() string
	// Runners run process-backed nodes, one runner per emulator (package
	// app/emulators makes them); a type none of them Runs changes status
	// alone. What else a runner can do (QEMUTools, DockerEngine, Tuner,
	// Reloader, IdlePCFinder, ConsoleServer, Supervised) is found by
	// asking it (capability).
	Runners []Runner
	// PortFree reports whether a port of this machine is free for a node
	// to take ("tcp" for console ports, "udp" for link ports), so that
	// allocation skips ports other programs hold (hostnet.PortFree); nil:
	// every port counts as free.
	PortFree func(network string, port int) bool
	// Computes starts the client of a remote compute (package
	// app/remote); nil: remote computes are recorded but never connect.
	Computes ComputeDialer
	// UDPHolder names the programs of this machine that hold a UDP port
	// ("pid 42 (vpcs)"), for the message of a start that cannot bind it
	// (hostnet.UDPHolder); nil or "": "another program".
	UDPHolder func(port int) string
	// UDPPorts is the range UDP ports are allocated from (VPCS pairs,
	// ports/udp, NIO lports); zero means DefaultUDPPorts. Two nodedesks on
	// one machine are given disjoint ranges.
	UDPPorts PortRange
	// Logger receives what the Service cannot tell a caller: the failures
	// of work done after a request was answered or for none (a compute
	// that did not take a delete, a heal step); nil discards them.
	Logger *slog.Logger

	// GNS3ImagesDir is GNS3's images folder (~/GNS3/images), whose
	// <kind> subfolders are searched for images after nodedesk's own
	// (images.go); "" searches none.
	GNS3ImagesDir string
	// AutoCloseAfter is how long a project with auto_close stays open
	// once its last notification listener has left
	// (project_listeners.go); zero means DefaultAutoCloseAfter.
	AutoCloseAfter time.Duration
	// IdlePCBoot is how long a router booted to find an image's idle PC
	// is given before it is sampled (node_properties_dynamips.go); zero means
	// DefaultIdlePCBoot.
	IdlePCBoot time.Duration
}

// Service is every use case of nodedesk. The REST API and the desktop window
// are thin doors onto it: they parse, call one method, and render.
type Service struct {
	c Config
	// wmu guards pending and leading: the writes waiting for a commit,
	// and whether a caller is committing them (see update).
	wmu     sync.Mutex
	pending []*write
	leading bool
	// hints speed up name allocation (node_naming.go).
	hints nameHints
	// nodeLocks holds one *sync.Mutex per node for lifecycle calls.
	nodeLocks sync.Map
	// imports serialises project imports (project_import.go): the check that no
	// project has the id and the rename of its folder.
	imports sync.Mutex
	// snapFiles serialises the work on snapshots' files
	// (project_snapshot_files.go): a take's copy and its commit, a restore's
	// records and files, a sweep.
	snapFiles sync.Mutex
	// trashMu serialises the moves of deleted nodes' folders to and from
	// their project's trash, and its sweeps (node_trash.go).
	trashMu sync.Mutex
	// consoleServers are reset by ResetConsole (node_console.go).
	consoleMu      sync.Mutex
	consoleServers []ConsoleServer
	// hostPorts checks cloud host ports before they are linked
	// (cloud_hostports.go); nil: no data plane opens them.
	hostPorts HostPorts
	// linkEnds opens the data plane's ends of a node's UDP pairs before
	// it starts (node_ends.go); nil: no data plane.
	linkEnds LinkEnds
	// wireWatch tells what crossed each link (wiremap.go); nil: no data
	// plane.
	wireWatch WireWatch
	// checks holds each project's check runs (check_run.go).
	checks checkRuns
	// cmp holds the connections to remote computes (remote.go).
	cmp computes
	// boot holds the nodes that are booting (node_boot.go).
	boot boots
	// noHistory turns recording off, for a benchmark of its cost
	// (project_export_test.go).
	noHistory bool
	// listeners counts each project's notification listeners
	// (project_listeners.go).
	listeners projectListeners
	// left is what a previous nodedesk that did not stop left, found at
	// start (leftovers.go).
	left leftovers
	// prov keeps the background provisions (node_provision.go).
	prov provisions
}

// NewService returns a Service for c.
func NewService(c Config) *Service {
	if c.HostInterfaces == nil {
		c.HostInterfaces = func() []HostInterface { return []HostInterface{} }
	}
	if c.NetworkInterfaces == nil {
		c.NetworkInterfaces = func() []NetworkInterface { return []NetworkInterface{} }
	}
	if c.NewID == nil {
		c.NewID = uuid.NewString
	}
	if c.ConsoleHost == "" {
		c.ConsoleHost = "127.0.0.1"
	}
	if c.UDPPorts == (PortRange{}) {
		c.UDPPorts = DefaultUDPPorts
	}
	if c.PortFree == nil {
		c.PortFree = func(string, int) bool { return true }
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.AutoCloseAfter == 0 {
		c.AutoCloseAfter = DefaultAutoCloseAfter
	}
	s := &Service{c: c}
	for _, r := range c.Runners {
		if cs, ok := r.(ConsoleServer); ok { // the runner serves its nodes' consoles
			s.consoleServers = append(s.consoleServers, cs)
		}
		if sv, ok := r.(Supervised); ok { // it tells s of exits and notes
			sv.Observe(s)
		}
	}
	return s
}

// NodeRef names a node by its project and id, as a request path does. Type,
// when set, is the compute view the request came through: a node of
// another type is not found there.
type NodeRef struct {
	ProjectID string
	NodeID    string
	Type      NodeType
}

// ConsoleHost is the address clients use to reach console ports.
func (s *Service) ConsoleHost() string { return s.c.ConsoleHost }

// ProjectDir is the working folder of a project.
func (s *Service) ProjectDir(projectID string) string {
	return filepath.Join(s.c.DataDir, "projects", projectID)
}

// NodeDirectory is the working folder of a node whose type keeps files
// (VPCS, cloud, NAT) on this nodedesk, or nil.
func (s *Service) NodeDirectory(n *Node) *string {
	sub := n.Type.kind().folder
	if sub == "" || n.Remote() { // a remote node's folder is its compute's
		return nil
	}
	d := filepath.Join(s.ProjectDir(n.ProjectID), projectFilesDir, sub, n.ID)
	return &d
}

// errUnchanged ends a write that found nothing to change: nothing is
// written, and the caller succeeds.
var errUnchanged = errors.New("unchanged")

// emitFunc records an event to publish once the transaction commits.
type emitFunc = func(action EventAction, projectID string, payload any)

// maxBatch bounds how many writes share one transaction.
const maxBatch = 256

// write is one call of update waiting for its commit.
type write struct {
	fn func(tx Tx, emit emitFunc) error
	// src is where the change comes from; record says whether its
	// changes go to history (undo and redo write history themselves).
	src    Source
	record bool
	events []Event
	// committed, if set, runs once the write has committed, before its
	// events are published and start any background work (a container's
	// provision).
	committed func()
	// swept are the projects whose history dropped entries (its bound,
	// an emptied redo stack): their trash is swept after the commit.
	swept []string
	err   error
	done  chan struct{}
}

// update runs fn in a read-write transaction and returns once that
// transaction has committed (fsync'd). The events fn emits are published
// after the commit, in commit order; a rejected or failed write publishes
// nothing. This is the only way a change is written and announced. What fn
// changes of a project's records is recorded in the project's history
// (history_record.go), as coming from ctx's Source.
func (s *Service) update(ctx context.Context, fn func(tx Tx, emit emitFunc) error) error {
	return s.submit(&write{fn: fn, src: SourceOf(ctx), record: !s.noHistory})
}

// updateUnrecorded is update for a change that is no user's edit and goes
// to no history: the runtime wiring a controller sets on this compute
// (NIOs, UDP reservations), and what nodedesk learns, makes or remakes of
// a remote compute (see remoteWrite).
func (s *Service) updateUnrecorded(ctx context.Context, fn func(tx Tx, emit emitFunc) error) error {
	return s.submit(&write{fn: fn, src: SourceOf(ctx)})
}

// submit runs w with the writes waiting at the same time, and returns its
// result once their transaction has committed.
//
// Group commit: writes that arrive while a commit is under way wait, and
// the caller that finds no commit under way (the leader) runs all waiting
// writes in one transaction with one fsync, publishes their events in
// order and wakes them. A write rejected before it wrote anything (a
// validation error, errUnchanged) is taken out of the batch alone; one
// that fails after writing rolls the batch back, and each of its writes is
// then run in a transaction of its own.
func (s *Service) submit(w *write) error {
	w.done = make(chan struct{})
	s.wmu.Lock()
	s.pending = append(s.pending, w)
	if s.leading {
		s.wmu.Unlock()
		<-w.done
		return w.err
	}
	s.leading = true
	for len(s.pending) > 0 {
		n := min(len(s.pending), maxBatch)
		batch := s.pending[:n:n]
		s.pending = s.pending[n:]
		s.wmu.Unlock()
		s.commit(batch)
		s.wmu.Lock()
	}
	s.leading = false
	s.wmu.Unlock()
	<-w.done
	return w.err
}

// commit runs a batch of writes in one transaction, publishes their
// events and wakes their callers.
func (s *Service) commit(batch []*write) {
	err := s.c.Store.Update(func(tx Tx) error {
		for _, w := range batch {
			if err := s.run(w, tx); err != nil {
				return err // wrote, then failed: the batch is rolled back
			}
		}
		if tx.Writes() == 0 {
			return errUnchanged // nothing to commit: no fsync, the file untouched
		}
		return nil
	})
	if errors.Is(err, errUnchanged) {
		err = nil
	}
	if err != nil {
		s.hints.forget("") // names allocated in the rolled-back batch are free
		if len(batch) == 1 {
			batch[0].err = err
		} else {
			for _, w := range batch {
				s.commit([]*write{w})
			}
			return
		}
	}
	for _, w := range batch {
		if w.err == nil && w.committed != nil {
			w.committed() // before its events: they announce the result
		}
		if w.err == nil && s.c.Events != nil {
			for _, e := range w.events {
				s.c.Events.Publish(e)
			}
		}
		if w.err == nil {
			s.provisionAfter(w.events)
			for _, pid := range w.swept {
				s.sweepNodeTrash(pid)
			}
		}
		close(w.done)
	}
}

// run runs one write inside tx, recording it in history when it succeeds.
// A rejection that wrote nothing is kept as the write's own result; an
// error after a write is returned, to roll back.
func (s *Service) run(w *write, tx Tx) error {
	w.events, w.err, w.swept = nil, nil, nil
	before := tx.Writes()
	emit := func(action EventAction, projectID string, payload any) {
		w.events = append(w.events, Event{Action: action, ProjectID: projectID, Payload: payload})
	}
	var err error
	if w.record {
		rec := newRecorder(tx)
		if err = w.fn(rec, emit); err == nil {
			err = s.record(tx, rec, w.src, &w.events, &w.swept)
		}
	} else {
		err = w.fn(tx, emit)
	}
	switch {
	case err == nil:
		return nil
	case tx.Writes() > before:
		return err
	case errors.Is(err, errUnchanged):
		w.events = nil
		return nil
	default:
		w.err, w.events = err, nil
		return nil
	}
}

// view runs fn in a read-only transaction.
func (s *Service) view(fn func(tx Tx) error) error { return s.c.Store.View(fn) }

// canonicalID parses a UUID in any spelling and returns its canonical form.
func canonicalID(id string) (string, bool) {
	u, err := uuid.Parse(id)
	if err != nil {
		return "", false
	}
	return u.String(), true
}

func projectNotFound(id string) error {
	return Errorf(ENOTFOUND, "Project ID %s doesn't exist", id)
}

func nodeNotFound(id string) error { return Errorf(ENOTFOUND, "Node ID %s doesn't exist", id) }

// unchanged reports whether a change left a record as it was.
func unchanged(a, b any) bool { return reflect.DeepEqual(a, b) }
