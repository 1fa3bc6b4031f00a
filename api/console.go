package api

import (
	"context"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/gorilla/mux"

	"nodedesk/app"
)

// A node's console over a websocket, as GNS3 2.2 serves it to its web UI:
// the websocket is relayed to the node's telnet console. What the client
// sends (text or binary messages) goes to the console; what the console
// writes comes back as binary messages. Each websocket is one telnet
// client of the console, so several may share it.

// consoleDial bounds connecting to a node's telnet console.
const consoleDial = 5 * time.Second

// maxConsoleMessage bounds one message from a console client (typing,
// pasting): 1 MiB.
const maxConsoleMessage = 1 << 20

// handleConsoleWS relays a websocket to the console of the node of type t
// ("" for the controller path). A node that is unknown, has no telnet
// console or is not started is refused before the upgrade.
func (s *Server) handleConsoleWS(t app.NodeType) handlerFunc {
	return s.relayWebSocket(func(ctx context.Context, r *http.Request) (net.Conn, error) {
		return s.DialConsole(ctx, nodeRef(r, t))
	})
}

// handleAuxWS relays a websocket to a node's aux console (a shell in a
// Docker node's container), as handleConsoleWS to its console.
func (s *Server) handleAuxWS(w http.ResponseWriter, r *http.Request) error {
	return s.relayWebSocket(func(ctx context.Context, r *http.Request) (net.Conn, error) {
		return s.DialAux(ctx, nodeRef(r, ""))
	})(w, r)
}

// relayWebSocket is a handler that dials a node's TCP server (dial's
// error refuses the request before the upgrade, with its code), then
// upgrades and relays between the two until either ends. A page of
// another site is refused before anything reaches the node.
func (s *Server) relayWebSocket(dial func(context.Context, *http.Request) (net.Conn, error)) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := requireWebSocket(r, ""); err != nil {
			return err
		}
		if err := crossSite(r); err != nil {
			return err
		}
		tc, err := dial(r.Context(), r)
		if err != nil {
			return err
		}
		defer tc.Close()
		c := acceptWebSocket(w, r)
		if c == nil {
			return nil // Accept has answered the client
		}
		defer c.CloseNow()
		c.SetReadLimit(maxConsoleMessage)
		s.relayConsole(r.Context(), c, tc)
		return nil
	}
}

// DialConsole connects to the telnet console of a node (ref.Type "" for
// any type) as one more client of it: what the websocket relays, and what
// the window door can relay too. Codes: ENOTFOUND; ECONFLICT when the node
// has no telnet console, is not started or its console does not answer.
func (s *Server) DialConsole(ctx context.Context, ref app.NodeRef) (net.Conn, error) {
	n, addr, err := s.svc.ConsoleAddress(ctx, ref)
	if err != nil {
		return nil, err
	}
	return dialNode(ctx, addr, "The console of %s does not answer at %s (%v); reset its console or restart the node", n.Name)
}

// DialAux connects to the aux console of a node as one more client of
// it, as DialConsole to its console. Codes: ENOTFOUND; ECONFLICT when the
// node has no aux console, is not started or it does not answer.
func (s *Server) DialAux(ctx context.Context, ref app.NodeRef) (net.Conn, error) {
	n, addr, err := s.svc.AuxAddress(ctx, ref)
	if err != nil {
		return nil, err
	}
	return dialNode(ctx, addr, "The aux console of %s does not answer at %s (%v); restart the node", n.Name)
}

// dialNode connects to a node's TCP server at addr; a failure is a
// conflict whose message is format with the node's name, addr and the
// error.
func dialNode(ctx context.Context, addr, format, name string) (net.Conn, error) {
	d := net.Dialer{Timeout: consoleDial}
	tc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, app.Errorf(app.ECONFLICT, format, name, addr, err)
	}
	return tc, nil
}

// requireWebSocket refuses a plain HTTP request to a websocket endpoint,
// saying what to do instead (orElse: another way, or "").
func requireWebSocket(r *http.Request, orElse string) error {
	if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		return nil
	}
	if orElse != "" {
		orElse = ", or " + orElse
	}
	return app.Errorf(app.EINVALID, "%s is a WebSocket endpoint; connect with a WebSocket client%s", r.URL.Path, orElse)
}

// acceptWebSocket upgrades r, with no read deadline for the long-lived
// connection. Accept refuses a page of another origin (cross-site
// websocket hijacking); the guard has already checked Host and
// credentials. nil means Accept has answered the client.
func acceptWebSocket(w http.ResponseWriter, r *http.Request) *websocket.Conn {
	_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return nil
	}
	return c
}

// relayConsole copies between the websocket c and the telnet connection
// tc until either ends, the request's context ends or the server shuts
// down.
func (s *Server) relayConsole(ctx context.Context, c *websocket.Conn, tc net.Conn) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { // the server shutting down ends the relay
		select {
		case <-s.closing:
		case <-ctx.Done():
		}
		cancel()
		_ = tc.Close()
	}()
	go func() { // client -> console
		defer cancel()
		for {
			_, b, err := c.Read(ctx)
			if err != nil {
				return
			}
			if _, err := tc.Write(b); err != nil {
				return
			}
		}
	}()
	buf := make([]byte, 32<<10)
	for { // console -> client
		n, err := tc.Read(buf)
		if n > 0 {
			wctx, wcancel := context.WithTimeout(ctx, writeWait)
			werr := c.Write(wctx, websocket.MessageBinary, buf[:n])
			wcancel()
			if werr != nil {
				return
			}
		}
		if err != nil {
			if ctx.Err() == nil { // the console ended the session (node stopped, console reset)
				c.Close(websocket.StatusNormalClosure, "the console closed the connection")
			}
			return
		}
	}
}

// handleConsoleReset drops the clients of one node's console (204).
func (s *Server) handleConsoleReset(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.body(r); err != nil {
		return err
	}
	if err := s.svc.ResetConsole(r.Context(), nodeRef(r, "")); err != nil {
		return err
	}
	noContent(w)
	return nil
}

// handleProjectConsoleReset drops the clients of every console of a
// project (204).
func (s *Server) handleProjectConsoleReset(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.body(r); err != nil {
		return err
	}
	if err := s.svc.ResetConsoles(r.Context(), mux.Vars(r)["project_id"]); err != nil {
		return err
	}
	noContent(w)
	return nil
}
