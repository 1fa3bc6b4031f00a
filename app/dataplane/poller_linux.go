package dataplane

import (
	"errors"
	"maps"
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"nodedesk/app"
)

// The fabric's pollers (decision 0050): a few OS threads, one per
// processor Go may use but one (at least one), each blocked in epoll_wait
// over its share of the UDP endpoints. A poller reads what has queued on
// each ready socket (recvmmsg), carries the frames through the lab and
// writes them (sendmmsg) itself: a frame costs one wake-up of one thread
// and three system calls, where the netpoller woke a goroutine on another
// thread. A frame a poller sends to one of its own sockets (a NIO pair) is
// read on its next turn, without sleeping. Fewer blocked threads than Go's
// processors keep a processor free, so a thread that wakes never waits for
// the runtime to take one back from another. A poller ends with its last
// endpoint.

// readers are the fabric's pollers; they are changed under the fabric's mu.
type readers struct {
	pollers []*poller
}

// reading is the poller that reads one endpoint, and its id there.
type reading struct {
	p  *poller
	id int32
}

// poller is one thread reading its endpoints: with io_uring where the
// kernel lets us (ring, uring_linux.go), else with epoll.
type poller struct {
	f     *Fabric
	ring  *ringer // nil: the epoll poller below
	epfd  int
	evfd  int                                // written to stop the thread
	ports atomic.Pointer[map[int32]*udpPort] // id -> endpoint; replaced whole under mu
	n     int                                // endpoints; under mu
	stop  atomic.Bool
	gone  chan struct{} // closed when the thread returns
}

// portIDs numbers endpoints in their pollers (0 is the poller's eventfd).
var portIDs atomic.Int32

// maxPollers is how many poller threads the fabric runs at most.
func maxPollers() int { return max(1, runtime.GOMAXPROCS(0)-1) }

// yieldEvery is how often a poller passes through Go's scheduler while
// frames keep it busy: the runtime takes the processor of a goroutine that
// has not for 10 ms (a signal and a hand-off, after which its monitor
// thread polls every 20 µs for a while), which costs more than yielding.
const yieldEvery = 8 * time.Millisecond

// startReading gives u to a poller: a new one while there are fewer than
// maxPollers, else the one with the fewest endpoints. It runs under mu.
func (f *Fabric) startReading(u *udpPort) error {
	r := &f.readers
	var p *poller
	if len(r.pollers) < maxPollers() {
		var err error
		if p, err = newPoller(f); err != nil {
			return err
		}
		r.pollers = append(r.pollers, p)
	} else {
		p = r.pollers[0]
		for _, q := range r.pollers {
			if q.n < p.n {
				p = q
			}
		}
	}
	if p.ring != nil {
		if err := p.ring.call(ringMsg{op: ringAdd, u: u}); err != nil {
			p.release()
			return app.Errorf(app.EINTERNAL, "a UDP endpoint cannot be watched: %v", err)
		}
		p.n++
		u.rd = reading{p: p}
		return nil
	}
	id := portIDs.Add(1)
	for id <= 0 { // wrapped
		portIDs.CompareAndSwap(id, 0)
		id = portIDs.Add(1)
	}
	m := maps.Clone(*p.ports.Load())
	m[id] = u
	p.ports.Store(&m)
	var err error
	ctl := u.sock.control(func(fd uintptr) {
		err = unix.EpollCtl(p.epfd, unix.EPOLL_CTL_ADD, int(fd), &unix.EpollEvent{Events: unix.EPOLLIN, Fd: id})
	})
	if err = cmpErr(ctl, err); err != nil {
		m := maps.Clone(*p.ports.Load())
		delete(m, id)
		p.ports.Store(&m)
		p.release()
		return app.Errorf(app.EINTERNAL, "a UDP endpoint cannot be watched: %v", err)
	}
	p.n++
	u.rd = reading{p: p, id: id}
	return nil
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// stopReading takes u from its poller, which ends with its last endpoint.
// It runs under mu.
func (u *udpPort) stopReading() {
	p := u.rd.p
	if p == nil {
		return
	}
	u.closing.Store(true)
	for _, q := range p.f.readers.pollers { // an io_uring poller holds each socket it sends to
		if q.ring != nil {
			_ = q.ring.call(ringMsg{op: ringForget, u: u})
		}
	}
	if p.ring == nil {
		_ = u.sock.control(func(fd uintptr) { _ = unix.EpollCtl(p.epfd, unix.EPOLL_CTL_DEL, int(fd), nil) })
		m := maps.Clone(*p.ports.Load())
		delete(m, u.rd.id)
		p.ports.Store(&m)
	}
	p.n--
	u.rd.p = nil
	p.release()
}

// release stops p and its thread if it has no endpoint left. It runs under
// mu, and waits for the thread, which never takes mu.
func (p *poller) release() {
	if p.n > 0 {
		return
	}
	r := &p.f.readers
	for i, q := range r.pollers {
		if q == p {
			r.pollers = append(r.pollers[:i], r.pollers[i+1:]...)
			break
		}
	}
	if p.ring != nil {
		p.ring.post(ringMsg{op: ringStop})
		<-p.gone
		return
	}
	p.stop.Store(true)
	one := [8]byte{1}
	_, _ = unix.Write(p.evfd, one[:])
	<-p.gone
	_ = unix.Close(p.epfd)
	_ = unix.Close(p.evfd)
}

// newPoller starts a poller on io_uring where the kernel has what it needs
// (decided once, at the first: ringWorks), else on epoll.
func newPoller(f *Fabric) (*poller, error) {
	if !f.noRing && ringWorks() {
		p, err := newRingPoller(f)
		if err == nil {
			return p, nil
		}
		f.log.Warn("dataplane: no io_uring poller, reading with epoll", "err", err)
	}
	return newEpollPoller(f)
}

func newEpollPoller(f *Fabric) (*poller, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, app.Errorf(app.EINTERNAL, "no epoll instance for the data plane: %v", err)
	}
	evfd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		_ = unix.Close(epfd)
		return nil, app.Errorf(app.EINTERNAL, "no eventfd for the data plane: %v", err)
	}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, evfd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: 0}); err != nil {
		_ = unix.Close(epfd)
		_ = unix.Close(evfd)
		return nil, app.Errorf(app.EINTERNAL, "the data plane's eventfd cannot be watched: %v", err)
	}
	p := &poller{f: f, epfd: epfd, evfd: evfd, gone: make(chan struct{})}
	p.ports.Store(&map[int32]*udpPort{})
	go p.run()
	return p, nil
}

// run is the poller's thread: it waits in epoll_wait, then reads every
// ready endpoint and carries its frames, and writes them all before it
// waits again.
func (p *poller) run() {
	defer close(p.gone)
	runtime.LockOSThread() // ends with the thread's goroutine (locked again after each yield)
	w := p.f.workers.Get().(*worker)
	defer p.f.workers.Put(w)
	rx := newPollBatch(batchSize, MaxFrame+1)
	events := make([]unix.EpollEvent, 64)
	yielded := time.Now()
	for {
		n, err := unix.EpollWait(p.epfd, events, -1)
		if p.stop.Load() {
			return
		}
		if err != nil {
			continue // EINTR
		}
		ports := *p.ports.Load()
		w.now = time.Now()
		if w.now.Sub(yielded) > yieldEvery {
			yield()
			yielded = w.now
		}
		for _, ev := range events[:n] {
			u := ports[ev.Fd]
			if u == nil {
				continue // the eventfd, or an endpoint closed since
			}
			if k, err := u.sock.recv(rx); err == nil {
				w.carry(u, rx, k)
			} else if errno := unix.Errno(0); errors.As(err, &errno) && sockBroken(errno) {
				p.f.endFailed(u, errno)
			}
		}
		w.flush()
	}
}

// yield passes through the scheduler without giving up the thread for
// long: a goroutine locked to its thread that yields makes the runtime
// hand its processor to another thread and back (two wake-ups); unlocked
// for the moment, it runs on at once, most often on the same thread.
func yield() {
	runtime.UnlockOSThread()
	runtime.Gosched()
	runtime.LockOSThread()
}

// sockBroken reports whether a read of an endpoint failed with an error
// that says its socket no longer works (rather than a frame refused by a
// peer that is not up, or buffers that ran out): the port carries
// nothing any more, which endFailed tells.
func sockBroken(errno unix.Errno) bool {
	switch errno {
	case unix.EINVAL, unix.EBADF, unix.ENOTSOCK, unix.EOPNOTSUPP, unix.EFAULT:
		return true
	}
	return false
}
