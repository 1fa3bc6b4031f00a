package dataplane

import (
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"nodedesk/app"
)

// Host ports: ports of the lab that are interfaces of this machine. A
// cloud's ethernet port bridges the lab to a host interface (an AF_PACKET
// socket), its tap port to a TAP device (created, or attached to when it
// exists); a running veth node (Docker) has the host end of one veth pair
// per port, read and written as an ethernet port. Each is an endpoint of
// the fabric like a UDP one: frames that cross a wire to it are written to
// the interface, frames read from it enter the lab there. It is open while
// its node wants it (a cloud always, a veth node while active) and the port
// is linked: GNS3 attaches only connected ports, a fresh cloud puts no host
// interface in promiscuous mode, and an unlinked container port has nothing
// to carry.
//
// An interface can be missing for a while: a cloud's NIC unplugged, a
// container's veths that go with it when it dies (a moment before its node
// is recorded stopped, which closes the port) or come back new when it is
// restarted in place. So a port whose open or read fails is opened again,
// by name, after a pause that doubles from hostRetryMin to hostRetryMax
// (then one attempt a second, however long it lasts), and an outage is
// logged once, only when it has lasted hostQuiet.
const (
	hostRetryMin = 50 * time.Millisecond
	hostRetryMax = time.Second
	hostQuiet    = 2 * time.Second
)

// hostIf is what a host port opens.
type hostIf struct {
	kind  string // "ethernet" (an AF_PACKET socket) or "tap"
	iface string // the interface or TAP device
	name  string // the port's, for messages
}

// hostEndpoints lists the ports of n that are host ports, as n now is: a
// cloud's ethernet and tap ports (port i is entry i, as GNS3 numbers
// them) but those that came from a project file and are not yet
// confirmed, and, while a veth node is started, each of its ports (port i of
// n.Ports() is the host end app.VethName(n.ID, i)). It is nil for a node
// that has none.
func hostEndpoints(n *app.Node) map[end]hostIf {
	var want map[end]hostIf
	add := func(at end, h hostIf) {
		if want == nil {
			want = map[end]hostIf{}
		}
		want[at] = h
	}
	if n.Type.UsesCloudPorts() {
		for i, p := range n.Properties.CloudPorts {
			if app.IsHostPort(p) && !p.Unconfirmed { // a file's interface waits for this machine's user
				add(end{n.ID, 0, i}, hostIf{kind: p.Type, iface: p.Interface, name: p.Name})
			}
		}
	}
	// A suspended (paused) container's kernel would still answer ARP and
	// ping: its ports carry nothing until it resumes, as a suspended
	// process's UDP ports carry nothing.
	if n.Type.UsesVeths() && n.Status == app.Started {
		for i, p := range n.Ports() {
			add(end{n.ID, p.AdapterNumber, p.PortNumber}, hostIf{kind: "ethernet", iface: app.VethName(n.ID, i), name: p.Name})
		}
	}
	return want
}

// hostPort is a host port the fabric carries: in the topology from the
// moment it is wanted and linked, with a socket whenever its interface
// can be opened.
type hostPort struct {
	at   end
	spec hostIf
	tell func(msg func(node string) string) // warns the node's project (tellProject)

	mu     sync.Mutex      // guards what follows; one write at a time: workers share the port
	file   *os.File        // the open socket or TAP; nil while there is none
	rc     syscall.RawConn // file's
	closed bool
	wr     rawWrite

	done chan struct{} // closed by close
	gone chan struct{} // closed when the reader has returned
	once sync.Once
}

// close closes the port for good and returns once its reader has
// returned: no socket stays open on the interface.
func (h *hostPort) close() {
	h.once.Do(func() {
		h.mu.Lock()
		h.closed = true
		if h.file != nil {
			_ = h.file.Close()
			h.file, h.rc = nil, nil
		}
		h.mu.Unlock()
		close(h.done)
		<-h.gone
	})
}

// open opens h's interface and makes it the one frames are written to.
func (h *hostPort) open() (*os.File, syscall.RawConn, error) {
	file, err := openHost(h.spec)
	if err != nil {
		return nil, nil, err
	}
	rc, err := file.SyscallConn()
	if err != nil {
		_ = file.Close()
		return nil, nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		_ = file.Close()
		return nil, nil, os.ErrClosed
	}
	h.file, h.rc = file, rc
	return file, rc, nil
}

// drop closes file, which open returned, and stops writes to it.
func (h *hostPort) drop(file *os.File) {
	if file == nil {
		return
	}
	h.mu.Lock()
	if h.file == file {
		h.file, h.rc = nil, nil
	}
	h.mu.Unlock()
	_ = file.Close()
}

// write sends one frame to the interface without waiting: a frame the
// interface cannot take now (its queue is full, it is down or away, the
// frame is over its MTU) is dropped, as a full or broken link drops it.
func (h *hostPort) write(frame []byte) {
	h.mu.Lock()
	if h.rc != nil {
		h.wr.frame = frame
		_ = h.rc.Write(h.wr.fn)
		h.wr.frame = nil
	}
	h.mu.Unlock()
}

// rawWrite is one write(2) through a RawConn, with the callback bound once
// so that a write does not allocate.
type rawWrite struct {
	frame []byte
	fn    func(fd uintptr) bool
}

func (r *rawWrite) init() { r.fn = r.do }

// CheckHostPort tells whether the fabric can open a cloud's host port now
// (app.HostPorts): no linked port already holds the interface (two ports
// on one NIC would bridge it twice into the lab; a TAP takes one), the
// interface exists (ethernet), this process has the privileges the port
// needs. It opens nothing that stays.
func (f *Fabric) CheckHostPort(p app.CloudPort) error {
	for _, h := range f.topo.Load().host {
		if h.spec.iface == p.Interface {
			return app.Errorf(app.ECONFLICT, "Host interface %s is already used by a linked port (%s); one cloud port per interface", p.Interface, h.spec.name)
		}
	}
	return checkHostPort(p)
}

// privilegeError is the refusal of a host port this process lacks the
// privileges for, with the command that grants them to nodedesk's binary.
func privilegeError(p app.CloudPort, what string) error {
	return app.Errorf(app.ECONFLICT, "Cloud port %s needs %s. %s", p.Name, what, app.GrantNetworkHint())
}

// setHostPorts records the host ports node id wants (hostEndpoints; nil:
// none) and opens or closes its ports to match. It runs under mu.
func (f *Fabric) setHostPorts(d *draft, id string, want map[end]hostIf) {
	if want == nil {
		if _, ok := f.hostWant[id]; !ok {
			return // it had none: none is open
		}
		delete(f.hostWant, id)
	} else {
		if f.hostWant == nil {
			f.hostWant = map[string]map[end]hostIf{}
		}
		f.hostWant[id] = want
	}
	f.syncHostPorts(d, id)
}

// syncHostPorts opens the host ports of node id that are wanted and linked
// and not open, and closes those that are open but unlinked, no longer
// wanted or changed. It runs under mu.
func (f *Fabric) syncHostPorts(d *draft, id string) {
	want := f.hostWant[id]
	for at, h := range d.r().host {
		if at.node == id && (want[at] != h.spec || d.r().wires[at] == nil) {
			h.close()
			delete(d.w().host, at)
		}
	}
	for at, spec := range want {
		if d.r().wires[at] == nil || d.r().host[at] != nil {
			continue
		}
		d.w().host[at] = f.openHostPort(at, spec)
	}
}

// syncHostPortsAt opens or closes the host ports at ends, which a wire's
// creation or deletion links or unlinks. It runs under mu.
func (f *Fabric) syncHostPortsAt(d *draft, ends ...end) {
	for _, e := range ends {
		if _, ok := f.hostWant[e.node]; ok {
			f.syncHostPorts(d, e.node)
		}
	}
}

// openHostPort makes the host port at, opens it now (so that a frame sent
// as soon as its link is announced gets through) and starts its reader,
// which retries if that failed.
func (f *Fabric) openHostPort(at end, spec hostIf) *hostPort {
	h := &hostPort{at: at, spec: spec, tell: f.tellProject(at.node), done: make(chan struct{}), gone: make(chan struct{})}
	h.wr.init()
	file, rc, err := h.open()
	go f.runHost(h, file, rc, err)
	return h
}

// runHost carries what host port h reads into the lab, until h is closed.
// file and rc are its open socket, or err why the first open failed. A
// failed read or open closes the socket and opens it again after a pause
// (see hostRetryMin); an outage that lasts hostQuiet is logged once, and
// the first frame after it too. An outage ends with a frame read, or a
// socket that stays open hostQuiet (an interface that is down fails at
// once).
func (f *Fabric) runHost(h *hostPort, file *os.File, rc syscall.RawConn, err error) {
	defer close(h.gone)
	w := f.workers.Get().(*worker)
	defer f.workers.Put(w)
	rd := newHostReader(h.spec.kind == "ethernet")
	var (
		since  time.Time // when the outage began; zero: none
		logged bool      // the outage was logged
		pause  time.Duration
		opened time.Time // when the socket was opened
	)
	for {
		if err == nil {
			rd.use(rc)
			opened = time.Now()
		}
		for err == nil {
			var frame []byte
			if frame, err = rd.read(); err != nil {
				break
			}
			if !since.IsZero() {
				if logged {
					f.log.Info("dataplane: a host port carries frames again", "port", h.spec.name, "interface", h.spec.iface)
				}
				since, logged, pause = time.Time{}, false, 0
			}
			if len(frame) == 0 || len(frame) > MaxFrame {
				continue // a giant (coalesced by GRO/LRO) or nothing
			}
			w.now = time.Now()
			w.input(h.at, frame)
			w.flush()
		}
		h.drop(file)
		select {
		case <-h.done:
			return
		default:
		}
		if !since.IsZero() && opened.After(since) && time.Since(opened) >= hostQuiet {
			since, logged, pause = time.Time{}, false, 0 // it worked a while (without a frame): a new outage
		}
		if since.IsZero() {
			since = time.Now()
		} else if !logged && time.Since(since) >= hostQuiet {
			f.log.Warn("dataplane: a host port cannot carry frames; retrying every second", "port", h.spec.name, "type", h.spec.kind, "interface", h.spec.iface, "err", err)
			h.tell(func(node string) string {
				return fmt.Sprintf("Port %s of %s carries no frames: %s interface %s cannot be used (%v). nodedesk retries every second; check that the interface exists and is up, or bind the port to another one", h.spec.name, node, h.spec.kind, h.spec.iface, err)
			})
			logged = true
		}
		pause = min(max(2*pause, hostRetryMin), hostRetryMax)
		select {
		case <-h.done:
			return
		case <-time.After(pause):
		}
		file, rc, err = h.open()
	}
}
