package api

import (
	"context"
	"net"
	"net/http"

	"nodedesk/app"
)

// A node's VNC console (a QEMU guest's screen) over a websocket, for the
// page's VNC client (noVNC): binary messages carry the raw RFB bytes both
// ways between the websocket and the node's VNC server, whose TCP port is
// the node's console. The guard's Host and credential checks and the
// upgrade's same-origin check are the telnet console's (console.go); a
// node that is unknown, not started or whose console type is not vnc is
// refused before the upgrade, with a JSON error.

// handleConsoleVNC relays a websocket to the VNC server of a node.
func (s *Server) handleConsoleVNC() handlerFunc {
	return s.relayWebSocket(func(ctx context.Context, r *http.Request) (net.Conn, error) {
		return s.DialVNC(ctx, nodeRef(r, ""))
	})
}

// DialVNC connects to the VNC server of a node. Codes: ENOTFOUND;
// ECONFLICT when the node's console type is not vnc, it is not started
// or its VNC server does not answer.
func (s *Server) DialVNC(ctx context.Context, ref app.NodeRef) (net.Conn, error) {
	n, addr, err := s.svc.VNCAddress(ctx, ref)
	if err != nil {
		return nil, err
	}
	return dialNode(ctx, addr, "The VNC server of %s does not answer at %s (%v); restart the node", n.Name)
}
