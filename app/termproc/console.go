package termproc

import (
	"io"
	"net"
	"sync"

	"nodedesk/app/telnet"
)

// Console serves one terminal's byte stream to any number of telnet
// clients: what the terminal prints goes to every client (Output), what
// any client types goes to the terminal (its input writer). A Proc has
// one on its pseudo-terminal; a runner whose terminal is another stream
// (a container's attached TTY) makes its own with NewConsole.
type Console struct {
	lns      []net.Listener
	in       io.Writer // the terminal's input
	greeting []byte    // sent to each client after the negotiation

	mu      sync.Mutex
	clients map[*client]struct{}
	closed  bool
	tail    []byte // the last output, for an exit message
	taps    map[*tap]struct{}
	wmu     sync.Mutex // serialises writes to the terminal
	dialog  *Dialog
}

// NewConsole serves a terminal on lns (which Close closes): input
// receives what clients type, and each new client is sent greeting (if
// any) before the terminal's output.
func NewConsole(lns []net.Listener, input io.Writer, greeting string) *Console {
	c := &Console{lns: lns, in: input, clients: map[*client]struct{}{}, taps: map[*tap]struct{}{}}
	c.dialog = &Dialog{con: c, turn: make(chan struct{}, 1)}
	if greeting != "" {
		c.greeting = telnet.EscapeIAC([]byte(greeting))
	}
	for _, ln := range lns {
		go c.accept(ln)
	}
	return c
}

// Output sends terminal output to every client and keeps its tail.
func (c *Console) Output(b []byte) {
	msg := telnet.EscapeIAC(b)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.keep(b)
	for cl := range c.clients {
		cl.send(msg)
	}
	for t := range c.taps {
		t.add(b)
	}
}

// keep appends b to the tail. Call with c.mu held.
func (c *Console) keep(b []byte) {
	c.tail = append(c.tail, b...)
	if len(c.tail) > tailSize {
		c.tail = c.tail[len(c.tail)-tailSize:]
	}
}

// Tail is the last output (at most 2 KiB).
func (c *Console) Tail() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]byte(nil), c.tail...)
}

// input writes what a client typed to the terminal.
func (c *Console) input(b []byte) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, _ = c.in.Write(b)
}

func (c *Console) accept(ln net.Listener) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return // closed with the console
		}
		cl := newClient(c, conn)
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			conn.Close()
			return
		}
		c.clients[cl] = struct{}{}
		if c.greeting != nil {
			cl.send(c.greeting)
		}
		c.mu.Unlock()
		go cl.serve()
	}
}

// ResetClients disconnects every client (the console stays open).
func (c *Console) ResetClients() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for cl := range c.clients {
		cl.close()
	}
}

// Close closes the listeners and disconnects every client.
func (c *Console) Close() {
	CloseAll(c.lns)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for cl := range c.clients {
		cl.close()
	}
	for t := range c.taps {
		t.close()
	}
}

func (c *Console) drop(cl *client) {
	c.mu.Lock()
	delete(c.clients, cl)
	c.mu.Unlock()
}
