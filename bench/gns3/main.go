//go:build linux

// Command gns3 (make bench-gns3) measures nodedesk's data plane against
// GNS3 2.2's own processes on this machine: ubridge and dynamips built
// from source, wired as gns3-server 2.2.59 wires them, and nodedesk's
// server wired over its REST API, on two labs:
//
//	hop  one UDP↔UDP relay: a ubridge bridge with two UDP NIOs (bridge
//	     create, two bridge add_nio_udp, bridge start), against two
//	     nodedesk clouds whose UDP tunnels meet in a two-port Ethernet
//	     hub (nodedesk links no cloud to a cloud): one datagram read and
//	     one written per frame on both sides
//	lab  host–switch–host: dynamips' Ethernet switch (ethsw) with two UDP
//	     NIOs on access ports, each linked to a host's UDP tunnel through
//	     a ubridge of its own (three processes), against nodedesk's two
//	     clouds and Ethernet switch, created and linked over REST
//	iou  host–IOU L2 switch–host (fake-iol as an L2 image): GNS3 runs the
//	     image with one ubridge iol_bridge for it and a ubridge per host;
//	     nodedesk's data plane is the IOU bridge itself (iou.go)
//
// iou-start times POST …/nodes/{id}/start of an IOU node on nodedesk
// against the image's own start (exec until its socket answers).
//
// On the hop it also measures go: the least a Go program spends on a hop,
// ubridge's own design written in Go (this program, re-run as a relay: a
// thread per direction, a blocking recvfrom and a sendto per frame). Its
// ratio to gns3 is what Go's runtime costs over C on this machine; the
// nodedesk sides' ratio to it is what nodedesk adds to that.
//
// One paced UDP endpoint program (this one) plays both hosts of every lab
// and prints, for 64-, 512- and 1500-byte frames: CPU per frame (all
// threads of all relaying processes, from /proc), system calls (perf, when
// installed) and context switches per frame at a fixed rate, frames/s
// delivered at under 1% loss, and round trip p50/p99, one frame at a time.
// The sides of one cell alternate, round after round, so that load on the
// machine hits all of them. Everything binds 127.0.0.1; every process it
// starts is killed with its process group when it ends, even on failure.
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"nodedesk/bench/procstat"
)

// Bounds: every loop of the benchmark ends.
const (
	pings     = 1000                   // round trips per cell and round
	trial     = 300 * time.Millisecond // one offered rate of the loss search
	tick      = 50 * time.Microsecond  // the load's pacing
	maxRate   = 1_000_000              // the loss search's ceiling
	minRate   = 500                    // and its floor
	batchSize = 32
)

var opts struct {
	ubridge, dynamips, nodedesk, fakeIOL string
	rate, iouRate, seconds, rounds       int
	startRounds                          int
	labs, sizes                          string
	goSide                               bool
}

// relayArg runs this program as the go side's relay (goRelay) instead.
const relayArg = "-go-relay"

func main() {
	if len(os.Args) == 6 && os.Args[1] == relayArg {
		goRelay(os.Args[2:])
		return
	}
	flag.StringVar(&opts.ubridge, "ubridge", "build/bench-gns3/ubridge", "the ubridge binary")
	flag.StringVar(&opts.dynamips, "dynamips", "build/bench-gns3/dynamips", "the dynamips binary")
	flag.StringVar(&opts.nodedesk, "nodedesk", "build/bench-gns3/nodedesk-server", "nodedesk server binaries: PATH or NAME=PATH,NAME=PATH (each one a side)")
	flag.IntVar(&opts.rate, "rate", 10000, "frames/s of the CPU, system call and wake-up measurement")
	flag.IntVar(&opts.iouRate, "iou-rate", 5000, "the same rate on the iou lab, whose IOU image carries about 10,000 frames/s here: measured at its ceiling, its loss would be in the cost")
	flag.IntVar(&opts.seconds, "seconds", 1, "seconds of that measurement per cell and round")
	flag.IntVar(&opts.rounds, "rounds", 2, "rounds per cell (the sides alternate which goes first)")
	flag.StringVar(&opts.fakeIOL, "fake-iol", "../shared/fake-iol/fake-iol-x86_64.bin", "the fake-iol image of the iou and iou-start labs (make bench-gns3 passes $(SHARED)'s)")
	flag.IntVar(&opts.startRounds, "start-rounds", 20, "rounds of iou-start (each side starts once per round)")
	flag.StringVar(&opts.labs, "labs", "hop,lab,iou,iou-start", "labs to measure: hop, lab, iou, iou-start")
	flag.StringVar(&opts.sizes, "sizes", "64,512,1500", "frame sizes in bytes")
	flag.BoolVar(&opts.goSide, "go", true, "on the hop, also measure a bare Go relay (the go side)")
	flag.Parse()
	code := run()
	killAll()
	os.Exit(code)
}

// children are the process groups started, killed at the end.
var children struct {
	sync.Mutex
	pgids  []int
	ended  []chan struct{} // closed when the process is reaped
	extra  []int           // processes of a group not ours (nodedesk's IOU)
	before []func()        // run before the kill (a node stopped over REST)
	tmp    []string
	netio  []string // IOU sockets and locks, removed once no one holds them
}

// killAll kills every process group started that is not reaped yet and
// reaps the processes (bounded), then removes the temporary folders and
// the IOU sockets left behind.
func killAll() {
	children.Lock()
	before := children.before
	children.before = nil
	children.Unlock()
	for _, f := range before {
		f()
	}
	children.Lock()
	defer children.Unlock()
	for i, pg := range children.pgids {
		select {
		case <-children.ended[i]: // reaped: its id may be another's now
		default:
			_ = syscall.Kill(-pg, syscall.SIGKILL)
		}
	}
	for _, pid := range children.extra {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	limit := time.After(5 * time.Second)
	for _, e := range children.ended {
		select {
		case <-e:
		case <-limit:
		}
	}
	for _, pid := range children.extra {
		for i := 0; i < 100 && syscall.Kill(pid, 0) == nil; i++ {
			time.Sleep(10 * time.Millisecond)
		}
	}
	for _, d := range children.tmp {
		_ = os.RemoveAll(d)
	}
	for _, p := range children.netio {
		removeStale(p)
	}
	children.pgids, children.ended, children.extra, children.tmp, children.netio = nil, nil, nil, nil, nil
}

// cleanup registers f to run at the next killAll, before the kill.
func cleanup(f func()) {
	children.Lock()
	children.before = append(children.before, f)
	children.Unlock()
}

// start runs a process in a process group of its own, in dir.
func start(dir, name string, args ...string) (*exec.Cmd, error) {
	if abs, err := filepath.Abs(name); err == nil {
		name = abs
	}
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	return cmd, launch(cmd, nil)
}

// launch starts cmd in a process group of its own, killed by killAll,
// and reaps it when it ends (then closes ended, when not nil).
func launch(cmd *exec.Cmd, ended chan struct{}) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return err
	}
	if ended == nil {
		ended = make(chan struct{})
	}
	children.Lock()
	children.pgids = append(children.pgids, cmd.Process.Pid)
	children.ended = append(children.ended, ended)
	children.Unlock()
	go func() { _ = cmd.Wait(); close(ended) }()
	return nil
}

func run() int {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() { <-sig; killAll(); os.Exit(2) }()
	runtime.LockOSThread() // the load's thread (main): its sleeps end on time
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	havePerf = procstat.HavePerf()
	var sizes []int
	for s := range strings.SplitSeq(opts.sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 26 || n > 9000 {
			fmt.Fprintf(os.Stderr, "-sizes: %q is not a frame size (26–9000)\n", s)
			return 2
		}
		sizes = append(sizes, n)
	}
	nds := map[string]string{}
	var ndNames []string
	for s := range strings.SplitSeq(opts.nodedesk, ",") {
		name, path, ok := strings.Cut(s, "=")
		if !ok {
			name, path = "nodedesk", s
		}
		nds[name] = path
		ndNames = append(ndNames, name)
	}
	for _, b := range append(slices.Collect(mapValues(nds)), opts.ubridge, opts.dynamips) {
		if _, err := os.Stat(b); err != nil {
			fmt.Fprintf(os.Stderr, "%v (make bench-gns3 builds them)\n", err)
			return 2
		}
	}
	labs := strings.Split(opts.labs, ",")
	if slices.Contains(labs, "iou") || slices.Contains(labs, "iou-start") {
		if _, err := os.Stat(opts.fakeIOL); err != nil {
			fmt.Fprintf(os.Stderr, "-fake-iol: %v (the iou labs run it)\n", err)
			return 2
		}
	}
	var out strings.Builder
	for _, lab := range labs {
		if lab == "iou-start" {
			t, err := iouStart(ndNames, nds)
			killAll()
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", lab, err)
				return 1
			}
			out.WriteString(t)
			continue
		}
		var sides []*side
		for _, n := range ndNames {
			s, err := nodedeskSide(lab, n, nds[n])
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s %s: %v\n", n, lab, err)
				return 1
			}
			sides = append(sides, s)
		}
		g, err := gns3Side(lab)
		if err != nil {
			fmt.Fprintf(os.Stderr, "gns3 %s: %v\n", lab, err)
			return 1
		}
		sides = append(sides, g)
		if lab == "hop" && opts.goSide {
			gs, err := goSide()
			if err != nil {
				fmt.Fprintf(os.Stderr, "go %s: %v\n", lab, err)
				return 1
			}
			sides = append(sides, gs)
		}
		for _, s := range sides {
			if err := s.warm(); err != nil {
				fmt.Fprintf(os.Stderr, "%s %s: %v\n", s.name, lab, err)
				return 1
			}
		}
		cells := labCells{}
		for _, size := range sizes {
			for round := range opts.rounds {
				for i := range sides {
					s := sides[(i+round)%len(sides)]
					s.measure(cells.at(s.name, size), size, labRate(lab))
				}
				pingRound(sides, cells, size)
			}
			fmt.Fprintf(os.Stderr, "%s: %d-byte frames measured\n", lab, size)
		}
		out.WriteString(table(lab, sides, cells, sizes))
		for _, s := range sides {
			s.close()
		}
		killAll()
	}
	fmt.Print(out.String())
	if !slices.ContainsFunc(labs, func(l string) bool { return l != "iou-start" }) {
		return 0
	}
	fmt.Println("CPU µs/f: CPU time of all threads of the relaying processes (/proc schedstat) ÷ frames delivered, at the fixed rate, paced every 50 µs.")
	fmt.Println("sys/f: their system calls ÷ frames (perf stat, a window of its own; NaN without perf); wake/f: their context switches ÷ frames.")
	fmt.Println("frames/s: highest delivered rate at <1% loss (from 10,000 ×1.5 up, or ÷1.5 down to 500, then bisected; 300 ms trials); rtt: host 1 → lab → host 2 (echo) → lab → host 1.")
	fmt.Println("gns3: ubridge 0.9.19 (hop); ubridge + dynamips 0.2.24 ethsw + ubridge (lab); ubridge + ubridge iol_bridge + ubridge (iou), wired as gns3-server 2.2.59 does.")
	fmt.Println("iou: the switch is fake-iol run as an L2 image; its own CPU (IOU proc) is the same work on both sides and is in no side's relays.")
	return 0
}

func mapValues(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
	}
}

// side is one implementation of one lab: its processes and the two host
// sockets around it.
type side struct {
	name   string
	pids   []int
	groups []group // processes measured apart, shown under the table
	h1, h2 *host
	close  func()
	api    *rest    // a nodedesk side's server
	iou    *iouNode // the IOU node of an iou lab
}

// group is a set of a side's processes whose CPU is measured in the same
// windows as its relays' and shown apart (the IOU process, GNS3's iol
// uBridge alone).
type group struct {
	name string
	pids []int
}

// freePort returns a UDP port free on 127.0.0.1 now.
func freePort() int {
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

func freeTCP() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// newSide makes a side's two hosts: host n sends to lab port ln.
func newSide(name string, l1, l2 int) (*side, error) {
	h1, err := newHost(l1, 1, 2)
	if err != nil {
		return nil, err
	}
	h2, err := newHost(l2, 2, 1)
	if err != nil {
		return nil, err
	}
	return &side{name: name, h1: h1, h2: h2, close: func() {}}, nil
}

// hypervisor is a connection to a ubridge or dynamips hypervisor.
type hypervisor struct {
	c  net.Conn
	rd *bufio.Reader
}

func dialHypervisor(port int) (*hypervisor, error) {
	var err error
	for range 100 {
		var c net.Conn
		if c, err = net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			return &hypervisor{c: c, rd: bufio.NewReader(c)}, nil
		}
		time.Sleep(30 * time.Millisecond)
	}
	return nil, err
}

// send runs one command: the reply's last line is "NNN-text", 100 for
// success.
func (h *hypervisor) send(format string, args ...any) error {
	cmd := fmt.Sprintf(format, args...)
	_ = h.c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := fmt.Fprintf(h.c, "%s\n", cmd); err != nil {
		return err
	}
	for range 1000 {
		line, err := h.rd.ReadString('\n')
		if err != nil {
			return fmt.Errorf("%s: %v", cmd, err)
		}
		if len(line) >= 4 && line[3] == '-' {
			if line[0] != '1' {
				return fmt.Errorf("%s: %s", cmd, strings.TrimSpace(line))
			}
			return nil
		}
	}
	return fmt.Errorf("%s: no end to the reply", cmd)
}

// startUbridge runs one ubridge hypervisor.
func startUbridge() (*exec.Cmd, *hypervisor, error) {
	port := freeTCP()
	cmd, err := start("", opts.ubridge, "-H", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return nil, nil, err
	}
	h, err := dialHypervisor(port)
	return cmd, h, err
}

// bridge wires two UDP NIOs together in ubridge, as gns3-server's
// add_ubridge_udp_connection does.
func (h *hypervisor) bridge(name string, l1, r1, l2, r2 int) error {
	for _, c := range []string{
		"bridge create " + name,
		fmt.Sprintf("bridge add_nio_udp %s %d 127.0.0.1 %d", name, l1, r1),
		fmt.Sprintf("bridge add_nio_udp %s %d 127.0.0.1 %d", name, l2, r2),
		"bridge start " + name,
	} {
		if err := h.send("%s", c); err != nil {
			return err
		}
	}
	return nil
}

// gns3Side builds lab with GNS3's processes.
func gns3Side(lab string) (*side, error) {
	l1, l2 := freePort(), freePort() // the lab's ends the hosts send to
	s, err := newSide("gns3", l1, l2)
	if err != nil {
		return nil, err
	}
	switch lab {
	case "hop":
		cmd, h, err := startUbridge()
		if err != nil {
			return nil, err
		}
		s.pids = []int{cmd.Process.Pid}
		return s, h.bridge("br0", l1, s.h1.port, l2, s.h2.port)
	case "lab":
		dport := freeTCP()
		dir, err := os.MkdirTemp("", "bench-gns3-dynamips-")
		if err != nil {
			return nil, err
		}
		children.Lock()
		children.tmp = append(children.tmp, dir)
		children.Unlock()
		dyn, err := start(dir, opts.dynamips, "-H", fmt.Sprintf("127.0.0.1:%d", dport))
		if err != nil {
			return nil, err
		}
		d, err := dialHypervisor(dport)
		if err != nil {
			return nil, err
		}
		if err := d.send("hypervisor working_dir %q", dir); err != nil {
			return nil, err
		}
		if err := d.send(`ethsw create "sw"`); err != nil {
			return nil, err
		}
		s.pids = []int{dyn.Process.Pid}
		for i, l := range []int{l1, l2} { // host i ↔ ubridge i ↔ switch port i
			h := []*host{s.h1, s.h2}[i]
			ub, hv, err := startUbridge()
			if err != nil {
				return nil, err
			}
			s.pids = append(s.pids, ub.Process.Pid)
			swPort, ubPort := freePort(), freePort()
			nio := fmt.Sprintf("nio_udp%d", i)
			if err := d.send("nio create_udp %s %d 127.0.0.1 %d", nio, swPort, ubPort); err != nil {
				return nil, err
			}
			if err := d.send(`ethsw add_nio "sw" %s`, nio); err != nil {
				return nil, err
			}
			if err := d.send(`ethsw set_access_port "sw" %s 1`, nio); err != nil {
				return nil, err
			}
			if err := hv.bridge("br0", l, h.port, ubPort, swPort); err != nil {
				return nil, err
			}
		}
		return s, nil
	case "iou":
		return s, gns3IOU(s, l1, l2)
	}
	return nil, fmt.Errorf("no lab %q (hop, lab, iou)", lab)
}

// goSide is the hop as a bare Go relay: this program re-run as goRelay.
func goSide() (*side, error) {
	l1, l2 := freePort(), freePort()
	s, err := newSide("go", l1, l2)
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd, err := start("", self, relayArg, strconv.Itoa(l1), strconv.Itoa(s.h1.port), strconv.Itoa(l2), strconv.Itoa(s.h2.port))
	if err != nil {
		return nil, err
	}
	s.pids = []int{cmd.Process.Pid}
	return s, nil
}

// goRelay is the go side's process: ports l1 r1 l2 r2 (UDP on 127.0.0.1),
// what arrives at l1 is sent to r2 and what arrives at l2 to r1, as a
// ubridge bridge does, until it is killed. Each direction has a thread of
// its own that blocks in recvfrom, then sends; it passes through Go's
// scheduler every 8 ms, as nodedesk's pollers do, or the runtime would
// take its processor away every 10 ms at a far higher cost.
func goRelay(args []string) {
	var p [4]int
	for i, a := range args {
		n, err := strconv.Atoi(a)
		if err != nil {
			os.Exit(2)
		}
		p[i] = n
	}
	sock := func(local, remote int) int {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
		if err == nil {
			_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, 1<<20)
			_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, 1<<20)
			err = unix.Bind(fd, &unix.SockaddrInet4{Port: local, Addr: [4]byte{127, 0, 0, 1}})
		}
		if err == nil {
			err = unix.Connect(fd, &unix.SockaddrInet4{Port: remote, Addr: [4]byte{127, 0, 0, 1}})
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return fd
	}
	a, b := sock(p[0], p[1]), sock(p[2], p[3])
	relay := func(src, dst int) {
		runtime.LockOSThread()
		buf := make([]byte, 65536)
		yielded := time.Now()
		for {
			n, _, e := unix.Syscall6(unix.SYS_RECVFROM, uintptr(src), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0, 0)
			if e == 0 {
				_, _, _ = unix.Syscall6(unix.SYS_SENDTO, uintptr(dst), uintptr(unsafe.Pointer(&buf[0])), n, unix.MSG_DONTWAIT, 0, 0)
			}
			if now := time.Now(); now.Sub(yielded) > 8*time.Millisecond {
				runtime.Gosched()
				yielded = now
			}
		}
	}
	go relay(a, b)
	relay(b, a)
}

// nodedeskSide builds lab on a nodedesk server of its own, over REST.
func nodedeskSide(lab, name, bin string) (*side, error) {
	l1, l2 := freePort(), freePort()
	s, err := newSide(name, l1, l2)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "bench-gns3-nodedesk-")
	if err != nil {
		return nil, err
	}
	children.Lock()
	children.tmp = append(children.tmp, dir)
	children.Unlock()
	port := freeTCP()
	if err := os.WriteFile(filepath.Join(dir, "none.conf"), nil, 0o644); err != nil {
		return nil, err
	}
	cmd, err := start(dir, bin, "--headless", "--listen", fmt.Sprintf("127.0.0.1:%d", port),
		"--db", filepath.Join(dir, "nodedesk.db"), "--config", filepath.Join(dir, "none.conf"))
	if err != nil {
		return nil, err
	}
	s.pids = []int{cmd.Process.Pid}
	api := &rest{base: fmt.Sprintf("http://127.0.0.1:%d/v2", port)}
	s.api = api
	call := api.call
	var p map[string]any
	for range 200 { // the server starts
		if p, err = call("POST", "/projects", map[string]any{"name": "bench-" + lab}); err == nil {
			break
		}
		time.Sleep(30 * time.Millisecond)
	}
	if err != nil {
		return nil, err
	}
	pid := p["project_id"].(string)
	cloud := func(n string, lport, rport int) (string, error) {
		m, err := call("POST", "/projects/"+pid+"/nodes", map[string]any{"name": n, "node_type": "cloud", "compute_id": "local",
			"properties": map[string]any{"ports_mapping": []any{map[string]any{"name": "udp0", "port_number": 0, "type": "udp", "lport": lport, "rhost": "127.0.0.1", "rport": rport}}}})
		if err != nil {
			return "", err
		}
		return m["node_id"].(string), nil
	}
	link := func(a string, pa int, b string, pb int) error {
		_, err := call("POST", "/projects/"+pid+"/links", map[string]any{"nodes": []any{
			map[string]any{"node_id": a, "adapter_number": 0, "port_number": pa},
			map[string]any{"node_id": b, "adapter_number": 0, "port_number": pb}}})
		return err
	}
	c1, err := cloud("host1", l1, s.h1.port)
	if err != nil {
		return nil, err
	}
	c2, err := cloud("host2", l2, s.h2.port)
	if err != nil {
		return nil, err
	}
	// nodedesk links no cloud to a cloud: the hop's two tunnels meet in a
	// two-port hub (one read and one write per frame, as a ubridge bridge).
	body := map[string]any{"name": "hub", "node_type": "ethernet_hub", "compute_id": "local", "properties": map[string]any{"ports_mapping": []any{
		map[string]any{"name": "Ethernet0", "port_number": 0}, map[string]any{"name": "Ethernet1", "port_number": 1}}}}
	switch lab {
	case "hop":
	case "lab":
		body = map[string]any{"name": "sw", "node_type": "ethernet_switch", "compute_id": "local"}
	case "iou":
		if body, err = nodedeskIOUBody(api); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("no lab %q (hop, lab, iou)", lab)
	}
	mid, err := call("POST", "/projects/"+pid+"/nodes", body)
	if err != nil {
		return nil, err
	}
	id := mid["node_id"].(string)
	if err = link(c1, 0, id, 0); err == nil {
		err = link(id, 1, c2, 0)
	}
	if err != nil {
		return nil, err
	}
	if lab == "iou" {
		return s, nodedeskIOU(s, pid, id)
	}
	_, _ = call("POST", "/projects/"+pid+"/nodes/start", map[string]any{})
	return s, nil
}

// rest is a client of a nodedesk server's /v2 API.
type rest struct{ base string }

// httpClient bounds every call (a start may take seconds on a busy machine).
var httpClient = &http.Client{Timeout: 60 * time.Second}

// call sends body as JSON and decodes the JSON object answered; a status
// of 300 or more is an error with the answer's text.
func (r *rest) call(method, path string, body any) (map[string]any, error) {
	var b []byte
	if body != nil {
		b, _ = json.Marshal(body)
	}
	return r.raw(method, path, "application/json", b)
}

// raw sends body as it is, with content type ctype.
func (r *rest) raw(method, path, ctype string, body []byte) (map[string]any, error) {
	req, err := http.NewRequest(method, r.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", ctype)
	resp, err := httpClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	rb, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode >= 300 {
		return nil, fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, rb)
	}
	var m map[string]any
	_ = json.Unmarshal(rb, &m)
	return m, nil
}

// host is one end of a lab: a socket on 127.0.0.1 connected to the lab's
// port, that sends, counts, or echoes frames back.
type host struct {
	conn     *net.UDPConn
	rc       syscall.RawConn
	port     int // its own port
	src, dst byte
	trial    atomic.Uint32
	got      atomic.Uint64
	echo     atomic.Bool
	pong     chan uint64 // seqs of echoed frames back at host 1
	tx       mmsg
}

func newHost(lab int, src, dst byte) (*host, error) {
	c, err := net.DialUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)}, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: lab})
	if err != nil {
		return nil, err
	}
	_ = c.SetReadBuffer(8 << 20)
	_ = c.SetWriteBuffer(8 << 20)
	rc, err := c.SyscallConn()
	if err != nil {
		return nil, err
	}
	h := &host{conn: c, rc: rc, port: c.LocalAddr().(*net.UDPAddr).Port, src: src, dst: dst, pong: make(chan uint64, 64)}
	h.tx.init(unix.SYS_SENDMMSG, 0)
	go h.sink()
	return h, nil
}

func mac(n byte) []byte { return []byte{0x02, 0x00, 0x5e, 0x10, 0x00, n} }

// frame is an Ethernet frame of size bytes from host src to dst (ethertype
// 0x88B5, local experimental) stamped with trial and seq.
func frame(size int, src, dst byte, trial uint32, seq uint64) []byte {
	f := make([]byte, size)
	copy(f, mac(dst))
	copy(f[6:], mac(src))
	binary.BigEndian.PutUint16(f[12:], 0x88B5)
	stamp(f, trial, seq)
	return f
}

func stamp(f []byte, trial uint32, seq uint64) {
	binary.BigEndian.PutUint32(f[14:], trial)
	binary.BigEndian.PutUint64(f[18:], seq)
}

func stampOf(f []byte) (uint32, uint64, bool) {
	if len(f) < 26 {
		return 0, 0, false
	}
	return binary.BigEndian.Uint32(f[14:]), binary.BigEndian.Uint64(f[18:]), true
}

// sink reads what reaches h: echoes it back (with the MACs swapped) while
// echo is set, hands ping replies to pong, and counts frames of the
// current trial.
func (h *host) sink() {
	rx := &mmsg{}
	rx.init(unix.SYS_RECVMMSG, 9300)
	for {
		n, err := rx.run(h.rc, batchSize)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		tr := h.trial.Load()
		for i := range n {
			f := rx.frame(i)
			t, seq, ok := stampOf(f)
			if !ok {
				continue
			}
			switch {
			case h.echo.Load():
				copy(f, mac(h.dst))
				copy(f[6:], mac(h.src))
				_, _ = h.conn.Write(f)
			case t == 0:
				select {
				case h.pong <- seq:
				default:
				}
			case t == tr:
				h.got.Add(1)
			}
		}
	}
}

// offer sends size-byte frames from s.h1 to s.h2 at rate for d, paced
// every tick, and returns how many were sent and how many arrived.
func (s *side) offer(size int, rate float64, d time.Duration) (sent, got uint64) {
	tr := s.h2.trial.Add(1)
	s.h2.got.Store(0)
	frames := make([][]byte, batchSize)
	for i := range frames {
		frames[i] = frame(size, 1, 2, tr, 0)
	}
	total := uint64(rate * d.Seconds())
	t0 := time.Now()
	for sent < total {
		due := min(uint64(rate*time.Since(t0).Seconds()), total)
		for sent < due {
			k := min(due-sent, batchSize)
			for i := range k {
				stamp(frames[i], tr, sent+i)
			}
			if err := s.h1.tx.send(s.h1.rc, frames[:k]); err != nil {
				break
			}
			sent += k
		}
		ts := unix.NsecToTimespec(int64(tick))
		_ = unix.Nanosleep(&ts, nil)
	}
	time.Sleep(30 * time.Millisecond) // what is in flight arrives
	return sent, s.h2.got.Load()
}

// ping sends one frame from host 1 and waits for host 2's echo of it.
func (s *side) ping(f []byte, seq uint64) (time.Duration, bool) {
	stamp(f, 0, seq)
	t0 := time.Now()
	if _, err := s.h1.conn.Write(f); err != nil {
		return 0, false
	}
	limit := time.NewTimer(50 * time.Millisecond)
	defer limit.Stop()
	for {
		select {
		case got := <-s.h1.pong:
			if got == seq {
				return time.Since(t0), true
			}
		case <-limit.C:
			return 0, false
		}
	}
}

// warm sends frames both ways until one crosses (a switch learns both
// hosts), or fails after 5 s.
func (s *side) warm() error {
	s.h2.echo.Store(true)
	defer s.h2.echo.Store(false)
	f := frame(64, 1, 2, 0, 0)
	for i := range 100 {
		if _, ok := s.ping(f, uint64(i+1)); ok {
			time.Sleep(20 * time.Millisecond)
			return nil
		}
	}
	return errors.New("no frame crosses the lab")
}

// cell is what one side did with one frame size.
type cell struct {
	cpu      time.Duration
	groupCPU map[string]time.Duration // by group name
	switches uint64
	frames   uint64
	syscalls uint64
	scFrames uint64
	tput     float64
	rtts     []time.Duration
	lost     int
}

// labCells are a lab's measurements, one cell per side and frame size.
type labCells map[string]*cell

// at is side's cell for size, empty until measured.
func (m labCells) at(side string, size int) *cell {
	k := side + "/" + strconv.Itoa(size)
	if m[k] == nil {
		m[k] = &cell{}
	}
	return m[k]
}

var havePerf bool

// cpuPerFrame is the side's CPU time per frame delivered, in µs.
func (c *cell) cpuPerFrame() float64 { return float64(c.cpu) / float64(max(c.frames, 1)) / 1e3 }

// measure adds one round of measurements of size to c.
func (s *side) measure(c *cell, size, fixedRate int) {
	rate := float64(fixedRate)
	window := time.Duration(opts.seconds) * time.Second
	groups := make([]procstat.Sample, len(s.groups))
	for i, g := range s.groups {
		groups[i] = procstat.Read(g.pids...)
	}
	before := procstat.Read(s.pids...)
	_, got := s.offer(size, rate, window)
	d := procstat.Read(s.pids...).Sub(before)
	if c.groupCPU == nil {
		c.groupCPU = map[string]time.Duration{}
	}
	for i, g := range s.groups {
		c.groupCPU[g.name] += procstat.Read(g.pids...).Sub(groups[i]).CPU
	}
	c.cpu += d.CPU
	c.switches += d.Switches
	c.frames += got
	if havePerf {
		n, err := procstat.Syscalls(s.pids, func() {
			_, got := s.offer(size, rate, window/2)
			c.scFrames += got
		})
		if err == nil {
			c.syscalls += n
		}
	}
	ok := func(r float64) bool {
		for range 2 {
			sent, got := s.offer(size, r, trial)
			if loss := 1 - float64(got)/float64(max(sent, 1)); loss < 0.01 {
				c.tput = max(c.tput, float64(got)/trial.Seconds())
				return true
			}
		}
		return false
	}
	lo, hi := 0.0, 0.0
	for r := 10_000.0; r <= maxRate; r *= 1.5 {
		if !ok(r) {
			hi = r
			break
		}
		lo = r
	}
	for r := hi / 1.5; lo == 0 && r >= minRate; r /= 1.5 { // a lab slower than 10,000 frames/s (iou)
		if ok(r) {
			lo = r
			break
		}
		hi = r
	}
	for i := 0; i < 5 && hi > 0 && lo > 0 && hi/lo > 1.05; i++ {
		mid := (lo + hi) / 2
		if ok(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
}

// labRate is the fixed rate of lab's CPU measurement: -rate, or -iou-rate
// on the iou lab.
func labRate(lab string) int {
	if lab == "iou" {
		return opts.iouRate
	}
	return opts.rate
}

// pingRound measures round trips of size-byte frames through every side,
// taking the sides in turn frame by frame.
func pingRound(sides []*side, cells labCells, size int) {
	f := frame(size, 1, 2, 0, 0)
	for _, s := range sides {
		s.h2.echo.Store(true)
	}
	for i := range pings {
		for _, s := range sides {
			c := cells.at(s.name, size)
			if d, ok := s.ping(f, uint64(1_000_000+i)); ok {
				c.rtts = append(c.rtts, d)
			} else {
				c.lost++
			}
		}
	}
	for _, s := range sides {
		s.h2.echo.Store(false)
	}
	time.Sleep(20 * time.Millisecond)
}

func (c *cell) rtt(q float64) time.Duration {
	if len(c.rtts) == 0 {
		return 0
	}
	s := slices.Clone(c.rtts)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func per(n, frames uint64) float64 {
	if frames == 0 {
		return math.NaN()
	}
	return float64(n) / float64(frames)
}

// table formats one lab's cells, each nodedesk side with its ratios to
// gns3's.
func table(lab string, sides []*side, cells labCells, sizes []int) string {
	var b strings.Builder
	what := map[string]string{"hop": "one UDP↔UDP hop", "lab": "host–switch–host", "iou": "host–IOU L2 switch–host"}[lab]
	fmt.Fprintf(&b, "\n%s (%s): CPU and wake-ups at %d frames/s, frames/s at <1%% loss, round trip\n", lab, what, labRate(lab))
	line := "%-16s %5s %9s %7s %7s %7s %11s %7s %9s %9s %7s %5s\n"
	fmt.Fprintf(&b, line, "side", "bytes", "CPU µs/f", "×gns3", "sys/f", "wake/f", "frames/s", "×gns3", "rtt p50", "p99", "×gns3", "lost")
	fmt.Fprintln(&b, strings.Repeat("-", 112))
	for _, size := range sizes {
		g := cells.at("gns3", size)
		for _, s := range sides {
			c := cells.at(s.name, size)
			r := func(x float64) string {
				if s.name == "gns3" {
					return ""
				}
				return fmt.Sprintf("%.2f×", x)
			}
			cpu := c.cpuPerFrame()
			fmt.Fprintf(&b, line, s.name, strconv.Itoa(size),
				fmt.Sprintf("%.1f", cpu), r(cpu/g.cpuPerFrame()),
				fmt.Sprintf("%.2f", per(c.syscalls, c.scFrames)), fmt.Sprintf("%.2f", per(c.switches, c.frames)),
				fmt.Sprintf("%.0f", c.tput), r(c.tput/g.tput),
				fmt.Sprintf("%.1fµs", float64(c.rtt(0.5))/1e3), fmt.Sprintf("%.1fµs", float64(c.rtt(0.99))/1e3),
				r(float64(c.rtt(0.5))/float64(g.rtt(0.5))), strconv.Itoa(c.lost))
		}
	}
	if lab == "iou" {
		b.WriteString(iouTable(sides, cells, sizes))
	}
	if !slices.ContainsFunc(sides, func(s *side) bool { return s.name == "go" }) {
		return b.String()
	}
	cpu := func(name string, size int) float64 { return cells.at(name, size).cpuPerFrame() }
	for _, s := range sides {
		if s.name == "gns3" || s.name == "go" {
			continue
		}
		fmt.Fprintf(&b, "%s CPU per frame ÷ go's:", s.name)
		for _, size := range sizes {
			fmt.Fprintf(&b, " %.2f× (%d B)", cpu(s.name, size)/cpu("go", size), size)
		}
		fmt.Fprintln(&b)
	}
	fmt.Fprintln(&b, "go: ubridge's design in Go, a locked thread per direction with a blocking recvfrom and a sendto per frame: the least a Go program spends on a hop.")
	return b.String()
}

// mmsg is one recvmmsg or sendmmsg call on a net.UDPConn, waiting in the
// netpoller, without allocating.
type mmsg struct {
	trap  uintptr
	hdrs  []mmsghdr
	iovs  []unix.Iovec
	bufs  [][]byte
	vlen  int
	n     int
	errno syscall.Errno
	fn    func(fd uintptr) bool
}

// mmsghdr is struct mmsghdr of recvmmsg(2).
type mmsghdr struct {
	hdr unix.Msghdr
	len uint32
	_   [4]byte
}

// init prepares batchSize headers; bufSize > 0 gives each its own receive
// buffer.
func (m *mmsg) init(trap uintptr, bufSize int) {
	m.trap, m.hdrs, m.iovs = trap, make([]mmsghdr, batchSize), make([]unix.Iovec, batchSize)
	for i := range m.hdrs {
		if bufSize > 0 {
			m.bufs = append(m.bufs, make([]byte, bufSize))
			m.iovs[i].Base = &m.bufs[i][0]
			m.iovs[i].SetLen(bufSize)
		}
		m.hdrs[i].hdr.Iov = &m.iovs[i]
		m.hdrs[i].hdr.SetIovlen(1)
	}
	m.fn = func(fd uintptr) bool {
		for {
			n, _, e := unix.Syscall6(m.trap, fd, uintptr(unsafe.Pointer(&m.hdrs[0])), uintptr(m.vlen), 0, 0, 0)
			switch e {
			case 0:
				m.n = int(n)
			case unix.EINTR:
				continue
			case unix.EAGAIN:
				return false
			default:
				m.errno = e
			}
			return true
		}
	}
}

func (m *mmsg) run(rc syscall.RawConn, vlen int) (int, error) {
	m.vlen, m.n, m.errno = vlen, 0, 0
	wait := rc.Read
	if m.trap == unix.SYS_SENDMMSG {
		wait = rc.Write
	}
	if err := wait(m.fn); err != nil {
		return 0, err
	}
	if m.errno != 0 {
		return 0, m.errno
	}
	return m.n, nil
}

func (m *mmsg) frame(i int) []byte { return m.bufs[i][:m.hdrs[i].len] }

// send writes frames in order; a refused one is skipped.
func (m *mmsg) send(rc syscall.RawConn, frames [][]byte) error {
	for len(frames) > 0 {
		k := min(len(frames), batchSize)
		for i, f := range frames[:k] {
			m.iovs[i].Base = unsafe.SliceData(f)
			m.iovs[i].SetLen(len(f))
		}
		n, err := m.run(rc, k)
		if err != nil {
			if _, refused := err.(syscall.Errno); !refused {
				return err
			}
			n = 1
		}
		frames = frames[n:]
	}
	return nil
}
