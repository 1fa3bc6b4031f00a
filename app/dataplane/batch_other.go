//go:build !linux

package dataplane

import (
	"cmp"
	"errors"
	"net"
	"syscall"
)

// batch reads datagrams from one connected UDP socket, one per system call
// where recvmmsg is missing.
type batch struct {
	conn *net.UDPConn
	bufs [][]byte
	lens []int
}

func (b *batch) init() error { return nil }

// recv waits for one datagram.
func (b *batch) recv() (int, error) {
	n, err := b.conn.Read(b.bufs[0])
	if err != nil {
		return 0, err
	}
	b.lens[0] = n
	return 1, nil
}

// sender writes datagrams to connected UDP sockets, one per system call
// where sendmmsg is missing.
type sender struct{}

// send writes frames in order to conn; a frame the kernel refuses is
// dropped and the others are still sent. It returns the first error.
func (s *sender) send(conn *net.UDPConn, _ syscall.RawConn, frames [][]byte) error {
	var first error
	for _, f := range frames {
		if _, err := conn.Write(f); err != nil {
			if errors.Is(err, net.ErrClosed) {
				return err
			}
			first = cmp.Or(first, err)
		}
	}
	return first
}
