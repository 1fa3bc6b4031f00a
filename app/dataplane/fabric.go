package dataplane

import (
	"cmp"
	"context"
	"io"
	"log/slog"
	"maps"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"nodedesk/app"
)

// Bounds on the work one frame may cause, so that a switching loop (two
// switches linked twice: there is no spanning tree, as in GNS3) or a
// broadcast storm costs bounded CPU per frame that enters the lab and can
// never recurse without end.
const (
	// maxHops bounds how many forwarding nodes one frame crosses.
	maxHops = 16
	// maxDeliveries bounds the frames one input frame may become.
	maxDeliveries = 256
	// maxDelayed bounds the frames one link holds back for its delay
	// filter; more are dropped, as a router's full queue drops them.
	maxDelayed = 4096
	// outSlots and outArena size each hop's Out.
	outSlots = 128
	outArena = 4 * (MaxFrame + 8)
	// txArena is how many bytes of frames a worker holds for its UDP
	// endpoints before it writes them; a batch of input frames is written
	// at once, at least batchSize frames per system call to each endpoint.
	txArena = 64 << 10
)

// engines makes the forwarding engine of each node type nodedesk forwards
// for itself: one entry per type.
var engines = map[app.NodeType]func(f *Fabric, n *app.Node) (Engine, error){
	app.EthernetSwitch:   func(*Fabric, *app.Node) (Engine, error) { return NewEthernetSwitch(), nil },
	app.EthernetHub:      func(*Fabric, *app.Node) (Engine, error) { return NewEthernetHub(), nil },
	app.FrameRelaySwitch: func(*Fabric, *app.Node) (Engine, error) { return NewFrameRelaySwitch(), nil },
	app.ATMSwitch:        func(*Fabric, *app.Node) (Engine, error) { return NewATMSwitch(), nil },
	app.NAT:              newNATEngine,
}

// end is one port of one node.
type end struct {
	node          string
	adapter, port int
}

// Fabric carries the frames of every running lab. It follows the committed
// state through Apply (an app.Broker hook): nodes and links as the Service
// stored them, and the status of process-run nodes, which tells when their
// UDP endpoints (or, for a veth node, the host ends of its veth pairs)
// exist. Readers never lock: each frame reads an immutable snapshot of the
// topology, replaced whole when the wiring changes (a node that gains or
// loses a UDP endpoint, a host port or an engine, a link created or
// deleted); the other changes (a switch's ports, a link's filters, suspend
// or capture) apply in place, so moving or renaming a node costs nothing.
type Fabric struct {
	log  *slog.Logger
	host string // the address UDP endpoints bind and send to

	mu   sync.Mutex // serialises changes; readers use topo
	topo atomic.Pointer[topology]

	// Dropped counts frames dropped for exceeding the per-frame bounds.
	Dropped atomic.Uint64

	apiPort atomic.Int32 // SetAPIPort

	// ConsoleHost is the address the consoles nodedesk serves itself (the
	// Ethernet switch's) listen on; empty means the Service's console host
	// (Attach sets it), or host without a Service.
	ConsoleHost  string
	consoles     map[string]*nodeConsole   // node id -> its console; under mu
	hostWant     map[string]map[end]hostIf // node id -> its host ports (hostif.go); under mu
	nios         map[string]*app.NIO       // NIO wire id -> the NIO; under mu (nio.go)
	linkRecs     map[string]*app.Link      // link id -> the link as last applied; under mu
	carriedNodes map[string]carriedNode    // node id -> its project and name, for the nodes carried; under mu (projects.go)
	closed       map[string]bool           // project id -> closed: its frames are not carried; under mu
	kept         map[end]*udpPort          // ends OpenEnds opened for a start under way (ends.go); under mu
	shut         bool                      // Close ran: nothing is carried any more; under mu
	svc          *app.Service              // what Attach follows: an opened project is loaded from it

	workers sync.Pool
	readers readers // what reads the UDP endpoints; under mu
	noRing  bool    // read them with epoll even where io_uring works (tests)
}

// topology is one immutable snapshot of what is wired to what.
type topology struct {
	engines map[string]Engine // node id -> its forwarding engine
	udp     map[end]*udpPort  // a port with a UDP endpoint
	host    map[end]*hostPort // a linked host port (hostif.go)
	wires   map[end]*wireEnd  // a linked port -> its link and far end
	links   map[string]*wire  // link id -> wire
}

func emptyTopology() *topology {
	return &topology{engines: map[string]Engine{}, udp: map[end]*udpPort{}, host: map[end]*hostPort{}, wires: map[end]*wireEnd{}, links: map[string]*wire{}}
}

func (t *topology) clone() *topology {
	return &topology{engines: maps.Clone(t.engines), udp: maps.Clone(t.udp), host: maps.Clone(t.host), wires: maps.Clone(t.wires), links: maps.Clone(t.links)}
}

// draft is a change to the topology under way: it reads the current
// snapshot and copies it on the first write only.
type draft struct {
	base, next *topology
}

// r is the topology as the change has it so far.
func (d *draft) r() *topology { return cmp.Or(d.next, d.base) }

// w is the topology to write to.
func (d *draft) w() *topology {
	if d.next == nil {
		d.next = d.base.clone()
	}
	return d.next
}

// wire is a link as the fabric carries it.
type wire struct {
	ends    [2]end
	filter  atomic.Pointer[Filter]  // nil: every frame passes
	capture atomic.Pointer[Capture] // nil: not capturing
	delayed atomic.Int32            // frames waiting for the delay filter
	watch   *wireWatch              // what crossed it (watch.go)
}

// newWire returns a wire between a and b, watched, and what each end's
// frames meet.
func newWire(a, b end) (w *wire, fromA, fromB *wireEnd) {
	w = &wire{ends: [2]end{a, b}, watch: newWireWatch()}
	return w, &wireEnd{w: w, far: b, at: 1}, &wireEnd{w: w, far: a, at: 0}
}

// stopCapture ends w's capture, if it has one.
func (w *wire) stopCapture() {
	if c := w.capture.Swap(nil); c != nil {
		_ = c.Close()
	}
}

// wireEnd is what a port's frames meet: a wire, and the end across it.
type wireEnd struct {
	w   *wire
	far end
	at  int // the index of far in w.ends
}

// NewFabric returns an empty fabric whose UDP endpoints use host (the
// address processes such as VPCS are told to send to: 127.0.0.1).
func NewFabric(host string, log *slog.Logger) *Fabric {
	f := &Fabric{log: log, host: host}
	f.topo.Store(emptyTopology())
	f.workers.New = func() any { return newWorker(f) }
	return f
}

// Apply follows one committed change. It is called in commit order, before
// the change is announced to clients, so a client that sees a link created
// can send frames over it at once.
func (f *Fabric) Apply(e app.Event) {
	f.change(func(d *draft) { f.apply(d, e) })
}

// Load applies a whole project's nodes and links (at start-up), as one
// change.
func (f *Fabric) Load(nodes []*app.Node, links []*app.Link) {
	f.change(func(d *draft) {
		for _, n := range nodes {
			f.putNode(d, n)
		}
		for _, l := range links {
			f.putLink(d, l)
		}
	})
}

// change runs fn on a draft of the topology and publishes the result if
// fn changed the wiring.
func (f *Fabric) change(fn func(d *draft)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shut {
		return // a change told after Close (a late event) opens nothing
	}
	d := &draft{base: f.topo.Load()}
	fn(d)
	if d.next != nil {
		f.topo.Store(d.next)
	}
}

func (f *Fabric) apply(d *draft, e app.Event) {
	switch p := e.Payload.(type) {
	case *app.Project:
		f.applyProject(d, e.Action, p)
	case *app.Node:
		if !f.carried(p.ProjectID) {
			return
		}
		if e.Action == app.EventNodeDeleted {
			f.dropNode(d, p.ID)
		} else {
			f.putNode(d, p)
		}
	case *app.Link:
		if !f.carried(p.ProjectID) {
			return
		}
		if e.Action == app.EventLinkDeleted {
			f.dropLink(d, p.ID)
		} else {
			f.putLink(d, p)
		}
	case *app.NIO:
		if !f.carried(p.ProjectID) {
			return
		}
		if e.Action == app.EventNIODeleted {
			f.dropNIO(d, p)
		} else {
			f.putNIO(d, p)
		}
	}
}

func (f *Fabric) putNode(d *draft, n *app.Node) {
	if n.Remote() {
		return // its compute carries its frames
	}
	f.noteNodeProject(n)
	if mk, ok := engines[n.Type]; ok {
		eng, have := d.r().engines[n.ID]
		if !have {
			var err error
			if eng, err = mk(f, n); err != nil {
				f.log.Error("dataplane: a node's frames cannot be carried", "node", n.Name, "err", err)
				return
			}
			d.w().engines[n.ID] = eng
		}
		eng.Configure(n)
		f.setConsole(n, eng)
		return
	}
	want := udpEndpoints(n, f.host)
	for at, u := range d.r().udp {
		if at.node == n.ID && u.peer != want[at] {
			u.close()
			delete(d.w().udp, at)
		}
	}
	for at, p := range want {
		if d.r().udp[at] != nil {
			continue
		}
		if u := f.takeKept(at, p); u != nil {
			d.w().udp[at] = u
			continue
		}
		u, err := f.openUDP(at, p)
		if err != nil {
			f.log.Error("dataplane: a port's frames cannot be carried", "node", n.Name, "port", at.port, "err", err)
			if p.bind == netioBind {
				break // its ports share one bridge, which failed for each: said once
			}
			continue
		}
		d.w().udp[at] = u
	}
	f.setHostPorts(d, n.ID, hostEndpoints(n))
}

// udpPeer is what a UDP endpoint binds (local, on host) and talks to
// (remote); with bind netioBind, an IOU node's bridge (netio.go).
type udpPeer struct {
	local        int
	bind, remote string
}

// udpEndpoints lists the ports of n that are UDP endpoints, as n now is:
// a running process-run node's one port (nodedesk's end of its UDP pair
// binds the pair's remote port and sends to its local one, on host), and
// each UDP tunnel of a cloud (bound to its lport, talking to rhost:rport;
// bound on host when rhost is a loopback address, else on every address:
// the socket is connected, so only rhost:rport is heard), and every port
// of a running IOU node (through its bridge: netioEndpoints).
func udpEndpoints(n *app.Node, host string) map[end]udpPeer {
	if id, ok := n.NetIO(); ok {
		return netioEndpoints(n, id)
	}
	want := map[end]udpPeer{}
	if n.Type.UsesCloudPorts() {
		for i, p := range n.Properties.CloudPorts { // port i is entry i, as GNS3 numbers them
			if p.Type != "udp" {
				continue
			}
			want[end{n.ID, 0, i}] = udpPeer{local: p.LPort, bind: bindFor(p.RHost, host),
				remote: net.JoinHostPort(p.RHost, strconv.Itoa(p.RPort))}
		}
		return want
	}
	if !n.Active() {
		return want
	}
	ports, pairs := n.Ports(), n.UDPPairs()
	if len(pairs) != len(ports) {
		return want
	}
	for i, p := range ports { // pair i is port i's (app.Process)
		want[end{n.ID, p.AdapterNumber, p.PortNumber}] = udpPeer{local: pairs[i].Remote, bind: host,
			remote: net.JoinHostPort(host, strconv.Itoa(pairs[i].Local))}
	}
	return want
}

// nodeConsole is a console nodedesk serves for a node.
type nodeConsole struct {
	srv  *consoleServer
	port int
	name *consoleName
}

// hasShell is an Engine with a console shell (the Ethernet switch).
type hasShell interface {
	shell(name *consoleName) shell
}

// setConsole serves the telnet console of n, whose engine is eng, while n
// has console type telnet and a console port; it follows a port change,
// and a rename shows in the prompt. It runs under mu.
func (f *Fabric) setConsole(n *app.Node, eng Engine) {
	sh, ok := eng.(hasShell)
	port := n.Console
	if !ok || n.ConsoleType != app.ConsoleTelnet {
		port = 0
	}
	c := f.consoles[n.ID]
	if c != nil && c.port != port {
		c.srv.close()
		delete(f.consoles, n.ID)
		c = nil
	}
	if c != nil {
		c.name.Store(&n.Name)
	}
	if c != nil || port == 0 {
		return
	}
	name := new(consoleName)
	name.Store(&n.Name)
	srv, err := listenConsole(cmp.Or(f.ConsoleHost, f.host), port, sh.shell(name), f.log)
	if err != nil {
		f.log.Error("dataplane: console not served", "node", n.Name, "port", port, "err", err)
		return
	}
	if f.consoles == nil {
		f.consoles = map[string]*nodeConsole{}
	}
	f.consoles[n.ID] = &nodeConsole{srv: srv, port: port, name: name}
}

// ResetConsole ends every session of the console the fabric serves for a
// node, if any (app.ConsoleServer).
func (f *Fabric) ResetConsole(nodeID string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.consoles[nodeID]; c != nil {
		c.srv.reset()
	}
}

func (f *Fabric) dropNode(d *draft, id string) {
	delete(f.carriedNodes, id)
	f.dropNodeNIOs(d, id)
	if c := f.consoles[id]; c != nil {
		c.srv.close()
		delete(f.consoles, id)
	}
	if eng, ok := d.r().engines[id]; ok {
		if c, ok := eng.(closer); ok {
			c.close()
		}
		delete(d.w().engines, id)
	}
	for at, u := range d.r().udp {
		if at.node == id {
			u.close()
			delete(d.w().udp, at)
		}
	}
	f.setHostPorts(d, id, nil) // closes them all
}

func (f *Fabric) putLink(d *draft, l *app.Link) {
	if len(l.Nodes) != 2 {
		return
	}
	if f.linkRecs == nil {
		f.linkRecs = map[string]*app.Link{}
	}
	f.linkRecs[l.ID] = l
	if n := f.nioFor(l.ID); n != nil { // a NIO holds the port end for it (nio.go)
		w := d.r().links[n.WireID()]
		if w != nil && d.r().links[l.ID] != w {
			d.w().links[l.ID] = w
		}
		if w != nil {
			f.setWire(w, l)
		}
		return
	}
	w := d.r().links[l.ID]
	if w == nil {
		a, b := l.Nodes[0], l.Nodes[1]
		var fromA, fromB *wireEnd
		w, fromA, fromB = newWire(end{a.NodeID, a.AdapterNumber, a.PortNumber}, end{b.NodeID, b.AdapterNumber, b.PortNumber})
		t := d.w()
		t.links[l.ID] = w
		t.wires[w.ends[0]] = fromA
		t.wires[w.ends[1]] = fromB
		f.syncHostPortsAt(d, w.ends[:]...)
	}
	f.setWire(w, l)
	w.watch.fr.Store(l.LinkType == "serial" || isFrameRelay(d.r().engines[w.ends[0].node]) || isFrameRelay(d.r().engines[w.ends[1].node]))
}

// setWire gives w the filters and capture of link l.
func (f *Fabric) setWire(w *wire, l *app.Link) {
	flt, err := NewFilter(app.ActiveFilters(l))
	if err != nil { // the Service stored them normalized: only a bug gets here
		f.log.Error("dataplane: link filters not applied", "link", l.ID, "err", err)
	}
	w.filter.Store(flt)
	want := ""
	if l.Capturing && l.CaptureFilePath != nil && !l.CapturedOnCompute() { // a remote compute's capture is its own
		want = *l.CaptureFilePath
	}
	f.captureTo(w, l.ID, want, l.CaptureDataLinkType)
}

// captureTo starts or stops writing w's frames to file want ("" for none)
// with data link type dlt; id names the wire in the log.
func (f *Fabric) captureTo(w *wire, id, want, dlt string) {
	cur := ""
	if c := w.capture.Load(); c != nil {
		cur = c.Path()
	}
	if want == cur {
		return
	}
	w.stopCapture()
	if want == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(want), 0o755); err != nil {
		f.log.Error("dataplane: capture folder not created", "link", id, "err", err)
		return
	}
	c, err := StartCapture(want, dlt)
	if err != nil {
		f.log.Error("dataplane: capture not started", "link", id, "file", want, "err", err)
		return
	}
	w.capture.Store(c)
}

func (f *Fabric) dropLink(d *draft, id string) {
	delete(f.linkRecs, id)
	w := d.r().links[id]
	if w == nil {
		return
	}
	if n := f.nioFor(id); n != nil && d.r().links[n.WireID()] == w { // the NIO's wire stays, with its own settings
		delete(d.w().links, id)
		f.setNIOWire(w, n)
		return
	}
	t := d.w()
	delete(t.links, id)
	for _, e := range w.ends {
		if we := t.wires[e]; we != nil && we.w == w {
			delete(t.wires, e)
		}
	}
	f.syncHostPortsAt(d, w.ends[:]...)
	w.stopCapture()
}

// FollowCapture streams the file of a link's running capture to w: what is
// in it, then what is written, until the capture ends and its last frame
// is sent (or ctx ends). A link that is not capturing is an ECONFLICT
// error, returned before anything is written.
func (f *Fabric) FollowCapture(ctx context.Context, linkID string, w io.Writer) error {
	var c *Capture
	if wr := f.topo.Load().links[linkID]; wr != nil {
		c = wr.capture.Load()
	}
	if c == nil {
		return app.Errorf(app.ECONFLICT, "Link %s is not capturing; start a capture first", linkID)
	}
	_ = Follow(ctx, c.Path(), w, c.Closed) // the client left, or the capture ended
	return nil
}

// Close stops every endpoint and capture, the ends kept for starts under
// way too; a change told after it (a late event) opens nothing.
func (f *Fabric) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.shut = true
	t := f.topo.Load()
	for _, u := range t.udp {
		u.close()
	}
	for at, u := range f.kept {
		u.close()
		delete(f.kept, at)
	}
	for _, h := range t.host {
		h.close()
	}
	for _, eng := range t.engines {
		if c, ok := eng.(closer); ok {
			c.close()
		}
	}
	f.hostWant, f.nios, f.linkRecs = nil, nil, nil
	for id, c := range f.consoles {
		c.srv.close()
		delete(f.consoles, id)
	}
	for _, w := range t.links {
		w.stopCapture()
	}
	f.topo.Store(emptyTopology())
}

// udpPort is a port whose frames travel as UDP datagrams to and from one
// peer: a VPCS process today, any UDP endpoint (a process on another
// machine, a GNS3 compute) tomorrow. Datagrams from any other address are
// dropped. A port of an IOU node is one too, whose datagrams carry an IOU
// header, on its bridge's socket (netio.go).
type udpPort struct {
	at   end
	sock *sock
	peer udpPeer
	rd   reading // how it is read (poller_linux.go, batch_other.go)
	once sync.Once
	// bridge is the IOU bridge whose socket the port shares; nil for a
	// UDP endpoint. hdr is what precedes each of its frames (IOU's
	// header; nil for a UDP endpoint).
	bridge *netioBridge
	hdr    []byte
	// closing is set before the pollers let go of the socket: from then
	// on none of them takes a new hold on it (uring_linux.go).
	closing atomic.Bool
	// failed is set once its socket's failure is told (endFailed).
	failed atomic.Bool
}

// openUDP opens the endpoint of port at and starts reading it (on Linux,
// on one of the fabric's poller threads: decision 0050). It runs under mu.
func (f *Fabric) openUDP(at end, p udpPeer) (*udpPort, error) {
	if p.bind == netioBind {
		return f.openNetIO(at, p)
	}
	s, err := openSock(p)
	if err != nil {
		return nil, err
	}
	u := &udpPort{at: at, sock: s, peer: p}
	if err := f.startReading(u); err != nil {
		s.close()
		return nil, err
	}
	return u, nil
}

// close stops reading u and closes its socket (an IOU port's bridge
// closes with its last port). It runs under mu; it never waits for a
// frame's journey, which never takes mu.
func (u *udpPort) close() {
	u.once.Do(func() {
		if u.bridge != nil {
			u.bridge.leave(u)
			return
		}
		u.stopReading()
		u.sock.close()
	})
}

// carry takes n datagrams read from u into the lab with w.
func (w *worker) carry(u *udpPort, rx *batch, n int) {
	for i := range n {
		w.take(u, rx.frame(i))
	}
}

// take carries one datagram read from u into the lab: every reader (the
// epoll and io_uring pollers) comes here, so that what is dropped is
// decided once. A datagram larger than MaxFrame (a giant) is dropped; the
// kernel refuses other senders of a connected socket. A datagram read on
// an IOU bridge enters at the port its header names (netioBridge.demux).
func (w *worker) take(u *udpPort, dgram []byte) {
	if u.bridge != nil {
		if u, dgram = u.bridge.demux(dgram); u == nil {
			return
		}
	}
	if len(dgram) > 0 && len(dgram) <= MaxFrame {
		w.input(u.at, dgram)
	}
}

// worker carries input frames through the lab, without allocating: one
// Out and one scratch buffer per hop. What it sends to UDP endpoints waits
// in tx until flush writes it, so that the frames of a batch read together
// leave together.
type worker struct {
	f       *Fabric
	outs    [maxHops]*Out
	scratch [maxHops + 1][]byte
	budget  int
	now     time.Time // when the frames being carried were read

	tx     []byte    // txArena bytes: the frames queued
	txUsed int       // bytes of tx in use
	txq    []txFrame // the frames queued, in order
	txSend [][]byte  // flush's frames for one endpoint
	sender sender    // writes them
	ring   *ringer   // when set, flush hands the frames to this io_uring poller
}

// txFrame is one frame queued for a UDP endpoint: u is the endpoint whose
// socket writes it (an IOU port's bridge's head: the frames of all its
// ports are written together).
type txFrame struct {
	u     *udpPort
	frame []byte
}

func newWorker(f *Fabric) *worker {
	w := &worker{f: f}
	for i := range w.outs {
		w.outs[i] = NewOut(outSlots, outArena)
	}
	for i := range w.scratch {
		w.scratch[i] = make([]byte, MaxFrame)
	}
	w.tx = make([]byte, txArena)
	w.txq = make([]txFrame, 0, 2*batchSize)
	w.txSend = make([][]byte, 0, 2*batchSize)
	return w
}

// input carries a frame that entered the lab at port from, read at w.now.
// What it sends to UDP endpoints leaves at the next flush.
func (w *worker) input(from end, frame []byte) {
	w.budget = maxDeliveries
	w.send(w.f.topo.Load(), from, frame, 0)
}

// queue holds a copy of frame, after u's header if it has one, for u
// until flush; it flushes first when there is no room.
func (w *worker) queue(u *udpPort, frame []byte) {
	n := len(u.hdr) + len(frame)
	if len(w.txq) == cap(w.txq) || w.txUsed+n > len(w.tx) {
		w.flush()
	}
	b := w.tx[w.txUsed : w.txUsed+n : w.txUsed+n]
	copy(b[copy(b, u.hdr):], frame)
	w.txUsed += n
	if u.bridge != nil {
		u = u.bridge.head
	}
	w.txq = append(w.txq, txFrame{u, b})
}

// flush writes the queued frames, each endpoint's in the order queued and
// with as few system calls as it takes. Errors are those of a datagram
// lost on the way (the peer is not up): ignored, as the network would.
func (w *worker) flush() {
	if w.ring != nil {
		w.ring.flushNow(w)
		return
	}
	for len(w.txq) > 0 {
		u, rest := w.txq[0].u, w.txq[:0]
		w.txSend = w.txSend[:0]
		for _, q := range w.txq {
			if q.u == u {
				w.txSend = append(w.txSend, q.frame)
			} else {
				rest = append(rest, q)
			}
		}
		_ = u.sock.send(&w.sender, w.txSend)
		clear(w.txq[len(rest):])
		w.txq = rest
	}
	w.txUsed = 0
}

// resetTx forgets the queued frames once they are sent.
func (w *worker) resetTx() {
	clear(w.txq)
	w.txq = w.txq[:0]
	w.txUsed = 0
}

// send carries a frame leaving port from across its link, then into what
// is at the far end: a UDP endpoint, or a forwarding engine whose output
// is sent on in turn.
func (w *worker) send(t *topology, from end, frame []byte, hop int) {
	we := t.wires[from]
	if we == nil {
		return // an unlinked port
	}
	if w.budget == 0 {
		w.f.Dropped.Add(1)
		return
	}
	w.budget--
	if flt := we.w.filter.Load(); flt != nil {
		out, delay, drop := flt.Apply(frame, w.scratch[hop])
		if drop {
			return
		}
		frame = out
		if delay > 0 {
			w.f.later(we, frame, delay)
			return
		}
	}
	w.arrive(t, we, frame, hop)
}

// arrive delivers a frame that crossed a wire to its far end.
func (w *worker) arrive(t *topology, we *wireEnd, frame []byte, hop int) {
	we.w.watch.see(w.now.UnixNano(), we.at, frame)
	if c := we.w.capture.Load(); c != nil {
		c.Write(w.now, frame)
	}
	if u := t.udp[we.far]; u != nil {
		w.queue(u, frame)
		return
	}
	if h := t.host[we.far]; h != nil {
		h.write(frame)
		return
	}
	eng := t.engines[we.far.node]
	if eng == nil {
		return
	}
	if hop == maxHops {
		w.f.Dropped.Add(1)
		return
	}
	out := w.outs[hop]
	out.Reset(w.now.UnixNano())
	eng.Input(we.far.port, frame, out)
	for _, e := range out.Frames() {
		w.send(t, end{we.far.node, 0, e.Port}, e.Frame, hop+1) // engines have one adapter
	}
}

// later delivers a delayed frame (the delay filter) on a timer, with a
// copy: the caller's buffer is reused as soon as it returns.
func (f *Fabric) later(we *wireEnd, frame []byte, d time.Duration) {
	if we.w.delayed.Add(1) > maxDelayed {
		we.w.delayed.Add(-1)
		f.Dropped.Add(1)
		return
	}
	c := append([]byte(nil), frame...)
	time.AfterFunc(d, func() {
		defer we.w.delayed.Add(-1)
		w := f.workers.Get().(*worker)
		defer f.workers.Put(w)
		w.budget, w.now = maxDeliveries, time.Now()
		w.arrive(f.topo.Load(), we, c, 0)
		w.flush()
	})
}

// Attach makes f follow every committed change of svc from now on, serve
// svc's console resets, and load the open labs svc already holds. Call it
// before the API serves, so that no change is missed or applied twice.
func (f *Fabric) Attach(ctx context.Context, svc *app.Service, events *app.Broker) error {
	if f.ConsoleHost == "" {
		f.ConsoleHost = svc.ConsoleHost()
	}
	f.mu.Lock()
	f.svc = svc
	f.mu.Unlock()
	events.OnPublish(f.Apply)
	svc.UseWireWatch(f)
	svc.AddConsoleServer(f)
	svc.UseHostPorts(f)
	svc.UseLinkEnds(f)
	projects, err := svc.FindProjects(ctx)
	if err != nil {
		return err
	}
	for _, p := range projects {
		if p.Status == app.ProjectClosed {
			f.change(func(d *draft) { f.applyProject(d, app.EventProjectClosed, p) })
			continue
		}
		nodes, err := svc.FindNodes(ctx, p.ID)
		if err != nil {
			return err
		}
		links, err := svc.FindLinks(ctx, p.ID)
		if err != nil {
			return err
		}
		f.Load(nodes, links)
		nios, err := svc.FindNIOs(ctx, p.ID)
		if err != nil {
			return err
		}
		f.LoadNIOs(nios)
	}
	return nil
}
