//go:build !linux

package dataplane

import (
	"cmp"
	"errors"
	"net"
	"syscall"
	"time"

	"nodedesk/app"
)

// sock is one UDP endpoint of the fabric: a connected net.UDPConn.
type sock struct {
	conn *net.UDPConn
}

// openSock opens p's socket: bound to p.bind:p.local, connected to
// p.remote.
func openSock(p udpPeer) (*sock, error) {
	raddr, err := net.ResolveUDPAddr("udp", p.remote)
	if err != nil {
		return nil, app.Errorf(app.EINVALID, "UDP peer %s cannot be reached: %v", p.remote, err)
	}
	conn, err := net.DialUDP("udp", &net.UDPAddr{IP: net.ParseIP(p.bind), Port: p.local}, raddr)
	if err != nil {
		return nil, app.Errorf(app.ECONFLICT, "UDP port %d is taken by another program: %v", p.local, err)
	}
	_ = conn.SetReadBuffer(1 << 20)
	_ = conn.SetWriteBuffer(1 << 20)
	return &sock{conn: conn}, nil
}

func (s *sock) close() { _ = s.conn.Close() }

// send writes frames to s.
func (s *sock) send(tx *sender, frames [][]byte) error { return tx.send(s.conn, nil, frames) }

// readers is nothing here: each endpoint has its goroutine.
type readers struct{}

// reading is one endpoint's reading goroutine.
type reading struct {
	done chan struct{} // closed by stopReading
}

// startReading reads u on a goroutine of its own, which waits in the
// netpoller.
func (f *Fabric) startReading(u *udpPort) error {
	rx, err := newBatch(u.sock.conn, batchSize, MaxFrame+1)
	if err != nil {
		return err
	}
	u.rd.done = make(chan struct{})
	go func() {
		w := f.workers.Get().(*worker)
		defer f.workers.Put(w)
		for {
			n, err := rx.recv()
			if err != nil {
				if errors.Is(err, net.ErrClosed) {
					return
				}
				select {
				case <-u.rd.done:
					return
				default:
					continue // ICMP port unreachable from a peer that is not up yet
				}
			}
			w.now = time.Now()
			w.carry(u, rx, n)
			w.flush()
		}
	}()
	return nil
}

// stopReading makes u's goroutine return once its socket is closed.
func (u *udpPort) stopReading() { close(u.rd.done) }

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

// ringer is Linux's io_uring poller; nothing here.
type ringer struct{}

func (*ringer) flushNow(*worker) {}
