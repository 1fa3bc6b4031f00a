package qemu

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

// The checks' driver (app.HostDriver): nodedesk types on the guest's
// serial line (its console) what a user would at a shell prompt, `ping -c
// 1 -W S A` (busybox's and iputils' syntax), and reads ping's summary. A
// guest whose serial line asks for a login is not logged into: nodedesk
// knows no credentials, so its checks say so instead of guessing.

var _ app.HostDriver = (*Runner)(nil)

// pingCount is how many echo requests a check's ping sends.
const pingCount = 1

var (
	// shellRE is a shell's prompt at the end of the output: "guest# ",
	// "user@host:~$ ".
	shellRE = regexp.MustCompile(`[#$] $`)
	// loginRE is a serial line that asks who logs in.
	loginRE = regexp.MustCompile(`(?i)(login|password): ?$`)
	// statsRE is ping's summary: "1 packets transmitted, 1 packets
	// received" (busybox), "1 packets transmitted, 1 received" (iputils).
	statsRE = regexp.MustCompile(`(\d+) packets transmitted, (\d+) (?:packets )?received`)
)

// atPrompt says whether out ends with a shell's prompt or a login's, its
// control sequences left out (busybox follows "guest# " with a cursor
// position query).
func atPrompt(out []byte) bool {
	text := termproc.Plain(out)
	return shellRE.Match(text) || loginRE.Match(text)
}

// promptWait bounds the wait for the shell's prompt before a command.
const promptWait = 10 * time.Second

// Ping types ping at the guest's shell and reads its summary.
func (r *Runner) Ping(ctx context.Context, nodeID, addr string, timeout time.Duration) (app.PingResult, error) {
	ip := net.ParseIP(addr).To4()
	if ip == nil {
		return app.PingResult{}, app.Errorf(app.EINVALID, "%q is not an IPv4 address", addr)
	}
	g, err := r.serial(nodeID)
	if err != nil {
		return app.PingResult{}, err
	}
	secs := max(int((timeout+time.Second-1)/time.Second), 1)
	cmd := fmt.Sprintf("ping -c %d -W %d %s", pingCount, secs, ip)
	limit := time.Duration(pingCount*secs)*time.Second + promptWait
	a, err := g.Console().Ask(ctx, cmd, atPrompt, limit, nil)
	if err != nil {
		return app.PingResult{}, g.dialogErr(err)
	}
	lines := a.Lines
	if loginRE.Match(termproc.Plain(g.Console().Tail())) {
		return app.PingResult{Lines: lines}, app.Errorf(app.ECONFLICT, "The serial console of %s asks for a login; nodedesk does not log into guests, so it cannot ping from it. Log in on its console, then check again", g.p.Name)
	}
	if !a.Done && len(a.Out) == 0 {
		return app.PingResult{Lines: lines}, app.Errorf(app.ECONFLICT, "%s shows no shell prompt on its serial console within %v; is it still booting?", g.p.Name, limit)
	}
	m := statsRE.FindSubmatch(a.Out)
	if m == nil { // "ping: sendto: Network unreachable", or no ping at all
		return app.PingResult{Sent: pingCount, Lines: lines}, nil
	}
	sent, _ := strconv.Atoi(string(m[1]))
	got, _ := strconv.Atoi(string(m[2]))
	return app.PingResult{Sent: sent, Received: got, Lines: lines}, nil
}

// Converse types send on the guest's serial console and reads until
// expect matches, or within passes.
func (r *Runner) Converse(ctx context.Context, nodeID, send string, expect *regexp.Regexp, within time.Duration) ([]string, bool, error) {
	g, err := r.serial(nodeID)
	if err != nil {
		return nil, false, err
	}
	lines, ok, err := g.Console().Converse(ctx, send, expect, within)
	return lines, ok, g.dialogErr(err)
}

// dialogErr says what went wrong in a dialog with a guest.
func (g *guest) dialogErr(err error) error {
	if errors.Is(err, termproc.ErrConsoleClosed) {
		return app.Errorf(app.ECONFLICT, "%s stopped while nodedesk was typing on its console; start it and check again", g.p.Name)
	}
	return err
}

// serial returns a running guest whose serial line nodedesk holds (its
// console is telnet).
func (r *Runner) serial(nodeID string) (*guest, error) {
	g, err := r.get(nodeID)
	if err != nil {
		return nil, err
	}
	if g.p.ConsoleType != app.ConsoleTelnet {
		return nil, app.Errorf(app.ECONFLICT, "The console of %s is %s, not its serial line, so nodedesk cannot type on it; give it a telnet console", g.p.Name, g.p.ConsoleType)
	}
	return g, nil
}
