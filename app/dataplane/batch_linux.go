package dataplane

import (
	"cmp"
	"errors"
	"net"
	"os"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"nodedesk/app"
)

// batch reads datagrams from one connected UDP socket several at a time,
// with recvmmsg, without allocating: one system call for all the datagrams
// that have queued, where net.UDPConn takes one each. On a net.UDPConn
// (newBatch) it waits in Go's netpoller as net.UDPConn does; on a sock
// (newPollBatch) it blocks in the kernel, on the calling thread. A batch
// is used by one goroutine at a time.
type batch struct {
	conn *net.UDPConn
	bufs [][]byte // receive buffers
	lens []int    // datagram lengths of the last recv

	rc   syscall.RawConn
	call mmsgCall
}

// The fabric's UDP endpoints (decision 0050) are blocking sockets outside
// Go's netpoller, read by the fabric's poller threads (poller_linux.go).
// Closing one shuts it down first, which fails other threads' sends, then
// waits for the calls on it to return before it closes the descriptor: a
// stopped node's port is free again when close returns, so that the node
// can start again on it at once.

// sock is one UDP endpoint of the fabric: a socket bound and connected to
// its peer, in blocking mode, never registered with the netpoller.
type sock struct {
	file *os.File
	rc   syscall.RawConn
	shut func(fd uintptr)
	// calls is held for reading through every call on the socket and for
	// writing by close: os.File closes a blocking descriptor when the last
	// call on it returns, which may be after its Close has returned.
	calls  sync.RWMutex
	closed bool // under calls
	// netio is set on an IOU bridge's socket (netio_linux.go): it may not
	// be connected yet, and its sends never wait for the IOU process.
	netio *netioConn
}

// openSock opens p's socket: bound to p.bind:p.local, connected to
// p.remote (so the kernel drops datagrams from anyone else).
func openSock(p udpPeer) (*sock, error) {
	raddr, err := net.ResolveUDPAddr("udp", p.remote)
	if err != nil {
		return nil, app.Errorf(app.EINVALID, "UDP peer %s cannot be reached: %v", p.remote, err)
	}
	family, rsa := unix.AF_INET, unix.Sockaddr(nil)
	var lsa unix.Sockaddr
	lip := net.ParseIP(p.bind)
	if ip4 := raddr.IP.To4(); ip4 != nil {
		r := &unix.SockaddrInet4{Port: raddr.Port}
		copy(r.Addr[:], ip4)
		l := &unix.SockaddrInet4{Port: p.local}
		if lip != nil {
			if lip.To4() == nil {
				return nil, app.Errorf(app.EINVALID, "UDP peer %s is IPv4 but the local address %s is not", p.remote, p.bind)
			}
			copy(l.Addr[:], lip.To4())
		}
		rsa, lsa = r, l
	} else {
		family = unix.AF_INET6
		r := &unix.SockaddrInet6{Port: raddr.Port}
		copy(r.Addr[:], raddr.IP.To16())
		l := &unix.SockaddrInet6{Port: p.local}
		if lip != nil {
			copy(l.Addr[:], lip.To16())
		}
		rsa, lsa = r, l
	}
	fd, err := unix.Socket(family, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.IPPROTO_UDP)
	if err != nil {
		return nil, app.Errorf(app.EINTERNAL, "no UDP socket for %s: %v", p.remote, err)
	}
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, 1<<20)
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, 1<<20)
	if err := unix.Bind(fd, lsa); err != nil {
		_ = unix.Close(fd)
		return nil, app.Errorf(app.ECONFLICT, "UDP port %d is taken by another program: %v", p.local, err)
	}
	if err := unix.Connect(fd, rsa); err != nil {
		_ = unix.Close(fd)
		return nil, app.Errorf(app.EINVALID, "UDP peer %s cannot be reached: %v", p.remote, err)
	}
	s := &sock{file: os.NewFile(uintptr(fd), "udp "+p.remote)}
	if s.rc, err = s.file.SyscallConn(); err != nil {
		_ = s.file.Close()
		return nil, err
	}
	s.shut = func(fd uintptr) { _ = unix.Shutdown(int(fd), unix.SHUT_RDWR) }
	return s, nil
}

// close shuts s down, which wakes a thread waiting in a send on it, and
// closes it once no call is on it any more: when close returns, the
// descriptor, and so its port, is released.
func (s *sock) close() {
	_ = s.rc.Control(s.shut)
	s.calls.Lock()
	defer s.calls.Unlock()
	s.closed = true
	_ = s.file.Close()
}

// hold takes a hold on s for one call, which close waits for; false once
// s is closed. Each hold is given back with s.calls.RUnlock.
func (s *sock) hold() bool {
	s.calls.RLock()
	if s.closed {
		s.calls.RUnlock()
		return false
	}
	return true
}

// control runs fn on s's descriptor, as syscall.RawConn's Control does,
// unless s is closed.
func (s *sock) control(fn func(fd uintptr)) error {
	if !s.hold() {
		return os.ErrClosed
	}
	defer s.calls.RUnlock()
	return s.rc.Control(fn)
}

// newPollBatch returns a batch of n buffers of size bytes each that reads
// whichever sock recv is given, taking what has queued without waiting.
func newPollBatch(n, size int) *batch {
	b := &batch{bufs: make([][]byte, n), lens: make([]int, n)}
	for i := range b.bufs {
		b.bufs[i] = make([]byte, size)
	}
	b.initCall()
	b.call.blocking = true
	b.call.flags = unix.MSG_DONTWAIT
	return b
}

// recv reads into b what has queued on s; errNothing when nothing has.
func (s *sock) recv(b *batch) (int, error) {
	if !s.hold() {
		return 0, os.ErrClosed
	}
	defer s.calls.RUnlock()
	b.rc = s.rc
	return b.recv()
}

// send writes frames to s with the fabric's sender (blocking: a full
// socket buffer makes the thread wait in the kernel, until close wakes
// it). An IOU bridge's frames are sent only once it is connected, and
// never wait: a full IOU process's queue drops them (netioConn).
func (s *sock) send(tx *sender, frames [][]byte) error {
	nc := s.netio
	if nc != nil && !nc.ready(s) { // before the hold: ready takes one
		return errNotConnected
	}
	if !s.hold() {
		return os.ErrClosed
	}
	defer s.calls.RUnlock()
	tx.blocking = true
	tx.call.flags = 0
	if nc != nil {
		tx.call.flags = unix.MSG_DONTWAIT
	}
	err := tx.send(nil, s.rc, frames)
	if nc != nil {
		nc.failed(err)
	}
	return err
}

// mmsghdr is struct mmsghdr of recvmmsg(2).
type mmsghdr struct {
	hdr unix.Msghdr
	len uint32
	_   [4]byte
}

func (b *batch) init() error {
	rc, err := b.conn.SyscallConn()
	if err != nil {
		return err
	}
	b.rc = rc
	b.initCall()
	return nil
}

func (b *batch) initCall() {
	hdrs, iovs := make([]mmsghdr, len(b.bufs)), make([]unix.Iovec, len(b.bufs))
	for i := range hdrs {
		iovs[i].Base = &b.bufs[i][0]
		iovs[i].SetLen(len(b.bufs[i]))
		hdrs[i].hdr.Iov = &iovs[i]
		hdrs[i].hdr.SetIovlen(1)
	}
	b.call.init(unix.SYS_RECVMMSG, hdrs)
}

// recv waits for at least one datagram and reads all that have queued, up
// to len(bufs). A datagram longer than its buffer is cut to it (the caller
// makes buffers one byte longer than the largest datagram it keeps).
func (b *batch) recv() (int, error) {
	n, err := b.call.run(b.rc, len(b.bufs))
	for i := range n {
		b.lens[i] = int(b.call.hdrs[i].len)
	}
	return n, err
}

// sender writes datagrams to connected UDP sockets several at a time, with
// sendmmsg, without allocating. It is used by one goroutine at a time, but
// may write to any socket.
type sender struct {
	iovs     []unix.Iovec
	call     mmsgCall
	blocking bool // the sockets are a sock's: the kernel waits, not the netpoller
}

// send writes frames in order to conn (whose raw connection is rc),
// waiting while its buffer is full as net.UDPConn's Write does. A frame
// the kernel refuses (a peer's ICMP port unreachable, reported on the
// next send) is dropped and the others are still sent; send returns the
// first such error.
func (s *sender) send(_ *net.UDPConn, rc syscall.RawConn, frames [][]byte) error {
	if s.iovs == nil {
		s.init()
	}
	var first error
	for len(frames) > 0 {
		k := min(len(frames), len(s.iovs))
		for i, f := range frames[:k] {
			s.iovs[i].Base = unsafe.SliceData(f)
			s.iovs[i].SetLen(len(f))
		}
		n, err := s.call.run(rc, k)
		if err != nil {
			if errno, refused := err.(syscall.Errno); !refused || errno == unix.EPIPE {
				return err // the socket is closed, or shut down to be
			}
			first, n = cmp.Or(first, err), 1 // drop the refused frame
		}
		frames = frames[max(n, 1):] // a call that sent nothing drops one: the loop ends
	}
	return first
}

func (s *sender) init() {
	s.iovs = make([]unix.Iovec, batchSize)
	hdrs := make([]mmsghdr, batchSize)
	for i := range hdrs {
		hdrs[i].hdr.Iov = &s.iovs[i]
		hdrs[i].hdr.SetIovlen(1)
	}
	s.call.init(unix.SYS_SENDMMSG, hdrs)
	s.call.blocking = s.blocking
}

// mmsgCall is one recvmmsg or sendmmsg system call through a RawConn, with
// the callback bound once so that running it does not allocate.
type mmsgCall struct {
	trap     uintptr
	flags    uintptr
	blocking bool // the socket blocks: call it under Control, never wait in the netpoller
	hdrs     []mmsghdr
	vlen     int
	n        int
	errno    syscall.Errno
	fn       func(fd uintptr) bool
	ctl      func(fd uintptr)
}

func (c *mmsgCall) init(trap uintptr, hdrs []mmsghdr) {
	c.trap, c.hdrs, c.fn = trap, hdrs, c.do
	c.ctl = func(fd uintptr) { c.do(fd) }
}

// errNothing is a read without waiting that found nothing queued.
var errNothing = errors.New("dataplane: nothing to read")

// run makes the call on the first vlen headers, waiting in the netpoller
// until the socket is ready; it returns how many datagrams moved.
func (c *mmsgCall) run(rc syscall.RawConn, vlen int) (int, error) {
	c.vlen, c.n, c.errno = vlen, 0, 0
	if c.blocking {
		if err := rc.Control(c.ctl); err != nil {
			return 0, err
		}
		if c.errno != 0 {
			return 0, c.errno
		}
		if c.n == 0 && c.trap == unix.SYS_RECVMMSG {
			return 0, errNothing
		}
		return c.n, nil
	}
	wait := rc.Read
	if c.trap == unix.SYS_SENDMMSG {
		wait = rc.Write
	}
	if err := wait(c.fn); err != nil {
		return 0, err
	}
	if c.errno != 0 {
		return 0, c.errno
	}
	return c.n, nil
}

// do runs the call on fd; false asks the netpoller to wait until fd is
// ready.
func (c *mmsgCall) do(fd uintptr) bool {
	for {
		n, _, e := unix.Syscall6(c.trap, fd, uintptr(unsafe.Pointer(&c.hdrs[0])), uintptr(c.vlen), c.flags, 0, 0)
		switch e {
		case 0:
			c.n = int(n)
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return false
		default:
			c.errno = e
		}
		return true
	}
}
