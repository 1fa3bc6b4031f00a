//go:build !linux

package dataplane

import "net"

// batch reads and writes datagrams on one connected UDP socket, one per
// system call where recvmmsg and sendmmsg are missing.
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

// send writes frames in order; it returns the first error.
func (b *batch) send(frames [][]byte) error {
	for _, f := range frames {
		if _, err := b.conn.Write(f); err != nil {
			return err
		}
	}
	return nil
}
