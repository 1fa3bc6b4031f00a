package dataplane

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"nodedesk/app"
)

// bridgeOS is what an open bridge holds on the machine: the lock on its id
// (held while the file is open) and whether it bound its socket's path.
type bridgeOS struct {
	lock  *os.File // <dir>/<id>.lck
	path  string   // <dir>/<id>, the socket
	bound bool
	// conn is its socket's connection, for io_uring pollers' failed sends
	// (netioRefused), which may look b up while it opens.
	conn atomic.Pointer[netioConn]
}

// open takes b's id on the machine as uBridge does, binds its socket,
// connects it to the IOU process's when that is there, and starts reading
// it. It runs under b.f.mu, with b's id taken in the process.
func (b *netioBridge) open() error {
	dir := filepath.Dir(b.peer.remote)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return app.Errorf(app.EINTERNAL, "the netio sockets folder %s cannot be made: %v", dir, err)
	}
	b.os.path = filepath.Join(dir, strconv.Itoa(b.id))
	lock, err := lockBridgeID(b.os.path+".lck", b.id)
	if err != nil {
		return err
	}
	b.os.lock = lock
	s, err := b.bind()
	if err != nil {
		b.release()
		return err
	}
	b.head = &udpPort{at: end{node: b.node, adapter: -1, port: -1}, sock: s, peer: b.peer, bridge: b}
	if err := b.f.startReading(b.head); err != nil {
		s.close()
		b.release()
		return err
	}
	return nil
}

// lockBridgeID takes the fcntl write lock uBridge takes on an id's lock
// file and writes our PID in it: a process that holds it carries that id's
// frames, and the error names it.
func lockBridgeID(path string, id int) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, app.Errorf(app.EINTERNAL, "the netio bridge lock %s cannot be opened: %v", path, err)
	}
	whole := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart} // Len 0: the whole file
	if err := unix.FcntlFlock(f.Fd(), unix.F_SETLK, &whole); err != nil {
		held := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart}
		got := unix.FcntlFlock(f.Fd(), unix.F_GETLK, &held)
		_ = f.Close() // we hold no lock on it: closing releases nothing of ours
		if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EACCES) {
			if got == nil && held.Type != unix.F_UNLCK {
				return nil, app.Errorf(app.ECONFLICT, "PID %d already has a lock on ID %d", held.Pid, id)
			}
			return nil, app.Errorf(app.ECONFLICT, "another process has a lock on ID %d", id)
		}
		return nil, app.Errorf(app.EINTERNAL, "the netio bridge lock %s cannot be taken: %v", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	if err != nil { // the lock is ours all the same; only its note is missing
		_ = f.Close()
		return nil, app.Errorf(app.EINTERNAL, "the netio bridge lock %s cannot be written: %v", path, err)
	}
	return f, nil
}

// bind opens b's socket at its path (a stale one, left by a bridge that
// did not end well, is removed first: the lock says none lives) as a
// sock, blocking and outside the netpoller as a UDP endpoint's.
func (b *netioBridge) bind() (*sock, error) {
	if err := os.Remove(b.os.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, app.Errorf(app.ECONFLICT, "a stale netio bridge socket %s cannot be removed: %v", b.os.path, err)
	}
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, app.Errorf(app.EINTERNAL, "no unix socket for netio bridge %d: %v", b.id, err)
	}
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, 1<<20)
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, 1<<20)
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: b.os.path}); err != nil {
		_ = unix.Close(fd)
		return nil, app.Errorf(app.ECONFLICT, "netio bridge socket %s cannot be bound: %v", b.os.path, err)
	}
	b.os.bound = true
	s := &sock{file: os.NewFile(uintptr(fd), "netio "+b.os.path)}
	if s.rc, err = s.file.SyscallConn(); err != nil {
		_ = s.file.Close()
		return nil, err
	}
	s.shut = func(fd uintptr) { _ = unix.Shutdown(int(fd), unix.SHUT_RDWR) }
	s.netio = &netioConn{peer: &unix.SockaddrUnix{Name: b.peer.remote}, id: uint64(b.id)}
	s.netio.ready(s) // the process's socket is there as a rule; if not, the first frame for it tries again
	b.os.conn.Store(s.netio)
	return s, nil
}

// release lets go of what b holds on the machine once its socket is
// closed: its socket's path, then the lock file, removed while still
// locked (so that no one locks a file about to go), then the lock.
func (b *netioBridge) release() {
	if b.os.bound {
		_ = os.Remove(b.os.path)
		b.os.bound = false
	}
	if b.os.lock != nil {
		_ = os.Remove(b.os.lock.Name())
		_ = b.os.lock.Close()
		b.os.lock = nil
	}
}

// netioRetry is how often a bridge not connected to its IOU process tries
// again, at most: it is tried from the send path, for a frame to send.
const netioRetry = 100 * time.Millisecond

// netioClock is what netioConn measures time from: monotonic, unlike
// UnixNano, so that a clock set back never holds retries off.
var netioClock = time.Now()

// errNotConnected is a frame for an IOU process whose socket the bridge
// could not connect to yet: dropped, as the network drops a frame to a
// host that is not up.
var errNotConnected = errors.New("dataplane: the node process's netio socket is not there yet")

// netioConn is the connection of a bridge's socket to its IOU process's:
// connected, the existing send paths (sendmmsg, io_uring's send) work on
// it as on a UDP endpoint's; a connected unix datagram socket still
// receives from its peer. It is not connected while the process's socket
// is missing (not bound yet, or the process ended and the kernel
// disconnected us on the next send): then a frame to send tries to
// connect again, at most once per netioRetry.
type netioConn struct {
	peer *unix.SockaddrUnix // the process's socket
	id   uint64             // the bridge id, which a failed io_uring send carries back
	up   atomic.Bool        // connected, as far as we know
	next atomic.Int64       // when a connect may be tried again, on netioClock
}

// ready reports whether s, whose connection c is, is connected, trying to
// connect it when it is not and no try was made for netioRetry. When it
// is, it costs one atomic load.
func (c *netioConn) ready(s *sock) bool {
	if c.up.Load() {
		return true
	}
	now, next := int64(time.Since(netioClock)), c.next.Load()
	if now < next || !c.next.CompareAndSwap(next, now+int64(netioRetry)) {
		return false // tried a moment ago, or another thread tries now
	}
	var err error
	if cerr := s.control(func(fd uintptr) { err = unix.Connect(int(fd), c.peer) }); cerr != nil || err != nil {
		return false // ENOENT, ECONNREFUSED: the process's socket is not there (yet)
	}
	c.up.Store(true)
	return true
}

// failed notes the error of a send: the process's socket is gone
// (ECONNREFUSED: the kernel has just disconnected us; ENOTCONN), so
// frames wait for a connect to its next socket, which the process binds
// at the same path when it starts again.
func (c *netioConn) failed(err error) {
	if errors.Is(err, unix.ECONNREFUSED) || errors.Is(err, unix.ENOTCONN) {
		c.up.Store(false)
	}
}

// netioRefused is a failed io_uring send to bridge id (res its negated
// errno); it runs on the poller's thread.
func netioRefused(id int, res int32) {
	if res != -int32(unix.ECONNREFUSED) && res != -int32(unix.ENOTCONN) {
		return // the process's queue was full: it is still there
	}
	if b := lookupBridge(id); b != nil {
		if c := b.os.conn.Load(); c != nil {
			c.failed(unix.Errno(-res))
		}
	}
}
