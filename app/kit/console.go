package kit

import (
	"bytes"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Console is a telnet client on a node's console (a VPCS's, a switch's),
// that reads what the node prints.
type Console struct {
	t    testing.TB
	Conn net.Conn
	Seen bytes.Buffer // since the last Expect began
	Log  bytes.Buffer // everything, for the transcript
}

// DialConsole connects to the console at host:port, closed when the test
// ends.
func DialConsole(t testing.TB, host string, port int) *Console {
	t.Helper()
	conn, err := net.DialTimeout("tcp", net.JoinHostPort(host, strconv.Itoa(port)), 5*time.Second)
	if err != nil {
		t.Fatalf("console %s:%d: %v", host, port, err)
	}
	t.Cleanup(func() { conn.Close() })
	return &Console{t: t, Conn: conn}
}

// Expect presses Enter (if enter) and reads until want appears, within
// limit; it reports whether it did.
func (c *Console) Expect(want string, enter bool, limit time.Duration) bool {
	c.t.Helper()
	c.Seen.Reset()
	return c.readUntil(func(seen string) bool { return strings.Contains(seen, want) }, enter, time.Now().Add(limit))
}

// readUntil reads into Seen (without resetting it), pressing Enter before
// each read if enter, until done(Seen) or the deadline; it reports
// whether done said so.
func (c *Console) readUntil(done func(seen string) bool, enter bool, deadline time.Time) bool {
	buf := make([]byte, 4096)
	if done(c.Seen.String()) {
		return true
	}
	for time.Now().Before(deadline) {
		if enter {
			if _, err := c.Conn.Write([]byte("\r\n")); err != nil {
				return false
			}
		}
		_ = c.Conn.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		n, err := c.Conn.Read(buf)
		c.Seen.Write(buf[:n])
		c.Log.Write(buf[:n])
		if done(c.Seen.String()) {
			return true
		}
		if err != nil && !os.IsTimeout(err) {
			return false
		}
	}
	return false
}

// Drain reads until the console has been quiet for a while (400 ms, at
// most 5 s), so that output sent before now is not taken for an answer to
// what comes next.
func (c *Console) Drain() {
	buf := make([]byte, 4096)
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); {
		_ = c.Conn.SetReadDeadline(time.Now().Add(400 * time.Millisecond))
		n, err := c.Conn.Read(buf)
		c.Log.Write(buf[:n])
		if err != nil {
			return
		}
	}
}

// Send types a line and Enter.
func (c *Console) Send(line string) {
	if _, err := c.Conn.Write([]byte(line + "\r\n")); err != nil {
		c.t.Fatal(err)
	}
}

// Run types a command and waits, within limit, for want in what the
// console prints after its echo. VPCS drops keys typed while it is busy,
// as a terminal user sees it, so a command not echoed within 2 s is typed
// again. One that was echoed is typed again only once it ended without
// want (a prompt came back and the console went quiet), as a user retries
// a ping that found no way yet: never while it still runs (a slow DHCP, a
// ping waiting for ARP), where the keys would land in what comes next.
func (c *Console) Run(command, want string, limit time.Duration) bool {
	c.t.Helper()
	deadline := time.Now().Add(limit)
	echoed := func(seen string) bool { return strings.Contains(seen, command) }
	after := func(seen string) string {
		_, rest, _ := strings.Cut(seen, command)
		return rest
	}
	for time.Now().Before(deadline) {
		c.Seen.Reset()
		c.Send(command)
		if !c.readUntil(echoed, false, earliest(deadline, time.Now().Add(2*time.Second))) {
			continue
		}
		ended, size, changed := false, -1, time.Now()
		found := c.readUntil(func(seen string) bool {
			out := after(seen)
			if strings.Contains(out, want) {
				return true
			}
			if len(seen) != size {
				size, changed = len(seen), time.Now()
			}
			ended = atAPrompt(out) && time.Since(changed) >= 300*time.Millisecond
			return ended
		}, false, deadline)
		if found && !ended {
			return true
		}
	}
	return false
}

// atAPrompt says whether out, what a command printed after its echo, ends
// with a prompt on a line of its own: VPCS's "PC1> ", a router's "R1#", a
// shell's "/ # " or "$ ".
func atAPrompt(out string) bool {
	i := strings.LastIndexAny(out, "\r\n")
	if i < 0 {
		return false
	}
	last := strings.TrimRight(out[i+1:], " ")
	return last != "" && strings.ContainsAny(last[len(last)-1:], ">#$")
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// RunToEnd types a command, typing it again while the console has not
// echoed it (VPCS drops keys typed while it is busy), then reads until
// one of ends appears after the echo, within limit. It answers what the
// command printed (Seen holds it too) and the end seen, "" if none came:
// then the command did not finish, or never ran.
func (c *Console) RunToEnd(command string, ends []string, limit time.Duration) (out, end string) {
	c.t.Helper()
	deadline := time.Now().Add(limit)
	c.Seen.Reset()
	echoed := func(seen string) bool { return strings.Contains(seen, command) }
	for {
		if !time.Now().Before(deadline) {
			return c.Seen.String(), ""
		}
		c.Send(command)
		wait := time.Now().Add(2 * time.Second)
		if wait.After(deadline) {
			wait = deadline
		}
		if c.readUntil(echoed, false, wait) {
			break
		}
	}
	after := func(seen string) string {
		_, rest, _ := strings.Cut(seen, command)
		return rest
	}
	found := func(seen string) bool {
		for _, e := range ends {
			if strings.Contains(after(seen), e) {
				end = e
				return true
			}
		}
		return false
	}
	c.readUntil(found, false, deadline)
	return after(c.Seen.String()), end
}

// Printable drops telnet negotiation and carriage returns from a
// transcript.
func Printable(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\r' || r >= 0xf0 && r <= 0xff || r == '\ufffd' {
			return -1
		}
		return r
	}, s)
	for strings.Contains(s, "\n\n\n") {
		s = strings.ReplaceAll(s, "\n\n\n", "\n\n")
	}
	return s
}
