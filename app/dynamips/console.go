package dynamips

import (
	"net"
	"strconv"
	"sync"
	"time"

	"nodedesk/app/telnet"
	"nodedesk/app/termproc"
)

// line is one of a router's serial lines (its console or its aux):
// Dynamips serves it as a telnet server on an internal 127.0.0.1 port,
// where nodedesk holds one connection for the router's life; nodedesk's
// own console (app/termproc) serves it on the node's port to any number
// of clients and the dock's websocket. Dynamips' telnet commands are
// taken out of what it sends; what clients type goes to it as telnet
// data (0xFF doubled).
type line struct {
	what string // "console" or "aux", for messages
	con  *termproc.Console

	// boot watches the output for the router's boot (ioscli.BootPrompt),
	// ended when the router ends (the console line's only).
	boot *termproc.BootSign

	mu sync.Mutex
	up net.Conn // nil until connected
}

// Write sends what a client typed to the router's line.
func (l *line) Write(b []byte) (int, error) {
	l.mu.Lock()
	up := l.up
	l.mu.Unlock()
	if up == nil {
		return len(b), nil // the router is not there yet: a key lost, as on a real line
	}
	if _, err := up.Write(telnet.EscapeIAC(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}

// connect reaches the line at Dynamips' port (it opens when the router
// starts), replacing an earlier connection, and passes what it says to
// the clients.
func (l *line) connect(port int, wait time.Duration, alive func() bool) error {
	deadline := time.Now().Add(wait)
	var conn net.Conn
	for {
		var err error
		conn, err = net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
		if err == nil {
			break
		}
		if time.Now().After(deadline) || !alive() {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
	l.mu.Lock()
	if l.up != nil {
		l.up.Close()
	}
	l.up = conn
	l.mu.Unlock()
	go l.pump(conn)
	return nil
}

// pump passes the line's output, telnet's commands taken out, to the
// console's clients until the connection ends.
func (l *line) pump(conn net.Conn) {
	f := telnet.Filter{KeepLineEnds: true}
	buf := make([]byte, 4096)
	for {
		n, err := conn.Read(buf)
		if out := f.Data(nil, buf[:n]); len(out) > 0 {
			if l.boot != nil {
				l.boot.Seen(out)
			}
			l.con.Output(out)
		}
		if err != nil {
			return
		}
	}
}

// close ends the connection and the console.
func (l *line) close() {
	l.mu.Lock()
	if l.up != nil {
		l.up.Close()
	}
	l.mu.Unlock()
	l.con.Close()
}
