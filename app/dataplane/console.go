package dataplane

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
)

// A node's telnet console served by nodedesk itself: today the Ethernet
// switch's shell (switchshell.go). It listens while the node has console
// type telnet and a console port, on the console host.

// maxConsoleSessions bounds the telnet clients of one console at once.
const maxConsoleSessions = 8

// shell is what a console session runs: it reads lines from and writes to
// rw until the client leaves or rw is closed.
type shell func(rw io.ReadWriter)

// consoleServer listens on one node's console port and runs a shell per
// client.
type consoleServer struct {
	addr     string
	ln       net.Listener
	run      shell
	log      *slog.Logger
	mu       sync.Mutex
	sessions map[net.Conn]struct{}
	closed   bool
	wg       sync.WaitGroup
}

// listenConsole starts serving run on host:port.
func listenConsole(host string, port int, run shell, log *slog.Logger) (*consoleServer, error) {
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	c := &consoleServer{addr: addr, ln: ln, run: run, log: log, sessions: map[net.Conn]struct{}{}}
	c.wg.Add(1)
	go c.accept()
	return c, nil
}

func (c *consoleServer) accept() {
	defer c.wg.Done()
	for {
		conn, err := c.ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				c.log.Error("dataplane: console stopped", "addr", c.addr, "err", err)
			}
			return
		}
		if !c.track(conn) {
			_, _ = conn.Write([]byte("This console already has " + strconv.Itoa(maxConsoleSessions) +
				" clients; close one of them and connect again.\r\n"))
			_ = conn.Close()
			continue
		}
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			defer c.untrack(conn)
			c.run(newTelnet(conn))
		}()
	}
}

// track adds conn to the sessions, unless there are too many or c is
// closed.
func (c *consoleServer) track(conn net.Conn) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || len(c.sessions) >= maxConsoleSessions {
		return false
	}
	c.sessions[conn] = struct{}{}
	return true
}

func (c *consoleServer) untrack(conn net.Conn) {
	c.mu.Lock()
	delete(c.sessions, conn)
	c.mu.Unlock()
	_ = conn.Close()
}

// close stops listening, ends every session and waits for them.
func (c *consoleServer) close() {
	c.mu.Lock()
	c.closed = true
	for conn := range c.sessions {
		_ = conn.Close()
	}
	c.mu.Unlock()
	_ = c.ln.Close()
	c.wg.Wait()
}

// Telnet (RFC 854) as far as a line-oriented shell needs it: the server
// says it echoes and suppresses go-ahead, so that the client sends each
// key as typed (character mode, as VPCS's console works and as a terminal
// in a web page needs); the client's negotiation is read and ignored.
const (
	telnetIAC  = 255
	telnetDont = 254
	telnetDo   = 253
	telnetWont = 252
	telnetWill = 251
	telnetSB   = 250
	telnetSE   = 240
	optEcho    = 1
	optSGA     = 3
)

// telnet is a console session's connection with telnet's commands taken
// out of what the client sends. No maintained Go telnet server exists;
// this is the small part a shell needs.
type telnet struct {
	conn  net.Conn
	state int  // where in a command the last byte left us
	cr    bool // the last data byte was a carriage return
	buf   []byte
}

// The states of telnet's reader.
const (
	tnData = iota
	tnIAC
	tnOption // after WILL, WONT, DO, DONT: one option byte
	tnSub    // inside SB ... IAC SE
	tnSubIAC
)

func newTelnet(conn net.Conn) *telnet {
	_, _ = conn.Write([]byte{telnetIAC, telnetWill, optEcho, telnetIAC, telnetWill, optSGA})
	return &telnet{conn: conn, buf: make([]byte, 512)}
}

// Read returns what the client typed: telnet commands removed, CR NUL and
// CR LF read as one Enter, and Ctrl-C read as "erase the line" (Ctrl-U)
// rather than the end of the session.
func (t *telnet) Read(p []byte) (int, error) {
	for {
		n, err := t.conn.Read(t.buf[:min(len(t.buf), len(p))])
		out := 0
		for _, b := range t.buf[:n] {
			if b, ok := t.data(b); ok {
				p[out] = b
				out++
			}
		}
		if out > 0 || err != nil {
			return out, err
		}
	}
}

// data runs one byte of the client's through the reader; ok means it is a
// byte the shell reads.
func (t *telnet) data(b byte) (byte, bool) {
	switch t.state {
	case tnIAC:
		t.state = tnData
		switch b {
		case telnetIAC:
			return b, true
		case telnetWill, telnetWont, telnetDo, telnetDont:
			t.state = tnOption
		case telnetSB:
			t.state = tnSub
		}
		return 0, false
	case tnOption:
		t.state = tnData
		return 0, false
	case tnSub:
		if b == telnetIAC {
			t.state = tnSubIAC
		}
		return 0, false
	case tnSubIAC:
		t.state = tnSub
		if b == telnetSE {
			t.state = tnData
		}
		return 0, false
	}
	if b == telnetIAC {
		t.state = tnIAC
		return 0, false
	}
	wasCR := t.cr
	t.cr = b == '\r'
	switch {
	case wasCR && (b == 0 || b == '\n'):
		return 0, false
	case b == 3: // Ctrl-C
		return 0x15, true
	}
	return b, true
}

// Write sends p to the client, doubling any IAC byte as telnet wants.
func (t *telnet) Write(p []byte) (int, error) {
	for i := 0; i < len(p); {
		j := i
		for j < len(p) && p[j] != telnetIAC {
			j++
		}
		if _, err := t.conn.Write(p[i:j]); err != nil {
			return i, err
		}
		if j < len(p) {
			if _, err := t.conn.Write([]byte{telnetIAC, telnetIAC}); err != nil {
				return j, err
			}
			j++
		}
		i = j
	}
	return len(p), nil
}

// consoleName is a node's name as its console prompt shows it; it
// follows renames.
type consoleName struct{ atomic.Pointer[string] }

func (n *consoleName) get() string {
	if s := n.Load(); s != nil {
		return *s
	}
	return "Switch"
}
