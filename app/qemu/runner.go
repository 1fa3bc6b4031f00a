package qemu

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"nodedesk/app"
	"nodedesk/app/supervise"
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
	supervise.Lifecycle // Observe, Open, StopAll, ResetConsole
	app.QEMUTools       // a *Tools: qemu-img, the binaries, the KVM probe
	c                   Config
	guests              *supervise.Table[*guest]
	mu                  sync.Mutex // guards each guest's mon
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
	_ app.Runner        = (*Runner)(nil)
	_ app.Reloader      = (*Runner)(nil)
	_ app.DiskResizer   = (*Runner)(nil)
	_ app.Supervised    = (*Runner)(nil)
	_ app.ConsoleServer = (*Runner)(nil)
	_ app.QEMUTools     = (*Runner)(nil)
	_ app.BootWatcher   = (*Runner)(nil)
)

// NewRunner is the QEMU runner of nodedesk (app/emulators), with its
// records in env's folder for QEMU.
func NewRunner(env app.RunnerEnv) app.Runner {
	return New(Config{ConsoleHost: env.ConsoleHost, RunDir: supervise.RunDir(env, app.QEMU), StopGrace: env.StopGrace, ShutdownWait: env.ShutdownWait, Logger: env.Logger})
}

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
	r := &Runner{c: c, QEMUTools: NewTools(c.Logger)}
	r.guests = supervise.New(supervise.Config[*guest]{What: "QEMU guests", Records: r.records(),
		Probe: r.probeEarly, Stop: r.Stop, Reset: func(g *guest) { g.ResetClients() }, Logger: c.Logger})
	r.Lifecycle = r.guests.Lifecycle()
	return r
}

// Runs reports whether t is QEMU.
func (r *Runner) Runs(t app.NodeType) bool { return t == app.QEMU }

// Booted is closed once a node's guest has shown a prompt on its serial
// line, the console (bootPrompt), or once its QEMU has ended; nil when it
// runs none or its console is not the serial line (VNC: nodedesk cannot
// see its boot, and the node is booted at once).
func (r *Runner) Booted(nodeID string) <-chan struct{} {
	if g, ok := r.guests.Get(nodeID); ok && g.p.ConsoleType == app.ConsoleTelnet {
		return g.Booted()
	}
	return nil
}

// bootPrompt is the last line of a guest's serial console once it has
// booted: a login or password prompt, a shell's (# $ >, after a name or
// a path), or a Cisco image's "Press RETURN to get started". What a
// BIOS or boot loader prints before the kernel (SeaBIOS, SYSLINUX,
// GRUB's menu) does not end so, and the kernel's messages end with a
// newline.
var bootPrompt = regexp.MustCompile(`(?i)(login:|password:|[#$>]|RETURN to get started!?)\s*$`)

// NoKVMNote is what a user is told of a guest that runs without KVM
// (after its name; the reason is the note's detail).
const NoKVMNote = "runs slowly: this machine gives QEMU no hardware acceleration (KVM), so the project's VMs boot and run several times slower. Nothing needs to change for the lab to work"

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
	if old, ok := r.guests.Get(p.NodeID); ok {
		return old.cmdline, nil
	}

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
				_, _ = runImg(ctx, img, filepath.Dir(d), "snapshot", "-d", savedState, d)
			}
		}
	}
	if !choosesAccel(l.options) {
		ok, why := r.c.ProbeKVM(ctx, bin)
		l.kvm = ok
		// Once a project: each guest's panel says it too.
		if first := r.guests.FirstInProject(p.ProjectID); !ok && first {
			r.guests.Note(p.Ref(), app.Note{Message: fmt.Sprintf("%q %s", p.Name, NoKVMNote), Detail: "Why there is no KVM: " + why})
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
	_, err = r.guests.Start(p.NodeID, func() (*guest, error) {
		g.Proc, err = termproc.Start(cmd, lns, termproc.Options{Program: "QEMU", Node: p.Name, Logger: r.c.Logger, BootPrompt: bootPrompt,
			OnExit: func(_ *termproc.Proc, stopped bool) { r.ended(g, stopped) }})
		return g, err
	})
	if err != nil {
		termproc.CloseAll(lns)
		conn.Close()
		return "", app.Errorf(app.ECONFLICT, "QEMU could not start for %s: %v", p.Name, err)
	}
	theirs.Close()
	r.guests.Keep(p.NodeID, p.Name, g.Pid())
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
	if _, err := runImg(ctx, img, filepath.Dir(disk), "resize", disk, fmt.Sprintf("+%dM", extendMB)); err != nil {
		return app.Errorf(app.ECONFLICT, "The %s disk of %s could not grow by %d MiB: %v", drive, p.Name, extendMB, err)
	}
	return nil
}

// probeEarly asks whether KVM works with the default qemu-system binary
// (Open begins it in the background), so that the first guest's start
// does not wait the probe's few seconds (it waits for what is left of it,
// if anything).
func (r *Runner) probeEarly(ctx context.Context) {
	if bin, err := exec.LookPath(settings{}.binary()); err == nil {
		r.c.ProbeKVM(ctx, bin)
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
	g, ok := r.guests.Get(nodeID)
	r.mu.Lock()
	defer r.mu.Unlock()
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
	g, ok := r.guests.Get(nodeID)
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
	r.guests.Forget(nodeID, g) // now, not when the exit is reported: a start may follow at once
	return saveErr
}

// ended forgets a guest whose process has exited and, if nobody stopped
// it, reports the exit.
func (r *Runner) ended(g *guest, stopped bool) {
	r.mu.Lock()
	mon := g.mon
	r.mu.Unlock()
	if mon != nil {
		mon.close()
	}
	// g.Proc is read once Ended holds the table: Start sets it under the
	// table's lock, and an exit at once may come before that.
	r.guests.Ended(g.p.Ref(), g, stopped, func() string { return g.ExitDetail() })
}
