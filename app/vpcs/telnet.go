package vpcs

import (
	"bytes"
	"net"
	"time"
)

// The telnet side of a console. On connect the server offers to echo and
// to suppress go-ahead, which puts telnet and PuTTY in character mode: each
// key goes straight to VPCS, whose terminal echoes it. Commands the client
// sends (IAC sequences) are understood and dropped; CR NUL and CR LF, the
// telnet spellings of Enter, become CR.

const (
	iac  = 255
	dont = 254
	do   = 253
	wont = 252
	will = 251
	sb   = 250
	se   = 240

	optEcho = 1
	optSGA  = 3
)

// negotiation is sent to every new client.
var negotiation = []byte{iac, will, optEcho, iac, will, optSGA, iac, do, optSGA}

// escapeIAC doubles 0xFF bytes of terminal output, as telnet requires.
func escapeIAC(b []byte) []byte {
	if bytes.IndexByte(b, iac) < 0 {
		return append([]byte(nil), b...)
	}
	return bytes.ReplaceAll(b, []byte{iac}, []byte{iac, iac})
}

// clientQueue bounds the output waiting for one client; a client that
// cannot keep up is disconnected rather than slowing the console down.
const clientQueue = 256

// writeWait bounds one write to a client.
const writeWait = 10 * time.Second

// client is one telnet connection to a console.
type client struct {
	pr   *proc
	conn net.Conn
	out  chan []byte
	// closed is guarded by the proc's mu, under which every send and
	// close happens.
	closed bool
	state  int  // telnet parser state, below
	cr     bool // the last data byte was CR
}

// Telnet parser states.
const (
	stData = iota
	stIAC
	stOption // after WILL/WONT/DO/DONT
	stSub    // inside SB ... IAC SE
	stSubIAC
)

func newClient(pr *proc, conn net.Conn) *client {
	return &client{pr: pr, conn: conn, out: make(chan []byte, clientQueue)}
}

// send queues output without waiting. Call with c.pr.mu held.
func (c *client) send(b []byte) {
	if c.closed {
		return
	}
	select {
	case c.out <- b:
	default:
		c.close()
	}
}

// close ends the connection. Call with c.pr.mu held.
func (c *client) close() {
	if !c.closed {
		c.closed = true
		c.conn.Close()
		close(c.out)
	}
}

func (c *client) serve() {
	defer c.pr.drop(c)
	go func() {
		_ = c.conn.SetWriteDeadline(time.Now().Add(writeWait))
		if _, err := c.conn.Write(negotiation); err != nil {
			c.conn.Close() // the reader below sees it and cleans up
		}
		for b := range c.out {
			_ = c.conn.SetWriteDeadline(time.Now().Add(writeWait))
			if _, err := c.conn.Write(b); err != nil {
				c.conn.Close()
			}
		}
	}()
	buf := make([]byte, 1024)
	for {
		n, err := c.conn.Read(buf)
		if n > 0 {
			if data := c.filter(buf[:n]); len(data) > 0 {
				c.pr.input(data)
			}
		}
		if err != nil {
			c.pr.mu.Lock()
			c.close()
			c.pr.mu.Unlock()
			return
		}
	}
}

// filter removes telnet commands from what a client sent and turns its
// line ends into CR.
func (c *client) filter(in []byte) []byte {
	out := make([]byte, 0, len(in))
	for _, b := range in {
		switch c.state {
		case stData:
			switch {
			case b == iac:
				c.state = stIAC
			case c.cr && (b == 0 || b == '\n'):
				c.cr = false // CR NUL / CR LF: the CR was sent already
			default:
				c.cr = b == '\r'
				out = append(out, b)
			}
		case stIAC:
			switch b {
			case iac:
				out = append(out, iac)
				c.state = stData
			case will, wont, do, dont:
				c.state = stOption
			case sb:
				c.state = stSub
			default:
				c.state = stData
			}
		case stOption:
			c.state = stData
		case stSub:
			if b == iac {
				c.state = stSubIAC
			}
		case stSubIAC:
			if b == se {
				c.state = stData
			} else {
				c.state = stSub
			}
		}
	}
	return out
}
