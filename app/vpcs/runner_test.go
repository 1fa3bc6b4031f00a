package vpcs_test

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"nodedesk/app"
	"nodedesk/app/kit"
	"nodedesk/app/vpcs"
	"nodedesk/app/vpcs/vpcstest"
)

// These tests run the real `vpcs` simulator (make test installs it).

// freeUDP is a UDP port of 127.0.0.1 that nothing holds right now, and its
// neighbour is free too: what nodedesk would allocate.
func freeUDP(t *testing.T) int {
	t.Helper()
	for range 100 {
		c, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p := c.LocalAddr().(*net.UDPAddr).Port
		c.Close()
		if d, err := net.ListenPacket("udp", "127.0.0.1:"+strconv.Itoa(p+1)); err == nil {
			d.Close()
			return p
		}
	}
	t.Fatal("no free UDP port pair")
	return 0
}

func process(t *testing.T, local int) app.Process {
	return app.Process{ProjectID: "p", NodeID: "n-" + strconv.Itoa(local), Name: "PC1", Dir: t.TempDir(),
		Console: kit.FreeTCP(t), MACOffset: 1, Ports: []app.PortPair{{Local: local, Remote: local + 1}}}
}

// holdsUDP reports whether process pid has a socket bound to UDP port.
func holdsUDP(t *testing.T, pid, port int) bool {
	t.Helper()
	inodes := map[string]bool{}
	for _, f := range []string{"/proc/net/udp", "/proc/net/udp6"} {
		b, _ := os.ReadFile(f)
		for _, l := range strings.Split(string(b), "\n")[1:] {
			fs := strings.Fields(l)
			if len(fs) > 9 && strings.HasSuffix(fs[1], fmt.Sprintf(":%04X", port)) {
				inodes["socket:["+fs[9]+"]"] = true
			}
		}
	}
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, fd := range fds {
		if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err == nil && inodes[l] {
			return true
		}
	}
	return false
}

// TestStart_HoldsLinkPort: a started VPCS has bound its -s port, where its
// link's frames arrive.
func TestStart_HoldsLinkPort(t *testing.T) {
	vpcstest.MustHave(t)
	r := vpcs.New(vpcs.Config{ConsoleHost: "127.0.0.1", StopGrace: time.Second})
	t.Cleanup(r.StopAll)
	port := freeUDP(t)
	p := process(t, port)
	if _, err := r.Start(p); err != nil {
		t.Fatal(err)
	}
	pid := vpcstest.PID(p.Dir)
	if pid == 0 || !holdsUDP(t, pid, port) {
		t.Fatalf("vpcs (pid %d) does not hold its link port %d once started", pid, port)
	}
}

// TestStart_LinkPortTaken: a program that takes the node's UDP port after
// nodedesk found it free and before VPCS opens it makes the start fail
// with an app.EndTaken of that port (a 409 naming the program, written by
// the Service), and leaves nothing running or held. VPCS itself would run on without its link.
func TestStart_LinkPortTaken(t *testing.T) {
	vpcstest.MustHave(t)
	r := vpcs.New(vpcs.Config{ConsoleHost: "127.0.0.1", StopGrace: time.Second})
	t.Cleanup(r.StopAll)
	port := freeUDP(t)
	taker, err := net.ListenPacket("udp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	defer taker.Close()
	p := process(t, port)
	_, err = r.Start(p)
	var taken *app.EndTaken
	if !errors.As(err, &taken) || taken.Port != port {
		t.Fatalf("start with its link port taken gave %v; want an app.EndTaken of port %d (the Service names its holder: api/labtest's TestLab_StartWithTakenUDPPort)", err, port)
	}
	if pid := vpcstest.PID(p.Dir); pid != 0 {
		t.Errorf("vpcs %d still runs after the failed start", pid)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p.Console))
	if err != nil {
		t.Fatalf("console port still held after the failed start: %v", err)
	}
	ln.Close()

	// Once the port is free again, the same node starts and holds it.
	taker.Close()
	if _, err := r.Start(p); err != nil {
		t.Fatalf("start after the port was freed: %v", err)
	}
	if pid := vpcstest.PID(p.Dir); pid == 0 || !holdsUDP(t, pid, port) {
		t.Fatalf("vpcs (pid %d) does not hold port %d after the second start", pid, port)
	}
}

// TestStart_RelayOff: a VPCS from 0.8 on is started with -R, so that it
// binds no relay socket at its -s port + 9 (a port nodedesk may give
// another node); Debian's 0.5b2, which refuses -R, is started without it.
func TestStart_RelayOff(t *testing.T) {
	vpcstest.MustHave(t)
	dir := t.TempDir()
	// A VPCS that says it is 0.8.3, notes its arguments and runs the real
	// one without -R.
	script := "#!/bin/sh\nif [ \"$1\" = -v ]; then echo 'Welcome to Virtual PC Simulator, version 0.8.3'; exit 0; fi\n" +
		"echo \"$@\" > " + dir + "/args\nfor a; do shift; [ \"$a\" = -R ] || set -- \"$@\" \"$a\"; done\nexec /usr/bin/vpcs \"$@\"\n"
	fake := dir + "/vpcs08"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for bin, want := range map[string]bool{fake: true, "vpcs": false} {
		r := vpcs.New(vpcs.Config{Binary: bin, ConsoleHost: "127.0.0.1", StopGrace: time.Second})
		t.Cleanup(r.StopAll)
		port := freeUDP(t)
		line, err := r.Start(process(t, port))
		if err != nil {
			t.Fatalf("%s: %v", bin, err)
		}
		if got := strings.Contains(" "+line+" ", " -R "); got != want {
			t.Errorf("%s started as %q: -R given %v, want %v", bin, line, got, want)
		}
	}
	if args, _ := os.ReadFile(dir + "/args"); !strings.Contains(string(args), "-R") {
		t.Errorf("the 0.8 simulator was run with %q", args)
	}
}
