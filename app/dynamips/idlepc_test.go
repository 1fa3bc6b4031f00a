package dynamips

import (
	"bufio"
	"net"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"nodedesk/app"
)

// fakeHypervisor answers the hypervisor commands of an idle-PC search as
// Dynamips does, proposing two values, and refuses to set the idle PC to
// refuse ("": none). It records the commands it was sent.
type fakeHypervisor struct {
	mu   sync.Mutex
	cmds []string
}

func (f *fakeHypervisor) sent() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.cmds...)
}

func startFakeHypervisor(t *testing.T, refuse string) (*fakeHypervisor, *hypervisor) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	f := &fakeHypervisor{}
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		r := bufio.NewReader(c)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			cmd := strings.TrimSpace(line)
			f.mu.Lock()
			f.cmds = append(f.cmds, cmd)
			f.mu.Unlock()
			switch {
			case strings.HasPrefix(cmd, "vm get_idle_pc_prop "):
				_, _ = c.Write([]byte("101 0xffffffff80008040 [60]\r\n101 0xffffffff800083ac [40]\r\n100-OK\r\n"))
			case refuse != "" && strings.HasSuffix(cmd, " "+refuse):
				_, _ = c.Write([]byte("206-unable to set idle PC\r\n"))
			default:
				_, _ = c.Write([]byte("100-OK\r\n"))
			}
		}
	}()
	hv, err := dialHypervisor(ln.Addr().String(), 5*time.Second, func() bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(hv.close)
	return f, hv
}

// TestAutoIdlePC_FailureKeepsIdlePC: an idle-PC search on a router that
// runs with an idle PC samples it without one, and when no proposal
// brings its CPU use down (here a process that never uses any), or
// Dynamips refuses a proposal midway, the router gets its idle PC back:
// Dynamips' last idle PC is the one the node keeps.
func TestAutoIdlePC_FailureKeepsIdlePC(t *testing.T) {
	defer func(d time.Duration) { probeTime = d }(probeTime)
	probeTime = 20 * time.Millisecond
	for _, tt := range []struct{ name, refuse string }{
		{"no proposal helps", ""},
		{"a proposal refused", "0xffffffff80008040"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, hv := startFakeHypervisor(t, tt.refuse)
			idle := exec.Command("sleep", "30")
			if err := idle.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = idle.Process.Kill(); _ = idle.Wait() })
			rt := &router{p: app.Process{Name: "R1"}, s: settings{Platform: "c3600", IdlePC: "0x80001234"}, cmd: idle, hv: hv}
			if v, err := rt.autoIdlePC(); err == nil {
				t.Fatalf("the search found %s; want a failure", v)
			}
			var online []string
			for _, c := range f.sent() {
				if strings.HasPrefix(c, "vm set_idle_pc_online ") {
					online = append(online, c)
				}
			}
			if len(online) < 2 || online[0] != `vm set_idle_pc_online "R1" 0 0x0` {
				t.Fatalf("idle PCs sent %q; want the router's own cleared first, before Dynamips samples it", online)
			}
			if last, want := online[len(online)-1], `vm set_idle_pc_online "R1" 0 0xffffffff80001234`; last != want {
				t.Errorf("after the failed search Dynamips was last sent %q; want the router's own idle PC back: %q", last, want)
			}
			if rt.s.IdlePC != "0x80001234" {
				t.Errorf("the router's idle PC is %q after the failed search; want its own", rt.s.IdlePC)
			}
		})
	}
}
