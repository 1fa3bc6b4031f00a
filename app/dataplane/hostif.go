package dataplane

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"nodedesk/app"
)

// A cloud's host ports: a port of type ethernet bridges the lab to a host
// interface (an AF_PACKET socket), one of type tap to a TAP device
// (created, or attached to when it exists). Each is an endpoint of the
// fabric like a UDP one: frames that cross a wire to it are written to
// the interface, frames read from it enter the lab there. It is open while
// the port is linked (as GNS3 attaches only connected ports, and a fresh
// cloud puts no host interface in promiscuous mode).

// hostPort is an open host port.
type hostPort struct {
	at   end
	spec app.CloudPort
	file *os.File
	rc   syscall.RawConn

	mu sync.Mutex // one write at a time: workers share the port
	wr rawWrite

	done chan struct{}
	once sync.Once
}

func (h *hostPort) close() {
	h.once.Do(func() {
		_ = h.file.Close()
		close(h.done)
	})
}

// write sends one frame to the interface without waiting: a frame the
// interface cannot take now (its queue is full, it is down, the frame is
// over its MTU) is dropped, as a full or broken link drops it.
func (h *hostPort) write(frame []byte) {
	h.mu.Lock()
	h.wr.frame = frame
	_ = h.rc.Write(h.wr.fn)
	h.wr.frame = nil
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
// (app.HostPorts): no linked cloud port already holds the interface (two
// ports on one NIC would bridge it twice into the lab; a TAP takes one),
// the interface exists (ethernet), this process has the privileges the
// port needs. It opens nothing that stays.
func (f *Fabric) CheckHostPort(p app.CloudPort) error {
	for _, h := range f.topo.Load().host {
		if h.spec.Interface == p.Interface {
			return app.Errorf(app.ECONFLICT, "Host interface %s is already used by a linked cloud port (%s); one cloud port per interface", p.Interface, h.spec.Name)
		}
	}
	return checkHostPort(p)
}

// privilegeError is the refusal of a host port this process lacks the
// privileges for, with the command that grants them to nodedesk's binary.
func privilegeError(p app.CloudPort, what string) error {
	exe, err := os.Executable()
	if err == nil {
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r // setcap refuses a symbolic link
		}
	} else {
		exe = "/path/to/nodedesk"
	}
	return app.Errorf(app.ECONFLICT, "Cloud port %s needs %s. Grant it once with: sudo setcap cap_net_raw,cap_net_admin+ep %s — then restart nodedesk (run it again after each rebuild or copy of the binary)",
		p.Name, what, exe)
}

// syncHostPorts opens the host ports of cloud id that are linked and not
// open, and closes those that are open but unlinked, gone or changed. It
// runs under mu.
func (f *Fabric) syncHostPorts(d *draft, id string) {
	ports := f.clouds[id]
	for at, h := range d.r().host {
		if at.node != id {
			continue
		}
		if at.port >= len(ports) || ports[at.port] != h.spec || d.r().wires[at] == nil {
			h.close()
			delete(d.w().host, at)
		}
	}
	for i, p := range ports {
		at := end{id, 0, i}
		if !app.IsHostPort(p) || d.r().wires[at] == nil || d.r().host[at] != nil {
			continue
		}
		h, err := openHostPort(at, p)
		if err != nil {
			f.log.Error("dataplane: a cloud host port cannot carry frames", "port", p.Name, "type", p.Type, "interface", p.Interface, "err", err)
			continue
		}
		d.w().host[at] = h
		go f.readHost(h)
	}
}

// readHost carries what a host port reads into the lab, until it is
// closed.
func (f *Fabric) readHost(h *hostPort) {
	w := f.workers.Get().(*worker)
	defer f.workers.Put(w)
	rd := newHostReader(h)
	logged := false
	for {
		frame, err := rd.read()
		if err != nil {
			if errors.Is(err, os.ErrClosed) {
				return
			}
			if !logged { // the interface went down or away: retry, at a bounded rate
				f.log.Warn("dataplane: a cloud host port cannot read", "port", h.spec.Name, "interface", h.spec.Interface, "err", err)
				logged = true
			}
			select {
			case <-h.done:
				return
			case <-time.After(100 * time.Millisecond):
			}
			continue
		}
		if len(frame) == 0 || len(frame) > MaxFrame {
			continue // a giant (coalesced by GRO/LRO) or nothing
		}
		w.now = time.Now()
		w.input(h.at, frame)
		w.flush()
	}
}
