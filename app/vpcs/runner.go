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
	c     Config
	mu    sync.Mutex
	procs map[string]*proc // by node id
	// relayOff caches, by binary, whether it takes -R (canTurnOffRelay).
	relayOff map[string]bool
	onExit   func(projectID, nodeID, detail string)
}

// OnExit sets what is told when a process ends by itself (not by Stop):
// in nodedesk, the Service, which records the node as stopped.
func (r *Runner) OnExit(f func(projectID, nodeID, detail string)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.onExit = f
}

var _ app.Runner = (*Runner)(nil)

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
	return &Runner{c: c, procs: map[string]*proc{}, relayOff: map[string]bool{}}
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
	r.mu.Lock()
	if old, ok := r.procs[p.NodeID]; ok {
		r.mu.Unlock()
		return old.cmdline, nil
	}
	r.mu.Unlock()

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
	r.mu.Lock() // held until pr is recorded: an exit at once finds it
	pr.Proc, err = termproc.Start(cmd, lns, termproc.Options{Program: "VPCS", Node: p.Name, Logger: r.c.Logger,
		OnExit: func(_ *termproc.Proc, stopped bool) { r.ended(pr, stopped) }})
	if err != nil {
		r.mu.Unlock()
		termproc.CloseAll(lns)
		return "", app.Errorf(app.ECONFLICT, "VPCS could not start for %s: %v", p.Name, err)
	}
	r.procs[p.NodeID] = pr
	r.mu.Unlock()
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
// relay port N+9: such a start is refused here, naming who holds the port.
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
			by := "another program"
			if h := udpHolders(port, pr.Pid()); len(h) > 0 {
				by = strings.Join(h, ", ")
			}
			return app.Errorf(app.ECONFLICT, "UDP port %d of %s, where its link's frames arrive, was taken by %s before VPCS could open it, so %s would not hear its link; the start was undone. Start %s again: it is then given a free port",
				port, pr.p.Name, by, pr.p.Name, pr.p.Name)
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
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.procs[nodeID]
	if !ok {
		return nil, app.Errorf(app.ECONFLICT, "The node's VPCS process is not running; start the node first")
	}
	return p, nil
}

// Stop ends a node's process: SIGTERM, then SIGKILL after the grace
// period. Its console listeners close with it. A node that does not run is
// already stopped.
func (r *Runner) Stop(nodeID string) error {
	r.mu.Lock()
	p, ok := r.procs[nodeID]
	r.mu.Unlock()
	if !ok {
		return nil
	}
	p.Stop(r.c.StopGrace)
	r.mu.Lock() // now, not when the exit is reported: a start may follow at once
	if r.procs[nodeID] == p {
		delete(r.procs, nodeID)
	}
	r.mu.Unlock()
	return nil
}

// ResetConsole disconnects every telnet client of a node's console (the
// process and its listeners stay): a stuck session starts afresh. A node
// that does not run has no client.
func (r *Runner) ResetConsole(nodeID string) {
	if p, err := r.get(nodeID); err == nil {
		p.ResetClients()
	}
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

// StopAll stops every process: the last thing nodedesk does.
func (r *Runner) StopAll() {
	r.mu.Lock()
	ps := make([]*proc, 0, len(r.procs))
	for _, p := range r.procs {
		ps = append(ps, p)
	}
	r.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range ps {
		wg.Add(1)
		go func() { defer wg.Done(); p.Stop(r.c.StopGrace) }()
	}
	wg.Wait()
}

// ended forgets a process that has exited and, if nobody stopped it,
// reports the exit.
func (r *Runner) ended(p *proc, stopped bool) {
	r.mu.Lock()
	if r.procs[p.p.NodeID] == p {
		delete(r.procs, p.p.NodeID)
	}
	onExit := r.onExit
	r.mu.Unlock()
	if !stopped && onExit != nil {
		onExit(p.p.ProjectID, p.p.NodeID, p.ExitDetail())
	}
}
