//go:build linux

package dataplane

// The data-plane benchmark (make bench-dataplane, part of make bench): the
// CPU nodedesk spends per frame, the frames per second it carries with
// under 1% loss, and the round trip through it, for 64-, 512- and
// 1500-byte Ethernet frames over loopback through
//
//	bare    a bare Go UDP relay: one goroutine per direction, plain
//	        net.UDPConn Read and Write (the baseline, measured in the same run)
//	relay   nodedesk's Fabric carrying a direct VPCS–VPCS link
//	switch  nodedesk's Fabric carrying two VPCS on two access ports of an
//	        Ethernet switch that has learnt both (unicast forwarding)
//	nio-switch  the same lab as a GNS3 controller makes it on nodedesk as
//	        its compute: no links, but for each VPCS–switch link two NIOs
//	        (nio_udp) whose UDP endpoints on 127.0.0.1 point at each other,
//	        one on the VPCS's port (joining its UDP pair) and one on the
//	        switch's, put on the Fabric through Apply with the events the
//	        Service publishes (nioSwitchLab); a frame crosses one more UDP
//	        datagram, sent and read by the Fabric, per link it crosses
//
// Each relay runs alone in a child process (this test binary, re-run with
// relayChildEnv), so that its CPU time, read from /proc, is its own; the
// two VPCS are played by sockets of this process, which generates the load,
// counts, and echoes. The cells of one frame size alternate between the
// relays in relayRounds rounds, so that on a noisy machine all three see
// the same moments. The targets are checked here, never in a unit test.
//
//	NODEDESK_BENCH=1                  run it (otherwise skipped)
//	NODEDESK_BENCH_RELAY_RATE=R       frames/s of the CPU measurement (default 20000)
//	NODEDESK_BENCH_RELAY_SECONDS=S    seconds of it per cell and round (default 1)
//	NODEDESK_BENCH_RELAY_MODES=M,...  the paths besides bare (default
//	                                  relay,switch,nio-switch; also
//	                                  relay-unwatched, switch-unwatched:
//	                                  the same with the wire watch off,
//	                                  to measure what watching costs)
//
// nio-switch has no target: its line and its ratios to switch (printed
// under the table) say what a GNS3 controller's NIOs cost.

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"nodedesk/app"
	"nodedesk/app/kit"
	"nodedesk/bench/procstat"
)

const (
	relayChildEnv = "NODEDESK_RELAY_CHILD" // mode,a1,r1,a2,r2 of the child
	relayRounds   = 2
	// relayPings is how many round trips each cell measures per round.
	relayPings = 2000
	// relayTrial is how long one offered rate of the loss search lasts.
	relayTrial = 300 * time.Millisecond
	// relayTick is how often the load generator wakes to send what is due:
	// at 20,000 frames/s one frame per wake-up.
	relayTick = 50 * time.Microsecond
	// relayMaxRate caps the loss search.
	relayMaxRate = 2_000_000
)

var relaySizes = []int{64, 512, 1500}

// TestRelayBenchChild is the child process: it runs one relay until its
// standard input closes. Without relayChildEnv it does nothing.
func TestRelayBenchChild(t *testing.T) {
	spec := os.Getenv(relayChildEnv)
	if spec == "" {
		kit.RunElsewhere(t, "a child process of the relay benchmark (TestRelayTable)")
	}
	f := strings.Split(spec, ",")
	ports := make([]int, 4)
	for i := range ports {
		ports[i], _ = strconv.Atoi(f[i+1])
	}
	a1, r1, a2, r2 := ports[0], ports[1], ports[2], ports[3]
	switch f[0] {
	case "bare":
		c1, c2 := bareConn(t, r1, a1), bareConn(t, r2, a2)
		go bareCopy(c2, c1)
		go bareCopy(c1, c2)
	case "nio-switch":
		fab := NewFabric("127.0.0.1", slog.New(slog.NewTextHandler(os.Stderr, nil)))
		defer fab.Close()
		nioSwitchLab(t, fab, a1, r1, a2, r2)
	default:
		fab := NewFabric("127.0.0.1", slog.New(slog.NewTextHandler(os.Stderr, nil)))
		defer fab.Close()
		mode, unwatched := strings.CutSuffix(f[0], "-unwatched")
		fab.Load(relayTopology(mode, a1, r1, a2, r2))
		if unwatched {
			unwatch(fab)
		}
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// benchModes are the paths the relay benchmark can measure besides bare:
// those of the fabric's hot-path benchmark, and nio-switch.
var benchModes = append(slices.Clone(relayModes), "nio-switch")

// unwatchedModes are relay and switch with the wire watch off (asked for
// by name only): beside their watched twins they say what watching costs.
var unwatchedModes = []string{"relay-unwatched", "switch-unwatched"}

// nioSwitchLab puts the switch lab (relayTopology's) on fab as a GNS3 2.2
// controller makes it on a compute: the nodes are created, each link is
// two nio_udp NIOs (one on each end's port) whose UDP endpoints on
// 127.0.0.1 point at each other, then the VPCS start. All of it goes
// through Apply, with the events the Service publishes.
func nioSwitchLab(t *testing.T, fab *Fabric, a1, r1, a2, r2 int) {
	t.Helper()
	nodes, _ := relayTopology("switch", a1, r1, a2, r2)
	for _, n := range nodes {
		n.ProjectID = "p"
		created := *n
		if n.Type == app.VPCS {
			created.Status, created.UDPPorts = app.Stopped, nil
		}
		fab.Apply(app.Event{Action: app.EventNodeCreated, ProjectID: "p", Payload: &created})
	}
	nio := func(node string, port, lport, rport int) {
		fab.Apply(app.Event{Action: app.EventNIOCreated, ProjectID: "p", Payload: &app.NIO{
			ProjectID: "p", NodeID: node, PortNumber: port, Type: app.NIOTypeUDP,
			LPort: lport, RHost: "127.0.0.1", RPort: rport, Filters: map[string]json.RawMessage{}}})
	}
	for i, vpcs := range []string{"n1", "n2"} { // link i: vpcs port 0 – sw port i
		pv, ps := freeUDPPort(t), freeUDPPort(t)
		nio(vpcs, 0, pv, ps)
		nio("sw", i, ps, pv)
	}
	for _, n := range nodes[:2] {
		fab.Apply(app.Event{Action: app.EventNodeUpdated, ProjectID: "p", Payload: n})
	}
	top := fab.topo.Load()
	if len(top.udp) != 6 || len(top.wires) != 8 {
		t.Fatalf("the NIO lab has %d UDP endpoints and %d wired ports, want 6 and 8", len(top.udp), len(top.wires))
	}
}

// bareConn is the bare relay's socket: bound to local, connected to
// remote, with the buffers nodedesk asks for.
func bareConn(t *testing.T, local, remote int) *net.UDPConn {
	c, err := net.DialUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: local}, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: remote})
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadBuffer(1 << 20)
	_ = c.SetWriteBuffer(1 << 20)
	return c
}

// bareCopy is one direction of the bare relay.
func bareCopy(dst, src *net.UDPConn) {
	buf := make([]byte, MaxFrame+1)
	for {
		n, err := src.Read(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		_, _ = dst.Write(buf[:n])
	}
}

// relayProc is one relay under test and the two VPCS sockets around it.
type relayProc struct {
	mode   string
	cmd    *exec.Cmd
	stdin  io.Closer
	h1, h2 *net.UDPConn    // VPCS 1 (sends, pings) and VPCS 2 (counts, echoes)
	tx     sender          // writes h1's frames, as the fabric writes them
	rc1    syscall.RawConn // h1's
	trial  atomic.Uint32
	got    atomic.Uint64 // frames of trial that reached h2
	echo   atomic.Bool   // h2 echoes what it receives back to h1
}

// startRelay starts mode's relay in a child process and waits until a
// frame crosses it both ways (which teaches a switch both hosts).
func startRelay(t *testing.T, mode string) *relayProc {
	t.Helper()
	r1, r2 := freeUDPPort(t), freeUDPPort(t)
	p := &relayProc{mode: mode, h1: dialLoopback(t, r1), h2: dialLoopback(t, r2)}
	port := func(c *net.UDPConn) int { return c.LocalAddr().(*net.UDPAddr).Port }
	p.cmd = exec.Command(os.Args[0], "-test.run=^TestRelayBenchChild$", "-test.timeout=30m")
	p.cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s,%d,%d,%d,%d", relayChildEnv, mode, port(p.h1), r1, port(p.h2), r2))
	p.cmd.Stderr = os.Stderr
	stdin, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.stdin = stdin
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.stop)
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
		t.Fatalf("%s relay did not start: %q", mode, line)
	}
	go io.Copy(io.Discard, stdout)
	if p.rc1, err = p.h1.SyscallConn(); err != nil {
		t.Fatal(err)
	}
	go p.sink()
	p.echo.Store(true)
	defer p.echo.Store(false)
	_ = p.h1.SetReadBuffer(4 << 20)
	for i := range 100 {
		if _, ok := p.ping(relayFrame(64, 1, 2, 0, uint64(i)), 100*time.Millisecond); ok {
			return p
		}
	}
	t.Fatalf("no frame crosses the %s relay", mode)
	return nil
}

// dialLoopback is a VPCS socket: a free loopback port, sending to port.
func dialLoopback(t *testing.T, port int) *net.UDPConn {
	c, err := net.DialUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)}, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port})
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadBuffer(4 << 20)
	_ = c.SetWriteBuffer(4 << 20)
	t.Cleanup(func() { c.Close() })
	return c
}

func (p *relayProc) stop() {
	_ = p.stdin.Close()
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

// sink reads what reaches VPCS 2: it counts the frames of the current
// trial, or echoes them back (from host 2 to host 1) when echo is set.
func (p *relayProc) sink() {
	rx, err := newBatch(p.h2, batchSize, MaxFrame+1)
	if err != nil {
		return
	}
	for {
		n, err := rx.recv()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		if p.echo.Load() {
			for i := range n {
				f := rx.frame(i)
				if len(f) >= 12 {
					copy(f, relayHost(1))
					copy(f[6:], relayHost(2))
					_, _ = p.h2.Write(f)
				}
			}
			continue
		}
		trial := p.trial.Load()
		for i := range n {
			if tr, _, ok := frameStamp(rx.frame(i)); ok && tr == trial {
				p.got.Add(1)
			}
		}
	}
}

// cpu is the child's CPU time so far: the sum of its threads' run time
// (schedstat, in nanoseconds).
func (p *relayProc) cpu() time.Duration { return p.stat().CPU }

// stat is the child's CPU time and context switches so far.
func (p *relayProc) stat() procstat.Sample { return procstat.Read(p.cmd.Process.Pid) }

// ping sends frame from VPCS 1 and waits for its echo.
func (p *relayProc) ping(frame []byte, timeout time.Duration) (time.Duration, bool) {
	_, want, _ := frameStamp(frame)
	buf := make([]byte, MaxFrame+1)
	t0 := time.Now()
	_ = p.h1.SetReadDeadline(t0.Add(timeout))
	if _, err := p.h1.Write(frame); err != nil {
		return 0, false
	}
	for {
		n, err := p.h1.Read(buf)
		if err != nil {
			return 0, false
		}
		if _, seq, ok := frameStamp(buf[:n]); ok && seq == want {
			return time.Since(t0), true
		}
	}
}

// offer sends frames of size from VPCS 1 at rate for d, paced every
// relayTick, and returns how many it sent and how many reached VPCS 2.
func (p *relayProc) offer(size int, rate float64, d time.Duration) (sent, got uint64) {
	trial := p.trial.Add(1)
	p.got.Store(0)
	frames := make([][]byte, batchSize)
	for i := range frames {
		frames[i] = relayFrame(size, 1, 2, trial, 0)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0) // this thread's sleeps end on time
	total := uint64(rate * d.Seconds())
	t0 := time.Now()
	for sent < total {
		due := min(uint64(rate*time.Since(t0).Seconds()), total)
		for sent < due {
			k := min(due-sent, uint64(len(frames)))
			for i := range k {
				stampFrame(frames[i], trial, sent+i)
			}
			if err := p.tx.send(p.h1, p.rc1, frames[:k]); err != nil {
				break
			}
			sent += k
		}
		ts := unix.NsecToTimespec(int64(relayTick))
		_ = unix.Nanosleep(&ts, nil)
	}
	time.Sleep(30 * time.Millisecond) // what is in flight arrives
	return sent, p.got.Load()
}

// relayCell is what one relay did with one frame size.
type relayCell struct {
	cpu      time.Duration // the relay's CPU time in the fixed-rate windows
	frames   uint64        // frames delivered in them
	switches uint64        // the relay's context switches in them
	syscalls uint64        // the relay's system calls in the perf windows
	scFrames uint64        // frames delivered in those
	offered  float64       // the lowest fixed rate delivered in a round (frames/s)
	pingCPU  time.Duration // the relay's CPU time during the round trips
	pings    int
	rtts     []time.Duration
	lost     int
	tput     float64 // best frames/s delivered at under 1% loss
	tputLoss float64 // its loss
}

func (c *relayCell) cpuPerFrame() float64 {
	if c.frames == 0 {
		return math.NaN()
	}
	return float64(c.cpu) / float64(c.frames) / 1e3
}

// perFrame is n ÷ frames, or NaN without frames.
func perFrame(n, frames uint64) float64 {
	if frames == 0 {
		return math.NaN()
	}
	return float64(n) / float64(frames)
}

func (c *relayCell) pingCPUPerFrame() float64 {
	if c.pings == 0 {
		return math.NaN()
	}
	return float64(c.pingCPU) / float64(2*c.pings) / 1e3 // each ping crosses twice
}

func (c *relayCell) rtt(q float64) time.Duration {
	if len(c.rtts) == 0 {
		return 0
	}
	s := slices.Clone(c.rtts)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// pingRound measures round trips of size-byte frames through every relay,
// one frame at a time, taking the relays in turn frame by frame so that
// all see the same moments of a noisy machine.
func pingRound(modes []string, procs map[string]*relayProc, cells map[string]*relayCell, size int) {
	frame := relayFrame(size, 1, 2, 0, 0)
	before := map[string]time.Duration{}
	for _, m := range modes {
		procs[m].echo.Store(true)
		before[m] = procs[m].cpu()
	}
	for i := range relayPings {
		for _, m := range modes {
			c := cells[m+"/"+strconv.Itoa(size)]
			stampFrame(frame, 0, uint64(1_000_000+i))
			if d, ok := procs[m].ping(frame, 50*time.Millisecond); ok {
				c.rtts = append(c.rtts, d)
				c.pings++
			} else {
				c.lost++
			}
		}
	}
	for _, m := range modes {
		cells[m+"/"+strconv.Itoa(size)].pingCPU += procs[m].cpu() - before[m]
		procs[m].echo.Store(false)
	}
	time.Sleep(20 * time.Millisecond) // late echoes are read before the next trial
}

// measure adds one round of size's load measurements to c.
func (p *relayProc) measure(c *relayCell, size int, rate float64, window time.Duration) {
	// CPU per frame and wake-ups at a fixed rate.
	before := p.stat()
	_, got := p.offer(size, rate, window)
	d := p.stat().Sub(before)
	c.cpu += d.CPU
	c.switches += d.Switches
	c.frames += got
	// System calls at the same rate, counted by perf in a window of their
	// own (perf slows each call).
	if havePerf {
		n, err := procstat.Syscalls([]int{p.cmd.Process.Pid}, func() {
			_, got := p.offer(size, rate, window/2)
			c.scFrames += got
		})
		if err == nil {
			c.syscalls += n
		}
	}
	if r := float64(got) / window.Seconds(); c.offered == 0 || r < c.offered {
		c.offered = r // the lowest rate delivered in a round
	}

	// Frames/s at under 1% loss: raise the offered rate by half until
	// loss, twice in a row, reaches 1%, then bisect.
	ok := func(r float64) bool {
		for range 2 {
			sent, got := p.offer(size, r, relayTrial)
			loss := 1 - float64(got)/float64(max(sent, 1))
			if loss < 0.01 {
				if del := float64(got) / relayTrial.Seconds(); del > c.tput {
					c.tput, c.tputLoss = del, loss
				}
				return true
			}
		}
		return false
	}
	kit.SearchRate(10_000.0, relayMaxRate, ok)
}

// TestRelayTable prints the data-plane table and fails for each target
// missed, after printing all of it.
func TestRelayTable(t *testing.T) {
	if os.Getenv("NODEDESK_BENCH") != "1" {
		kit.RunElsewhere(t, "the data-plane benchmark runs with NODEDESK_BENCH=1 (make bench)")
	}
	rate := float64(benchEnv(t, "NODEDESK_BENCH_RELAY_RATE", 20000))
	havePerf = procstat.HavePerf()
	window := time.Duration(benchEnv(t, "NODEDESK_BENCH_RELAY_SECONDS", 1)) * time.Second
	modes := append([]string{"bare"}, benchModesFrom(t, os.Getenv("NODEDESK_BENCH_RELAY_MODES"))...)
	procs := map[string]*relayProc{}
	for _, m := range modes {
		procs[m] = startRelay(t, m)
	}
	began := time.Now()
	cells := map[string]*relayCell{}
	for _, size := range relaySizes {
		for round := range relayRounds {
			for i := range modes {
				m := modes[(i+round)%len(modes)] // each relay goes first in turn
				key := m + "/" + strconv.Itoa(size)
				if cells[key] == nil {
					cells[key] = &relayCell{}
				}
				procs[m].measure(cells[key], size, rate, window)
			}
			pingRound(modes, procs, cells, size)
		}
		t.Logf("%d-byte frames measured (%v so far)", size, time.Since(began).Round(time.Second))
	}
	table, missed := relayTable(modes, cells, rate)
	fmt.Print(table)
	for _, m := range missed {
		t.Error("target missed: " + m)
	}
}

// havePerf says whether perf counts system calls here (TestRelayTable
// sets it).
var havePerf bool

// benchModesFrom reads NODEDESK_BENCH_RELAY_MODES: a comma-separated list
// of benchModes, or all of them when empty.
func benchModesFrom(t *testing.T, v string) []string {
	if v == "" {
		return benchModes
	}
	var modes []string
	for m := range strings.SplitSeq(v, ",") {
		m = strings.TrimSpace(m)
		if !slices.Contains(benchModes, m) && !slices.Contains(unwatchedModes, m) {
			t.Fatalf("NODEDESK_BENCH_RELAY_MODES=%q: %q is none of %s", v, m, strings.Join(append(benchModes, unwatchedModes...), ","))
		}
		if !slices.Contains(modes, m) {
			modes = append(modes, m)
		}
	}
	return modes
}

// benchEnv reads a positive integer setting, or def.
func benchEnv(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// relayTable formats the cells of modes (bare first), with each relay's
// ratios to the bare relay of the same size, then nio-switch's to switch,
// and lists the targets missed.
func relayTable(modes []string, cells map[string]*relayCell, rate float64) (string, []string) {
	var b strings.Builder
	var missed []string
	fmt.Fprintf(&b, "\ndata plane: CPU per frame at %.0f frames/s, frames/s at <1%% loss, round trip (one frame at a time)\n", rate)
	line := "%-10s %5s %9s %8s %7s %7s %11s %8s %9s %8s %8s %8s %10s %8s\n"
	fmt.Fprintf(&b, line, "path", "bytes", "CPU µs/f", "×bare", "sys/f", "wake/f", "frames/s", "×bare", "rtt p50", "p99", "×bare", "lost", "ping µs/f", "×bare")
	fmt.Fprintln(&b, strings.Repeat("-", 127))
	for _, size := range relaySizes {
		bare := cells["bare/"+strconv.Itoa(size)]
		for _, m := range modes {
			c := cells[m+"/"+strconv.Itoa(size)]
			cpuR := c.cpuPerFrame() / bare.cpuPerFrame()
			tputR := c.tput / bare.tput
			rttR := float64(c.rtt(0.5)) / float64(bare.rtt(0.5))
			pingR := c.pingCPUPerFrame() / bare.pingCPUPerFrame()
			fmt.Fprintf(&b, line, m, strconv.Itoa(size),
				fmt.Sprintf("%.1f", c.cpuPerFrame()), ratio(m, cpuR),
				fmt.Sprintf("%.2f", perFrame(c.syscalls, c.scFrames)), fmt.Sprintf("%.2f", perFrame(c.switches, c.frames)),
				fmt.Sprintf("%.0f", c.tput), ratio(m, tputR),
				fmt.Sprintf("%.1fµs", float64(c.rtt(0.5))/1e3), fmt.Sprintf("%.1fµs", float64(c.rtt(0.99))/1e3), ratio(m, rttR),
				strconv.Itoa(c.lost), fmt.Sprintf("%.1f", c.pingCPUPerFrame()), ratio(m, pingR))
			if m == "bare" {
				if c.offered < 0.9*rate {
					missed = append(missed, fmt.Sprintf("the load reached %.0f frames/s, not %.0f: the CPU figures are at a lower rate", c.offered, rate))
				}
				continue
			}
			if m == "nio-switch" || slices.Contains(unwatchedModes, m) {
				continue // a cost measured, not a target
			}
			what := fmt.Sprintf("%s %d B: ", m, size)
			if !(cpuR <= 1.0) {
				missed = append(missed, what+fmt.Sprintf("CPU per frame %.2f× the bare relay's (target ≤ 1.0×)", cpuR))
			}
			if !(tputR >= 1.0) {
				missed = append(missed, what+fmt.Sprintf("frames/s %.2f× the bare relay's (target ≥ 1.0×)", tputR))
			}
			if m == "switch" && !(rttR <= 1.2) {
				missed = append(missed, what+fmt.Sprintf("round trip p50 %.2f× the bare relay's (target ≤ 1.2×)", rttR))
			}
		}
	}
	if slices.Contains(modes, "switch") && slices.Contains(modes, "nio-switch") {
		fmt.Fprintln(&b, "\nnio-switch ÷ switch (a GNS3 controller's NIOs against nodedesk's links, same run)")
		nl := "%-10s %5s %9s %11s %9s %10s\n"
		fmt.Fprintf(&b, nl, "", "bytes", "CPU µs/f", "frames/s", "rtt p50", "ping µs/f")
		for _, size := range relaySizes {
			n, s := cells["nio-switch/"+strconv.Itoa(size)], cells["switch/"+strconv.Itoa(size)]
			fmt.Fprintf(&b, nl, "", strconv.Itoa(size),
				fmt.Sprintf("%.2f×", n.cpuPerFrame()/s.cpuPerFrame()), fmt.Sprintf("%.2f×", n.tput/s.tput),
				fmt.Sprintf("%.2f×", float64(n.rtt(0.5))/float64(s.rtt(0.5))), fmt.Sprintf("%.2f×", n.pingCPUPerFrame()/s.pingCPUPerFrame()))
		}
	}
	for _, m := range unwatchedModes {
		watched := strings.TrimSuffix(m, "-unwatched")
		if !slices.Contains(modes, m) || !slices.Contains(modes, watched) {
			continue
		}
		fmt.Fprintf(&b, "\n%s ÷ %s (what watching the wire costs, same run)\n", watched, m)
		nl := "%-10s %5s %9s %11s %9s %10s\n"
		fmt.Fprintf(&b, nl, "", "bytes", "CPU µs/f", "frames/s", "rtt p50", "ping µs/f")
		for _, size := range relaySizes {
			w, u := cells[watched+"/"+strconv.Itoa(size)], cells[m+"/"+strconv.Itoa(size)]
			fmt.Fprintf(&b, nl, "", strconv.Itoa(size),
				fmt.Sprintf("%.3f×", w.cpuPerFrame()/u.cpuPerFrame()), fmt.Sprintf("%.3f×", w.tput/u.tput),
				fmt.Sprintf("%.3f×", float64(w.rtt(0.5))/float64(u.rtt(0.5))), fmt.Sprintf("%.3f×", w.pingCPUPerFrame()/u.pingCPUPerFrame()))
		}
	}
	fmt.Fprintln(&b, "CPU µs/f: the relay process's CPU time (all threads, /proc schedstat) ÷ frames delivered, load paced every 50µs.")
	fmt.Fprintln(&b, "sys/f: the relay's system calls ÷ frames delivered (perf stat, a window of its own; NaN without perf); wake/f: its context switches ÷ frames.")
	fmt.Fprintln(&b, "frames/s: the highest delivered rate with <1% loss (offered rate raised ×1.5, then bisected; 300 ms trials).")
	fmt.Fprintln(&b, "rtt: VPCS 1 → relay → VPCS 2 (echo) → relay → VPCS 1, one frame at a time; ping µs/f: the relay's CPU per crossing then.")
	fmt.Fprintln(&b, "nio-switch: the switch lab with each link two NIOs pointing at each other on 127.0.0.1, as a GNS3 controller links nodes.")
	fmt.Fprintln(&b, "targets: relay and switch CPU ≤ 1.0× and frames/s ≥ 1.0× the bare relay's; switch rtt p50 ≤ 1.2×.")
	return b.String(), missed
}

// ratio shows r, or nothing on the bare relay's own line.
func ratio(mode string, r float64) string {
	if mode == "bare" {
		return ""
	}
	return fmt.Sprintf("%.2f×", r)
}
