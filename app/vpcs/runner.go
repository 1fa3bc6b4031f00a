package vpcs

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
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
	// Binary is the simulator, looked up in PATH at each start; default "vpcs".
	Binary string
	// ConsoleHost is the host the REST API listens on: consoles listen
	// there and on 127.0.0.1, and nowhere else.
	ConsoleHost string
	// StopGrace is how long Stop waits after SIGTERM before SIGKILL;
	// default 3 s.
	StopGrace time.Duration
	Logger    *slog.Logger
}

// Runner runs VPCS nodes. It is safe for concurrent use; the Service also
// serialises the calls for one node.
type Runner struct {
	supervise.Lifecycle // Observe, Open, StopAll, ResetConsole
	c                   Config
	procs               *supervise.Table[*proc]
	// mu guards relayOff (the table has its own lock); it is not held
	// while `vpcs -v` runs.
	mu sync.Mutex
	// relayOff caches, by binary, whether it takes -R (canTurnOffRelay).
	relayOff map[string]bool
}

var (
	_ app.Runner        = (*Runner)(nil)
	_ app.Supervised    = (*Runner)(nil)
	_ app.ConsoleServer = (*Runner)(nil)
)

// NewRunner is the VPCS runner of nodedesk (app/emulators): env's
// program for VPCS, if any, is the simulator.
func NewRunner(env app.RunnerEnv) app.Runner {
	return New(Config{ConsoleHost: env.ConsoleHost, Binary: env.Programs[app.VPCS], StopGrace: env.StopGrace, Logger: env.Logger})
}

// New returns a Runner.
func New(c Config) *Runner {
	if c.Binary == "" {
		c.Binary = "vpcs"
	}
	if c.StopGrace == 0 {
		c.StopGrace = 3 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	r := &Runner{c: c, relayOff: map[string]bool{}}
	r.procs = supervise.New(supervise.Config[*proc]{What: "VPCS processes", Stop: r.Stop,
		Reset: func(p *proc) { p.ResetClients() }, Logger: c.Logger})
	r.Lifecycle = r.procs.Lifecycle()
	return r
}

// Runs reports whether t is VPCS.
func (r *Runner) Runs(t app.NodeType) bool { return t == app.VPCS }

// upWait bounds the wait for a new process's first output.
const upWait = 10 * time.Second

// Start starts a node's simulator, listening on its console port first so
// that a port another program holds fails the start cleanly. It returns
// once the simulator has written its banner.
func (r *Runner) Start(p app.Process) (string, error) {
	bin, err := exec.LookPath(r.c.Binary)
	if err != nil {
		return "", app.Errorf(app.ECONFLICT, "VPCS is not installed (no %q program found). Install it with `sudo apt-get install vpcs`, then start %s again", r.c.Binary, p.Name)
	}
	if old, ok := r.procs.Get(p.NodeID); ok {
		return old.cmdline, nil
	}

	lns, err := termproc.Listen(r.c.ConsoleHost, p.Console)
	if err != nil {
		return "", app.Errorf(app.ECONFLICT, "Console port %d of %s cannot be opened %v: another program is using it. Give %s another console port, then start it again",
			p.Console, p.Name, err, p.Name)
	}
	pair := p.Ports[0]
	args := []string{"-i", "1", "-m", strconv.Itoa(p.MACOffset), "-s", strconv.Itoa(pair.Local),
		"-c", strconv.Itoa(pair.Remote), "-t", "127.0.0.1"}
	if r.canTurnOffRelay(bin) {
		args = append(args, "-R") // no socket at the -s port + 9, which may be another node's
	}
	if err := writeScript(p); err != nil {
		termproc.CloseAll(lns)
		return "", app.Errorf(app.EINTERNAL, "The working folder of %s could not be prepared (%v); check free disk space and permissions", p.Name, err)
	}
	if p.StartupScript != nil {
		args = append(args, scriptName)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = p.Dir
	pr := &proc{p: p, cmdline: strings.Join(append([]string{bin}, args...), " ")}
	_, err = r.procs.Start(p.NodeID, func() (*proc, error) {
		pr.Proc, err = termproc.Start(cmd, lns, termproc.Options{Program: "VPCS", Node: p.Name, Logger: r.c.Logger,
			OnExit: func(_ *termproc.Proc, stopped bool) { r.ended(pr, stopped) }})
		return pr, err
	})
	if err != nil {
		termproc.CloseAll(lns)
		return "", app.Errorf(app.ECONFLICT, "VPCS could not start for %s: %v", p.Name, err)
	}
	select {
	case <-pr.Up():
		if err := r.awaitLinkPort(pr); err != nil {
			_ = r.Stop(p.NodeID) // its console and folder are let go with it
			return "", err
		}
		return pr.cmdline, nil
	case <-pr.Done():
		return "", app.Errorf(app.ECONFLICT, "VPCS exited as soon as %s started: %s", p.Name, pr.ExitDetail())
	case <-time.After(upWait):
		_ = r.Stop(p.NodeID)
		return "", app.Errorf(app.ECONFLICT, "VPCS did not answer within %v when %s started; it was stopped", upWait, p.Name)
	}
}

// portPoll is how often a start looks whether VPCS has opened its link
// port.
const portPoll = 10 * time.Millisecond

// awaitLinkPort waits, within upWait, until a new VPCS holds its link's
// UDP port (its -s port). VPCS opens it after its banner, and when that
// fails (another program took the port after nodedesk found it free) it
// says "Open port N error" and runs on without its link, bound only to its
// relay port N+9: such a start is refused with an app.EndTaken, whose
// message the Service writes, naming who holds the port.
func (r *Runner) awaitLinkPort(pr *proc) error {
	port := pr.p.Ports[0].Local
	said := fmt.Sprintf("Open port %d error", port)
	deadline := time.Now().Add(upWait)
	for {
		held, known := holdsUDP(pr.Pid(), port)
		if held || !known {
			return nil
		}
		select {
		case <-pr.Done():
			return app.Errorf(app.ECONFLICT, "VPCS exited as soon as %s started: %s", pr.p.Name, pr.ExitDetail())
		default:
		}
		if strings.Contains(pr.ExitDetail(), said) || time.Now().After(deadline) {
			// The Service names who holds it (app.EndTaken).
			return &app.EndTaken{Port: port, Err: fmt.Errorf("VPCS could not open it")}
		}
		time.Sleep(portPoll)
	}
}

// proc is one running VPCS.
type proc struct {
	*termproc.Proc
	p       app.Process
	cmdline string
}

// scriptName is the startup script VPCS runs, in the node's folder.
const scriptName = app.VPCSScriptFile

// writeScript prepares the node's folder: startup.vpc holds the script,
// or is removed if the node has none.
func writeScript(p app.Process) error {
	if err := os.MkdirAll(p.Dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(p.Dir, scriptName)
	if p.StartupScript == nil {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	return os.WriteFile(path, []byte(*p.StartupScript), 0o644)
}

func (r *Runner) get(nodeID string) (*proc, error) {
	p, ok := r.procs.Get(nodeID)
	if !ok {
		return nil, app.Errorf(app.ECONFLICT, "The node's VPCS process is not running; start the node first")
	}
	return p, nil
}

// Stop ends a node's process: SIGTERM, then SIGKILL after the grace
// period. Its console listeners close with it. A node that does not run is
// already stopped.
func (r *Runner) Stop(nodeID string) error {
	p, ok := r.procs.Get(nodeID)
	if !ok {
		return nil
	}
	p.Stop(r.c.StopGrace)
	r.procs.Forget(nodeID, p) // now, not when the exit is reported: a start may follow at once
	return nil
}

// Suspend pauses a node's process (SIGSTOP).
func (r *Runner) Suspend(nodeID string) error { return r.signal(nodeID, syscall.SIGSTOP) }

// Resume continues a suspended process (SIGCONT).
func (r *Runner) Resume(nodeID string) error { return r.signal(nodeID, syscall.SIGCONT) }

func (r *Runner) signal(nodeID string, sig syscall.Signal) error {
	p, err := r.get(nodeID)
	if err != nil {
		return err
	}
	if err := p.Signal(sig); err != nil {
		return app.Errorf(app.ECONFLICT, "The VPCS process of %s could not be signalled: %v", p.p.Name, err)
	}
	return nil
}

// ended forgets a process that has exited and, if nobody stopped it,
// reports the exit.
func (r *Runner) ended(p *proc, stopped bool) {
	// p.Proc is read once Ended holds the table: Start sets it under the
	// table's lock, and an exit at once may come before that.
	r.procs.Ended(p.p.Ref(), p, stopped, func() string { return p.ExitDetail() })
}
