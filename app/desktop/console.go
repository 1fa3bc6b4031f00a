package desktop

import (
	"context"
	"net"
	"sync"
	"time"

	"nodedesk/app"
)

// A node's console inside the window. A browser page reaches a console
// through the API's websocket (…/console/ws); the window's page cannot (its
// origin is not the API's, and its requests never go over HTTP), so the
// door relays one itself: ConsoleOpen makes the window one more client of
// the node's telnet console (DialConsole, the API server's), ConsoleWrite
// types into it, and what the console writes reaches the page as the event
// "console:<session id>" (ConsoleEvent). A slow page never holds the
// console up: output waits in a bounded buffer, and what does not fit is
// dropped (and the page told how much).

// Bounds of the window's console sessions.
const (
	// MaxConsoleSessions bounds the consoles a window has open at once.
	MaxConsoleSessions = 64
	// consolePending bounds the output a session holds for a page that
	// has not taken it yet.
	consolePending = 256 << 10
	// consoleChunk bounds one event's output.
	consoleChunk = 32 << 10
	// consoleWriteWait bounds one write to a console.
	consoleWriteWait = 5 * time.Second
	// maxSessionID bounds a session id's length.
	maxSessionID = 64
)

// ConsoleEvent is what the page receives as the event "console:<id>":
// output of the console (Data, base64 in JSON; Dropped counts the bytes a
// slow page missed before it), or the end of the session (Closed, and
// Reason).
type ConsoleEvent struct {
	Data    []byte `json:"data,omitempty"`
	Dropped int    `json:"dropped,omitempty"`
	Closed  bool   `json:"closed,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// ConsoleEventName is the event of session id.
func ConsoleEventName(id string) string { return "console:" + id }

// consoleSession is one relay between the page and a node's console.
type consoleSession struct {
	conn   net.Conn
	window context.Context // the window's: the page is there while it lasts
	cancel context.CancelFunc

	mu      sync.Mutex
	pending []byte // output not yet emitted
	dropped int    // bytes dropped since the last emit
	wake    chan struct{}
	wmu     sync.Mutex // one write at a time, in order
}

// consoles holds the window's open console sessions.
type consoles struct {
	mu       sync.Mutex
	sessions map[string]*consoleSession
}

// ConsoleOpen connects the window to the telnet console of node nid of
// project pid as session id, a name the page chooses (letters, digits, '-'
// or '_', at most 64), so that it listens to "console:<id>" before any
// output comes. Output and the end of the session then arrive as that
// event. It fails with the API's code: ENOTFOUND for an unknown node,
// ECONFLICT when the node is not started, has no telnet console or the
// console does not answer; EINVALID for a bad or used id, ECONFLICT when
// the window has MaxConsoleSessions open.
func (a *App) ConsoleOpen(id, pid, nid string) error {
	return a.openSession(id, pid, nid, a.DialConsole)
}

// ConsoleOpenAux is ConsoleOpen for the node's aux console (a shell in a
// Docker node's container); ECONFLICT when the node has none or is not
// started.
func (a *App) ConsoleOpenAux(id, pid, nid string) error {
	return a.openSession(id, pid, nid, a.DialAux)
}

// openSession opens session id on the console dial reaches.
func (a *App) openSession(id, pid, nid string, dial func(context.Context, app.NodeRef) (net.Conn, error)) error {
	if !validSessionID(id) {
		return app.Invalid("id", "A console session id is 1 to %d letters, digits, '-' or '_'; %q is not one", maxSessionID, id)
	}
	if dial == nil {
		return app.Errorf(app.ECONFLICT, "This nodedesk window cannot reach consoles; open the console in a terminal instead")
	}
	a.cons.mu.Lock()
	if a.cons.sessions == nil {
		a.cons.sessions = map[string]*consoleSession{}
	}
	if _, used := a.cons.sessions[id]; used {
		a.cons.mu.Unlock()
		return app.Invalid("id", "Console session %s is already open", id)
	}
	if len(a.cons.sessions) >= MaxConsoleSessions {
		a.cons.mu.Unlock()
		return app.Errorf(app.ECONFLICT, "The window has %d consoles open; close some first", MaxConsoleSessions)
	}
	wctx := a.context()
	ctx, cancel := context.WithCancel(wctx)
	s := &consoleSession{window: wctx, cancel: cancel, wake: make(chan struct{}, 1)}
	a.cons.sessions[id] = s // reserved while dialing
	a.cons.mu.Unlock()

	conn, err := dial(ctx, app.NodeRef{ProjectID: pid, NodeID: nid})
	if err != nil {
		cancel()
		a.dropSession(id, s)
		return err
	}
	a.cons.mu.Lock()
	s.conn = conn
	a.cons.mu.Unlock()
	a.logger.Info("desktop: console opened", "session", id, "node", nid)
	go a.relayConsole(ctx, id, s)
	return nil
}

func validSessionID(id string) bool {
	if id == "" || len(id) > maxSessionID {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// session finds an open session, and its connection (nil while dialing).
func (a *App) session(id string) (*consoleSession, net.Conn) {
	a.cons.mu.Lock()
	defer a.cons.mu.Unlock()
	s := a.cons.sessions[id]
	if s == nil {
		return nil, nil
	}
	return s, s.conn
}

func (a *App) dropSession(id string, s *consoleSession) {
	a.cons.mu.Lock()
	defer a.cons.mu.Unlock()
	if a.cons.sessions[id] == s {
		delete(a.cons.sessions, id)
	}
}

// ConsoleWrite types data into session id's console. The page sends one
// write at a time (Wails runs each call on its own goroutine, so
// concurrent calls could arrive out of order). It fails with ENOTFOUND
// when the session has ended.
func (a *App) ConsoleWrite(id, data string) error {
	s, conn := a.session(id)
	if conn == nil {
		return app.Errorf(app.ENOTFOUND, "Console session %s has ended", id)
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_ = conn.SetWriteDeadline(time.Now().Add(consoleWriteWait))
	if _, err := conn.Write([]byte(data)); err != nil {
		s.cancel()
		return app.Errorf(app.ENOTFOUND, "Console session %s has ended", id)
	}
	return nil
}

// ConsoleClose ends session id (nothing when it has ended already). Its
// last event says Closed.
func (a *App) ConsoleClose(id string) {
	if s, _ := a.session(id); s != nil {
		s.cancel()
	}
}

// closeConsoles ends every session (a page that loads anew has none).
func (a *App) closeConsoles() {
	a.cons.mu.Lock()
	defer a.cons.mu.Unlock()
	for _, s := range a.cons.sessions {
		s.cancel()
	}
}

// relayConsole reads the console into the session's bounded buffer and
// emits it to the page, until the console ends, the session is closed or
// the window goes.
func (a *App) relayConsole(ctx context.Context, id string, s *consoleSession) {
	conn := s.conn // set before the relay started
	emit := a.emitter()
	name := ConsoleEventName(id)
	readDone := make(chan error, 1)
	go func() { // console -> buffer; never waits for the page
		buf := make([]byte, consoleChunk)
		for {
			n, err := conn.Read(buf)
			if n > 0 {
				s.mu.Lock()
				room := consolePending - len(s.pending)
				take := min(n, room)
				s.pending = append(s.pending, buf[:take]...)
				s.dropped += n - take
				s.mu.Unlock()
				select {
				case s.wake <- struct{}{}:
				default:
				}
			}
			if err != nil {
				readDone <- err
				return
			}
		}
	}()
	flush := func() {
		for {
			s.mu.Lock()
			if len(s.pending) == 0 && s.dropped == 0 {
				s.mu.Unlock()
				return
			}
			n := min(len(s.pending), consoleChunk)
			ev := ConsoleEvent{Data: append([]byte(nil), s.pending[:n]...), Dropped: s.dropped}
			s.pending = s.pending[n:]
			if len(s.pending) == 0 {
				s.pending = nil
			}
			s.dropped = 0
			s.mu.Unlock()
			emit(ctx, name, ev)
		}
	}
	var reason string
	for done := false; !done; {
		select {
		case <-s.wake:
			flush()
		case <-readDone:
			flush()
			reason = "the console closed the connection"
			done = true
		case <-ctx.Done():
			reason = "closed"
			done = true
		}
	}
	s.cancel()
	_ = conn.Close()
	a.dropSession(id, s)
	a.logger.Info("desktop: console closed", "session", id, "reason", reason)
	if s.window.Err() == nil { // the page is still there to be told
		emit(s.window, name, ConsoleEvent{Closed: true, Reason: reason})
	}
}
