//go:build linux

package main

// The iou and iou-start labs: an IOU L2 switch (fake-iol, a free stand-in
// for Cisco's IOL: the README of the shared folder's fake-iol) between the two hosts.
//
// gns3 side, as gns3-server 2.2.59 (compute/iou/iou_vm.py) runs an IOU
// node: the image in a node folder with GNS3's NETMAP, started as
// `image -e 1 -s 0 -n 256 -m 1024 <id>` on stdin/stdout pipes kept open
// (stderr merged), until /tmp/netio<uid>/<id> answers; then a ubridge
// hypervisor with `iol_bridge create IOL-BRIDGE-<id+512> <id+512>`, one
// `iol_bridge add_nio_udp … <id> 0 <unit> <lport> 127.0.0.1 <rport>` per
// linked port and `iol_bridge start`; and, as each VPCS of GNS3 2.2 has a
// uBridge of its own for its link, one ubridge UDP bridge per host between
// the host's tunnel and the iol_bridge's NIO. Its relays are the three
// ubridges; the iol uBridge alone is also shown.
//
// nodedesk side: its server with two clouds (the hosts' tunnels) linked
// to an IOU node made over REST (licence check off, image uploaded, 1
// Ethernet and 0 serial adapters, nvram 256, ram 1024: the gns3 side's
// argv); its data plane binds the bridge socket itself. Its relay is the
// server process. Both sides' IOU process is measured too: the same work.
//
// The hosts' frames carry distinct source MACs, so the switch learns
// where each host is (the warm-up's echo teaches it host 2's) and carries
// host 1's unicast to host 2 only; what host 2 counts has crossed it.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// iouImageName is the name the image runs under: "l2" in it makes
// fake-iol a switch.
const iouImageName = "i86bi-linux-l2-bench.bin"

// iouNode is the IOU node of a side. On the gns3 side: its folder, image
// and application id, and the running process; on a nodedesk side: its
// project and node ids.
type iouNode struct {
	dir, image string
	id         int
	cmd        *exec.Cmd
	ended      chan struct{}

	project, node string
}

// netioDir is IOU's socket folder: /tmp/netio<uid>, whatever TMPDIR says.
func netioDir() string { return "/tmp/netio" + strconv.Itoa(os.Getuid()) }

func netioPath(id int) string { return filepath.Join(netioDir(), strconv.Itoa(id)) }

// netioFiles are the files of application id id: its socket, its
// bridge's socket and the bridge's lock.
func netioFiles(id int) []string {
	return []string{netioPath(id), netioPath(id + 512), netioPath(id+512) + ".lck"}
}

// freeIOUID is an application id ≥ 400 none of whose files exist (no
// IOU, uBridge or nodedesk of another run uses it); nodedesk picks the
// lowest free ones for itself.
func freeIOUID() (int, error) {
	for id := 400; id <= 511; id++ {
		free := true
		for _, p := range netioFiles(id) {
			if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
				free = false
			}
		}
		if free {
			return id, nil
		}
	}
	return 0, fmt.Errorf("no free IOU application id in 400–511 in %s", netioDir())
}

// live reports whether a program holds the unix datagram socket at path
// (a connect succeeds), as nodedesk's IOU runner checks it.
func live(path string) bool {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	return unix.Connect(fd, &unix.SockaddrUnix{Name: path}) == nil
}

// removeStale removes an IOU socket nobody holds, or a .lck file nobody
// has locked (a killed uBridge or nodedesk leaves both behind).
func removeStale(path string) {
	if strings.HasSuffix(path, ".lck") {
		f, err := os.Open(path)
		if err != nil {
			return
		}
		lk := unix.Flock_t{Type: unix.F_WRLCK}
		err = unix.FcntlFlock(f.Fd(), unix.F_GETLK, &lk)
		f.Close()
		if err == nil && lk.Type == unix.F_UNLCK {
			_ = os.Remove(path)
		}
		return
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSocket != 0 && !live(path) {
		_ = os.Remove(path)
	}
}

// newGNS3IOU readies a gns3 IOU node: the image copied as GNS3's images
// folder keeps it (images/IOU/<name>, mode 0700) and a node folder with
// GNS3's NETMAP for a free application id. Everything is removed, and
// the id's files if left behind, at the next killAll.
func newGNS3IOU() (*iouNode, error) {
	top, err := os.MkdirTemp("", "bench-gns3-iou-")
	if err != nil {
		return nil, err
	}
	children.Lock()
	children.tmp = append(children.tmp, top)
	children.Unlock()
	n := &iouNode{dir: filepath.Join(top, "project-files", "iou", "node"), image: filepath.Join(top, "images", "IOU", iouImageName)}
	if err := os.MkdirAll(n.dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(n.image), 0o755); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(opts.fakeIOL)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(n.image, b, 0o700); err != nil {
		return nil, err
	}
	if n.id, err = freeIOUID(); err != nil {
		return nil, err
	}
	children.Lock()
	children.netio = append(children.netio, netioFiles(n.id)...)
	children.Unlock()
	// GNS3's _create_netmap_config: bays 0–15, units 0–3, every port to
	// the same port of the bridge id+512.
	var nm strings.Builder
	for bay := range 16 {
		for unit := range 4 {
			fmt.Fprintf(&nm, "%d:%d/%d%5d:%d/%d\n", n.id+512, bay, unit, n.id, bay, unit)
		}
	}
	return n, os.WriteFile(filepath.Join(n.dir, "NETMAP"), []byte(nm.String()), 0o644)
}

// socketPoll is how often run looks for the socket: finer than
// nodedesk's 2 ms, so that the image's own start is read closely.
const socketPoll = 250 * time.Microsecond

// run starts the image as gns3-server does (stdin and stdout on pipes
// that stay open, stderr merged, in the node folder) and returns how long
// from exec until its socket answers (at most 10 s, as nodedesk waits).
func (n *iouNode) run() (time.Duration, error) {
	cmd := exec.Command(n.image, "-e", "1", "-s", "0", "-n", "256", "-m", "1024", strconv.Itoa(n.id))
	cmd.Dir = n.dir
	if _, err := cmd.StdinPipe(); err != nil { // kept by cmd until it is reaped
		return 0, err
	}
	if _, err := cmd.StdoutPipe(); err != nil { // not read: GNS3 reads it only for a telnet client
		return 0, err
	}
	cmd.Stderr = cmd.Stdout
	n.cmd, n.ended = cmd, make(chan struct{})
	path := netioPath(n.id)
	t0 := time.Now()
	if err := launch(cmd, n.ended); err != nil {
		return 0, err
	}
	for deadline := t0.Add(10 * time.Second); ; {
		if fi, err := os.Stat(path); err == nil && fi.Mode()&os.ModeSocket != 0 && live(path) {
			return time.Since(t0), nil
		}
		select {
		case <-n.ended:
			return 0, fmt.Errorf("%s ended at start: %v", iouImageName, cmd.ProcessState)
		default:
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("%s did not open %s within 10 s", iouImageName, path)
		}
		time.Sleep(socketPoll)
	}
}

// stop ends the image as gns3-server does (SIGTERM) and waits, at most
// 5 s, for it to be reaped; then its socket is gone.
func (n *iouNode) stop() error {
	if n.cmd == nil {
		return nil
	}
	_ = n.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-n.ended:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-n.cmd.Process.Pid, syscall.SIGKILL)
		return fmt.Errorf("%s did not end within 5 s of SIGTERM", iouImageName)
	}
	n.cmd = nil
	return nil
}

// gns3IOU wires the gns3 side of the iou lab: the image, its iol uBridge
// and a ubridge per host (host i sends to li).
func gns3IOU(s *side, l1, l2 int) error {
	n, err := newGNS3IOU()
	if err != nil {
		return err
	}
	s.iou = n
	if _, err := n.run(); err != nil {
		return err
	}
	ub, hv, err := startUbridge()
	if err != nil {
		return err
	}
	bridge := fmt.Sprintf("IOL-BRIDGE-%d", n.id+512)
	if err := hv.send("iol_bridge create %s %d", bridge, n.id+512); err != nil {
		return err
	}
	iolPorts, ubPorts := [2]int{freePort(), freePort()}, [2]int{freePort(), freePort()}
	for unit := range 2 { // Ethernet0/0 and 0/1: bay 0, units 0 and 1
		if err := hv.send("iol_bridge add_nio_udp %s %d 0 %d %d 127.0.0.1 %d", bridge, n.id, unit, iolPorts[unit], ubPorts[unit]); err != nil {
			return err
		}
	}
	if err := hv.send("iol_bridge start %s", bridge); err != nil {
		return err
	}
	s.pids = []int{ub.Process.Pid}
	for i, l := range []int{l1, l2} { // host i ↔ ubridge i ↔ Ethernet0/i
		h := []*host{s.h1, s.h2}[i]
		hub, hhv, err := startUbridge()
		if err != nil {
			return err
		}
		s.pids = append(s.pids, hub.Process.Pid)
		if err := hhv.bridge("br0", l, h.port, ubPorts[i], iolPorts[i]); err != nil {
			return err
		}
	}
	s.groups = []group{{"iol uBridge", []int{ub.Process.Pid}}, {"IOU", []int{n.cmd.Process.Pid}}}
	return nil
}

// nodedeskIOUBody readies a nodedesk server for an IOU node (licence
// check off, the image uploaded) and returns the node's creation body.
func nodedeskIOUBody(api *rest) (map[string]any, error) {
	if _, err := api.call("PUT", "/iou_license", map[string]any{"iourc_content": "", "license_check": false}); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(opts.fakeIOL)
	if err != nil {
		return nil, err
	}
	if _, err := api.raw("POST", "/computes/local/iou/images/"+iouImageName, "application/octet-stream", b); err != nil {
		return nil, err
	}
	return map[string]any{"name": "SW1", "node_type": "iou", "compute_id": "local", "properties": map[string]any{
		"path": iouImageName, "ethernet_adapters": 1, "serial_adapters": 0,
		"nvram": 256, "ram": 1024, "use_default_iou_values": false}}, nil
}

// nodedeskIOU starts the linked IOU node node of project and finds its
// process (a child of the server, in a session of its own). The node is
// stopped over REST before the server is killed, so that nodedesk removes
// its sockets itself.
func nodedeskIOU(s *side, project, node string) error {
	s.iou = &iouNode{project: project, node: node}
	cleanup(func() { // bounded: a server that does not answer is killed all the same
		done := make(chan struct{})
		go func() { _ = s.iou.stopNodedesk(s.api); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
		}
	})
	if _, err := s.iou.startNodedesk(s.api); err != nil {
		return err
	}
	m, err := s.api.call("GET", "/projects/"+project+"/nodes/"+node, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%s iou: %v\n", s.name, m["command_line"])
	props, _ := m["properties"].(map[string]any)
	id, _ := props["application_id"].(float64)
	if id < 1 {
		return fmt.Errorf("the IOU node has no application_id: %v", props)
	}
	children.Lock()
	children.netio = append(children.netio, netioFiles(int(id))...)
	children.Unlock()
	pid := childRunning(s.pids[0], iouImageName)
	if pid == 0 {
		return fmt.Errorf("no %s process under nodedesk's server (pid %d)", iouImageName, s.pids[0])
	}
	children.Lock()
	children.extra = append(children.extra, pid)
	children.Unlock()
	s.groups = []group{{"IOU", []int{pid}}}
	return nil
}

// startNodedesk is POST …/nodes/{id}/start, timed.
func (n *iouNode) startNodedesk(api *rest) (time.Duration, error) {
	t0 := time.Now()
	_, err := api.call("POST", "/projects/"+n.project+"/nodes/"+n.node+"/start", map[string]any{})
	return time.Since(t0), err
}

func (n *iouNode) stopNodedesk(api *rest) error {
	_, err := api.call("POST", "/projects/"+n.project+"/nodes/"+n.node+"/stop", map[string]any{})
	return err
}

// childRunning is the pid of parent's child whose program is named name
// (argv[0]'s base), or 0 if none appears within 2 s.
func childRunning(parent int, name string) int {
	for range 200 {
		dirs, _ := os.ReadDir("/proc")
		for _, d := range dirs {
			pid, err := strconv.Atoi(d.Name())
			if err != nil {
				continue
			}
			stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			if err != nil {
				continue
			}
			// pid (comm) state ppid …: comm may hold spaces and parentheses.
			i := strings.LastIndexByte(string(stat), ')')
			f := strings.Fields(string(stat[i+1:]))
			if len(f) < 2 || f[1] != strconv.Itoa(parent) {
				continue
			}
			argv, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			if arg0, _, _ := strings.Cut(string(argv), "\x00"); filepath.Base(arg0) == name {
				return pid
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return 0
}

// iouTable shows, for the iou lab, the CPU of the processes measured
// apart: the IOU process on every side, GNS3's iol uBridge alone, and the
// ratios that matter: nodedesk's server ÷ GNS3's relays (all three
// ubridges), and ÷ the iol uBridge alone.
func iouTable(sides []*side, cells labCells, sizes []int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "iou, CPU µs per frame in the same windows (relays: nodedesk's server; gns3's 3 ubridges; or the iol uBridge alone):\n")
	line := "%-16s %5s %9s %9s %13s %16s\n"
	fmt.Fprintf(&b, line, "side", "bytes", "relays", "IOU proc", "÷gns3 relays", "÷gns3 iol uBr.")
	for _, size := range sizes {
		g := cells.at("gns3", size)
		gRelay, gIOL := g.cpuPerFrame(), per(uint64(g.groupCPU["iol uBridge"]), g.frames)/1e3
		for _, s := range sides {
			c := cells.at(s.name, size)
			iou := per(uint64(c.groupCPU["IOU"]), c.frames) / 1e3
			r1, r2 := "", ""
			if s.name != "gns3" {
				r1, r2 = fmt.Sprintf("%.2f×", c.cpuPerFrame()/gRelay), fmt.Sprintf("%.2f×", c.cpuPerFrame()/gIOL)
			}
			fmt.Fprintf(&b, line, s.name, strconv.Itoa(size), fmt.Sprintf("%.1f", c.cpuPerFrame()), fmt.Sprintf("%.1f", iou), r1, r2)
		}
		fmt.Fprintf(&b, line, "gns3 iol uBridge", strconv.Itoa(size), fmt.Sprintf("%.1f", gIOL), "", "", "")
	}
	for _, s := range sides {
		if s.name == "gns3" {
			continue
		}
		fmt.Fprintf(&b, "%s CPU ÷ GNS3 relays' CPU (target ≤ 0.50×):", s.name)
		for _, size := range sizes {
			fmt.Fprintf(&b, " %.2f× (%d B)", cells.at(s.name, size).cpuPerFrame()/cells.at("gns3", size).cpuPerFrame(), size)
		}
		fmt.Fprintln(&b)
	}
	return b.String()
}

// iouStart measures the start overhead: POST …/nodes/{id}/start of a
// linked IOU node on each nodedesk side (then stopped over REST, not
// timed) against the image's own start on the gns3 side (exec until its
// socket answers, as nodedesk's runner waits; then SIGTERM), for
// opts.startRounds rounds, the sides taking turns first. It returns the
// table: median and p90 of each, and of the per-round difference.
func iouStart(ndNames []string, nds map[string]string) (string, error) {
	type starter struct {
		name  string
		start func() (time.Duration, error)
		stop  func() error
	}
	var ss []starter
	for _, name := range ndNames {
		s, err := nodedeskSide("iou", name, nds[name])
		if err != nil {
			return "", fmt.Errorf("%s: %v", name, err)
		}
		if err := s.iou.stopNodedesk(s.api); err != nil {
			return "", fmt.Errorf("%s: %v", name, err)
		}
		ss = append(ss, starter{name, func() (time.Duration, error) { return s.iou.startNodedesk(s.api) },
			func() error { return s.iou.stopNodedesk(s.api) }})
	}
	g, err := newGNS3IOU()
	if err != nil {
		return "", fmt.Errorf("gns3: %v", err)
	}
	ss = append(ss, starter{"gns3", g.run, g.stop})
	times := map[string][]time.Duration{}
	for round := range opts.startRounds {
		for i := range ss {
			st := ss[(i+round)%len(ss)]
			d, err := st.start()
			if err != nil {
				return "", fmt.Errorf("%s, round %d: %v", st.name, round+1, err)
			}
			times[st.name] = append(times[st.name], d)
			if err := st.stop(); err != nil {
				return "", fmt.Errorf("%s, round %d, stop: %v", st.name, round+1, err)
			}
			time.Sleep(50 * time.Millisecond) // the stop settles (sockets closed)
		}
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }
	var b strings.Builder
	fmt.Fprintf(&b, "\niou-start: POST …/nodes/{id}/start of the IOU node (nodedesk) vs the image's own start, exec until its socket answers (gns3), %d rounds, alternating\n", opts.startRounds)
	line := "%-28s %10s %10s %10s %10s\n"
	fmt.Fprintf(&b, line, "side", "median", "p90", "min", "max")
	fmt.Fprintln(&b, strings.Repeat("-", 72))
	for _, st := range ss {
		t := times[st.name]
		what := st.name + " POST start"
		if st.name == "gns3" {
			what = "image's own start (gns3)"
		}
		fmt.Fprintf(&b, line, what, ms(quantile(t, 0.5)), ms(quantile(t, 0.9)), ms(slices.Min(t)), ms(slices.Max(t)))
	}
	for _, st := range ss[:len(ss)-1] {
		diff := make([]time.Duration, len(times[st.name]))
		for i, d := range times[st.name] {
			diff[i] = d - times["gns3"][i]
		}
		fmt.Fprintf(&b, line, st.name+" − image (per round)", ms(quantile(diff, 0.5)), ms(quantile(diff, 0.9)), ms(slices.Min(diff)), ms(slices.Max(diff)))
	}
	fmt.Fprintln(&b, "target: nodedesk adds ≤ 100 ms to the image's own start (the p90 of the difference).")
	return b.String(), nil
}

// quantile is the q-quantile of ds (nearest rank).
func quantile(ds []time.Duration, q float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}
