package termproc

import (
	"net"
	"time"

	"nodedesk/app/telnet"
)

// The telnet side of a console (app/telnet): each key a client types goes
// straight to the simulator, whose terminal echoes it.

// clientQueue bounds the output waiting for one client; a client that
// cannot keep up is disconnected rather than slowing the console down.
const clientQueue = 256

// writeWait bounds one write to a client.
const writeWait = 10 * time.Second

// client is one telnet connection to a console.
type client struct {
	con  *Console
	conn net.Conn
	out  chan []byte
	// closed is guarded by the console's mu, under which every send and
	// close happens.
	closed bool
	in     telnet.Filter
}

func newClient(con *Console, conn net.Conn) *client {
	return &client{con: con, conn: conn, out: make(chan []byte, clientQueue)}
}

// send queues output without waiting. Call with c.con.mu held.
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

// close ends the connection. Call with c.con.mu held.
func (c *client) close() {
	if !c.closed {
		c.closed = true
		c.conn.Close()
		close(c.out)
	}
}

func (c *client) serve() {
	defer c.con.drop(c)
	go func() {
		_ = c.conn.SetWriteDeadline(time.Now().Add(writeWait))
		if _, err := c.conn.Write(telnet.Negotiation); err != nil {
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
			if data := c.in.Data(nil, buf[:n]); len(data) > 0 {
				c.con.input(data)
			}
		}
		if err != nil {
			c.con.mu.Lock()
			c.close()
			c.con.mu.Unlock()
			return
		}
	}
}
