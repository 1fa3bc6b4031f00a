package iou

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"nodedesk/app"
	"nodedesk/app/ioscli"
	"nodedesk/app/supervise"
	"nodedesk/app/termproc"
)

// Config sets up a Runner.
type Config struct {
	// ConsoleHost is the host the REST API listens on: consoles listen
	// there and on 127.0.0.1, and nowhere else.
	ConsoleHost string
	// RunDir keeps a record of each running node (records.go); "" keeps
	// none.
	RunDir string
	// StopGrace is how long a stop waits for IOU to end after SIGTERM
	// before it is killed; default 3 s, as GNS3 waits.
	StopGrace time.Duration
	// UpWait bounds the wait for a new process's socket; default 10 s.
	UpWait time.Duration
	Logger *slog.Logger
}

// Runner runs IOU nodes. It is safe for concurrent use; the Service also
// serialises the calls for one node.
type Runner struct {
	supervise.Lifecycle // Observe, Open, StopAll, ResetConsole
	c                   Config
	nodes               *supervise.Table[*node]
}

// node is one running IOU process.
type node struct {
	*termproc.Proc
	p       app.Process
	id      int    // application id
	nvram   string // its NVRAM file
	iourc   string // the folder of its IOURC file; "": none
	cmdline string
	saved   []byte        // the NVRAM as last read back: the watch's, then (once it has ended) Stop's or ended's
	seen    os.FileInfo   // the NVRAM file as the watch last saw it
	watch   chan struct{} // closed to end the NVRAM watch
	watched chan struct{} // closed when the watch has ended
}

var (
	_ app.Runner        = (*Runner)(nil)
	_ app.Supervised    = (*Runner)(nil)
	_ app.ConsoleServer = (*Runner)(nil)
	_ app.MachineIDs    = (*Runner)(nil)

	_ app.ImageDefaultsReader = (*Runner)(nil)
)

// NewRunner is the IOU runner of nodedesk (app/emulators).
func NewRunner(env app.RunnerEnv) app.Runner {
	return New(Config{ConsoleHost: env.ConsoleHost, RunDir: supervise.RunDir(env, app.IOU), StopGrace: env.StopGrace, Logger: env.Logger})
}

// New returns a Runner.
func New(c Config) *Runner {
	if c.StopGrace == 0 {
		c.StopGrace = 3 * time.Second
	}
	if c.UpWait == 0 {
		c.UpWait = 10 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	r := &Runner{c: c}
	r.nodes = supervise.New(supervise.Config[*node]{What: "IOU nodes", Records: r.records(), Stop: r.Stop,
		Reset: func(n *node) { n.ResetClients() }, Logger: c.Logger})
	r.Lifecycle = r.nodes.Lifecycle()
	return r
}

// Runs reports whether t is IOU.
func (r *Runner) Runs(t app.NodeType) bool { return t == app.IOU }

// nvramName is the NVRAM file of application id in the node's folder.
func nvramName(id int) string { return fmt.Sprintf("nvram_%05d", id) }

// socketPath is the socket of IOU process id (or of bridge id+512).
func socketPath(id int) string { return filepath.Join(app.NetIODir(), strconv.Itoa(id)) }

// nvramPoll is how often a running node's NVRAM is looked at for a
// "write memory".
const nvramPoll = 250 * time.Millisecond

// Start runs an IOU node: its folder prepared (NETMAP, NVRAM, the image's
// link), its image started on pipes, its console served. It returns once
// the process has opened its socket, with its command line; a process
// that stops on the way is reported with its last words.
func (r *Runner) Start(p app.Process) (string, error) {
	if old, ok := r.nodes.Get(p.NodeID); ok {
		return old.cmdline, nil
	}
	s, lic, err := readSettings(p)
	if err != nil {
		return "", err
	}
	image := p.Images["path"]
	if err := r.check(p, s, lic, image); err != nil {
		return "", err
	}
	n := &node{p: p, id: s.ApplicationID, nvram: filepath.Join(p.Dir, nvramName(s.ApplicationID)),
		watch: make(chan struct{}), watched: make(chan struct{})}
	args, err := r.prepare(n, s, lic, image)
	if err != nil {
		return "", err
	}
	var lns []net.Listener
	if p.ConsoleType == app.ConsoleTelnet && p.Console != 0 {
		if lns, err = termproc.Listen(r.c.ConsoleHost, p.Console); err != nil {
			n.cleanup()
			return "", app.Errorf(app.ECONFLICT, "Console port %d of %s cannot be opened %v: another program is using it. Give %s another console port, then start it again",
				p.Console, p.Name, err, p.Name)
		}
	}
	cmd := exec.Command(image, args...)
	cmd.Dir = p.Dir
	cmd.Env = append(os.Environ(), "IOURC="+filepath.Join(n.iourc, "iourc"))
	if n.iourc == "" {
		cmd.Env = os.Environ()
	}
	n.cmdline = strings.Join(append([]string{image}, args...), " ")
	_, err = r.nodes.Start(p.NodeID, func() (*node, error) {
		n.Proc, err = termproc.Start(cmd, lns, termproc.Options{Program: "IOU", Node: p.Name, Pipes: true, Logger: r.c.Logger,
			BootPrompt: ioscli.BootPrompt, BootPhrase: ioscli.BootPhrase,
			OnExit: func(_ *termproc.Proc, stopped bool) { r.ended(n, stopped) }})
		return n, err
	})
	if err != nil {
		termproc.CloseAll(lns)
		n.cleanup()
		return "", app.Errorf(app.ECONFLICT, "IOU could not start for %s: %v", p.Name, err)
	}
	r.nodes.Keep(p.NodeID, p.Name, n.Pid())
	n.saved, _ = os.ReadFile(n.nvram) // what the start pushed: not a save of the router's
	go r.watchNVRAM(n)
	if err := r.awaitSocket(n); err != nil {
		_ = r.Stop(p.NodeID)
		return "", err
	}
	return n.cmdline, nil
}

// check refuses, before anything runs, what would break the start,
// saying what to do: no image, an image this machine cannot run, a
// licence GNS3 would refuse, IOL 17's DNS trap.
func (r *Runner) check(p app.Process, s settings, lic licence, image string) error {
	if image == "" {
		return app.Errorf(app.ECONFLICT, "%s has no IOU image: choose one in its path property (the IOU images folder lists those nodedesk finds), then start it again", p.Name)
	}
	if s.ApplicationID < 1 || s.ApplicationID > app.MaxIOUApplicationID {
		return app.Errorf(app.ECONFLICT, "%s has no application id; delete and add it again", p.Name)
	}
	if err := MakeExecutable(image); err != nil {
		return app.Errorf(app.ECONFLICT, "%s cannot start: %v", p.Name, err)
	}
	if err := CheckImage(image); err != nil {
		return app.Errorf(app.ECONFLICT, "%s cannot start: %v", p.Name, err)
	}
	if lic.Check {
		host, _ := os.Hostname()
		if err := CheckIOURC(lic.IOURC, host); err != nil {
			return app.Errorf(app.ECONFLICT, "%s cannot start: %v", p.Name, err)
		}
		if w := HostnameWarning(host); w != "" && r.nodes.FirstInProject(p.ProjectID) {
			r.nodes.Note(p.Ref(), app.Note{Message: w})
		}
	}
	if err := CheckXMLCiscoCom(image, nil); err != nil {
		return app.Errorf(app.ECONFLICT, "%s cannot start: %v", p.Name, err)
	}
	return nil
}

// prepare readies the node's folder as GNS3 does — NETMAP, the configs
// pushed into the NVRAM, a link to the image, the IOURC file (kept out of
// the folder, which an export carries) — and returns the arguments of
// the image.
func (r *Runner) prepare(n *node, s settings, lic licence, image string) ([]string, error) {
	p := n.p
	fail := func(err error) ([]string, error) {
		n.cleanup()
		return nil, app.Errorf(app.EINTERNAL, "The working folder of %s could not be prepared (%v); check free disk space and permissions", p.Name, err)
	}
	if err := os.MkdirAll(p.Dir, 0o755); err != nil {
		return fail(err)
	}
	if err := os.WriteFile(filepath.Join(p.Dir, "NETMAP"), []byte(Netmap(n.id)), 0o644); err != nil {
		return fail(err)
	}
	link := filepath.Join(p.Dir, filepath.Base(image))
	if fi, err := os.Lstat(link); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		_ = os.Remove(link)
	}
	if _, err := os.Lstat(link); errors.Is(err, os.ErrNotExist) {
		_ = os.Symlink(image, link) // as GNS3 leaves it; nothing reads it
	}
	ram, nvram := s.RAM, s.NVRAM
	if s.UseDefaults {
		ram, nvram = helpDefaults(image, p.Dir, ram, nvram)
	}
	if err := pushConfigs(n, nvram); err != nil {
		n.cleanup()
		return nil, app.Errorf(app.ECONFLICT, "The configs of %s cannot be put in its NVRAM: %v", p.Name, err)
	}
	if lic.IOURC != "" {
		dir, err := os.MkdirTemp("", "nodedesk-iourc-")
		if err != nil {
			return fail(err)
		}
		n.iourc = dir
		if err := os.WriteFile(filepath.Join(dir, "iourc"), []byte(lic.IOURC), 0o600); err != nil {
			return fail(err)
		}
	}
	var args []string
	if s.EthernetAdapters != 2 {
		args = append(args, "-e", strconv.Itoa(s.EthernetAdapters))
	}
	if s.SerialAdapters != 2 {
		args = append(args, "-s", strconv.Itoa(s.SerialAdapters))
	}
	args = append(args, "-n", strconv.Itoa(nvram), "-m", strconv.Itoa(ram))
	if s.L1Keepalives {
		args = append(args, "-l")
	}
	return append(args, strconv.Itoa(n.id)), nil
}

// helpDefaults are the RAM and NVRAM sizes the image says it defaults to
// (`image -h`, as GNS3 reads them); ram and nvram where it says none.
func helpDefaults(image, dir string, ram, nvram int) (int, int) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, image, "-h")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr, cmd.Stdout = &stderr, &stderr
	_ = cmd.Run()
	n, m := DefaultsFromHelp(stderr.String())
	if m > 0 {
		ram = m
	}
	if n > 0 {
		nvram = n
	}
	return ram, nvram
}

// ImageDefaults are the RAM and NVRAM sizes an IOU image states (its
// `-h`, run in a folder of its own), which a new node takes as GNS3's
// compute gives them.
func (r *Runner) ImageDefaults(imagePath string) map[string]json.RawMessage {
	if MakeExecutable(imagePath) != nil || CheckImage(imagePath) != nil {
		return nil
	}
	dir, err := os.MkdirTemp("", "nodedesk-iou-h-")
	if err != nil {
		return nil
	}
	defer os.RemoveAll(dir)
	ram, nvram := helpDefaults(imagePath, dir, 0, 0)
	d := map[string]json.RawMessage{}
	if ram > 0 {
		d["ram"] = json.RawMessage(strconv.Itoa(ram))
	}
	if nvram > 0 {
		d["nvram"] = json.RawMessage(strconv.Itoa(nvram))
	}
	return d
}

// pushConfigs puts the node's startup and private configs in its NVRAM
// file, as GNS3 does at each start: into the file the router keeps, if
// any (its other sections stay), else into a new one of nvramKB. A node
// with neither config keeps its NVRAM as it is.
func pushConfigs(n *node, nvramKB int) error {
	startup, hasStartup := n.p.Files[app.IOUStartupConfigFile]
	private, hasPrivate := n.p.Files[app.IOUPrivateConfigFile]
	if !hasStartup && !hasPrivate {
		return nil
	}
	if strings.TrimSpace(startup) == "" && strings.TrimSpace(private) == "" {
		return nil // GNS3 pushes nothing then
	}
	var b []byte
	old, err := os.ReadFile(n.nvram)
	if err == nil && len(old) == nvramKB*1024 { // the router's own file, of the size it is told
		b, err = UpdateNVRAM(old, []byte(startup), []byte(private))
	} else { // none yet, or the NVRAM size changed: a new one, as GNS3 does
		b, err = EncodeNVRAM(nvramKB, []byte(startup), []byte(private))
	}
	if err != nil {
		return err
	}
	return writeAtomic(n.nvram, b)
}

// writeAtomic writes a file whole, by a rename.
func writeAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// socketPoll is how often a start looks for the new process's socket.
const socketPoll = 2 * time.Millisecond

// awaitSocket waits until the process has opened its socket (it is then
// ready for frames: nodedesk's bridge opens once the node is started), or
// has ended.
func (r *Runner) awaitSocket(n *node) error {
	deadline := time.Now().Add(r.c.UpWait)
	path := socketPath(n.id)
	for {
		if fi, err := os.Stat(path); err == nil && fi.Mode()&os.ModeSocket != 0 && live(path) {
			return nil
		}
		select {
		case <-n.Done():
			return app.Errorf(app.ECONFLICT, "IOU stopped as soon as %s started: it %s", n.p.Name, n.exitDetail())
		default:
		}
		if time.Now().After(deadline) {
			return app.Errorf(app.ECONFLICT, "IOU did not open its socket %s within %v when %s started, so no frame could reach it; it was stopped. Its last words: %s",
				path, r.c.UpWait, n.p.Name, n.ExitDetail())
		}
		time.Sleep(socketPoll)
	}
}

// exitDetail says how a process that ended did, and its last words.
func (n *node) exitDetail() string {
	if st := n.State(); st != nil {
		return DescribeExit(&exec.ExitError{ProcessState: st}, n.Tail())
	}
	return n.ExitDetail()
}

// live reports whether a program holds the unix datagram socket at path
// (a connect succeeds; a file left by a killed program refuses it).
func live(path string) bool {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	return unix.Connect(fd, &unix.SockaddrUnix{Name: path}) == nil
}

// watchNVRAM reads the node's NVRAM back whenever the router rewrites it
// ("write memory"), until the node stops.
func (r *Runner) watchNVRAM(n *node) {
	defer close(n.watched)
	t := time.NewTicker(nvramPoll)
	defer t.Stop()
	for {
		select {
		case <-n.watch:
			return
		case <-n.Done():
			return
		case <-t.C:
			r.watchBack(n)
		}
	}
}

// readBack gives the node's configs, as its NVRAM holds them now, to the
// Service, if they changed since last read.
func (r *Runner) readBack(n *node) {
	b, err := os.ReadFile(n.nvram)
	if err != nil || bytes.Equal(b, n.saved) {
		return
	}
	r.saveFiles(n, b)
}

// watchBack is readBack for the watch's ticks: the file is read only when
// its size, time or inode changed since the last tick (a "write memory"
// rewrites it), so that an idle router costs a stat a tick, not a read of
// its whole NVRAM.
func (r *Runner) watchBack(n *node) {
	fi, err := os.Stat(n.nvram)
	if err != nil {
		return
	}
	if os.SameFile(fi, n.seen) && fi.ModTime().Equal(n.seen.ModTime()) && fi.Size() == n.seen.Size() {
		return
	}
	n.seen = fi
	r.readBack(n)
}

// saveFiles gives the configs NVRAM b holds to the Service.
func (r *Runner) saveFiles(n *node, b []byte) {
	startup, private, err := DecodeNVRAM(b)
	if err != nil {
		r.c.Logger.Warn("iou: the NVRAM cannot be read back", "node", n.p.Name, "err", err)
		return
	}
	n.saved = b
	files := map[string]string{}
	if startup != nil {
		files[app.IOUStartupConfigFile] = string(startup)
	}
	if private != nil && string(private) != "\nend\n" { // IOU's empty private config, which GNS3 does not keep
		files[app.IOUPrivateConfigFile] = string(private)
	}
	if len(files) > 0 {
		r.nodes.SaveFiles(n.p.Ref(), files)
	}
}

// Booted is closed once a node's IOU has shown its prompt or "Press
// RETURN" on its console (ioscli.BootPrompt), or once it has ended; nil when
// it runs none.
func (r *Runner) Booted(nodeID string) <-chan struct{} {
	if n, ok := r.nodes.Get(nodeID); ok {
		return n.Booted()
	}
	return nil
}

// Stop ends a node's process: SIGTERM, then SIGKILL after the grace
// period; then what it saved in its NVRAM is read back. A node that does
// not run is already stopped.
func (r *Runner) Stop(nodeID string) error {
	n, ok := r.nodes.Get(nodeID)
	if !ok {
		return nil
	}
	close(n.watch)
	n.Proc.Stop(r.c.StopGrace)
	<-n.watched
	r.nodes.Forget(nodeID, n) // now, not when the exit is reported: a start may follow at once
	r.readBack(n)
	n.cleanup()
	return nil
}

// cleanup removes what a start made outside the node's folder.
func (n *node) cleanup() {
	if n.iourc != "" {
		_ = os.RemoveAll(n.iourc)
	}
}

// Suspend does nothing: GNS3's compute answers a suspend of IOU so (the
// Service does not even call it).
func (r *Runner) Suspend(string) error { return nil }

// Resume does nothing, as Suspend.
func (r *Runner) Resume(string) error { return nil }

// ended forgets a process that has exited and, if nobody stopped it,
// reports the exit.
func (r *Runner) ended(n *node, stopped bool) {
	if !stopped {
		<-n.watched   // the watch ends with the process; then n.saved is this goroutine's
		r.readBack(n) // what it saved before it died is kept
		n.cleanup()
	}
	r.nodes.Ended(n.p.Ref(), n, stopped, n.exitDetail)
}

// HeldElsewhere reports whether another program of the machine holds
// application id id: GNS3's uBridge or another nodedesk holds its
// bridge's lock, or an IOU process not of this runner has its socket.
func (r *Runner) HeldElsewhere(id int) bool {
	if lockedByOther(socketPath(id+app.NetIOBridgeOffset) + ".lck") {
		return true
	}
	if !live(socketPath(id)) {
		return false
	}
	mine := false
	r.nodes.Each(func(n *node) {
		if n.id == id {
			mine = true
		}
	})
	return !mine
}

// lockedByOther reports whether another process holds a lock on the
// lock file at path (as uBridge locks a bridge's id), from /proc/locks:
// opening the file to ask (F_GETLK) would drop this process's own lock on
// it when closed, as POSIX locks belong to the process.
func lockedByOther(path string) bool {
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil {
		return false
	}
	locks, err := os.ReadFile("/proc/locks")
	if err != nil {
		return false
	}
	ino := ":" + strconv.FormatUint(st.Ino, 10)
	for _, line := range strings.Split(string(locks), "\n") {
		f := strings.Fields(line) // 1: POSIX ADVISORY WRITE <pid> <maj:min:ino> <start> <end>
		if len(f) < 6 || f[1] != "POSIX" || !strings.HasSuffix(f[5], ino) {
			continue
		}
		if parts := strings.Split(f[5], ":"); len(parts) != 3 || !sameDev(parts[0], parts[1], st.Dev) {
			continue
		}
		if pid, err := strconv.Atoi(f[4]); err == nil && pid != os.Getpid() {
			return true
		}
	}
	return false
}

// sameDev reports whether hex major and minor numbers (as /proc/locks
// writes them) are device dev.
func sameDev(major, minor string, dev uint64) bool {
	ma, err1 := strconv.ParseUint(major, 16, 32)
	mi, err2 := strconv.ParseUint(minor, 16, 32)
	return err1 == nil && err2 == nil && uint32(ma) == unix.Major(dev) && uint32(mi) == unix.Minor(dev)
}
