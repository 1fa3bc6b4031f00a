package dataplane

import (
	"net"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// batch reads and writes datagrams on one connected UDP socket several at
// a time, with recvmmsg and sendmmsg, without allocating: one system call
// for all the datagrams that have queued, where net.UDPConn takes one
// each. It waits in Go's netpoller like net.UDPConn does. A batch is used
// by one goroutine at a time.
type batch struct {
	conn *net.UDPConn
	bufs [][]byte // receive buffers
	lens []int    // datagram lengths of the last recv

	rc      syscall.RawConn
	hdrs    []mmsghdr
	iovs    []unix.Iovec
	todo    []mmsghdr // the call under way
	n       int
	errno   syscall.Errno
	recvFn  func(fd uintptr) bool
	sendFn  func(fd uintptr) bool
	sendIOV []unix.Iovec
	sendHdr []mmsghdr
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
	n := len(b.bufs)
	b.rc = rc
	b.hdrs, b.iovs = make([]mmsghdr, n), make([]unix.Iovec, n)
	b.sendHdr, b.sendIOV = make([]mmsghdr, n), make([]unix.Iovec, n)
	for i := range b.hdrs {
		b.iovs[i].Base = &b.bufs[i][0]
		b.iovs[i].SetLen(len(b.bufs[i]))
		b.hdrs[i].hdr.Iov = &b.iovs[i]
		b.hdrs[i].hdr.SetIovlen(1)
		b.sendHdr[i].hdr.Iov = &b.sendIOV[i]
		b.sendHdr[i].hdr.SetIovlen(1)
	}
	b.recvFn, b.sendFn = b.recvmmsg, b.sendmmsg
	return nil
}

// recv waits for at least one datagram and reads all that have queued, up
// to len(bufs). A datagram longer than its buffer is cut to it (the caller
// makes buffers one byte longer than the largest datagram it keeps).
func (b *batch) recv() (int, error) {
	b.todo, b.n, b.errno = b.hdrs, 0, 0
	if err := b.rc.Read(b.recvFn); err != nil {
		return 0, err
	}
	if b.errno != 0 {
		return 0, b.errno
	}
	for i := range b.n {
		b.lens[i] = int(b.hdrs[i].len)
	}
	return b.n, nil
}

// send writes frames in order, waiting while the socket's buffer is full
// as net.UDPConn's Write does. It returns the first error, after which
// the remaining frames are not sent.
func (b *batch) send(frames [][]byte) error {
	for len(frames) > 0 {
		k := min(len(frames), len(b.sendHdr))
		for i, f := range frames[:k] {
			if len(f) == 0 {
				f = b.bufs[0][:0:1] // a valid pointer for an empty datagram
			}
			b.sendIOV[i].Base = unsafe.SliceData(f)
			b.sendIOV[i].SetLen(len(f))
		}
		b.todo, b.n, b.errno = b.sendHdr[:k], 0, 0
		if err := b.rc.Write(b.sendFn); err != nil {
			return err
		}
		if b.errno != 0 {
			return b.errno
		}
		frames = frames[b.n:]
	}
	return nil
}

func (b *batch) recvmmsg(fd uintptr) bool {
	return b.mmsg(unix.SYS_RECVMMSG, fd)
}

func (b *batch) sendmmsg(fd uintptr) bool {
	return b.mmsg(unix.SYS_SENDMMSG, fd)
}

// mmsg runs one recvmmsg or sendmmsg on todo; false asks the netpoller to
// wait until the socket is ready.
func (b *batch) mmsg(call, fd uintptr) bool {
	n, _, e := unix.Syscall6(call, fd, uintptr(unsafe.Pointer(&b.todo[0])), uintptr(len(b.todo)), 0, 0, 0)
	switch e {
	case 0:
		b.n = int(n)
	case unix.EAGAIN:
		return false
	case unix.EINTR:
		return b.mmsg(call, fd)
	default:
		b.errno = e
	}
	return true
}
