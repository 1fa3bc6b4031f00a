package vpcs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"nodedesk/app"
	"nodedesk/app/termproc"
)

// The checks' driver (app.HostDriver): nodedesk types on a VPCS's console
// what a user would, `ping A -c 1 -i 10 -w MS`, and reads the answer. The
// flags are those of VPCS 0.5b2 (Debian's) and of GNS3's 0.8: -c the count,
// -w how long to wait for each reply in ms, -i the pause after each request
// in ms (1000 by default, which would make every ping last a second).
// Nothing typed changes the node's configuration.

var _ app.HostDriver = (*Runner)(nil)

// pingCount is how many echo requests a check's ping sends: VPCS resolves
// the address by ARP before the first, so one is a fair answer.
const pingCount = 1

// pingSlack is how much longer than its timeouts a ping may take to be
// answered: VPCS's own pace, the console's.
const pingSlack = 500 * time.Millisecond

// VPCS's answers. A reply line is "10.0.0.2 icmp_seq=1 ttl=64 time=0.3 ms"
// (0.5b2) or "84 bytes from 10.0.0.2 icmp_seq=1 …" (0.8); an ICMP error
// begins with "*"; a lost request is "10.0.0.2 icmp_seq=1 timeout"; an
// address nobody answers ARP for is "host (10.0.0.9) not reachable" (after
// three 1 s tries, whatever -w says), one off the subnet with no gateway
// "No gateway found".
var (
	replyRE = regexp.MustCompile(`(?m)^(?:\d+ bytes from )?(\d+\.\d+\.\d+\.\d+) icmp_seq=\d+ ttl=\d+ time=`)
	// promptRE is VPCS's prompt at the end of its output: "\n\r" then
	// its name ("VPCS", or `set pcname`'s) and "> " (a terminal makes
	// the "\n" a "\r\n").
	promptRE = regexp.MustCompile(`(?:^|\n)\r[^\r\n]*> $`)
	// halfLineRE is the prompt and a line a user began to type.
	halfLineRE = regexp.MustCompile(`(?:^|\n)\r[^\r\n]*> [^\r\n]+$`)
)

// atPrompt says whether out ends with VPCS's prompt: it waits for a
// command.
func atPrompt(out []byte) bool { return promptRE.Match(out) }

// The waits of a dialog: for the echo of what was typed (VPCS drops keys
// typed while it is busy), and for the prompt while VPCS is busy (a
// user's ping of five requests, or VPCS's own ARP of 3 s).
const (
	echoWait = time.Second
	busyWait = 10 * time.Second
)

// Ping types `ping addr` on the node's console and counts the replies. It
// answers within about timeout: VPCS may still be busy after (an address
// nobody answers ARP for takes it 3 s), and the next dialog on the node
// waits until its prompt is back.
func (r *Runner) Ping(ctx context.Context, nodeID, addr string, timeout time.Duration) (app.PingResult, error) {
	ip := net.ParseIP(addr).To4()
	if ip == nil {
		return app.PingResult{}, app.Errorf(app.EINVALID, "%q is not an IPv4 address; VPCS pings IPv4 addresses", addr)
	}
	addr = ip.String()
	if r.smallARPTable() {
		if _, _, err := r.command(ctx, nodeID, "clear arp", busyWait, false); err != nil {
			return app.PingResult{}, err
		}
	}
	ms := max(int(timeout/time.Millisecond), 1)
	cmd := fmt.Sprintf("ping %s -c %d -i 10 -w %d", addr, pingCount, ms)
	out, done, err := r.command(ctx, nodeID, cmd, timeout*pingCount+pingSlack, true)
	res := app.PingResult{Sent: pingCount, Lines: answerLines(out, cmd)}
	for _, m := range replyRE.FindAllSubmatch(out, -1) {
		if string(m[1]) == addr {
			res.Received++
		}
	}
	if err != nil {
		return app.PingResult{}, err
	}
	if !done && res.Received == 0 {
		res.Lines = append(termproc.Lines(out), fmt.Sprintf("(no reply within %v)", timeout))
	}
	return res, nil
}

// Converse types send (if any) on the node's console and reads until
// expect matches what it printed since, or within passes.
func (r *Runner) Converse(ctx context.Context, nodeID, send string, expect *regexp.Regexp, within time.Duration) ([]string, bool, error) {
	p, err := r.get(nodeID)
	if err != nil {
		return nil, false, err
	}
	talk, err := p.Console().Dialog().Begin(ctx)
	if err != nil {
		return nil, false, r.dialogErr(p, err)
	}
	defer talk.End()
	if send != "" {
		if err := ready(ctx, talk); err != nil {
			return nil, false, r.dialogErr(p, err)
		}
		talk.Clear()
		talk.Type(send + "\r")
	}
	out, ok, err := talk.Until(ctx, func(out []byte) bool { return expect.Match(out) }, within)
	if err != nil && !errors.Is(err, termproc.ErrConsoleClosed) {
		return nil, false, r.dialogErr(p, err)
	}
	return termproc.Lines(out), ok, nil
}

// command types cmd at VPCS's prompt and reads until the prompt comes
// back (done) or limit passes after VPCS took it; the output then is what
// came so far, and the node's next dialog waits for the prompt. VPCS
// drops keys typed while it is busy, and those that come with an Enter it
// had not read yet: a command that was not echoed, or that came back with
// no answer at all, is typed again (at most tries times).
func (r *Runner) command(ctx context.Context, nodeID, cmd string, limit time.Duration, answers bool) (out []byte, done bool, err error) {
	p, err := r.get(nodeID)
	if err != nil {
		return nil, false, err
	}
	talk, err := p.Console().Dialog().Begin(ctx)
	if err != nil {
		return nil, false, r.dialogErr(p, err)
	}
	echo := []byte(cmd + "\r\n")
	for range tries {
		if err := ready(ctx, talk); err != nil {
			talk.End()
			return nil, false, r.dialogErr(p, err)
		}
		talk.Clear()
		talk.Type(cmd + "\r")
		_, echoed, err := talk.Until(ctx, func(out []byte) bool { return bytes.Contains(out, echo) }, echoWait)
		if err != nil {
			talk.End()
			return nil, false, r.dialogErr(p, err)
		}
		if !echoed {
			continue // dropped: VPCS was busy
		}
		out, done, err = talk.Until(ctx, atPrompt, limit)
		if err != nil {
			talk.End()
			return nil, false, r.dialogErr(p, err)
		}
		if !done {
			talk.EndWhen(atPrompt, busyWait)
			return out, false, nil
		}
		if answers && len(answerLines(out, cmd)) == 0 {
			continue // echoed, but VPCS read it with an Enter before it and dropped it
		}
		talk.End()
		return out, true, nil
	}
	talk.EndWhen(atPrompt, busyWait)
	return nil, false, app.Errorf(app.ECONFLICT, "%s did not take %q typed on its console %d times: it may be busy; look at its console", p.p.Name, cmd, tries)
}

// smallARPTable says whether the VPCS nodedesk runs is one before 0.8,
// whose ARP table is small and keeps what it learnt for 120 s, also the
// hosts that asked for its address: one that heard from many others
// cannot resolve a new one for two minutes. Its ping is then preceded by
// `clear arp`, which a user of such a lab types too: the table is learnt
// again, nothing of the host's configuration changes.
func (r *Runner) smallARPTable() bool {
	bin, err := exec.LookPath(r.c.Binary)
	return err == nil && !r.canTurnOffRelay(bin)
}

// tries bounds how many times a command is typed.
const tries = 3

// ready waits until VPCS shows its prompt at the end of its output. When
// a user typed half a line after it, or no prompt came for a while,
// Enter is pressed once, as a user who sees no prompt does; never while
// VPCS is busy otherwise, since a key typed then may swallow the next
// command.
func ready(ctx context.Context, talk *termproc.Talk) error {
	entered := false
	start := time.Now()
	for {
		if atPrompt(talk.Tail()) {
			// VPCS prints its prompt a moment before it reads keys
			// again: typed in between, they may be lost. It has
			// settled once it printed nothing more for a while.
			n := len(talk.Output())
			_, more, err := talk.Until(ctx, func(out []byte) bool { return len(out) > n }, settle)
			if err != nil {
				return err
			}
			if !more {
				return nil
			}
			continue
		}
		if time.Since(start) > busyWait {
			return app.Errorf(app.ECONFLICT, "VPCS did not show its prompt within %v; it may be busy with a long command: look at its console", busyWait)
		}
		if !entered && (halfLineRE.Match(talk.Tail()) || time.Since(start) > busyWait/2) {
			talk.Type("\r")
			entered = true
		}
		n := len(talk.Output())
		if _, _, err := talk.Until(ctx, func(out []byte) bool { return len(out) > n }, 250*time.Millisecond); err != nil {
			return err
		}
	}
}

// settle is how long VPCS's output must rest after its prompt before a
// command is typed.
const settle = 30 * time.Millisecond

// dialogErr says what went wrong in a dialog with a node.
func (r *Runner) dialogErr(p *proc, err error) error {
	var ae *app.Error
	switch {
	case errors.As(err, &ae):
		return err
	case errors.Is(err, termproc.ErrConsoleClosed):
		return app.Errorf(app.ECONFLICT, "%s stopped while nodedesk was typing on its console; start it and check again", p.p.Name)
	}
	return err
}

// answerLines are the lines of a command's output, its echo and the prompt
// left out.
func answerLines(out []byte, cmd string) []string {
	var ls []string
	for _, l := range termproc.Lines(out) {
		if l == cmd || strings.HasSuffix(l, "> "+cmd) || promptRE.MatchString("\n\r"+l+" ") {
			continue
		}
		ls = append(ls, l)
	}
	return ls
}
