package iou

import (
	"context"
	"errors"
	"regexp"
	"time"

	"nodedesk/app"
	"nodedesk/app/ioscli"
	"nodedesk/app/termproc"
)

// The checks' driver (app.HostDriver): nodedesk types on an IOU node's
// console what a user would, as app/ioscli says IOS takes it.

var _ app.HostDriver = (*Runner)(nil)

// Ping pings addr from the node's console (ioscli.Ping).
func (r *Runner) Ping(ctx context.Context, nodeID, addr string, timeout time.Duration) (app.PingResult, error) {
	n, err := r.get(nodeID)
	if err != nil {
		return app.PingResult{}, err
	}
	pr, err := ioscli.Ping(ctx, n.Console(), n.p.Name, addr, timeout)
	return pr, r.dialogErr(n, err)
}

// Converse types send on the node's console and reads until expect
// matches, or within passes.
func (r *Runner) Converse(ctx context.Context, nodeID, send string, expect *regexp.Regexp, within time.Duration) ([]string, bool, error) {
	n, err := r.get(nodeID)
	if err != nil {
		return nil, false, err
	}
	lines, ok, err := n.Console().Converse(ctx, send, expect, within)
	return lines, ok, r.dialogErr(n, err)
}

// dialogErr says what went wrong in a dialog with a node.
func (r *Runner) dialogErr(n *node, err error) error {
	if errors.Is(err, termproc.ErrConsoleClosed) {
		return app.Errorf(app.ECONFLICT, "%s stopped while nodedesk was typing on its console; start it and check again", n.p.Name)
	}
	return err
}

// get returns a running node.
func (r *Runner) get(nodeID string) (*node, error) {
	n, ok := r.nodes.Get(nodeID)
	if !ok {
		return nil, app.Errorf(app.ECONFLICT, "The node's IOU process is not running; start the node first")
	}
	return n, nil
}
