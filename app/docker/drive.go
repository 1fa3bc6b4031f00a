package docker

import (
	"context"
	"errors"
	"net"
	"regexp"
	"strconv"
	"time"

	"nodedesk/app"
	"nodedesk/app/termproc"
)

// The checks' driver (app.HostDriver). Ping runs nodedesk's busybox
// `ping -c 1 -W S A` in the container, as a user would in its aux shell:
// it works whatever the image holds, and neither touches the console nor
// changes the container's configuration. Converse talks on the node's
// console (the terminal of the container's main process), where a check's
// command goes as the user would type it there.

var _ app.HostDriver = (*Runner)(nil)

// pingCount is how many echo requests a check's ping sends: the kernel
// holds the first while it resolves the address by ARP, so one suffices.
const pingCount = 1

// statsRE is busybox ping's summary: "1 packets transmitted, 1 packets
// received, 0% packet loss".
var statsRE = regexp.MustCompile(`(\d+) packets transmitted, (\d+) packets received`)

// Ping runs ping in the node's container and reads its summary.
func (r *Runner) Ping(ctx context.Context, nodeID, addr string, timeout time.Duration) (app.PingResult, error) {
	ip := net.ParseIP(addr).To4()
	if ip == nil {
		return app.PingResult{}, app.Errorf(app.EINVALID, "%q is not an IPv4 address", addr)
	}
	n, err := r.get(nodeID)
	if err != nil {
		return app.PingResult{}, err
	}
	secs := max(int((timeout+time.Second-1)/time.Second), 1)
	ctx, cancel := context.WithTimeout(ctx, time.Duration(pingCount*secs)*time.Second+5*time.Second)
	defer cancel()
	_, out, err := r.eng.run(ctx, n.rec.Container, mountPoint+"/bin/busybox", "ping", "-c", strconv.Itoa(pingCount), "-W", strconv.Itoa(secs), ip.String())
	if err != nil {
		return app.PingResult{}, app.Errorf(app.ECONFLICT, "ping could not run in the container of %s: %v", n.p.Name, err)
	}
	lines := termproc.Lines([]byte(out))
	m := statsRE.FindStringSubmatch(out)
	if m == nil { // "ping: sendto: Network unreachable": nothing went out
		return app.PingResult{Sent: pingCount, Lines: lines}, nil
	}
	sent, _ := strconv.Atoi(m[1])
	got, _ := strconv.Atoi(m[2])
	return app.PingResult{Sent: sent, Received: got, Lines: lines}, nil
}

// Converse types send on the node's console and reads until expect
// matches, or within passes.
func (r *Runner) Converse(ctx context.Context, nodeID, send string, expect *regexp.Regexp, within time.Duration) ([]string, bool, error) {
	n, err := r.get(nodeID)
	if err != nil {
		return nil, false, err
	}
	if n.console == nil {
		return nil, false, app.Errorf(app.ECONFLICT, "%s has no telnet console, so nodedesk cannot type on it; give it a telnet console", n.p.Name)
	}
	lines, ok, err := n.console.con.Converse(ctx, send, expect, within)
	if errors.Is(err, termproc.ErrConsoleClosed) {
		err = app.Errorf(app.ECONFLICT, "%s stopped while nodedesk was typing on its console; start it and check again", n.p.Name)
	}
	return lines, ok, err
}
