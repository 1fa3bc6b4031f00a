// Package ioscli is Cisco IOS's exec command line as a console user meets
// it, shared by the runners of IOS images (app/dynamips, app/iou): the
// prompts that say a router has booted, and a check's ping typed at the
// prompt and read from IOS's answer. It never enters configuration mode.
package ioscli

import (
	"context"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"time"

	"nodedesk/app"
	"nodedesk/app/termproc"
)

// The boot of an IOS router, as its console shows it (termproc's
// BootPrompt and BootPhrase): the last line is its prompt ("R1>",
// "R1#"), or "Press RETURN to get started" stands anywhere in its output.
var (
	BootPrompt = regexp.MustCompile(`^[\w.-]+[>#]\s*$`)
	BootPhrase = regexp.MustCompile(`(?i)RETURN to get started`)
)

// PingRepeat is how many echo requests a check's ping sends: IOS drops
// the first while it resolves the address by ARP (".!"), so two.
const PingRepeat = 2

// promptWait bounds the wait for the prompt before a command, and after
// its echo requests' timeouts.
const promptWait = 10 * time.Second

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

// Ping types `ping addr repeat 2 timeout S` on node name's console con (S
// the timeout in whole seconds, at least 1) and reads IOS's success rate.
// An image without ping (one that answers "% Unknown command") gives an
// error that says so; so does a console left in configuration mode.
func Ping(ctx context.Context, con *termproc.Console, name, addr string, timeout time.Duration) (app.PingResult, error) {
	ip := net.ParseIP(addr).To4()
	if ip == nil {
		return app.PingResult{}, app.Errorf(app.EINVALID, "%q is not an IPv4 address", addr)
	}
	secs := max(int((timeout+time.Second-1)/time.Second), 1)
	cmd := fmt.Sprintf("ping %s repeat %d timeout %d", ip, PingRepeat, secs)
	limit := time.Duration(PingRepeat*secs)*time.Second + promptWait
	a, err := con.Ask(ctx, cmd, atPrompt, limit, func(tail []byte) error {
		if configRE.Match(tail) {
			return app.Errorf(app.ECONFLICT, "The console of %s is in configuration mode; type `end` there, then check again", name)
		}
		return nil
	})
	if err != nil {
		return app.PingResult{}, err
	}
	if m := refusedRE.Find(a.Out); m != nil {
		return app.PingResult{Lines: a.Lines}, app.Errorf(app.ECONFLICT, "%s does not take `%s` (%s): this image cannot ping, so check it from another host", name, cmd, m)
	}
	m := successRE.FindSubmatch(a.Out)
	if m == nil {
		return app.PingResult{Lines: a.Lines}, app.Errorf(app.ECONFLICT, "%s gave no answer to `%s` within %v; look at its console", name, cmd, limit)
	}
	got, _ := strconv.Atoi(string(m[1]))
	sent, _ := strconv.Atoi(string(m[2]))
	return app.PingResult{Sent: sent, Received: got, Lines: a.Lines}, nil
}
