package kit

import (
	"bufio"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeVPCS serves a console on one end of a pipe: answer says what to print
// for the n-th command typed (from 1), "" to drop it unechoed as a busy
// VPCS does; each piece is printed after a pause of step.
func fakeVPCS(t *testing.T, answer func(n int, cmd string) []string, step time.Duration) (*Console, *atomic.Int32) {
	client, server := net.Pipe()
	t.Cleanup(func() { client.Close(); server.Close() })
	var typed atomic.Int32
	go func() {
		r := bufio.NewReader(server)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			cmd := strings.TrimRight(line, "\r\n")
			if cmd == "" {
				continue
			}
			pieces := answer(int(typed.Add(1)), cmd)
			if pieces == nil {
				continue
			}
			server.Write([]byte(cmd + "\r\n"))
			for _, p := range pieces {
				time.Sleep(step)
				server.Write([]byte(p))
			}
		}
	}()
	return &Console{t: t, Conn: client}, &typed
}

// TestRun: a command is typed again when it was dropped or ended without
// the answer wanted, never while it still prints (a slow DHCP).
func TestRun(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answer  func(n int, cmd string) []string
		want    string
		ok      bool
		typedAs int32
	}{
		{"slow DHCP", func(int, string) []string {
			return []string{"D", "O", "R", "A", "\r\nIP 10.0.0.5/24 GW 10.0.0.1\r\n\r\nPC1> "}
		}, "GW 10.0.0.1", true, 1},
		{"dropped, then taken", func(n int, _ string) []string {
			if n == 1 {
				return nil
			}
			return []string{"10.0.0.2 icmp_seq=1 ttl=64 time=1 ms\r\n\r\nPC1> "}
		}, "ttl=", true, 2},
		{"no way yet, then a reply", func(n int, _ string) []string {
			if n == 1 {
				return []string{"host (10.0.0.2) not reachable\r\n\r\nPC1> "}
			}
			return []string{"10.0.0.2 icmp_seq=1 ttl=64 time=1 ms\r\n\r\nPC1> "}
		}, "ttl=", true, 2},
		{"never", func(int, string) []string { return []string{"host (10.0.0.2) not reachable\r\n\r\nPC1> "} }, "ttl=", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, typed := fakeVPCS(t, tc.answer, 500*time.Millisecond)
			ok := c.Run("ping 10.0.0.2", tc.want, 4*time.Second)
			if ok != tc.ok || tc.typedAs != 0 && typed.Load() != tc.typedAs {
				t.Errorf("Run = %v after typing it %d times; want %v after %d:\n%s", ok, typed.Load(), tc.ok, tc.typedAs, Printable(c.Log.String()))
			}
		})
	}
}
