//go:build linux

package dataplane

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"nodedesk/app/iou/ioutest"
	"nodedesk/app/kit"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"nodedesk/app"
)

// IOU nodes' frames, carried by the fabric's own IOU bridge (netio.go),
// with the real fake-iol binary as the IOU process where one is needed.
// The sockets folder (/tmp/netio<uid>) is the machine's: these tests use
// application ids 480–511 only (claimIOUID), so that they never meet the
// other tests' IOU nodes, nor another run of these tests.

// fakeIOL is the stand-in IOU image the tests run (ioutest finds it; the
// test fails, saying where it looked, without it).
func fakeIOL(tb testing.TB) string { return ioutest.FakeIOL(tb) }

// iouIDs are the application ids a test of this process holds now.
var iouIDs struct {
	sync.Mutex
	held map[int]bool
}

// claimIOUID returns an application id in 480–511 that no other test of
// any process holds (a flock on a claim file in the temp folder), whose
// sockets no one is using, for as long as tb runs. Registered before the
// test's fabric and process, it is given back after they are gone.
func claimIOUID(tb testing.TB) int {
	tb.Helper()
	iouIDs.Lock()
	defer iouIDs.Unlock()
	if iouIDs.held == nil {
		iouIDs.held = map[int]bool{}
	}
	dir := app.NetIODir()
	for id := 480; id <= 511; id++ {
		if iouIDs.held[id] {
			continue
		}
		path := filepath.Join(os.TempDir(), fmt.Sprintf("nodedesk-dataplane-iou-%d.claim", id))
		claim, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			tb.Fatal(err)
		}
		if unix.Flock(int(claim.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil || !samePath(claim, path) {
			_ = claim.Close() // another test process has it, or had it and removed the file
			continue
		}
		if socketLive(filepath.Join(dir, strconv.Itoa(id))) || socketLive(filepath.Join(dir, strconv.Itoa(id+app.NetIOBridgeOffset))) ||
			lockHeld(filepath.Join(dir, strconv.Itoa(id+app.NetIOBridgeOffset)+".lck")) {
			_ = claim.Close() // someone else's IOU node
			continue
		}
		iouIDs.held[id] = true
		tb.Cleanup(func() {
			iouIDs.Lock()
			delete(iouIDs.held, id)
			iouIDs.Unlock()
			_ = os.Remove(path) // while locked: whoever opened it before sees it gone (samePath)
			_ = claim.Close()
		})
		return id
	}
	tb.Fatal("no IOU application id in 480–511 is free")
	return 0
}

// samePath reports whether f is still the file at path.
func samePath(f *os.File, path string) bool {
	a, errA := f.Stat()
	b, errB := os.Stat(path)
	return errA == nil && errB == nil && os.SameFile(a, b)
}

// socketLive reports whether a unix datagram socket is bound at path: a
// stale file refuses the connect, a socket connected to another (a
// bridge, to its IOU process) forbids it.
func socketLive(path string) bool {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	err = unix.Connect(fd, &unix.SockaddrUnix{Name: path})
	return err == nil || err == unix.EPERM
}

// lockHeld reports whether another process holds an fcntl lock on path.
// Opening and closing it would release this process's own lock on it: it
// is only asked about ids this process does not hold.
func lockHeld(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart}
	return unix.FcntlFlock(f.Fd(), unix.F_GETLK, &lk) == nil && lk.Type != unix.F_UNLCK
}

// bridgePaths are the socket and lock file of IOU id's bridge.
func bridgePaths(id int) (sock, lck string) {
	sock = filepath.Join(app.NetIODir(), strconv.Itoa(id+app.NetIOBridgeOffset))
	return sock, sock + ".lck"
}

// iouPath is the socket of IOU process id.
func iouPath(id int) string { return filepath.Join(app.NetIODir(), strconv.Itoa(id)) }

// startIOL runs the fake-iol binary as IOU process id, a switch (mode
// "l2") or a router ("l3"), with 2 Ethernet bays and no serial one, and
// GNS3's NETMAP (every bay/unit to the same of bridge id+512), and waits
// until its socket is bound. The image is a symlink named as GNS3 names
// IOL images (the mode is read from argv[0]), as GNS3 links its images
// into the node folder. The process is gone when the test ends, failed or
// not.
func startIOL(tb testing.TB, id int, mode string) {
	tb.Helper()
	bin := fakeIOL(tb)
	dir := tb.TempDir()
	exe := filepath.Join(dir, "i86bi-linux-"+mode+"-test.bin")
	if err := os.Symlink(bin, exe); err != nil {
		tb.Fatal(err)
	}
	var netmap strings.Builder
	for bay := range 16 {
		for unit := range 4 {
			fmt.Fprintf(&netmap, "%d:%d/%d %d:%d/%d\n", id+app.NetIOBridgeOffset, bay, unit, id, bay, unit)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "NETMAP"), []byte(netmap.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(exe, "-e", "2", "-s", "0", "-n", "256", "-m", "1024", strconv.Itoa(id))
	cmd.Dir = dir
	stdin, err := cmd.StdinPipe() // kept open: its end ends the process
	if err != nil {
		tb.Fatal(err)
	}
	out := new(lockedBuffer)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tb.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM) // it removes its socket
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		_ = stdin.Close()
		_ = os.Remove(iouPath(id))
		if tb.Failed() {
			tb.Logf("IOU %d said: %s", id, out.String())
		}
	})
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		select {
		case err := <-done:
			done <- err
			tb.Fatalf("IOU %d ended at start (%v): %s", id, err, out.String())
		default:
		}
		if socketLive(iouPath(id)) {
			return
		}
	}
	tb.Fatalf("IOU %d did not bind %s: %s", id, iouPath(id), out.String())
}

// lockedBuffer is a bytes.Buffer that several goroutines write.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// iouNode is a running IOU node, application id appID, with 2 Ethernet
// bays (8 ports) and no serial one.
func iouNode(id string, appID int) *app.Node {
	return &app.Node{ID: id, Name: id, Type: app.IOU, Status: app.Started, Properties: app.Properties{Extra: map[string]json.RawMessage{
		"application_id":    json.RawMessage(strconv.Itoa(appID)),
		"ethernet_adapters": json.RawMessage("2"),
		"serial_adapters":   json.RawMessage("0"),
	}}}
}

// withStatus is a copy of n in status s.
func withStatus(n *app.Node, s app.Status) *app.Node {
	c := *n
	c.Status = s
	return &c
}

// iouLab is VPCS n1 (its process on UDP port a1, nodedesk's end on r1)
// linked to Ethernet0/0 of IOU node "iou" (application id appID), and n2
// (a2, r2) to its Ethernet0/1.
func iouLab(appID, a1, r1, a2, r2 int) ([]*app.Node, []*app.Link) {
	nodes := []*app.Node{
		{ID: "n1", Type: app.VPCS, Status: app.Started, UDPPorts: []int{a1, r1}},
		{ID: "n2", Type: app.VPCS, Status: app.Started, UDPPorts: []int{a2, r2}},
		iouNode("iou", appID),
	}
	link := func(id, vpcs string, unit int) *app.Link {
		return &app.Link{ID: id, Nodes: []app.LinkEnd{{NodeID: vpcs}, {NodeID: "iou", AdapterNumber: 0, PortNumber: unit}}}
	}
	return nodes, []*app.Link{link("l1", "n1", 0), link("l2", "n2", 1)}
}

// iouPorts are the ends of node "iou" the fabric carries.
func iouPorts(f *Fabric) []end {
	var at []end
	for e := range f.topo.Load().udp {
		if e.node == "iou" {
			at = append(at, e)
		}
	}
	return at
}

// netioFrame is the datagram IOU sends for frame at bay/unit (a port
// byte pb) to bridge id+512, of type typ.
func netioFrame(id int, pb, typ byte, frame []byte) []byte {
	d := make([]byte, netioHeader, netioHeader+len(frame))
	binary.BigEndian.PutUint16(d[0:], uint16(id+app.NetIOBridgeOffset))
	binary.BigEndian.PutUint16(d[2:], uint16(id))
	d[4], d[5], d[6], d[7] = pb, pb, typ, 0
	return append(d, frame...)
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// The node's ports are what the domain says: 2 Ethernet bays of 4.
func TestNetIO_Endpoints(t *testing.T) {
	n := iouNode("iou", 481)
	want := udpEndpoints(n, "127.0.0.1")
	if len(want) != 8 {
		t.Fatalf("%d endpoints, want 8: %v", len(want), want)
	}
	for bay := range 2 {
		for unit := range 4 {
			p, ok := want[end{"iou", bay, unit}]
			if !ok || p.bind != netioBind || p.local != 993 || p.remote != iouPath(481) {
				t.Fatalf("port %d/%d: %+v, %v", bay, unit, p, ok)
			}
		}
	}
	other := iouNode("iou", 482)
	if udpEndpoints(other, "127.0.0.1")[end{"iou", 0, 0}] == want[end{"iou", 0, 0}] {
		t.Fatal("the peer did not change with the application id: putNode would not reopen the bridge")
	}
	if got := udpEndpoints(withStatus(n, app.Stopped), "127.0.0.1"); len(got) != 0 {
		t.Fatalf("a stopped IOU node has endpoints: %v", got)
	}
}

// Two VPCS exchange frames through a real IOU L2 switch, each way, on
// either kind of poller: in at Ethernet0/0 (unknown unicast, flooded),
// out at Ethernet0/1 and back (learnt).
func TestNetIO_SwitchCarriesFrames(t *testing.T) {
	eachPollerKind(t, func(t *testing.T, f *Fabric) {
		id := claimIOUID(t)
		startIOL(t, id, "l2")
		h1, h2 := listenLoopback(t), listenLoopback(t)
		r1, r2 := freeUDPPort(t), freeUDPPort(t)
		f.Load(iouLab(id, udpPortOf(h1), r1, udpPortOf(h2), r2))
		checkKind(t, f)
		if n := len(iouPorts(f)); n != 8 {
			t.Fatalf("the fabric carries %d ports of the IOU node, want 8", n)
		}
		if !arrives(t, h1, r1, h2, relayFrame(64, 1, 2, 1, 1)) {
			t.Fatal("no frame crossed n1 → IOU switch → n2")
		}
		if !arrives(t, h2, r2, h1, relayFrame(1500, 2, 1, 1, 2)) {
			t.Fatal("no frame crossed n2 → IOU switch → n1")
		}
		if !arrives(t, h1, r1, h2, relayFrame(512, 1, 2, 1, 3)) {
			t.Fatal("no learnt unicast frame crossed n1 → IOU switch → n2")
		}
	})
}

// Stopping the node removes its bridge's socket and lock, at once; it
// starts again at once on the same id; a new application id moves the
// bridge.
func TestNetIO_StopRemovesBridge(t *testing.T) {
	eachPollerKind(t, func(t *testing.T, f *Fabric) {
		id := claimIOUID(t)
		startIOL(t, id, "l2")
		h1, h2 := listenLoopback(t), listenLoopback(t)
		r1, r2 := freeUDPPort(t), freeUDPPort(t)
		nodes, links := iouLab(id, udpPortOf(h1), r1, udpPortOf(h2), r2)
		f.Load(nodes, links)
		sock, lck := bridgePaths(id)
		// Read by another process: closing a descriptor of the file in this
		// one would release the lock (fcntl locks are the process's).
		if b, err := exec.Command("cat", lck).Output(); err != nil || string(b) != strconv.Itoa(os.Getpid())+"\n" {
			t.Fatalf("the lock file holds %q (%v), want our PID", b, err)
		}
		if !lockHeldBy(t, lck, os.Getpid()) {
			t.Fatal("no fcntl lock on the lock file")
		}
		for round := range 3 {
			if !socketLive(sock) {
				t.Fatalf("round %d: the bridge socket is not bound", round)
			}
			if !arrives(t, h1, r1, h2, relayFrame(64, 1, 2, 2, uint64(round))) {
				t.Fatalf("round %d: no frame crossed the IOU switch", round)
			}
			f.Apply(app.Event{Action: app.EventNodeUpdated, Payload: withStatus(nodes[2], app.Stopped)})
			if exists(sock) || exists(lck) {
				t.Fatalf("round %d: the stopped node's bridge left its files: socket %v, lock %v", round, exists(sock), exists(lck))
			}
			if n := len(iouPorts(f)); n != 0 {
				t.Fatalf("round %d: the stopped node still has %d ports carried", round, n)
			}
			f.Apply(app.Event{Action: app.EventNodeUpdated, Payload: nodes[2]})
			if n := len(iouPorts(f)); n != 8 {
				t.Fatalf("round %d: the started node has %d ports carried, want 8: its bridge did not bind again", round, n)
			}
		}
		// A new application id: the old bridge goes, the new one comes.
		id2 := claimIOUID(t)
		f.Apply(app.Event{Action: app.EventNodeUpdated, Payload: iouNode("iou", id2)})
		sock2, lck2 := bridgePaths(id2)
		t.Cleanup(func() { f.Close() }) // before the id is given back
		if exists(sock) || exists(lck) || !socketLive(sock2) || !exists(lck2) {
			t.Fatalf("after the id changed: old socket %v, old lock %v, new socket %v, new lock %v",
				exists(sock), exists(lck), socketLive(sock2), exists(lck2))
		}
		f.Apply(app.Event{Action: app.EventNodeDeleted, Payload: iouNode("iou", id2)})
		if exists(sock2) || exists(lck2) {
			t.Fatal("the deleted node's bridge left its files")
		}
	})
}

// lockHeldBy reports whether process pid holds an fcntl write lock on
// path, as /proc/locks tells (F_GETLK does not report our own locks to
// us).
func lockHeldBy(t *testing.T, path string, pid int) bool {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	locks, err := os.ReadFile("/proc/locks")
	if err != nil {
		kit.Unavailable(t, "no /proc/locks to look at the lock: %v", err)
	}
	for line := range strings.Lines(string(locks)) {
		// 1: POSIX  ADVISORY  WRITE 1234 00:2a:5678 0 EOF
		f := strings.Fields(line)
		if len(f) >= 6 && f[1] == "POSIX" && f[3] == "WRITE" && f[4] == strconv.Itoa(pid) &&
			strings.HasSuffix(f[5], ":"+strconv.FormatUint(st.Ino, 10)) {
			return true
		}
	}
	return false
}

// A second Fabric of this process cannot take a bridge id the first
// holds (fcntl locks would let it): it carries nothing for the node and
// says why; once the first lets go, it can.
func TestNetIO_OneBridgePerIDInProcess(t *testing.T) {
	id := claimIOUID(t)
	f1 := kindFabric(t, false)
	log := new(lockedBuffer)
	f2 := NewFabric("127.0.0.1", slog.New(slog.NewTextHandler(log, nil)))
	t.Cleanup(f2.Close)
	n := iouNode("iou", id)
	f1.Load([]*app.Node{n}, nil)
	if len(iouPorts(f1)) != 8 {
		t.Fatal("the first fabric does not carry the IOU node")
	}
	f2.Load([]*app.Node{n}, nil)
	if k := len(iouPorts(f2)); k != 0 {
		t.Fatalf("the second fabric carries %d ports on a bridge id the first holds", k)
	}
	if s := log.String(); !strings.Contains(s, "ID "+strconv.Itoa(id+app.NetIOBridgeOffset)) || strings.Count(s, "level=ERROR") != 1 {
		t.Fatalf("the second fabric did not say once why it carries nothing: %s", s)
	}
	sock, lck := bridgePaths(id)
	if !socketLive(sock) || !exists(lck) {
		t.Fatal("the second fabric's failure took the first's bridge files")
	}
	f1.Apply(app.Event{Action: app.EventNodeUpdated, Payload: withStatus(n, app.Stopped)})
	f2.Apply(app.Event{Action: app.EventNodeUpdated, Payload: n})
	if k := len(iouPorts(f2)); k != 8 {
		t.Fatalf("the second fabric carries %d ports once the first let go, want 8", k)
	}
}

// netioLockEnv names the lock file TestNetIO_LockHolder holds, in a child
// process.
const netioLockEnv = "NODEDESK_NETIO_TEST_HOLD"

// TestNetIO_LockHolder is not a test: run in a child process, it holds
// the fcntl lock of the file netioLockEnv names, as another uBridge would,
// until its stdin ends.
func TestNetIO_LockHolder(t *testing.T) {
	path := os.Getenv(netioLockEnv)
	if path == "" {
		kit.RunElsewhere(t, "a child process of TestNetIO_LockedByAnotherProcess")
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.FcntlFlock(f.Fd(), unix.F_SETLK, &unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart}); err != nil {
		t.Fatal(err)
	}
	fmt.Println("locked")
	_, _ = io.Copy(io.Discard, os.Stdin)
	_ = os.Remove(path)
}

// A bridge id another process holds (its lock) is not taken: the error
// names that process, as uBridge's does, and nothing of its is touched;
// once it lets go, the node's frames are carried.
func TestNetIO_LockedByAnotherProcess(t *testing.T) {
	id := claimIOUID(t)
	sock, lck := bridgePaths(id)
	if err := os.MkdirAll(app.NetIODir(), 0o700); err != nil {
		t.Fatal(err)
	}
	child := exec.Command(os.Args[0], "-test.run=^TestNetIO_LockHolder$", "-test.count=1")
	child.Env = append(os.Environ(), netioLockEnv+"="+lck)
	child.Stderr = os.Stderr
	stdin, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // after the fabric's Close (registered later)
		_ = stdin.Close()
		_ = child.Process.Kill()
		_ = child.Wait()
		_ = os.Remove(lck)
	})
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "locked\n" {
		t.Fatalf("the child did not take the lock: %q", line)
	}
	log := new(lockedBuffer)
	f := NewFabric("127.0.0.1", slog.New(slog.NewTextHandler(log, nil)))
	t.Cleanup(f.Close)
	n := iouNode("iou", id)
	f.Load([]*app.Node{n}, nil)
	if k := len(iouPorts(f)); k != 0 {
		t.Fatalf("the fabric carries %d ports on a bridge id another process holds", k)
	}
	want := fmt.Sprintf("PID %d already has a lock on ID %d", child.Process.Pid, id+app.NetIOBridgeOffset)
	if s := log.String(); !strings.Contains(s, want) {
		t.Fatalf("the error does not say %q: %s", want, s)
	}
	if exists(sock) || !exists(lck) {
		t.Fatalf("the failed bridge touched the other's files: socket %v, lock %v", exists(sock), exists(lck))
	}
	_ = stdin.Close()
	_ = child.Wait()
	f.Apply(app.Event{Action: app.EventNodeUpdated, Payload: n})
	if k := len(iouPorts(f)); k != 8 {
		t.Fatalf("the fabric carries %d ports once the other process let go, want 8", k)
	}
}

// The test plays the IOU process with a socket of its own: each port's
// frames leave with its header; datagrams that are not frames of the node
// (too short, not data, a port it does not have) are dropped, and those
// after them carried, each at its port.
func TestNetIO_HeaderAndDrops(t *testing.T) {
	eachPollerKind(t, func(t *testing.T, f *Fabric) {
		id := claimIOUID(t)
		iou := listenIOU(t, id)
		h1, h2 := listenLoopback(t), listenLoopback(t)
		r1, r2 := freeUDPPort(t), freeUDPPort(t)
		f.Load(iouLab(id, udpPortOf(h1), r1, udpPortOf(h2), r2))
		checkKind(t, f)
		sock, _ := bridgePaths(id)
		bridge := &net.UnixAddr{Name: sock, Net: "unixgram"}

		// Into the IOU: n1's frame at 0/0, n2's at 0/1, behind their headers.
		buf := make([]byte, MaxFrame+netioHeader)
		var sent []byte
		for _, c := range []struct {
			h    *net.UDPConn
			r    int
			port byte
		}{{h1, r1, 0x00}, {h2, r2, 0x10}} {
			frame := relayFrame(100, 1, 2, 6, uint64(c.port))
			want := netioFrame(id, c.port, 1, frame)
			binary.BigEndian.PutUint16(want[0:], uint16(id)) // to the process, from the bridge
			binary.BigEndian.PutUint16(want[2:], uint16(id+app.NetIOBridgeOffset))
			got := false
			for try := 0; try < 50 && !got; try++ {
				sendTo(t, c.h, c.r, frame)
				_ = iou.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
				for !got {
					n, err := iou.Read(buf)
					if err != nil {
						break
					}
					switch {
					case bytes.Equal(buf[:n], want):
						got = true
					case !bytes.Equal(buf[:n], sent): // a late copy of the last port's is fine
						t.Fatalf("port byte %#x: the IOU got % x, want % x", c.port, buf[:min(n, 16)], want[:16])
					}
				}
			}
			if !got {
				t.Fatalf("port byte %#x: nothing reached the IOU", c.port)
			}
			sent = want
		}

		// Out of the IOU: what is not a frame is dropped, what follows is carried.
		bad := [][]byte{
			netioFrame(id, 0x00, 1, nil),                                  // the header alone
			netioFrame(id, 0x00, 1, []byte{1})[:netioHeader-1],            // shorter still
			netioFrame(id, 0x00, 0, relayFrame(64, 9, 1, 7, 1)),           // type 0, not data
			netioFrame(id, 0x00, 2, relayFrame(64, 9, 1, 7, 2)),           // another type
			netioFrame(id, 0x05, 1, relayFrame(64, 9, 1, 7, 3)),           // bay 5: the node has 2
			netioFrame(id, 0x40, 1, relayFrame(64, 9, 1, 7, 4)),           // 0/4: 4 units a bay
			netioFrame(id, 0x00, 1, make([]byte, MaxFrame+1-netioHeader)), // longer than a reader keeps
		}
		good1 := relayFrame(64, 9, 1, 7, 10)
		good2 := relayFrame(64, 9, 2, 7, 11)
		for _, d := range append(bad, netioFrame(id, 0x10, 1, good2), netioFrame(id, 0x00, 1, good1)) {
			if _, err := iou.WriteToUnix(d, bridge); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range []struct {
			h    *net.UDPConn
			want []byte
		}{{h1, good1}, {h2, good2}} {
			_ = c.h.SetReadDeadline(time.Now().Add(5 * time.Second))
			n, err := c.h.Read(buf)
			if err != nil {
				t.Fatalf("the frame after the dropped ones did not arrive: %v", err)
			}
			if !bytes.Equal(buf[:n], c.want) {
				t.Fatalf("a datagram that is not a frame of the node was carried: % x", buf[:min(n, 32)])
			}
			_ = c.h.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
			if n, err := c.h.Read(buf); err == nil {
				t.Fatalf("more than the good frame arrived: % x", buf[:min(n, 32)])
			}
		}
	})
}

// listenIOU binds a socket where IOU process id binds its own, as the
// process would, until the test ends.
func listenIOU(tb testing.TB, id int) *net.UnixConn {
	tb.Helper()
	if err := os.MkdirAll(app.NetIODir(), 0o700); err != nil {
		tb.Fatal(err)
	}
	path := iouPath(id)
	_ = os.Remove(path)
	c, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = c.Close()
		_ = os.Remove(path)
	})
	return c
}

// The bridge opens before its IOU process binds its socket: the frames
// flow once the process is up (the bridge connects from its send path).
func TestNetIO_ProcessAfterBridge(t *testing.T) {
	eachPollerKind(t, func(t *testing.T, f *Fabric) {
		id := claimIOUID(t)
		h1, h2 := listenLoopback(t), listenLoopback(t)
		r1, r2 := freeUDPPort(t), freeUDPPort(t)
		f.Load(iouLab(id, udpPortOf(h1), r1, udpPortOf(h2), r2))
		checkKind(t, f)
		sock, _ := bridgePaths(id)
		if !socketLive(sock) || len(iouPorts(f)) != 8 {
			t.Fatal("the bridge did not open without its IOU process")
		}
		for i := range 5 { // sent to nobody: dropped
			sendTo(t, h1, r1, relayFrame(64, 1, 2, 8, uint64(i)))
		}
		time.Sleep(20 * time.Millisecond)
		startIOL(t, id, "l2")
		if !arrives(t, h1, r1, h2, relayFrame(64, 1, 2, 8, 10)) {
			t.Fatal("no frame crossed the IOU switch once its process was up")
		}
		if !arrives(t, h2, r2, h1, relayFrame(64, 2, 1, 8, 11)) {
			t.Fatal("no frame crossed the IOU switch back once its process was up")
		}
	})
}

// The IOU process ends and another binds its socket again while the node
// stays started (a runner that restarts it in place): the bridge, whose
// sends the kernel then refuses, connects to the new one.
func TestNetIO_ProcessRestartedInPlace(t *testing.T) {
	eachPollerKind(t, func(t *testing.T, f *Fabric) {
		id := claimIOUID(t)
		h1, h2 := listenLoopback(t), listenLoopback(t)
		r1, r2 := freeUDPPort(t), freeUDPPort(t)
		first := listenIOU(t, id)
		f.Load(iouLab(id, udpPortOf(h1), r1, udpPortOf(h2), r2))
		buf := make([]byte, 2048)
		sendTo(t, h1, r1, relayFrame(64, 1, 2, 9, 0))
		_ = first.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := first.Read(buf); err != nil {
			t.Fatalf("the first process got nothing: %v", err)
		}
		_ = first.Close()
		_ = os.Remove(iouPath(id))
		startIOL(t, id, "l2")
		if !arrives(t, h1, r1, h2, relayFrame(64, 1, 2, 9, 1)) {
			t.Fatal("no frame crossed the IOU switch after its process was replaced")
		}
		if !arrives(t, h2, r2, h1, relayFrame(64, 2, 1, 9, 2)) {
			t.Fatal("no frame crossed the IOU switch back after its process was replaced")
		}
	})
}

// netioHot is a fabric carrying a VPCS n1 (played by h1) linked to
// Ethernet0/0 of an IOU node whose process is a test socket that reads
// everything, for the hot path's tests and benchmarks.
type netioHot struct {
	*hotFabric
	id   int
	head *udpPort
}

// newNetIOHot builds it.
func newNetIOHot(tb testing.TB) *netioHot {
	tb.Helper()
	id := claimIOUID(tb)
	iou := listenIOU(tb, id)
	go func() { // reads as a process does, until the socket closes
		buf := make([]byte, MaxFrame+netioHeader)
		for {
			if _, err := iou.Read(buf); err != nil && errors.Is(err, net.ErrClosed) {
				return
			}
		}
	}()
	h1 := listenLoopback(tb)
	n := &app.Node{ID: "n1", Type: app.VPCS, Status: app.Started, UDPPorts: []int{udpPortOf(h1), freeUDPPort(tb)}}
	l := &app.Link{ID: "l1", Nodes: []app.LinkEnd{{NodeID: "n1"}, {NodeID: "iou"}}}
	f := NewFabric("127.0.0.1", slog.New(slog.NewTextHandler(io.Discard, nil)))
	tb.Cleanup(f.Close)
	f.Load([]*app.Node{n, iouNode("iou", id)}, []*app.Link{l})
	u := f.topo.Load().udp[end{"iou", 0, 0}]
	if u == nil || u.bridge == nil {
		tb.Fatal("the fabric does not carry the IOU node")
	}
	return &netioHot{hotFabric: &hotFabric{f: f, w: newWorker(f), h1: h1}, id: id, head: u.bridge.head}
}

// in carries frame from n1 into the IOU, as n1's reader does.
func (h *netioHot) in(frame []byte) { h.carry(end{"n1", 0, 0}, frame) }

// out carries datagram d from the IOU to n1, as the bridge's reader does.
func (h *netioHot) out(d []byte) {
	h.w.now = time.Now()
	h.w.take(h.head, d)
	h.w.flush()
}

// datagram is what the IOU process sends for frame at Ethernet0/0.
func (h *netioHot) datagram(frame []byte) []byte { return netioFrame(h.id, 0x00, 1, frame) }

// Carrying a frame into an IOU node and out of one allocates nothing.
func TestNetIO_ZeroAllocs(t *testing.T) {
	h := newNetIOHot(t)
	for _, size := range []int{64, 1500} {
		frame := relayFrame(size, 1, 2, 1, 1)
		if allocs := testing.AllocsPerRun(200, func() { h.in(frame) }); allocs != 0 {
			t.Errorf("into the IOU, %d bytes: %v allocations per frame", size, allocs)
		}
		d := h.datagram(frame)
		if allocs := testing.AllocsPerRun(200, func() { h.out(d) }); allocs != 0 {
			t.Errorf("out of the IOU, %d bytes: %v allocations per frame", size, allocs)
		}
	}
	buf := make([]byte, MaxFrame)
	_ = h.h1.SetReadDeadline(time.Now().Add(2 * time.Second))
	if n, err := h.h1.Read(buf); err != nil || n < 64 {
		t.Errorf("n1 received nothing from the IOU: %v", err)
	}
}
