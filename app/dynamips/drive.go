package dynamips

import (
	"context"
	"errors"
	"regexp"
	"time"

	"nodedesk/app"
	"nodedesk/app/ioscli"
	"nodedesk/app/termproc"
)

// The checks' driver (app.HostDriver): nodedesk types on a router's
// console (the one it serves in front of Dynamips') what a user would, as
// app/ioscli says IOS takes it.

var _ app.HostDriver = (*Runner)(nil)

// Ping pings addr from the router's console (ioscli.Ping).
func (r *Runner) Ping(ctx context.Context, nodeID, addr string, timeout time.Duration) (app.PingResult, error) {
	n, err := r.console(nodeID)
	if err != nil {
		return app.PingResult{}, err
	}
	pr, err := ioscli.Ping(ctx, n.con.con, n.p.Name, addr, timeout)
	return pr, r.dialogErr(n, err)
}

// Converse types send on the node's console and reads until expect
// matches, or within passes.
func (r *Runner) Converse(ctx context.Context, nodeID, send string, expect *regexp.Regexp, within time.Duration) ([]string, bool, error) {
	n, err := r.console(nodeID)
	if err != nil {
		return nil, false, err
	}
	lines, ok, err := n.con.con.Converse(ctx, send, expect, within)
	return lines, ok, r.dialogErr(n, err)
}

// dialogErr says what went wrong in a dialog with a node.
func (r *Runner) dialogErr(n *router, err error) error {
	if errors.Is(err, termproc.ErrConsoleClosed) {
		return app.Errorf(app.ECONFLICT, "%s stopped while nodedesk was typing on its console; start it and check again", n.p.Name)
	}
	return err
}

// console returns a running router that has a console.
func (r *Runner) console(nodeID string) (*router, error) {
	rt, err := r.get(nodeID)
	if err != nil {
		return nil, err
	}
	if rt.con == nil {
		return nil, app.Errorf(app.ECONFLICT, "%s has no console (its console type is none), so nodedesk cannot type on it; give it a telnet console", rt.p.Name)
	}
	return rt, nil
}
