package dataplane

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"

	"nodedesk/app/telnet"
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
			tc, err := telnet.NewConn(conn)
			if err == nil {
				c.run(shellInput{tc})
			}
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

// reset ends every session; the console keeps listening.
func (c *consoleServer) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for conn := range c.sessions {
		_ = conn.Close()
	}
}

// close stops listening, ends every session and waits for them.
func (c *consoleServer) close() {
	c.mu.Lock()
	c.closed = true // track refuses new sessions from now on
	c.mu.Unlock()
	c.reset()
	_ = c.ln.Close()
	c.wg.Wait()
}

// shellInput is what a console client types, as the shell reads it:
// Ctrl-C erases the line (Ctrl-U) rather than ending the session, as it
// does on a switch.
type shellInput struct{ *telnet.Conn }

func (s shellInput) Read(p []byte) (int, error) {
	n, err := s.Conn.Read(p)
	for i, b := range p[:n] {
		if b == 3 {
			p[i] = 0x15
		}
	}
	return n, err
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
