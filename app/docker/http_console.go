package docker

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strconv"
	"sync"
	"time"
)

// A node's http console (console_type http): a TCP port of this machine
// that reaches the web interface the container serves on its own
// loopback at console_http_port, as GNS3 reaches it. Each connection runs
// nodedesk's busybox nc in the container (an exec without a terminal),
// its input and output spliced to the connection, so the container needs
// no network of nodedesk's and a lab's addresses stay the lab's.

// httpRelay serves one node's http console.
type httpRelay struct {
	r    *Runner
	id   string // the container
	port int    // console_http_port, in the container
	lns  []net.Listener

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// openHTTP serves the http console of container id on lns.
func (r *Runner) openHTTP(id string, port int, lns []net.Listener) *httpRelay {
	h := &httpRelay{r: r, id: id, port: port, lns: lns, conns: map[net.Conn]struct{}{}}
	for _, ln := range lns {
		h.wg.Add(1)
		go h.accept(ln)
	}
	return h
}

func (h *httpRelay) accept(ln net.Listener) {
	defer h.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			return // closed
		}
		if !h.track(c, true) {
			c.Close()
			return
		}
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			defer h.track(c, false)
			h.relay(c)
		}()
	}
}

// track adds (or removes) a client connection; false once closed.
func (h *httpRelay) track(c net.Conn, add bool) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !add {
		delete(h.conns, c)
		return true
	}
	if h.closed {
		return false
	}
	h.conns[c] = struct{}{}
	return true
}

// relayStart bounds the start of one connection's nc in the container.
const relayStart = 10 * time.Second

// relay splices client c to a new nc in the container, until either side
// ends.
func (h *httpRelay) relay(c net.Conn) {
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), relayStart)
	_, conn, err := h.r.eng.exec(ctx, h.id, execConfig{Cmd: []string{mountPoint + "/bin/busybox", "nc", "127.0.0.1", strconv.Itoa(h.port)},
		AttachStdin: true})
	cancel()
	if err != nil {
		h.r.c.Logger.Warn("a Docker node's http console could not reach its container", "err", err)
		return
	}
	defer conn.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = copyStdout(c, conn)
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.CloseWrite() // the page is whole: the browser may read to its end
		}
	}()
	_, _ = io.Copy(conn, c)
	if cw, ok := conn.Conn.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite() // the request is whole: nc may answer and end
	}
	<-done
}

// copyStdout writes to w the standard output of an exec's multiplexed
// stream (8-byte headers: the stream, then the length of what follows),
// leaving out its standard error.
func copyStdout(w io.Writer, r io.Reader) error {
	var head [8]byte
	for {
		if _, err := io.ReadFull(r, head[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		n := int64(binary.BigEndian.Uint32(head[4:]))
		dst := w
		if head[0] != 1 { // 1: stdout; 2: stderr
			dst = io.Discard
		}
		if _, err := io.CopyN(dst, r, n); err != nil {
			return err
		}
	}
}

// close stops serving: no new connection, and those open are ended.
func (h *httpRelay) close() {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.closed = true
	for c := range h.conns {
		c.Close()
	}
	h.mu.Unlock()
	for _, ln := range h.lns {
		ln.Close()
	}
	h.wg.Wait()
}
