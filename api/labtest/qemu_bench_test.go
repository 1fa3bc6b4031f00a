//go:build linux

package labtest

// The QEMU benchmark (make bench-qemu, part of make bench): what nodedesk
// costs a QEMU guest, against QEMU run by hand, in one run on one machine,
// with the test guest's kernel and initrd under TCG (128 MiB).
//
//	start   start → first byte of the guest's serial output (the kernel's
//	        first line: the guest boots without "quiet"): through nodedesk
//	        (POST …/start over the real API, then the node's telnet console,
//	        its negotiation skipped) against the node's own command_line run
//	        by hand (its QMP socket left out, the serial line on stdout:
//	        fork → first byte). The two alternate, each going first in turn.
//	        Target: nodedesk adds ≤ 100 ms (medians).
//	memory  VmRSS (/proc/<pid>/status), Pss (smaps_rollup) and the resident
//	        part of TCG's translation cache (the Rss of its rwx mapping in
//	        smaps) of two guests booted side by side that do the same work:
//	        one with nodedesk's cache (tb-size 64 MiB), one with QEMU's
//	        default (the node's options say -accel tcg, so nodedesk adds
//	        none: 1 GiB in QEMU 7.2); after boot, after the frames below,
//	        and after a code churn on their consoles (a copy of busybox run
//	        and removed, churnRuns times: new code pages, new translations,
//	        as a guest that keeps starting programs makes).
//	frames  ICMP echo requests to each guest's address, crafted by the
//	        bench, through a cloud's UDP tunnel linked to the guest's first
//	        port (e1000): echoes/s answered with <1% loss, the round trip
//	        one echo at a time, and the CPU per frame of nodedesk (this
//	        test process: the data plane runs in it) and of the guest's
//	        qemu process, at a fixed rate and at the highest rate. The load
//	        is made by a child process (this test binary again, with
//	        qbenchChildEnv), so that the test process's CPU time is
//	        nodedesk's alone. The two guests alternate.
//
//	NODEDESK_BENCH=1                 run it (otherwise skipped)
//	NODEDESK_BENCH_QEMU_ROUNDS=N     start rounds each way (default 11)
//	NODEDESK_BENCH_QEMU_RATE=R       echoes/s of the CPU measurement (default
//	                                 10000: 20,000 frames/s, the data-plane
//	                                 benchmark's rate)
//	NODEDESK_BENCH_QEMU_SECONDS=S    seconds of it per guest and round (default 3)
//
// Every process the bench starts ends before it returns: the guests with
// the lab (checked), the runs by hand and the load child by the bench.

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"nodedesk/app/kit"
	"nodedesk/app/qemu/qemutest"
)

const (
	// qbenchChildEnv makes TestQEMUBench the load generator: the number
	// of guests it talks to.
	qbenchChildEnv = "NODEDESK_QEMU_LOAD_CHILD"
	// qbenchFrame is the size of the echo frames: a ping's default (56
	// bytes of data).
	qbenchFrame = 98
	// qbenchTrial is how long one offered rate of the loss search lasts.
	qbenchTrial = time.Second
	// qbenchMaxRate caps the loss search (echoes/s).
	qbenchMaxRate = 200_000
	// qbenchPings is how many round trips each guest measures per round.
	qbenchPings = 300
	// qbenchLoadRounds is how many times each guest's load is measured.
	qbenchLoadRounds = 2
	// churnRuns is how many copies of busybox the code churn runs.
	churnRuns = 300
	// firstByteWait bounds a guest's start to its first output.
	firstByteWait = 60 * time.Second
	// startTarget is what nodedesk may add to a guest's first output.
	startTarget = 100 * time.Millisecond
)

// The bench's addresses; each guest is on a segment of its own (its
// tunnel), so they may share the bench's.
var (
	qbenchMAC = kit.MACA
	qbenchIP  = net.IPv4(10, 0, 0, 1)
)

// TestQEMUBench prints the QEMU table and fails when nodedesk adds more
// than startTarget to a guest's first console output, after printing all
// of it.
func TestQEMUBench(t *testing.T) {
	if os.Getenv(qbenchChildEnv) != "" {
		runLoadChild(t)
		return
	}
	if os.Getenv("NODEDESK_BENCH") != "1" {
		kit.RunElsewhere(t, "the QEMU benchmark runs with NODEDESK_BENCH=1 (make bench-qemu)")
	}
	rounds := kit.EnvInt(t, "NODEDESK_BENCH_QEMU_ROUNDS", 11)
	rate := kit.EnvInt(t, "NODEDESK_BENCH_QEMU_RATE", 10000)
	window := time.Duration(kit.EnvInt(t, "NODEDESK_BENCH_QEMU_SECONDS", 3)) * time.Second
	load := loadAverage()
	// Registered before the lab, this runs after it has closed: no qemu
	// of the bench's (whose command line names the lab's images) is left.
	var dataDir string
	t.Cleanup(func() {
		if p := qemuUsing(dataDir); dataDir != "" && p != 0 {
			t.Errorf("qemu %d still runs after the bench", p)
		}
	})
	l := Start(t, with(qemutest.Emulator))
	dataDir = filepath.Dir(l.Store.Path())
	g := qemutest.Guest(t)
	uploadImage(t, l, "nd-vmlinux", g.KernelELF)
	uploadImage(t, l, "nd-initrd.img", g.Initrd)
	pid := l.MustCreateProject("qemu-bench")

	began := time.Now()
	sb := benchStarts(t, l, pid, rounds)
	t.Logf("start measured (%v)", time.Since(began).Round(time.Second))
	guests := benchGuests(t, l, pid, rate, window)
	t.Logf("memory and frames measured (%v)", time.Since(began).Round(time.Second))

	fmt.Print(qbenchTable(sb, guests, rate, window, load))
	if d := sb.added(); d > startTarget {
		t.Errorf("target missed: nodedesk adds %v to a guest's first console byte (medians; target ≤ %v)", d.Round(time.Millisecond), startTarget)
	}
}

// qemuUsing is the pid of a live qemu-system process whose command line
// holds dir, or 0.
func qemuUsing(dir string) int {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range procs {
		b, err := os.ReadFile(f)
		if err != nil || !strings.Contains(string(b), "qemu-system") || !strings.Contains(string(b), dir) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		if kit.ProcState(pid) != "Z" {
			return pid
		}
	}
	return 0
}

// guestArgs is a kernel guest's properties, its address on eth0 ip; a
// verbose guest's kernel prints its boot (without "quiet").
func guestArgs(ip string, verbose bool) map[string]any {
	args := qemutest.GuestKernelArgs
	if verbose {
		args = strings.Replace(args, " quiet", "", 1)
	}
	return map[string]any{"kernel_image": "nd-vmlinux", "initrd": "nd-initrd.img", "ram": 128,
		"kernel_command_line": args + " nd.ip=" + ip + "/24"}
}

// startBench is what the start measurements found.
type startBench struct {
	cold, coldAnswer time.Duration   // the process's first start (the KVM probe)
	nd, hand         []time.Duration // start → first console byte
	answer           []time.Duration // POST …/start → its answer
	paired           []time.Duration // nd − hand, round by round
}

// added is what nodedesk adds: the difference of the medians.
func (s startBench) added() time.Duration { return quantile(s.nd, 0.5) - quantile(s.hand, 0.5) }

// benchStarts measures a guest's start to its first console byte, through
// nodedesk and by hand, rounds times each, alternating.
func benchStarts(t *testing.T, l *Lab, pid string, rounds int) startBench {
	n := guestNode(t, l, pid, "S1", guestArgs("10.0.9.2", true))
	path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
	console := int(n["console"].(float64))
	var s startBench
	s.cold, s.coldAnswer = firstByteThroughNodedesk(t, l, path, console)
	// The command nodedesk ran, word for word, as the running process has it.
	argv, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", qemutest.PID(n["node_id"].(string))))
	if err != nil {
		t.Fatal(err)
	}
	l.Do("POST", path+"/stop", nil).Want(t, 200)
	words := strings.Split(strings.TrimSuffix(string(argv), "\x00"), "\x00")
	bin, args := words[0], withoutQMP(words[1:])
	dir := t.TempDir()
	for r := range rounds {
		ways := []string{"nodedesk", "hand"}
		if r%2 == 1 {
			ways = []string{"hand", "nodedesk"}
		}
		var nd, hand time.Duration
		for _, way := range ways {
			if way == "hand" {
				hand = firstByteByHand(t, bin, args, dir)
				continue
			}
			var answer time.Duration
			nd, answer = firstByteThroughNodedesk(t, l, path, console)
			l.Do("POST", path+"/stop", nil).Want(t, 200)
			s.answer = append(s.answer, answer)
		}
		s.nd, s.hand, s.paired = append(s.nd, nd), append(s.hand, hand), append(s.paired, nd-hand)
	}
	return s
}

// firstByteThroughNodedesk starts the node at path over the API and
// returns how long its first console byte took to reach a telnet client of
// its console, and the API's answer. The client dials the console port
// from the moment the request is sent (nodedesk opens it before QEMU
// runs, and a console shows only what is printed while a client is on).
func firstByteThroughNodedesk(t *testing.T, l *Lab, path string, console int) (first, answered time.Duration) {
	t.Helper()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(console))
	got := make(chan time.Duration, 1)
	quit := make(chan struct{})
	defer close(quit)
	t0 := time.Now()
	go func() {
		var conn net.Conn
		for conn == nil {
			select {
			case <-quit:
				return
			default:
			}
			if c, err := net.Dial("tcp", addr); err == nil {
				conn = c
			} else {
				time.Sleep(time.Millisecond)
			}
		}
		defer conn.Close()
		_ = conn.SetReadDeadline(t0.Add(firstByteWait))
		if firstTelnetData(conn) {
			got <- time.Since(t0)
		} else {
			got <- -1
		}
	}()
	l.Do("POST", path+"/start", nil).Want(t, 200)
	answered = time.Since(t0)
	select {
	case first = <-got:
	case <-time.After(firstByteWait):
	}
	if first <= 0 {
		t.Fatalf("no console output within %v of the start of %s", firstByteWait, path)
	}
	return first, answered
}

// firstTelnetData reads a telnet server until its first byte of data
// (skipping its option negotiation) and reports whether one came.
func firstTelnetData(r io.Reader) bool {
	const iac, sb, se = 255, 250, 240
	br := bufio.NewReader(r)
	for {
		b, err := br.ReadByte()
		if err != nil {
			return false
		}
		if b != iac {
			return true
		}
		cmd, err := br.ReadByte()
		switch {
		case err != nil:
			return false
		case cmd == iac:
			return true // an escaped 0xff: data
		case cmd >= 251: // WILL, WONT, DO, DONT and their option
			if _, err := br.ReadByte(); err != nil {
				return false
			}
		case cmd == sb: // a subnegotiation, to IAC SE
			for prev := byte(0); ; {
				c, err := br.ReadByte()
				if err != nil {
					return false
				}
				if prev == iac && c == se {
					break
				}
				prev = c
			}
		}
	}
}

// firstByteByHand runs bin with args (a node's command line, as a user
// would) in dir, the serial line on its stdout, and returns how long its
// first byte of output took from the fork. The process group is killed
// before it returns.
func firstByteByHand(t *testing.T, bin string, args []string, dir string) time.Duration {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	in, err := cmd.StdinPipe() // the serial line's input, held open
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	got := make(chan time.Duration, 1)
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		b := make([]byte, 1)
		if n, _ := out.Read(b); n == 1 {
			got <- time.Since(t0)
			_, _ = io.Copy(io.Discard, out)
			return
		}
		got <- -1
	}()
	var first time.Duration
	select {
	case first = <-got:
	case <-time.After(firstByteWait):
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	in.Close()
	_ = cmd.Wait()
	if first <= 0 {
		t.Fatalf("QEMU run by hand printed nothing within %v: %s", firstByteWait, stderr.String())
	}
	return first
}

// withoutQMP drops the QMP monitor nodedesk passes as file descriptor 3
// (-chardev socket,id=qmp,fd=N -mon chardev=qmp,…): a command run by hand
// has no such descriptor.
func withoutQMP(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if i+1 < len(args) && (args[i] == "-chardev" && strings.HasPrefix(args[i+1], "socket,id=qmp,") ||
			args[i] == "-mon" && strings.HasPrefix(args[i+1], "chardev=qmp")) {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// benchGuest is one guest of the memory and frame measurements.
type benchGuest struct {
	label   string
	id      string
	ip      net.IP
	mac     net.HardwareAddr
	pid     int // its qemu process
	console int
	cmdline string
	// memory after boot and a few echoes, after the frames, after the
	// code churn (which took churn)
	mem   [3]qemuMemory
	churn time.Duration
	// the fixed-rate windows
	sent, got        uint64
	ndCPU, qemuCPU   time.Duration
	idleND, idleQEMU time.Duration // CPU in idle windows as long as the fixed-rate ones
	// the loss search: the best rate, its loss and the CPU of its trial
	tput, tputLoss       float64
	topFrames            uint64
	topNDCPU, topQEMUCPU time.Duration
	// the round trips
	rtts []time.Duration
	lost int
}

// benchGuests boots two guests, one with nodedesk's translation cache and
// one with QEMU's, each linked to a cloud's UDP tunnel to the load child,
// measures frames through them in turn, then their memory.
func benchGuests(t *testing.T, l *Lab, pid string, rate int, window time.Duration) []*benchGuest {
	gs := []*benchGuest{
		{label: "tb-size 64 MiB (nodedesk)", ip: net.IPv4(10, 0, 0, 2)},
		{label: "QEMU's default (1 GiB)", ip: net.IPv4(10, 0, 0, 3)},
	}
	child := startLoadChild(t, len(gs))
	var ports []any
	for i, g := range gs {
		props := guestArgs(g.ip.String(), false)
		if i == 1 {
			props["options"] = "-accel tcg" // nodedesk then adds no accel of its own
		}
		n := guestNode(t, l, pid, fmt.Sprintf("G%d", i+1), props)
		g.id, g.console = n["node_id"].(string), int(n["console"].(float64))
		mac, err := net.ParseMAC(n["properties"].(map[string]any)["mac_address"].(string))
		if err != nil {
			t.Fatal(err)
		}
		g.mac = mac
		lport := freeUDPPort(t)
		ports = append(ports, map[string]any{"name": "UDP tunnel " + strconv.Itoa(i+1), "port_number": i, "type": "udp",
			"lport": lport, "rhost": "127.0.0.1", "rport": child.ports[i]})
		child.do(t, fmt.Sprintf("peer %d %d %s %s", i, lport, g.mac, g.ip))
	}
	cloud := l.MustCreateNode(pid, map[string]any{"node_type": "cloud", "name": "bench",
		"properties": map[string]any{"ports_mapping": ports}})["node_id"].(string)
	for i, g := range gs {
		l.Link(t, pid, cloud, i, g.id, 0)
		n := l.Do("POST", "/v2/projects/"+pid+"/nodes/"+g.id+"/start", nil).Want(t, 200).JSON(t)
		g.cmdline = n["command_line"].(string)
		if g.pid = qemutest.PID(g.id); g.pid == 0 {
			t.Fatalf("%s started but no qemu process runs it", g.label)
		}
	}
	if !strings.Contains(gs[0].cmdline, "tb-size=64") || strings.Contains(gs[1].cmdline, "tb-size") {
		t.Fatalf("the guests' translation caches are not the ones compared:\n%s\n%s", gs[0].cmdline, gs[1].cmdline)
	}
	for i, g := range gs {
		if !kit.WaitFor(bootWait, func() bool { return child.do(t, fmt.Sprintf("arp %d 500", i)) == "ok" }) {
			t.Fatalf("%s did not answer ARP within %v of its start", g.label, bootWait)
		}
	}
	child.do(t, fmt.Sprintf("ping 20 %d", qbenchFrame)) // the first echoes, before the load
	for _, g := range gs {
		g.mem[0] = memoryOf(t, g.pid)
	}
	for r := range qbenchLoadRounds {
		for i := range gs {
			k := (i + r) % len(gs) // each guest goes first in turn
			measureGuest(t, child, k, gs[k], rate, window)
		}
		for i, line := range strings.Split(child.do(t, fmt.Sprintf("ping %d %d", qbenchPings, qbenchFrame)), ";") {
			f := strings.Fields(line)
			lost, _ := strconv.Atoi(f[0])
			gs[i].lost += lost
			for _, w := range f[1:] {
				ns, _ := strconv.ParseInt(w, 10, 64)
				gs[i].rtts = append(gs[i].rtts, time.Duration(ns))
			}
		}
	}
	for _, g := range gs {
		g.mem[1] = memoryOf(t, g.pid)
	}
	for _, g := range gs {
		c := kit.DialConsole(t, "127.0.0.1", g.console)
		t0 := time.Now()
		c.Send(fmt.Sprintf("i=0; while [ $i -lt %d ]; do cp /bin/busybox /tmp/bb && /tmp/bb ls / >/dev/null; rm -f /tmp/bb; i=$((i+1)); done; echo churn-$((6*7))", churnRuns))
		if !c.Expect("churn-42", false, 10*time.Minute) {
			t.Fatalf("%s's code churn did not end: %q", g.label, kit.Printable(c.Log.String()))
		}
		g.churn = time.Since(t0)
		g.mem[2] = memoryOf(t, g.pid)
	}
	return gs
}

// measureGuest adds one round of guest k's load measurements to g: the
// CPU of an idle window, of a window at a fixed rate, then the loss
// search.
func measureGuest(t *testing.T, child *loadChild, k int, g *benchGuest, rate int, window time.Duration) {
	nd0, q0 := selfCPU(t), taskCPU(g.pid)
	time.Sleep(window)
	g.idleND += selfCPU(t) - nd0
	g.idleQEMU += taskCPU(g.pid) - q0

	nd0, q0 = selfCPU(t), taskCPU(g.pid)
	sent, got := child.offer(t, k, float64(rate), window)
	g.ndCPU += selfCPU(t) - nd0
	g.qemuCPU += taskCPU(g.pid) - q0
	g.sent += sent
	g.got += got

	ok := func(r float64) bool {
		for range 2 {
			nd0, q0 := selfCPU(t), taskCPU(g.pid)
			sent, got := child.offer(t, k, r, qbenchTrial)
			nd, q := selfCPU(t)-nd0, taskCPU(g.pid)-q0
			loss := 1 - float64(got)/float64(max(sent, 1))
			if loss < 0.01 {
				if del := float64(got) / qbenchTrial.Seconds(); del > g.tput {
					g.tput, g.tputLoss = del, loss
					g.topFrames, g.topNDCPU, g.topQEMUCPU = sent+got, nd, q
				}
				return true
			}
		}
		return false
	}
	kit.SearchRate(500.0, qbenchMaxRate, ok)
}

// selfCPU is this process's CPU time so far (user and system, all its
// threads, dead ones too).
func selfCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// taskCPU is a process's CPU time so far: the sum of its threads' run
// time (schedstat, in nanoseconds).
func taskCPU(pid int) time.Duration {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, _ := os.ReadDir(dir)
	var sum int64
	for _, task := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, task.Name(), "schedstat"))
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			ns, _ := strconv.ParseInt(f[0], 10, 64)
			sum += ns
		}
	}
	return time.Duration(sum)
}

// qemuMemory is the memory of a qemu process, in KiB.
type qemuMemory struct {
	rss, pss int64
	// code is the resident part of TCG's translation cache: the Rss of
	// the process's largest private rwx mapping; size is its size.
	code, size int64
}

// memoryOf reads the memory of qemu process pid: VmRSS of its status, Pss
// of its smaps_rollup, its translation cache in its smaps.
func memoryOf(t *testing.T, pid int) qemuMemory {
	t.Helper()
	var m qemuMemory
	field := func(file, name string) int64 {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, file))
		if err != nil {
			t.Fatalf("the memory of qemu %d: %v", pid, err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == name {
				v, _ := strconv.ParseInt(f[1], 10, 64)
				return v
			}
		}
		t.Fatalf("/proc/%d/%s has no %s", pid, file, name)
		return 0
	}
	m.rss, m.pss = field("status", "VmRSS:"), field("smaps_rollup", "Pss:")
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		t.Fatalf("the memory of qemu %d: %v", pid, err)
	}
	var rwx bool
	var size int64
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 2 && strings.Contains(f[0], "-") && len(f[1]) == 4: // a mapping's first line
			rwx = f[1] == "rwxp"
		case !rwx || len(f) < 2:
		case f[0] == "Size:":
			size, _ = strconv.ParseInt(f[1], 10, 64)
		case f[0] == "Rss:" && size > m.size:
			m.size = size
			m.code, _ = strconv.ParseInt(f[1], 10, 64)
		}
	}
	return m
}

// freeUDPPort is a UDP port of 127.0.0.1 free when asked.
func freeUDPPort(t *testing.T) int {
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

// loadChild is the load generator process and its UDP ports (one per
// guest, the rport of the cloud's tunnels).
type loadChild struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Reader
	ports []int
}

// startLoadChild runs the load generator for n guests; it ends with the
// test.
func startLoadChild(t *testing.T, n int) *loadChild {
	t.Helper()
	c := &loadChild{cmd: exec.Command(os.Args[0], "-test.run=^TestQEMUBench$", "-test.timeout=30m")}
	c.cmd.Env = append(os.Environ(), qbenchChildEnv+"="+strconv.Itoa(n))
	c.cmd.Stderr = os.Stderr
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var err error
	if c.in, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.out = bufio.NewReader(stdout)
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.in.Close()
		done := make(chan struct{})
		go func() { _ = c.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = c.cmd.Process.Kill()
			<-done
		}
	})
	f := strings.Fields(c.line(t))
	if len(f) != n+1 || f[0] != "ports" {
		t.Fatalf("the load generator said %q", f)
	}
	for _, p := range f[1:] {
		port, _ := strconv.Atoi(p)
		c.ports = append(c.ports, port)
	}
	return c
}

// line is the child's next answer (everything else the test binary
// prints is skipped: answers start with answerMark).
func (c *loadChild) line(t *testing.T) string {
	t.Helper()
	for {
		s, err := c.out.ReadString('\n')
		if err != nil {
			t.Fatalf("the load generator ended: %v", err)
		}
		if a, ok := strings.CutPrefix(s, answerMark); ok {
			return strings.TrimSpace(a)
		}
	}
}

// do sends the child a command and returns its answer.
func (c *loadChild) do(t *testing.T, cmd string) string {
	t.Helper()
	if _, err := io.WriteString(c.in, cmd+"\n"); err != nil {
		t.Fatalf("the load generator: %v", err)
	}
	return c.line(t)
}

// offer sends guest k echo requests at rate for d and returns how many it
// sent and how many were answered.
func (c *loadChild) offer(t *testing.T, k int, rate float64, d time.Duration) (sent, got uint64) {
	t.Helper()
	ans := c.do(t, fmt.Sprintf("offer %d %.0f %d %d", k, rate, d.Milliseconds(), qbenchFrame))
	if _, err := fmt.Sscan(ans, &sent, &got); err != nil {
		t.Fatalf("the load generator answered %q", ans)
	}
	return sent, got
}

// childPeer is the load child's side of one guest's tunnel.
type childPeer struct {
	conn  *net.UDPConn
	to    *net.UDPAddr // the cloud's end
	mac   net.HardwareAddr
	ip    net.IP
	trial atomic.Uint32
	got   atomic.Uint64
	pong  chan uint16 // sequence numbers of pingID replies
	arp   chan struct{}
}

// answerMark starts each answer of the load child.
const answerMark = "qbench:"

// pingID is the ICMP identifier of one-at-a-time echoes; those of the
// load carry their trial's number.
const pingID = 0xffff

// runLoadChild is the load generator: it answers the commands of its
// standard input on its standard output, each answer a line starting
// with answerMark, until its input closes.
//
//	peer I LPORT MAC IP    guest I: its tunnel's cloud end, its addresses
//	arp I MS               an ARP request to guest I: "ok" if answered
//	offer I RATE MS SIZE   echo requests at RATE for MS: "SENT GOT"
//	ping N SIZE            N echoes to each guest in turn, one at a time:
//	                       per guest "LOST RTT…" (ns), joined by ";"
func runLoadChild(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv(qbenchChildEnv))
	peers := make([]*childPeer, n)
	words := []string{answerMark + "ports"}
	for i := range peers {
		c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadBuffer(4 << 20)
		_ = c.SetWriteBuffer(4 << 20)
		peers[i] = &childPeer{conn: c, pong: make(chan uint16, 16), arp: make(chan struct{}, 1)}
		words = append(words, strconv.Itoa(c.LocalAddr().(*net.UDPAddr).Port))
	}
	fmt.Println(strings.Join(words, " "))
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		f := strings.Fields(in.Text())
		arg := func(i int) int { v, _ := strconv.Atoi(f[i]); return v }
		switch f[0] {
		case "peer":
			p := peers[arg(1)]
			p.to = &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: arg(2)}
			p.mac, _ = net.ParseMAC(f[3])
			p.ip = net.ParseIP(f[4]).To4()
			go p.receive()
			fmt.Println(answerMark + "ok")
		case "arp":
			p := peers[arg(1)]
			_, _ = p.conn.WriteToUDP(kit.ARP(1, kit.Broadcast, qbenchMAC, qbenchIP, nil, p.ip), p.to)
			select {
			case <-p.arp:
				fmt.Println(answerMark + "ok")
			case <-time.After(time.Duration(arg(2)) * time.Millisecond):
				fmt.Println(answerMark + "no")
			}
		case "offer":
			sent, got := peers[arg(1)].offer(float64(arg(2)), time.Duration(arg(3))*time.Millisecond, arg(4))
			fmt.Printf("%s%d %d\n", answerMark, sent, got)
		case "ping":
			fmt.Println(answerMark + pingPeers(peers, arg(1), arg(2)))
		}
	}
}

// receive reads what the guest sends: it answers ARP requests for the
// bench's address, notes ARP replies, and counts echo replies.
func (p *childPeer) receive() {
	buf := make([]byte, 65536)
	for {
		n, err := p.conn.Read(buf)
		if err != nil {
			return
		}
		f := buf[:n]
		if sha, spa, ok := kit.ARPRequestFor(f, qbenchIP); ok {
			_, _ = p.conn.WriteToUDP(kit.ARP(2, sha, qbenchMAC, qbenchIP, sha, spa), p.to)
			continue
		}
		if len(f) >= 42 && f[12] == 0x08 && f[13] == 0x06 && f[21] == 2 && net.IP(f[28:32]).Equal(p.ip) {
			select {
			case p.arp <- struct{}{}:
			default:
			}
			continue
		}
		id, seq, ok := kit.ICMPEchoReplyFrom(f, p.ip)
		switch {
		case !ok:
		case id == pingID:
			select {
			case p.pong <- seq:
			default:
			}
		case uint32(id) == p.trial.Load():
			p.got.Add(1)
		}
	}
}

// offer sends echo requests of size at rate for d, paced every 100 µs,
// and returns how many it sent and how many were answered (within 200 ms
// of the last).
func (p *childPeer) offer(rate float64, d time.Duration, size int) (sent, got uint64) {
	trial := p.trial.Add(1) // far fewer than pingID trials in a run
	p.got.Store(0)
	frame := kit.ICMPEcho(8, p.mac, qbenchMAC, qbenchIP, p.ip, uint16(trial), 0, size)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0) // this thread's sleeps end on time
	total := uint64(rate * d.Seconds())
	t0 := time.Now()
	for sent < total {
		due := min(uint64(rate*time.Since(t0).Seconds()), total)
		for ; sent < due; sent++ {
			kit.SetICMPEchoSeq(frame, uint16(trial), uint16(sent))
			_, _ = p.conn.WriteToUDP(frame, p.to)
		}
		ts := unix.NsecToTimespec(int64(100 * time.Microsecond))
		_ = unix.Nanosleep(&ts, nil)
	}
	time.Sleep(200 * time.Millisecond) // what is in flight comes back
	return sent, p.got.Load()
}

// pingPeers sends n echoes to each peer in turn, one at a time, and
// says, per peer, how many were lost and each round trip.
func pingPeers(peers []*childPeer, n, size int) string {
	lines := make([][]string, len(peers))
	lost := make([]int, len(peers))
	for i := range n {
		for k, p := range peers {
			frame := kit.ICMPEcho(8, p.mac, qbenchMAC, qbenchIP, p.ip, pingID, uint16(i), size)
			for len(p.pong) > 0 {
				<-p.pong // a late answer
			}
			t0 := time.Now()
			_, _ = p.conn.WriteToUDP(frame, p.to)
			timeout := time.After(500 * time.Millisecond)
		wait:
			for {
				select {
				case seq := <-p.pong:
					if seq == uint16(i) {
						lines[k] = append(lines[k], strconv.FormatInt(int64(time.Since(t0)), 10))
						break wait
					}
				case <-timeout:
					lost[k]++
					break wait
				}
			}
		}
	}
	out := make([]string, len(peers))
	for k := range peers {
		out[k] = strings.Join(append([]string{strconv.Itoa(lost[k])}, lines[k]...), " ")
	}
	return strings.Join(out, ";")
}

// quantile is the q-quantile of ds (nearest rank), 0 for none.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// loadAverage is this machine's load average, as uptime shows it.
func loadAverage() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// ms formats a duration in milliseconds.
func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/1e6) }

// qbenchTable formats the measurements.
func qbenchTable(s startBench, gs []*benchGuest, rate int, window time.Duration, load string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nQEMU guests: the test guest (kernel+initrd, 128 MiB) under TCG; %d CPUs, load average %s at the start\n", runtime.NumCPU(), load)
	line := "%-52s %9s %9s %9s\n"
	fmt.Fprintf(&b, "\nstart → first console byte (the kernel's first line), %d rounds each way, alternating\n", len(s.nd))
	fmt.Fprintf(&b, line, "", "median", "p90", "min")
	fmt.Fprintln(&b, strings.Repeat("-", 82))
	fmt.Fprintf(&b, line, "through nodedesk (POST …/start → telnet console)", ms(quantile(s.nd, 0.5)), ms(quantile(s.nd, 0.9)), ms(quantile(s.nd, 0)))
	fmt.Fprintf(&b, line, "by hand (its command_line, serial on stdout)", ms(quantile(s.hand, 0.5)), ms(quantile(s.hand, 0.9)), ms(quantile(s.hand, 0)))
	fmt.Fprintf(&b, line, "nodedesk adds (difference of the lines above)", ms(s.added()), ms(quantile(s.nd, 0.9)-quantile(s.hand, 0.9)), ms(quantile(s.nd, 0)-quantile(s.hand, 0)))
	fmt.Fprintf(&b, line, "nodedesk adds (round by round)", ms(quantile(s.paired, 0.5)), ms(quantile(s.paired, 0.9)), ms(quantile(s.paired, 0)))
	fmt.Fprintf(&b, line, "POST …/start answered (QEMU's monitor up)", ms(quantile(s.answer, 0.5)), ms(quantile(s.answer, 0.9)), ms(quantile(s.answer, 0)))
	fmt.Fprintf(&b, line, "first start in the process (with the KVM probe)", ms(s.cold), "", "")
	fmt.Fprintf(&b, line, "  its POST …/start answered", ms(s.coldAnswer), "", "")
	verdict := "met"
	if s.added() > startTarget {
		verdict = "MISSED"
	}
	fmt.Fprintf(&b, "target: nodedesk adds ≤ %v (medians): %s\n", startTarget, verdict)

	mib := func(kib int64) string { return fmt.Sprintf("%.0f", float64(kib)/1024) }
	fmt.Fprintf(&b, "\nmemory of a guest's qemu, MiB: VmRSS / Pss / translation cache resident\n")
	ml := "%-28s %17s %17s %17s %9s\n"
	fmt.Fprintf(&b, ml, "", "after boot", "after the frames", "after the churn", "churn")
	fmt.Fprintln(&b, strings.Repeat("-", 93))
	cell := func(m qemuMemory) string { return mib(m.rss) + " / " + mib(m.pss) + " / " + mib(m.code) }
	for _, g := range gs {
		fmt.Fprintf(&b, ml, g.label, cell(g.mem[0]), cell(g.mem[1]), cell(g.mem[2]), fmt.Sprintf("%.1f s", g.churn.Seconds()))
	}
	if len(gs) == 2 {
		r := func(a, c int64) string { return fmt.Sprintf("%.2f", float64(c)/float64(max(a, 1))) }
		ratio := func(i int) string {
			a, c := gs[0].mem[i], gs[1].mem[i]
			return r(a.rss, c.rss) + " / " + r(a.pss, c.pss) + " / " + r(a.code, c.code)
		}
		fmt.Fprintf(&b, ml, "default ÷ nodedesk", ratio(0), ratio(1), ratio(2), fmt.Sprintf("%.2f×", gs[1].churn.Seconds()/gs[0].churn.Seconds()))
		fmt.Fprintf(&b, "translation cache mapped: %s MiB and %s MiB; churn: a copy of busybox run and removed, %d times, on the serial console.\n",
			mib(gs[0].mem[2].size), mib(gs[1].mem[2].size), churnRuns)
	}

	fmt.Fprintf(&b, "\nframes through a QEMU port: cloud UDP tunnel ↔ guest e1000, %d-byte ICMP echo\n", qbenchFrame)
	fl := "%-28s %9s %8s %8s %5s | %8s %9s | %8s %9s | %8s %9s\n"
	fmt.Fprintf(&b, "%-28s %9s %8s %8s %5s | %-18s | %-18s | %-18s\n", "", "", "", "", "", fmt.Sprintf("at %d echoes/s", rate), "at the top rate", "idle")
	fmt.Fprintf(&b, fl, "", "echoes/s", "rtt p50", "p99", "lost", "nd µs/f", "qemu µs/f", "nd µs/f", "qemu µs/f", "nd ms/s", "qemu ms/s")
	fmt.Fprintln(&b, strings.Repeat("-", 120))
	us := func(d time.Duration, frames uint64) string {
		return fmt.Sprintf("%.1f", float64(d)/1e3/float64(max(frames, 1)))
	}
	idle := func(d time.Duration) string {
		return fmt.Sprintf("%.1f", float64(d)/1e6/(window.Seconds()*qbenchLoadRounds))
	}
	for _, g := range gs {
		fmt.Fprintf(&b, fl, g.label, fmt.Sprintf("%.0f", g.tput),
			fmt.Sprintf("%.0fµs", float64(quantile(g.rtts, 0.5))/1e3), fmt.Sprintf("%.0fµs", float64(quantile(g.rtts, 0.99))/1e3), strconv.Itoa(g.lost),
			us(g.ndCPU, g.sent+g.got), us(g.qemuCPU, g.sent+g.got), us(g.topNDCPU, g.topFrames), us(g.topQEMUCPU, g.topFrames),
			idle(g.idleND), idle(g.idleQEMU))
		if loss := 1 - float64(g.got)/float64(max(g.sent, 1)); loss >= 0.01 {
			fmt.Fprintf(&b, "  (%s lost %.1f%% of its echoes at %d/s: the guest or the machine was short of CPU then)\n", g.label, 100*loss, rate)
		}
	}
	fmt.Fprintf(&b, "echoes/s: echo requests answered per second with <1%% loss (offered from 500/s, ×1.5, then bisected; %v trials).\n", qbenchTrial)
	fmt.Fprintf(&b, "rtt: one echo at a time (%d per guest and round), the guests in turn; lost: unanswered within 500 ms.\n", qbenchPings)
	fmt.Fprintf(&b, "µs/f: CPU time ÷ frames (requests sent + replies), at %d echoes/s for %v × %d and in the trial of the top rate;\n", rate, window, qbenchLoadRounds)
	fmt.Fprintln(&b, "nd: nodedesk (the test process, getrusage; the load comes from a child process), qemu: its threads' schedstat.")
	fmt.Fprintln(&b, "idle: CPU per second with no frames, in windows as long as the fixed-rate ones.")
	return b.String()
}
