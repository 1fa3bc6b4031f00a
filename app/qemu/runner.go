package qemu

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"nodedesk/app"
	"nodedesk/app/termproc"
)

// Config sets up a Runner.
type Config struct {
	// ConsoleHost is the host the REST API listens on: consoles listen
	// there and on 127.0.0.1, and nowhere else.
	ConsoleHost string
	// RunDir keeps a record of each running guest (records.go); "" keeps
	// none.
	RunDir string
	// StopGrace is how long a stop waits after SIGTERM before SIGKILL;
	// default 3 s.
	StopGrace time.Duration
	// ShutdownWait bounds the wait for a guest to power itself off after
	// the ACPI power button (on_close shutdown_signal); default 120 s, as
	// GNS3 waits.
	ShutdownWait time.Duration
	// UpWait bounds the wait for a new process's monitor; default 30 s.
	UpWait time.Duration
	// TBSizeMB is the size of TCG's translation cache, per guest, when it
	// runs without KVM; default 64 MiB (QEMU's own is 1 GiB).
	TBSizeMB int
	// ProbeKVM tells whether KVM works with a qemu-system binary; nil
	// probes for real (ProbeKVM, which answers once per binary and
	// keeps the answer).
	ProbeKVM func(ctx context.Context, binary string) (ok bool, why string)
	Logger   *slog.Logger
}

// Runner runs QEMU nodes. It is safe for concurrent use; the Service also
// serialises the calls for one node.
type Runner struct {
	c      Config
	mu     sync.Mutex
	guests map[string]*guest // by node id
	onExit func(projectID, nodeID, detail string)
	onNote func(projectID, nodeID, message string)
	noted  map[string]bool // projects told that guests run without KVM
}

// guest is one running QEMU.
type guest struct {
	*termproc.Proc
	p       app.Process
	s       settings
	mon     *qmp
	cmdline string
}

var (
	_ app.Runner      = (*Runner)(nil)
	_ app.Reloader    = (*Runner)(nil)
	_ app.DiskResizer = (*Runner)(nil)
)

// New returns a Runner.
func New(c Config) *Runner {
	if c.StopGrace == 0 {
		c.StopGrace = 3 * time.Second
	}
	if c.ShutdownWait == 0 {
		c.ShutdownWait = 120 * time.Second
	}
	if c.UpWait == 0 {
		c.UpWait = 30 * time.Second
	}
	if c.TBSizeMB == 0 {
		c.TBSizeMB = 64
	}
	if c.ProbeKVM == nil {
		c.ProbeKVM = ProbeKVM
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return &Runner{c: c, guests: map[string]*guest{}, noted: map[string]bool{}}
}

// OnExit sets what is told when a guest's process ends by itself (not by
// Stop): in nodedesk, the Service, which records the node as stopped.
func (r *Runner) OnExit(f func(projectID, nodeID, detail string)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.onExit = f
}

// OnNote sets what is told of a node that runs (a project warning): that
// it runs without hardware acceleration.
func (r *Runner) OnNote(f func(projectID, nodeID, message string)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.onNote = f
}

// Runs reports whether t is QEMU.
func (r *Runner) Runs(t app.NodeType) bool { return t == app.QEMU }

// NoKVMNote is what a user is told of a guest that runs without KVM.
const NoKVMNote = "running without hardware acceleration: slower"

// Start starts a node's QEMU and returns once its monitor answers, with
// the command line it ran. The node's disks are made first (linked
// clones), its console port opened (telnet), and the process is recorded
// so that a later nodedesk ends it if this one dies.
func (r *Runner) Start(p app.Process) (string, error) {
	s, err := readSettings(p.Properties)
	if err != nil {
		return "", err
	}
	bin, err := exec.LookPath(s.binary())
	if err != nil {
		return "", app.Errorf(app.ECONFLICT, "QEMU is not installed (no %q program found). Install it with `sudo apt-get install qemu-system-x86` (or set the node's qemu_path), then start %s again", s.binary(), p.Name)
	}
	r.mu.Lock()
	if old, ok := r.guests[p.NodeID]; ok {
		r.mu.Unlock()
		return old.cmdline, nil
	}
	r.mu.Unlock()

	if err := os.MkdirAll(p.Dir, 0o755); err != nil {
		return "", app.Errorf(app.EINTERNAL, "The working folder of %s could not be made (%v); check free disk space and permissions", p.Name, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	l := launch{s: s, p: p, tbSizeMB: r.c.TBSizeMB, vncHost: vncHost(r.c.ConsoleHost), qmpFD: 3}
	if l.options, err = splitOptions(nodeOptions(s.Options, p)); err != nil {
		return "", err
	}
	if hasDisk(p) {
		img, err := qemuImg(bin)
		if err != nil {
			return "", err
		}
		if l.disks, err = prepareDisks(ctx, img, s, p); err != nil {
			return "", err
		}
		saved := savedStateIn(ctx, img, l.disks)
		l.loadVM = s.OnClose == saveState && len(saved) > 0
		if s.OnClose != saveState {
			for _, d := range saved { // a node no longer saving its state boots afresh
				_, _ = runImg(ctx, img, "snapshot", "-d", savedState, d)
			}
		}
	}
	if !choosesAccel(l.options) {
		ok, why := r.c.ProbeKVM(ctx, bin)
		l.kvm = ok
		r.mu.Lock()
		note := r.onNote
		first := !r.noted[p.ProjectID] // once a project: each guest's panel says it too
		r.noted[p.ProjectID] = true
		r.mu.Unlock()
		if !ok && note != nil && first {
			note(p.ProjectID, p.NodeID, p.Name+" is "+NoKVMNote+" ("+why+")")
		}
	}
	args, err := l.args()
	if err != nil {
		return "", err
	}
	return r.launch(p, s, bin, args)
}

// launch runs the process, its console and its monitor.
func (r *Runner) launch(p app.Process, s settings, bin string, args []string) (string, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return "", app.Errorf(app.EINTERNAL, "The monitor of %s could not be set up: %v", p.Name, err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "qmp"), os.NewFile(uintptr(fds[1]), "qmp-guest")
	defer theirs.Close()
	conn, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		return "", app.Errorf(app.EINTERNAL, "The monitor of %s could not be set up: %v", p.Name, err)
	}
	var lns []net.Listener
	if p.ConsoleType == app.ConsoleTelnet && p.Console != 0 {
		if lns, err = termproc.Listen(r.c.ConsoleHost, p.Console); err != nil {
			conn.Close()
			return "", app.Errorf(app.ECONFLICT, "Console port %d of %s cannot be opened %v: another program is using it. Give %s another console port, then start it again",
				p.Console, p.Name, err, p.Name)
		}
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = p.Dir
	cmd.ExtraFiles = []*os.File{theirs} // fd 3, the QMP socket (args)
	g := &guest{p: p, s: s, cmdline: commandLine(bin, args)}
	r.mu.Lock() // held until g is recorded: an exit at once finds it
	g.Proc, err = termproc.Start(cmd, lns, termproc.Options{Program: "QEMU", Node: p.Name, Logger: r.c.Logger,
		OnExit: func(_ *termproc.Proc, stopped bool) { r.ended(g, stopped) }})
	if err != nil {
		r.mu.Unlock()
		termproc.CloseAll(lns)
		conn.Close()
		return "", app.Errorf(app.ECONFLICT, "QEMU could not start for %s: %v", p.Name, err)
	}
	r.guests[p.NodeID] = g
	r.mu.Unlock()
	theirs.Close()
	if err := r.records().Keep(p.NodeID, p.Name, g.Pid()); err != nil {
		r.c.Logger.Error("a running guest could not be recorded", "node", p.Name, "err", err)
	}
	setPriority(g.Pid(), s.ProcessPriority)

	mon, err := dialQMP(conn, r.c.UpWait)
	if err != nil {
		conn.Close()
		select {
		case <-g.Done():
			return "", app.Errorf(app.ECONFLICT, "QEMU exited as soon as %s started: %s", p.Name, g.ExitDetail())
		case <-time.After(2 * time.Second):
		}
		g.Stop(r.c.StopGrace)
		return "", app.Errorf(app.ECONFLICT, "QEMU's monitor did not answer within %v when %s started (%v); it was stopped", r.c.UpWait, p.Name, err)
	}
	r.mu.Lock()
	g.mon = mon
	r.mu.Unlock()
	return g.cmdline, nil
}

// ResizeDisk grows a stopped node's drive by extendMB MiB with qemu-img
// (the Service checks that the node is stopped and the drive its own):
// its linked clone (made now if the node never ran: the image is never
// written), or the image itself without linked clones.
func (r *Runner) ResizeDisk(p app.Process, drive string, extendMB int) error {
	i := slices.Index(drives[:], drive)
	if i < 0 {
		return app.Errorf(app.EINVALID, "%s has no drive %q", p.Name, drive)
	}
	s, err := readSettings(p.Properties)
	if err != nil {
		return err
	}
	bin, err := exec.LookPath(s.binary())
	if err != nil {
		bin = s.binary() // qemu-img may still be in PATH
	}
	img, err := qemuImg(bin)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), imgWait)
	defer cancel()
	disk, err := prepareDisk(ctx, img, s, p, i)
	if err != nil {
		return err
	}
	if _, err := runImg(ctx, img, "resize", disk, fmt.Sprintf("+%dM", extendMB)); err != nil {
		return app.Errorf(app.ECONFLICT, "The %s disk of %s could not grow by %d MiB: %v", drive, p.Name, extendMB, err)
	}
	return nil
}

// ProbeEarly asks, in the background, whether KVM works with the default
// qemu-system binary, so that the first guest's start does not wait the
// probe's few seconds (it waits for what is left of it, if anything).
func (r *Runner) ProbeEarly(ctx context.Context) {
	if bin, err := exec.LookPath(settings{}.binary()); err == nil {
		go r.c.ProbeKVM(ctx, bin)
	}
}

// choosesAccel reports whether a node's own options choose how it is
// accelerated (-accel, -enable-kvm, -machine accel=…, as GNS3 appliances
// marked "kvm: disable" have): QEMU refuses two choices.
func choosesAccel(opts []string) bool {
	for i, o := range opts {
		if o == "-accel" || o == "-enable-kvm" || o == "-no-kvm" ||
			(o == "-machine" || o == "-M") && i+1 < len(opts) && strings.Contains(opts[i+1], "accel=") {
			return true
		}
	}
	return false
}

// hasDisk reports whether the node has a hard disk image.
func hasDisk(p app.Process) bool {
	for _, d := range drives {
		if p.Images[d+"_disk_image"] != "" {
			return true
		}
	}
	return false
}

// nodeOptions fills in the placeholders GNS3 lets options name.
func nodeOptions(opts string, p app.Process) string {
	r := strings.NewReplacer("%vm-name%", strconv.Quote(p.Name), "%vm-id%", p.NodeID,
		"%project-id%", p.ProjectID, "%console-port%", strconv.Itoa(p.Console))
	return r.Replace(strings.TrimSpace(opts))
}

// vncHost is where VNC consoles listen: the console host, and loopback
// when that is every address of a loopback-only API.
func vncHost(consoleHost string) string {
	switch consoleHost {
	case "", "localhost":
		return "127.0.0.1"
	case "::":
		return "[::]"
	}
	if strings.Contains(consoleHost, ":") {
		return "[" + consoleHost + "]"
	}
	return consoleHost
}

// priorities are the nice values of GNS3's process priorities.
var priorities = map[string]int{"realtime": -20, "very high": -15, "high": -5, "low": 5, "very low": 19}

// setPriority gives a guest its process priority; one nodedesk may not
// raise (without privileges) stays as it is.
func setPriority(pid int, priority string) {
	if n, ok := priorities[priority]; ok {
		_ = syscall.Setpriority(syscall.PRIO_PROCESS, pid, n)
	}
}

func (r *Runner) get(nodeID string) (*guest, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	g, ok := r.guests[nodeID]
	if !ok || g.mon == nil {
		return nil, app.Errorf(app.ECONFLICT, "The node's QEMU is not running; start the node first")
	}
	return g, nil
}

// monitor runs a monitor command of a running guest.
func (r *Runner) monitor(nodeID, command string) error {
	g, err := r.get(nodeID)
	if err != nil {
		return err
	}
	if _, err := g.mon.run(command, nil); err != nil {
		return app.Errorf(app.ECONFLICT, "QEMU's monitor of %s refused %q: %v", g.p.Name, command, err)
	}
	return nil
}

// Suspend pauses a guest (its CPUs stop; its frames stop with them).
func (r *Runner) Suspend(nodeID string) error { return r.monitor(nodeID, "stop") }

// Resume continues a paused guest.
func (r *Runner) Resume(nodeID string) error { return r.monitor(nodeID, "cont") }

// Reload resets a guest, as its reset button would: it boots again in the
// same process.
func (r *Runner) Reload(nodeID string) error {
	if err := r.monitor(nodeID, "system_reset"); err != nil {
		return err
	}
	return r.monitor(nodeID, "cont") // a paused guest runs after its reload
}

// Stop ends a guest as its on_close says: power off at once (GNS3's
// default), the ACPI power button then a bounded wait, or its state saved
// in its disk for the next start. Whatever the guest does, the process is
// gone when Stop returns. A node that does not run is already stopped.
func (r *Runner) Stop(nodeID string) error {
	r.mu.Lock()
	g, ok := r.guests[nodeID]
	r.mu.Unlock()
	if !ok {
		return nil
	}
	g.MarkStopping()
	var saveErr error
	if g.mon != nil {
		switch g.s.OnClose {
		case saveState:
			_, _ = g.mon.run("stop", nil)
			if err := g.mon.hmp("savevm " + savedState); err != nil {
				saveErr = app.Errorf(app.ECONFLICT, "The state of %s could not be saved (%v): it was powered off; its disks must be qcow2 to hold a saved state", g.p.Name, err)
			}
			_, _ = g.mon.run("quit", nil)
		case shutdownACPI:
			_, _ = g.mon.run("cont", nil)
			if _, err := g.mon.run("system_powerdown", nil); err == nil {
				select {
				case <-g.Done():
				case <-time.After(r.c.ShutdownWait):
					r.c.Logger.Warn("a guest did not power itself off in time; it is ended", "node", g.p.Name, "wait", r.c.ShutdownWait)
				}
			}
		default:
			_, _ = g.mon.run("quit", nil)
		}
		select {
		case <-g.Done():
		case <-time.After(5 * time.Second):
		}
	}
	g.Stop(r.c.StopGrace)
	r.drop(g) // now, not when the exit is reported: a start may follow at once
	return saveErr
}

// drop forgets a guest that has ended, and its record.
func (r *Runner) drop(g *guest) {
	r.mu.Lock()
	if r.guests[g.p.NodeID] == g {
		delete(r.guests, g.p.NodeID)
	}
	r.mu.Unlock()
	r.records().Forget(g.p.NodeID)
}

// ResetConsole disconnects every telnet client of a node's console (the
// guest and its listeners stay).
func (r *Runner) ResetConsole(nodeID string) {
	r.mu.Lock()
	g, ok := r.guests[nodeID]
	r.mu.Unlock()
	if ok {
		g.ResetClients()
	}
}

// StopAll stops every guest, each as its on_close says: the last thing
// nodedesk does.
func (r *Runner) StopAll() {
	r.mu.Lock()
	gs := make([]*guest, 0, len(r.guests))
	for _, g := range r.guests {
		gs = append(gs, g)
	}
	r.mu.Unlock()
	var wg sync.WaitGroup
	for _, g := range gs {
		wg.Add(1)
		go func() { defer wg.Done(); _ = r.Stop(g.p.NodeID) }()
	}
	wg.Wait()
}

// ended forgets a guest whose process has exited and, if nobody stopped
// it, reports the exit.
func (r *Runner) ended(g *guest, stopped bool) {
	r.drop(g)
	r.mu.Lock()
	onExit := r.onExit
	mon := g.mon
	r.mu.Unlock()
	if mon != nil {
		mon.close()
	}
	if !stopped && onExit != nil {
		onExit(g.p.ProjectID, g.p.NodeID, g.ExitDetail())
	}
}
