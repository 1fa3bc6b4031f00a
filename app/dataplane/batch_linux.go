package dataplane

import (
	"cmp"
	"net"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// batch reads datagrams from one connected UDP socket several at a time,
// with recvmmsg, without allocating: one system call for all the datagrams
// that have queued, where net.UDPConn takes one each. It waits in Go's
// netpoller as net.UDPConn does. A batch is used by one goroutine at a
// time.
type batch struct {
	conn *net.UDPConn
	bufs [][]byte // receive buffers
	lens []int    // datagram lengths of the last recv

	rc   syscall.RawConn
	call mmsgCall
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
	hdrs, iovs := make([]mmsghdr, len(b.bufs)), make([]unix.Iovec, len(b.bufs))
	for i := range hdrs {
		iovs[i].Base = &b.bufs[i][0]
		iovs[i].SetLen(len(b.bufs[i]))
		hdrs[i].hdr.Iov = &iovs[i]
		hdrs[i].hdr.SetIovlen(1)
	}
	b.call.init(unix.SYS_RECVMMSG, hdrs)
	return nil
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
	iovs []unix.Iovec
	call mmsgCall
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
			if _, refused := err.(syscall.Errno); !refused {
				return err // the socket is closed
			}
			first, n = cmp.Or(first, err), 1 // drop the refused frame
		}
		frames = frames[n:]
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
}

// mmsgCall is one recvmmsg or sendmmsg system call through a RawConn, with
// the callback bound once so that running it does not allocate.
type mmsgCall struct {
	trap  uintptr
	hdrs  []mmsghdr
	vlen  int
	n     int
	errno syscall.Errno
	fn    func(fd uintptr) bool
}

func (c *mmsgCall) init(trap uintptr, hdrs []mmsghdr) {
	c.trap, c.hdrs, c.fn = trap, hdrs, c.do
}

// run makes the call on the first vlen headers, waiting in the netpoller
// until the socket is ready; it returns how many datagrams moved.
func (c *mmsgCall) run(rc syscall.RawConn, vlen int) (int, error) {
	c.vlen, c.n, c.errno = vlen, 0, 0
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
		n, _, e := unix.Syscall6(c.trap, fd, uintptr(unsafe.Pointer(&c.hdrs[0])), uintptr(c.vlen), 0, 0, 0)
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
