package dynamips

import (
	"context"
	"errors"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"time"

	"nodedesk/app"
	"nodedesk/app/termproc"
)

// The checks' driver (app.HostDriver): nodedesk types on a router's
// console (the one it serves in front of Dynamips') what a user would,
// IOS's `ping A repeat N timeout S`, and reads IOS's answer. It never
// enters configuration mode. An image without ping (the stand-in
// fake-ios answers "% Unknown command") gives an error that says so.

var _ app.HostDriver = (*Runner)(nil)

// pingRepeat is how many echo requests a check's ping sends: IOS drops
// the first while it resolves the address by ARP (".!"), so two.
const pingRepeat = 2

// IOS's answers.
var (
	// promptRE is IOS's exec prompt at the end of its output: "R1>" or
	// "R1#" (a terminal's "\r\n" before it).
	promptRE = regexp.MustCompile(`(?:^|\n)[^\s>#()]+[>#]$`)
	// configRE is a configuration mode's prompt: "R1(config-if)#".
	configRE  = regexp.MustCompile(`\(config[^)]*\)#$`)
	successRE = regexp.MustCompile(`Success rate is \d+ percent \((\d+)/(\d+)\)`)
	refusedRE = regexp.MustCompile(`% (?:Unknown command|Invalid input|Unrecognized host)[^\r\n]*`)
)

func atPrompt(out []byte) bool { return promptRE.Match(out) || configRE.Match(out) }

// promptWait bounds the wait for the prompt before a command.
const promptWait = 10 * time.Second

// Ping types `ping addr repeat 2 timeout S` on the node's console (S the
// timeout in whole seconds, at least 1) and reads IOS's success rate.
func (r *Runner) Ping(ctx context.Context, nodeID, addr string, timeout time.Duration) (app.PingResult, error) {
	ip := net.ParseIP(addr).To4()
	if ip == nil {
		return app.PingResult{}, app.Errorf(app.EINVALID, "%q is not an IPv4 address", addr)
	}
	n, err := r.console(nodeID)
	if err != nil {
		return app.PingResult{}, err
	}
	secs := max(int((timeout+time.Second-1)/time.Second), 1)
	cmd := fmt.Sprintf("ping %s repeat %d timeout %d", ip, pingRepeat, secs)
	talk, err := n.con.con.Dialog().Begin(ctx)
	if err != nil {
		return app.PingResult{}, r.dialogErr(n, err)
	}
	if configRE.Match(talk.Tail()) {
		talk.End()
		return app.PingResult{}, app.Errorf(app.ECONFLICT, "The console of %s is in configuration mode; type `end` there, then check again", n.p.Name)
	}
	limit := time.Duration(pingRepeat*secs)*time.Second + promptWait
	out, done, err := talk.Command(ctx, cmd, atPrompt, limit)
	if err != nil {
		talk.End()
		return app.PingResult{}, r.dialogErr(n, err)
	}
	if done {
		talk.End()
	} else {
		talk.EndWhen(atPrompt, promptWait)
	}
	lines := termproc.Lines(out)
	if len(lines) > 0 && lines[0] == cmd {
		lines = lines[1:]
	}
	if len(lines) > 0 && atPrompt([]byte(lines[len(lines)-1])) {
		lines = lines[:len(lines)-1]
	}
	if m := refusedRE.Find(out); m != nil {
		return app.PingResult{Lines: lines}, app.Errorf(app.ECONFLICT, "%s does not take `%s` (%s): this image cannot ping, so check it from another host", n.p.Name, cmd, m)
	}
	m := successRE.FindSubmatch(out)
	if m == nil {
		return app.PingResult{Lines: lines}, app.Errorf(app.ECONFLICT, "%s gave no answer to `%s` within %v; look at its console", n.p.Name, cmd, limit)
	}
	got, _ := strconv.Atoi(string(m[1]))
	sent, _ := strconv.Atoi(string(m[2]))
	return app.PingResult{Sent: sent, Received: got, Lines: lines}, nil
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
