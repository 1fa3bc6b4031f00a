package dynamips

import (
	"bufio"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// hypervisor is a connection to one Dynamips process's hypervisor: one
// command a line; each reply is lines "NNN text" followed by a last line
// "NNN-text", where 1xx is success (100-OK, 101 data) and 2xx an error.
type hypervisor struct {
	mu   sync.Mutex
	conn net.Conn
	r    *bufio.Reader
}

// hypervisorError is an error line of Dynamips (2xx-...).
type hypervisorError struct {
	cmd  string
	code int
	text string
}

func (e *hypervisorError) Error() string {
	return fmt.Sprintf("Dynamips refused %q: %s (%d)", e.cmd, e.text, e.code)
}

// dialHypervisor connects to a hypervisor, trying until wait is over
// (the process opens its port shortly after it starts) or alive says the
// process is gone.
func dialHypervisor(addr string, wait time.Duration, alive func() bool) (*hypervisor, error) {
	deadline := time.Now().Add(wait)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			return &hypervisor{conn: conn, r: bufio.NewReader(conn)}, nil
		}
		if time.Now().After(deadline) || !alive() {
			return nil, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// send runs one command and returns the text of its reply's lines (the
// final "OK" left out, as gns3-server does), or its error.
func (h *hypervisor) send(timeout time.Duration, format string, args ...any) ([]string, error) {
	cmd := fmt.Sprintf(format, args...)
	h.mu.Lock()
	defer h.mu.Unlock()
	_ = h.conn.SetDeadline(time.Now().Add(timeout))
	if _, err := h.conn.Write([]byte(cmd + "\n")); err != nil {
		return nil, fmt.Errorf("sending %q to Dynamips: %w", cmd, err)
	}
	var out []string
	for {
		line, err := h.r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("reading Dynamips' answer to %q: %w", cmd, err)
		}
		line = strings.TrimRight(line, "\r\n")
		if len(line) < 4 {
			continue
		}
		code, err := strconv.Atoi(line[:3])
		if err != nil {
			continue
		}
		text := line[4:]
		if code >= 200 {
			return nil, &hypervisorError{cmd: cmd, code: code, text: text}
		}
		if line[3] == '-' { // the last line
			if text != "OK" {
				out = append(out, text)
			}
			return out, nil
		}
		out = append(out, text)
	}
}

func (h *hypervisor) close() { h.conn.Close() }

// quote is a string argument as gns3-server writes them: in double quotes.
func quote(s string) string { return `"` + s + `"` }
