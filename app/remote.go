package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"strconv"
	"sync"
)

// Remote computes: other nodedesk processes or GNS3 2.2.59 servers that run
// some of a project's nodes, driven over GNS3's compute API as GNS3's
// controller drives its computes. The records live in the store; what is
// known of each connection (connected, usage, capabilities, last error)
// lives in memory, fed by the compute's client (ComputeDialer).

// Compute is a remote compute. Its JSON tags are the store's record format.
type Compute struct {
	ID       string  `json:"compute_id"`
	Name     string  `json:"name"`
	Protocol string  `json:"protocol"`
	Host     string  `json:"host"`
	Port     int     `json:"port"`
	User     *string `json:"user,omitempty"`
	Password *string `json:"password,omitempty"`
	Seq      uint64  `json:"seq"`
}

// BaseURL is the address of the compute's API, e.g. http://host:3080.
func (c *Compute) BaseURL() string {
	return c.Protocol + "://" + net.JoinHostPort(DialHost(c.Host), strconv.Itoa(c.Port))
}

// ComputeState is what nodedesk last learnt of a compute's connection.
type ComputeState struct {
	Connected    bool
	CPU, Memory  *float64
	Capabilities json.RawMessage // nil: not known yet
	LastError    *string
}

// ComputeView is a compute as the API shows it: the record and its state.
// Local is set for the "local" compute, nodedesk itself.
type ComputeView struct {
	Compute
	ComputeState
	Local bool
}

// ComputeCreate is a request to add a remote compute (GNS3's schema).
type ComputeCreate struct {
	ComputeID string  `json:"compute_id"`
	Name      string  `json:"name"`
	Protocol  string  `json:"protocol"`
	Host      string  `json:"host"`
	Port      int     `json:"port"`
	User      *string `json:"user"`
	Password  *string `json:"password"`
}

// ComputeUpdate is a change to a remote compute.
type ComputeUpdate struct {
	Name     Field[string] `json:"name"`
	Protocol Field[string] `json:"protocol"`
	Host     Field[string] `json:"host"`
	Port     Field[int]    `json:"port"`
	User     Field[string] `json:"user"`
	Password Field[string] `json:"password"`
}

// The compute events, on the controller stream (payload *ComputeView).
const (
	EventComputeCreated EventAction = "compute.created"
	EventComputeUpdated EventAction = "compute.updated"
	EventComputeDeleted EventAction = "compute.deleted"
)

// ComputeClient is the port to one remote compute: what nodedesk's
// controller asks of it, in the domain's terms, and a supervisor that
// keeps its notification stream open. Package app/remote implements it
// over GNS3's compute API; the paths, bodies and answers of that API live
// there only.
//
// Every call gives up after a short timeout. Errors are *Error: the
// compute's own message under the code of its answer (ENOTFOUND: it does
// not have what the call names), or ECONFLICT when it cannot be reached,
// which is then also ErrComputeUnreachable (Unreachable).
type ComputeClient interface {
	// CreateProject makes project id, named name, on the compute; a
	// project it has already is left as it is.
	CreateProject(ctx context.Context, id, name string) error
	// CloseProject closes a project there: its nodes stop and its NIOs
	// go; its nodes stay.
	CloseProject(ctx context.Context, id string) error
	// DeleteProject deletes a project there, with its nodes.
	DeleteProject(ctx context.Context, id string) error

	// CreateNode makes n there with its id, name, console and properties
	// (a node it has already with that id is answered as it is).
	CreateNode(ctx context.Context, n *Node) (NodeAnswer, error)
	// UpdateNode sends n's name, console and properties to its node there.
	UpdateNode(ctx context.Context, n *Node) (NodeAnswer, error)
	// DeleteNode deletes a node there.
	DeleteNode(ctx context.Context, ref NodeRef) error
	// DuplicateNode copies what src holds (files, settings) to dstID, a
	// node of the same type just made there.
	DuplicateNode(ctx context.Context, src NodeRef, dstID string) error
	// NodeAction starts, stops, suspends or reloads a node there; body,
	// when not nil, is what the call sends (a start's emulator settings,
	// as GNS3's controller sends IOU's licence).
	NodeAction(ctx context.Context, ref NodeRef, a Action, body map[string]json.RawMessage) error

	// ReserveUDPPort reserves a UDP port there for a project's tunnel.
	ReserveUDPPort(ctx context.Context, projectID string) (int, error)
	// AddNIO gives a node's port a UDP tunnel end (spec's LinkID is not
	// sent: it is this nodedesk's own).
	AddNIO(ctx context.Context, p PortRef, spec NIOSpec) error
	// UpdateNIO changes the filters and suspension of a port's NIO.
	UpdateNIO(ctx context.Context, p PortRef, spec NIOSpec) error
	// RemoveNIO removes a port's NIO.
	RemoveNIO(ctx context.Context, p PortRef) error
	// StartCapture starts capturing a port's frames there to a pcap file
	// named fileName, as dataLinkType.
	StartCapture(ctx context.Context, p PortRef, fileName, dataLinkType string) error
	// StopCapture stops a port's capture there.
	StopCapture(ctx context.Context, p PortRef) error
	// StreamPcap copies the pcap of a port's capture to w as the compute
	// streams it, until it ends it or ctx is done. A refusal before the
	// first byte is an error as a call gives.
	StreamPcap(ctx context.Context, p PortRef, w io.Writer) error

	// Query asks the compute about itself (q) and returns its answer as
	// it gave it: what a GNS3 controller passes on to its clients.
	Query(ctx context.Context, q ComputeQuery) (json.RawMessage, error)

	// Start starts the supervisor (the Service calls it once it holds
	// the client, so that no report comes before).
	Start()
	// Close stops the supervisor and every connection.
	Close()
}

// NodeAnswer is what a compute tells of a node it made or changed.
type NodeAnswer struct {
	// Status is the node's status there; one nodedesk does not know
	// (Status.Known) is not taken.
	Status Status
	// Console is the node's console port there; nil: none told.
	Console *int
}

// applyTo keeps on n what a compute answered of it.
func (a NodeAnswer) applyTo(n *Node) {
	if a.Status.Known() {
		n.Status = a.Status
	}
	if a.Console != nil {
		n.ComputeConsole = *a.Console
	}
}

// PortRef names a port of a node, as a compute's paths do.
type PortRef struct {
	NodeRef
	Adapter, Port int
}

// ComputeQuery is a question a controller forwards to a compute about
// itself, named as GNS3 names them: an emulator ("network" for the host's
// network) and what of it is asked, e.g. network/ports,
// network/interfaces, qemu/images, virtualbox/vms.
type ComputeQuery struct {
	Emulator, Action string
}

// ComputeEvent is a notification of a remote compute that nodedesk
// follows, as GNS3's controller does.
type ComputeEvent struct {
	// Action is EventNodeUpdated, or a log.* (EventAction.ComputeOnly).
	Action EventAction
	// Node and Status: a node.updated, the node and its status there
	// (one nodedesk does not know is passed on as told).
	Node   NodeRef
	Status Status
	// ProjectID and Message: a log.*, the project the compute named at
	// the top of its notification ("" when none) and its event as it
	// sent it (valid JSON), which is passed on unchanged.
	ProjectID string
	Message   json.RawMessage
}

// ComputeDialer makes a client for c; its supervisor, once started, connects
// (capabilities, version check, notification stream), reconnects with a
// backoff, and reports every change of state to onState and every
// notification nodedesk follows to onEvent. It never blocks.
type ComputeDialer func(c Compute, onState func(ComputeState), onEvent func(ComputeEvent)) ComputeClient

// computeConn is one remote compute's client and state.
type computeConn struct {
	id     string  // c.ID, which never changes: read without the lock
	c      Compute // under computes.mu
	client ComputeClient
	state  ComputeState
	// ready is set once a connected compute has been healed (its nodes
	// and tunnels made again); its nodes show connected from then on.
	ready bool
	// ctx is cancelled when the connection is dropped (dropCompute,
	// CloseComputes): what runs for it (events, heals) stops.
	ctx    context.Context
	cancel context.CancelFunc
	// healMu makes its heals run one at a time.
	healMu sync.Mutex
	// events queues the compute's node events for one goroutine
	// (handleComputeEvents), so that the stream's reader never waits.
	events chan computeEvent
}

// computes holds the connections to remote computes.
type computes struct {
	mu    sync.Mutex
	conns map[string]*computeConn
	// projects records the (compute, project) pairs whose project exists
	// on the compute since it last connected.
	projects map[[2]string]bool
	// closed is set by CloseComputes: no client is dialled after it.
	closed bool
	// wg counts the goroutines of connections (events, heals);
	// CloseComputes waits for them.
	wg sync.WaitGroup
	// pending are, per compute, the deletes of what was deleted here
	// while it could not be reached: its heal sends them first. Kept in
	// memory only: after a restart of nodedesk they are not retried.
	pending map[string][]pendingDelete
}

// computeReserved are ids GNS3 keeps for itself.
func computeReserved(id string) bool { return id == LocalCompute || id == "vm" }

// ErrComputeUnreachable marks (errors.Is) the error of a call that did not
// reach its compute, as against the compute's own refusal: both are
// ECONFLICT, but only the first means the compute no longer holds the
// node's process.
var ErrComputeUnreachable = errors.New("compute unreachable")

// Unreachable is an ECONFLICT error that is also ErrComputeUnreachable.
func Unreachable(format string, args ...any) error {
	return unreachableError{Errorf(ECONFLICT, format, args...)}
}

type unreachableError struct{ e *Error }

func (u unreachableError) Error() string   { return u.e.Error() }
func (u unreachableError) Unwrap() []error { return []error{u.e, ErrComputeUnreachable} }

// findCompute reads a remote compute's record. Codes: ENOTFOUND.
func findCompute(tx Tx, id string) (*Compute, error) {
	c, err := tx.Compute(id)
	if err == nil && c == nil {
		err = computeNotFound(id)
	}
	return c, err
}

func computeNotFound(id string) error {
	return Errorf(ENOTFOUND, "Compute ID %s doesn't exist; GET /v2/computes lists them", id)
}

// checkComputeAddress is the rule for a compute's protocol, host and port.
func checkComputeAddress(c *Compute) error {
	switch {
	case c.Protocol != "http" && c.Protocol != "https":
		return Invalid("protocol", "protocol must be http or https")
	case c.Host == "":
		return Invalid("host", "host is required")
	case c.Port < 1 || c.Port > 65535:
		return Invalid("port", "port must be 1–65535")
	}
	return nil
}

// defaultComputeName is GNS3's default name: protocol://[user@]host:port.
func defaultComputeName(c *Compute) string {
	user := ""
	if c.User != nil && *c.User != "" {
		user = *c.User + "@"
	}
	return fmt.Sprintf("%s://%s%s", c.Protocol, user, net.JoinHostPort(c.Host, strconv.Itoa(c.Port)))
}

// LocalComputeName is the name of compute "local": this machine's host
// name, as GNS3 names its local compute.
func LocalComputeName() string {
	name, _ := os.Hostname()
	return name
}

// checkComputeName refuses a name another compute has, local included.
func checkComputeName(tx Tx, c *Compute) error {
	if c.Name == LocalComputeName() {
		return Conflict("name", "Compute name %q already exists: it is this machine's own compute (local)", c.Name)
	}
	all, err := tx.Computes()
	if err != nil {
		return err
	}
	for _, o := range all {
		if o.ID != c.ID && o.Name == c.Name {
			return Conflict("name", "Compute name %q already exists", c.Name)
		}
	}
	return nil
}

// CreateCompute adds a remote compute and starts connecting to it; it does
// not wait for the connection. Codes: EINVALID, ECONFLICT (id local or vm,
// id or name taken).
func (s *Service) CreateCompute(ctx context.Context, in ComputeCreate) (*ComputeView, error) {
	c := &Compute{ID: in.ComputeID, Name: in.Name, Protocol: in.Protocol, Host: in.Host, Port: in.Port, User: in.User, Password: in.Password}
	if computeReserved(c.ID) {
		return nil, Conflict("compute_id", "Compute ID %s is reserved; leave compute_id out or choose another", c.ID)
	}
	if c.ID == "" {
		c.ID = s.c.NewID()
	}
	if err := checkComputeAddress(c); err != nil {
		return nil, err
	}
	if c.Name == "" {
		c.Name = defaultComputeName(c)
	}
	err := s.update(ctx, func(tx Tx, emit emitFunc) error {
		if old, err := tx.Compute(c.ID); err != nil || old != nil {
			if err == nil {
				err = Conflict("compute_id", "Compute ID %s already exists", c.ID)
			}
			return err
		}
		if err := checkComputeName(tx, c); err != nil {
			return err
		}
		return tx.PutCompute(c)
	})
	if err != nil {
		return nil, err
	}
	v := s.dialCompute(*c)
	s.publish(EventComputeCreated, "", v)
	return v, nil
}

// UpdateCompute changes a remote compute; a change of its address or
// credentials reconnects it. Codes: EINVALID, ENOTFOUND, ECONFLICT (local,
// name taken).
func (s *Service) UpdateCompute(ctx context.Context, id string, u ComputeUpdate) (*ComputeView, error) {
	if id == LocalCompute {
		return nil, Errorf(ECONFLICT, "The local compute is nodedesk itself and cannot be changed")
	}
	var before, after Compute
	err := s.update(ctx, func(tx Tx, emit emitFunc) error {
		c, err := findCompute(tx, id)
		if err != nil {
			return err
		}
		before, after = *c, *c
		setIf(&after.Name, u.Name)
		setIf(&after.Protocol, u.Protocol)
		setIf(&after.Host, u.Host)
		setIf(&after.Port, u.Port)
		if u.User.Set {
			after.User = ptrOrNil(u.User)
		}
		if u.Password.Set {
			after.Password = ptrOrNil(u.Password)
		}
		if after.User == nil {
			after.Password = nil // Basic authentication needs a user: no user, no password kept
		}
		if err := checkComputeAddress(&after); err != nil {
			return err
		}
		if after.Name == "" {
			after.Name = defaultComputeName(&after)
		}
		if err := checkComputeName(tx, &after); err != nil {
			return err
		}
		if unchanged(before, after) {
			return errUnchanged
		}
		return tx.PutCompute(&after)
	})
	if err != nil {
		return nil, err
	}
	var v *ComputeView
	if connChanged(before, after) {
		s.dropCompute(id)
		s.showCompute(id) // its nodes and links are not connected until it is healed again
		v = s.dialCompute(after)
	} else {
		v = s.setComputeRecord(after)
	}
	s.publish(EventComputeUpdated, "", v)
	return v, nil
}

// connChanged reports whether a change touches how a compute is reached.
func connChanged(a, b Compute) bool {
	return a.Protocol != b.Protocol || a.Host != b.Host || a.Port != b.Port ||
		!unchanged(a.User, b.User) || !unchanged(a.Password, b.Password)
}

// DeleteCompute removes a remote compute that no node lives on. Codes:
// ENOTFOUND, ECONFLICT (local, nodes on it).
func (s *Service) DeleteCompute(ctx context.Context, id string) error {
	if id == LocalCompute {
		return Errorf(ECONFLICT, "The local compute is nodedesk itself and cannot be removed")
	}
	var gone *Compute
	err := s.update(ctx, func(tx Tx, emit emitFunc) error {
		c, err := findCompute(tx, id)
		if err != nil {
			return err
		}
		used, err := nodesOnCompute(tx, id)
		if err != nil {
			return err
		}
		if len(used) > 0 {
			return Errorf(ECONFLICT, "%d node(s) live on compute %s (%s is one); delete them first", len(used), c.Name, used[0].Name)
		}
		gone = c
		return tx.DeleteCompute(id)
	})
	if err != nil {
		return err
	}
	v := s.dropCompute(id)
	if v == nil {
		v = &ComputeView{Compute: *gone}
	}
	s.cmp.mu.Lock()
	delete(s.cmp.pending, id)
	s.cmp.mu.Unlock()
	s.publish(EventComputeDeleted, "", v)
	return nil
}

// nodesOnCompute lists every node, of any project, that lives on compute id.
func nodesOnCompute(tx Tx, id string) ([]*Node, error) {
	ps, err := tx.Projects()
	if err != nil {
		return nil, err
	}
	var out []*Node
	for _, p := range ps {
		ns, err := tx.Nodes(p.ID)
		if err != nil {
			return nil, err
		}
		for _, n := range ns {
			if n.ComputeID == id {
				out = append(out, n)
			}
		}
	}
	return out, nil
}

// FindComputes returns the remote computes, in the order they were added,
// with their state ("local" is the API's to add: it is nodedesk itself).
func (s *Service) FindComputes(ctx context.Context) ([]*ComputeView, error) {
	var cs []*Compute
	if err := s.view(func(tx Tx) (err error) {
		cs, err = tx.Computes()
		return err
	}); err != nil {
		return nil, err
	}
	out := make([]*ComputeView, 0, len(cs))
	for _, c := range cs {
		out = append(out, s.computeView(*c))
	}
	return out, nil
}

// FindCompute returns one remote compute with its state. Codes: ENOTFOUND.
func (s *Service) FindCompute(ctx context.Context, id string) (*ComputeView, error) {
	var c *Compute
	if err := s.view(func(tx Tx) (err error) {
		c, err = findCompute(tx, id)
		return err
	}); err != nil {
		return nil, err
	}
	return s.computeView(*c), nil
}

// computeView is c with its current state (never connected if no client
// runs for it).
func (s *Service) computeView(c Compute) *ComputeView {
	s.cmp.mu.Lock()
	defer s.cmp.mu.Unlock()
	v := &ComputeView{Compute: c}
	if cc := s.cmp.conns[c.ID]; cc != nil {
		v.ComputeState = cc.state
	}
	return v
}

// StartComputes connects to every stored remote compute, in the
// background (one a request dialled already is left alone). main calls it
// before the API serves.
func (s *Service) StartComputes(ctx context.Context) error {
	cs, err := s.FindComputes(ctx)
	if err != nil {
		return err
	}
	for _, c := range cs {
		s.cmp.mu.Lock()
		dialled := s.cmp.conns[c.ID] != nil
		s.cmp.mu.Unlock()
		if !dialled {
			s.dialCompute(c.Compute)
		}
	}
	return nil
}

// CloseComputes ends every connection to a remote compute (the computes
// keep running their nodes).
func (s *Service) CloseComputes() {
	s.cmp.mu.Lock()
	conns := s.cmp.conns
	s.cmp.conns = nil
	s.cmp.closed = true
	s.cmp.mu.Unlock()
	for _, cc := range conns {
		cc.cancel()
		if cc.client != nil {
			cc.client.Close()
		}
	}
	s.cmp.wg.Wait()
}

// dialCompute starts c's client (if a dialer is configured and
// CloseComputes has not run) and returns its view; a client that ran for
// c is closed.
func (s *Service) dialCompute(c Compute) *ComputeView {
	cc := &computeConn{id: c.ID, c: c, events: make(chan computeEvent, computeEventQueue)}
	cc.ctx, cc.cancel = context.WithCancel(context.Background())
	s.cmp.mu.Lock()
	if s.cmp.closed {
		s.cmp.mu.Unlock()
		cc.cancel()
		return &ComputeView{Compute: c}
	}
	if s.cmp.conns == nil {
		s.cmp.conns = map[string]*computeConn{}
	}
	old := s.cmp.conns[c.ID]
	s.cmp.conns[c.ID] = cc
	s.cmp.wg.Add(1)
	s.cmp.mu.Unlock()
	go s.handleComputeEvents(cc)
	if old != nil {
		old.cancel()
		if old.client != nil {
			old.client.Close()
		}
	}
	if s.c.Computes != nil {
		client := s.c.Computes(c,
			func(st ComputeState) { s.onComputeState(cc, st) },
			func(ev ComputeEvent) { s.onComputeEvent(cc, ev) })
		s.cmp.mu.Lock()
		cc.client = client
		s.cmp.mu.Unlock()
		client.Start() // reports come once the client is in place
	}
	return s.computeView(c)
}

// dropCompute closes a compute's client and forgets its state.
func (s *Service) dropCompute(id string) *ComputeView {
	s.cmp.mu.Lock()
	cc := s.cmp.conns[id]
	delete(s.cmp.conns, id)
	for k := range s.cmp.projects {
		if k[0] == id {
			delete(s.cmp.projects, k)
		}
	}
	var v *ComputeView
	var client ComputeClient
	if cc != nil {
		v, client = &ComputeView{Compute: cc.c, ComputeState: cc.state}, cc.client
		cc.cancel()
	}
	s.cmp.mu.Unlock()
	if client != nil {
		client.Close()
	}
	return v
}

// setComputeRecord keeps a changed record (not its address) beside its
// connection.
func (s *Service) setComputeRecord(c Compute) *ComputeView {
	s.cmp.mu.Lock()
	if cc := s.cmp.conns[c.ID]; cc != nil {
		cc.c = c
	}
	s.cmp.mu.Unlock()
	return s.computeView(c)
}

// publish announces a change that is not a store write (a compute's
// connection state, what it shows of its nodes).
func (s *Service) publish(action EventAction, projectID string, payload any) {
	if s.c.Events != nil {
		s.c.Events.Publish(Event{Action: action, ProjectID: projectID, Payload: payload})
	}
}

// onComputeState records what a compute's supervisor learnt; a change of
// connection shows on the compute's nodes and links, and a compute that
// comes back is healed (remote_heal.go).
func (s *Service) onComputeState(cc *computeConn, st ComputeState) {
	s.cmp.mu.Lock()
	if s.cmp.conns[cc.c.ID] != cc { // removed or replaced meanwhile
		s.cmp.mu.Unlock()
		return
	}
	was := cc.state.Connected
	if usageOnly(cc.state, st) {
		s.cmp.mu.Unlock()
		return // kept as last published: usage moves often, clients need it now and then
	}
	cc.state = st
	if !st.Connected {
		cc.ready = false
		for k := range s.cmp.projects {
			if k[0] == cc.c.ID {
				delete(s.cmp.projects, k) // made again when it comes back
			}
		}
	}
	c := cc.c
	s.cmp.mu.Unlock()
	s.publish(EventComputeUpdated, "", s.computeView(c))
	if was != st.Connected {
		s.computeConnectionChanged(c.ID, st.Connected)
	}
}

// usageOnly reports whether b differs from a only by a CPU or memory usage
// less than a point away, which is not worth a compute.updated.
func usageOnly(a, b ComputeState) bool {
	near := func(x, y *float64) bool {
		return (x == nil) == (y == nil) && (x == nil || math.Abs(*x-*y) < 1)
	}
	return a.Connected == b.Connected && unchanged(a.LastError, b.LastError) &&
		string(a.Capabilities) == string(b.Capabilities) && near(a.CPU, b.CPU) && near(a.Memory, b.Memory)
}

// ComputeConnected reports whether the compute a node lives on is
// connected and healed (its nodes and tunnels made again after it came
// back): always true for "local".
func (s *Service) ComputeConnected(id string) bool {
	if id == "" || id == LocalCompute {
		return true
	}
	s.cmp.mu.Lock()
	defer s.cmp.mu.Unlock()
	cc := s.cmp.conns[id]
	return cc != nil && cc.state.Connected && cc.ready
}

// setComputeReady records that a compute was healed, if it is still
// connected.
func (s *Service) setComputeReady(id string) {
	s.cmp.mu.Lock()
	defer s.cmp.mu.Unlock()
	if cc := s.cmp.conns[id]; cc != nil && cc.state.Connected {
		cc.ready = true
	}
}

// compute returns the client of compute id when it is connected; else a
// client whose every call fails at once with an ECONFLICT error saying
// which compute is unreachable and what to do (ENOTFOUND when no such
// compute is connected at all).
func (s *Service) compute(id string) ComputeClient {
	s.cmp.mu.Lock()
	defer s.cmp.mu.Unlock()
	cc := s.cmp.conns[id]
	if cc == nil {
		return refusing{computeNotFound(id)}
	}
	if !cc.state.Connected || cc.client == nil {
		why := "not connected yet"
		if cc.state.LastError != nil {
			why = *cc.state.LastError
		}
		return refusing{Unreachable("Compute %s (%s) is unreachable: %s. Start nodedesk or GNS3 there, or correct its address with PUT /v2/computes/%s, then try again",
			cc.c.Name, cc.c.BaseURL(), why, cc.c.ID)}
	}
	return cc.client
}

// refusing is the client of a compute that cannot be called: every call
// returns err.
type refusing struct{ err error }

func (r refusing) CreateProject(context.Context, string, string) error   { return r.err }
func (r refusing) CloseProject(context.Context, string) error            { return r.err }
func (r refusing) DeleteProject(context.Context, string) error           { return r.err }
func (r refusing) CreateNode(context.Context, *Node) (NodeAnswer, error) { return NodeAnswer{}, r.err }
func (r refusing) UpdateNode(context.Context, *Node) (NodeAnswer, error) { return NodeAnswer{}, r.err }
func (r refusing) DeleteNode(context.Context, NodeRef) error             { return r.err }
func (r refusing) DuplicateNode(context.Context, NodeRef, string) error  { return r.err }
func (r refusing) NodeAction(context.Context, NodeRef, Action, map[string]json.RawMessage) error {
	return r.err
}
func (r refusing) ReserveUDPPort(context.Context, string) (int, error)         { return 0, r.err }
func (r refusing) AddNIO(context.Context, PortRef, NIOSpec) error              { return r.err }
func (r refusing) UpdateNIO(context.Context, PortRef, NIOSpec) error           { return r.err }
func (r refusing) RemoveNIO(context.Context, PortRef) error                    { return r.err }
func (r refusing) StartCapture(context.Context, PortRef, string, string) error { return r.err }
func (r refusing) StopCapture(context.Context, PortRef) error                  { return r.err }
func (r refusing) StreamPcap(context.Context, PortRef, io.Writer) error        { return r.err }
func (r refusing) Query(context.Context, ComputeQuery) (json.RawMessage, error) {
	return nil, r.err
}
func (r refusing) Start() {}
func (r refusing) Close() {}

// connectedCompute reports, as compute's refusal does, why compute id
// cannot be called (nil: it can).
func (s *Service) connectedCompute(id string) error {
	if r, ok := s.compute(id).(refusing); ok {
		return r.err
	}
	return nil
}

// ComputeResource is what a remote compute answers about itself (q), as
// JSON: what a GNS3 controller forwards to its computes (network/ports,
// network/interfaces, <emulator>/images, …). Codes: ENOTFOUND (no such
// compute), ECONFLICT (not connected), and the compute's own refusal.
func (s *Service) ComputeResource(ctx context.Context, computeID string, q ComputeQuery) (json.RawMessage, error) {
	return s.compute(computeID).Query(ctx, q)
}
