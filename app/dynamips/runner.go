package dynamips

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

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
	// RunDir keeps a record of each running router (records.go); ""
	// keeps none.
	RunDir string
	// Binary is the dynamips program; "": $NODEDESK_DYNAMIPS, then
	// dynamips on the PATH.
	Binary string
	// StopGrace is how long a stop waits for Dynamips to end after
	// "hypervisor stop" before it is killed; default 5 s.
	StopGrace time.Duration
	// UpWait bounds the wait for a new process's hypervisor and the
	// router's console; default 10 s.
	UpWait time.Duration
	Logger *slog.Logger
}

// Runner runs Dynamips nodes. It is safe for concurrent use; the Service
// also serialises the calls for one node.
type Runner struct {
	supervise.Lifecycle // Observe, Open, StopAll, ResetConsole
	c                   Config
	routers             *supervise.Table[*router]
	// ghostMu serialises the making of ghost RAM images; ghosts are
	// those made since this runner started (gns3-server makes each once
	// a run, then routers share it).
	ghostMu sync.Mutex
	ghosts  map[string]bool
}

// router is one running Dynamips process and its router.
type router struct {
	p        app.Process
	s        settings
	in       instance
	cmd      *exec.Cmd
	hv       *hypervisor
	out      *tail // what the process printed
	con, aux *line // nil: none
	done     chan struct{}
	stopping atomic.Bool
	cmdline  string
}

var (
	_ app.Runner        = (*Runner)(nil)
	_ app.Reloader      = (*Runner)(nil)
	_ app.IdlePCFinder  = (*Runner)(nil)
	_ app.Tuner         = (*Runner)(nil)
	_ app.Supervised    = (*Runner)(nil)
	_ app.ConsoleServer = (*Runner)(nil)
	_ app.BootWatcher   = (*Runner)(nil)
)

// NewRunner is the Dynamips runner of nodedesk (app/emulators): env's
// program for Dynamips, if any, is the dynamips binary, and its records
// are in env's folder for Dynamips.
func NewRunner(env app.RunnerEnv) app.Runner {
	return New(Config{ConsoleHost: env.ConsoleHost, RunDir: supervise.RunDir(env, app.Dynamips), Binary: env.Programs[app.Dynamips],
		StopGrace: env.StopGrace, Logger: env.Logger})
}

// New returns a Runner.
func New(c Config) *Runner {
	if c.StopGrace == 0 {
		c.StopGrace = 5 * time.Second
	}
	if c.UpWait == 0 {
		c.UpWait = 10 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	r := &Runner{c: c, ghosts: map[string]bool{}}
	r.routers = supervise.New(supervise.Config[*router]{What: "Dynamips routers", Records: r.records(),
		Stop: r.Stop, Reset: (*router).resetLines, Logger: c.Logger})
	r.Lifecycle = r.routers.Lifecycle()
	return r
}

// Runs reports whether t is Dynamips.
func (r *Runner) Runs(t app.NodeType) bool { return t == app.Dynamips }

// binary finds the dynamips program.
func (r *Runner) binary(name string) (string, error) {
	want := r.c.Binary
	if want == "" {
		want = os.Getenv("NODEDESK_DYNAMIPS")
	}
	if want == "" {
		want = "dynamips"
	}
	bin, err := exec.LookPath(want)
	if err != nil {
		return "", app.Errorf(app.ECONFLICT, "Dynamips is not installed (no %q program found). Install Dynamips 0.2.23 or later (GNS3's packages, or built from github.com/GNS3/dynamips), or name it with NODEDESK_DYNAMIPS, then start %s again", want, name)
	}
	return bin, nil
}

// checkImage refuses a file that cannot be an IOS image, naming it:
// what app.IOSImages accepts (GNS3 checks the same before a start).
func checkImage(name, path string) error {
	if path == "" {
		return app.Errorf(app.ECONFLICT, "%s has no IOS image: choose one in its image property (the IOS images folder lists those nodedesk finds), then start it again", name)
	}
	f, err := os.Open(path)
	if err != nil {
		return app.Errorf(app.ECONFLICT, "IOS image %q of %s cannot be read: %v", path, name, errors.Unwrap(err))
	}
	defer f.Close()
	head := make([]byte, app.ImageHeaderLen)
	n, _ := io.ReadFull(f, head)
	if !app.IOSImages.Accepts(head[:n]) {
		return app.Errorf(app.ECONFLICT, "%q is not a valid IOS image (not a 32-bit big-endian ELF file): give %s an uncompressed IOS image, then start it again", path, name)
	}
	return nil
}

// prepareConfigs makes the configs folder and a startup config if the
// router has none yet; it reports whether a private config is there to
// give Dynamips (a missing or empty one is not given, as gns3-server does).
func prepareConfigs(s settings, p app.Process) (bool, error) {
	dir := filepath.Join(p.Dir, "configs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	startup := filepath.Join(p.Dir, app.DynamipsStartupConfig(s.DynamipsID))
	adoptConfigs(p.Dir, s.DynamipsID)
	if _, err := os.Stat(startup); errors.Is(err, os.ErrNotExist) {
		if err := os.WriteFile(startup, []byte(app.DynamipsFirstConfig(p.Name, s.StartupConfigContent)), 0o644); err != nil {
			return false, err
		}
	}
	private := filepath.Join(p.Dir, app.DynamipsPrivateConfig(s.DynamipsID))
	if _, err := os.Stat(private); errors.Is(err, os.ErrNotExist) && s.PrivateConfigContent != "" {
		if err := os.WriteFile(private, []byte(app.DynamipsConfigText(s.PrivateConfigContent, p.Name)), 0o644); err != nil {
			return false, err
		}
	}
	fi, err := os.Stat(private)
	return err == nil && fi.Size() > 0, nil
}

// adoptConfigs renames the configs of another router number to this
// router's when its folder holds no startup config of its own but
// exactly one of another number: a duplicate's folder copied from its
// original, or a project whose routers were renumbered on import.
func adoptConfigs(dir string, id int) {
	if _, err := os.Stat(filepath.Join(dir, app.DynamipsStartupConfig(id))); !errors.Is(err, os.ErrNotExist) {
		return
	}
	found, _ := filepath.Glob(filepath.Join(dir, "configs", "i*_startup-config.cfg"))
	if len(found) != 1 {
		return
	}
	other, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(found[0]), "i"), "_startup-config.cfg"))
	if err != nil {
		return
	}
	_ = os.Rename(found[0], filepath.Join(dir, app.DynamipsStartupConfig(id)))
	_ = os.Rename(filepath.Join(dir, app.DynamipsPrivateConfig(other)), filepath.Join(dir, app.DynamipsPrivateConfig(id)))
}

// freePorts finds n TCP ports free on 127.0.0.1 for Dynamips' own
// listeners (its hypervisor, the router's console and aux lines).
func freePorts(n int) ([]int, error) {
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	var ports []int
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// nioName is the name of a port's NIO in Dynamips, as gns3-server names
// them: udp-<uuid>, here the node's id and the port's place.
func nioName(nodeID string, i int) string {
	return fmt.Sprintf("udp-%s-%d", nodeID, i)
}

// Start runs a router: a new Dynamips process in the node's folder, the
// commands gns3-server sends for it, its consoles served on the node's
// ports. It returns once the router runs, with the command line of the
// process; a process that stops on the way is reported with its last
// words.
func (r *Runner) Start(p app.Process) (string, error) {
	s, err := readSettings(p.Properties)
	if err != nil {
		return "", err
	}
	bin, err := r.binary(p.Name)
	if err != nil {
		return "", err
	}
	if err := checkImage(p.Name, p.Images["image"]); err != nil {
		return "", err
	}
	if old, ok := r.routers.Get(p.NodeID); ok {
		return old.cmdline, nil
	}
	rt, hvPort, err := r.prepare(p, s)
	if err != nil {
		return "", err
	}
	if err := r.launch(rt, bin, hvPort); err != nil {
		return "", err
	}
	if err := r.boot(rt, hvPort); err != nil {
		rt.stopping.Store(true)
		r.kill(rt)
		if ae := (*app.Error)(nil); errors.As(err, &ae) {
			return "", err
		}
		return "", app.Errorf(app.ECONFLICT, "%s could not start: %v%s", p.Name, err, rt.lastWords())
	}
	return rt.cmdline, nil
}

// prepare readies what a router needs before its process runs: its
// folder and configs, Dynamips' own ports (the hypervisor's is returned),
// its NIOs, and the node's console and aux ports, served already.
func (r *Runner) prepare(p app.Process, s settings) (rt *router, hvPort int, err error) {
	if err := os.MkdirAll(p.Dir, 0o755); err != nil {
		return nil, 0, app.Errorf(app.EINTERNAL, "The working folder of %s could not be made (%v); check free disk space and permissions", p.Name, err)
	}
	private, err := prepareConfigs(s, p)
	if err != nil {
		return nil, 0, app.Errorf(app.EINTERNAL, "The configs of %s could not be written (%v); check free disk space and permissions", p.Name, err)
	}
	ports, err := freePorts(3)
	if err != nil {
		return nil, 0, app.Errorf(app.EINTERNAL, "No TCP port is free on 127.0.0.1 for %s's Dynamips: %v", p.Name, err)
	}
	in := instance{name: p.Name, image: p.Images["image"], moduleDir: filepath.Dir(p.Dir), nodeDir: p.Dir, privateConfig: private}
	for i, pair := range p.Ports {
		if i < len(p.PortList) {
			in.nios = append(in.nios, nio{slot: p.PortList[i].AdapterNumber, port: p.PortList[i].PortNumber,
				name: nioName(p.NodeID, i), local: pair.Local, remote: pair.Remote})
		}
	}
	rt = &router{p: p, s: s, out: &tail{}, done: make(chan struct{})}
	if p.ConsoleType == app.ConsoleTelnet && p.Console != 0 {
		in.console = ports[1]
		if rt.con, err = r.serveLine(p, p.Console, "console"); err != nil {
			return nil, 0, err
		}
	}
	if p.Aux != 0 {
		in.aux = ports[2]
		if rt.aux, err = r.serveLine(p, p.Aux, "aux"); err != nil {
			rt.closeLines()
			return nil, 0, err
		}
	}
	rt.in = in
	return rt, ports[0], nil
}

// launch runs a router's Dynamips process, its hypervisor on hvPort, and
// records it.
func (r *Runner) launch(rt *router, bin string, hvPort int) error {
	args := []string{"-N1", "-l", logFile(rt.s.DynamipsID), "-H", "127.0.0.1:" + strconv.Itoa(hvPort), "--console-binding-addr", "127.0.0.1"}
	rt.cmdline = strings.Join(append([]string{bin}, args...), " ")
	cmd := exec.Command(bin, args...)
	cmd.Dir = rt.p.Dir
	cmd.Stdout, cmd.Stderr = rt.out, rt.out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	rt.cmd = cmd
	if err := cmd.Start(); err != nil {
		rt.closeLines()
		return app.Errorf(app.ECONFLICT, "Dynamips could not start for %s: %v", rt.p.Name, err)
	}
	r.routers.Put(rt.p.NodeID, rt)
	r.routers.Keep(rt.p.NodeID, rt.p.Name, cmd.Process.Pid)
	go r.wait(rt)
	return nil
}

// boot sends a new process the commands that make and start the router,
// as gns3-server sends them, and connects its lines to the node's ports.
func (r *Runner) boot(rt *router, hvPort int) error {
	var err error
	if rt.hv, err = dialHypervisor("127.0.0.1:"+strconv.Itoa(hvPort), r.c.UpWait, rt.alive); err != nil {
		return fmt.Errorf("Dynamips' hypervisor did not answer: %v", err)
	}
	for _, c := range createCommands(rt.s, rt.in) {
		if _, err := rt.hv.send(30*time.Second, "%s", c); err != nil {
			return err
		}
	}
	if err := r.ghost(rt); err != nil {
		return err
	}
	for _, c := range append(startCommands(rt.s, rt.in), runningCommands(rt.s, rt.in)...) {
		if _, err := rt.hv.send(30*time.Second, "%s", c); err != nil {
			return err
		}
	}
	if l, err := r.connectLines(rt, rt.alive); err != nil {
		return fmt.Errorf("the router's %s line did not answer: %v", l.what, err)
	}
	return nil
}

// connectLines connects the node's console and aux ports to the router's
// lines in Dynamips; it returns the line that did not answer, if any.
func (r *Runner) connectLines(rt *router, alive func() bool) (*line, error) {
	for _, l := range []*line{rt.con, rt.aux} {
		if l != nil {
			port := rt.in.console
			if l == rt.aux {
				port = rt.in.aux
			}
			if err := l.connect(port, r.c.UpWait, alive); err != nil {
				return l, err
			}
		}
	}
	return nil, nil
}

// alive reports whether the router's process still runs.
func (rt *router) alive() bool {
	select {
	case <-rt.done:
		return false
	default:
		return true
	}
}

// ghost gives the router its ghost RAM image, made first if this runner
// has not made it yet. A ghost that cannot be made is logged and the
// router runs without (as gns3-server does); a refusal of the router's
// own commands is an error.
func (r *Runner) ghost(rt *router) error {
	rt.in.ghostFile = ghostFile(rt.s, rt.in.moduleDir, rt.in.image)
	if rt.in.ghostFile == "" {
		return nil
	}
	r.ghostMu.Lock()
	defer r.ghostMu.Unlock()
	rt.in.makeGhost = !r.ghosts[rt.in.ghostFile]
	make, use := ghostCommands(rt.s, rt.in)
	for _, c := range make {
		_, err := rt.hv.send(60*time.Second, "%s", c)
		if strings.HasPrefix(c, "vm extract_config ") {
			continue // the Ghost has no config to give (Dynamips answers 206), as gns3-server expects
		}
		if err != nil {
			r.c.Logger.Warn("the ghost RAM image could not be made; the router runs without", "node", rt.p.Name, "err", err)
			_, _ = rt.hv.send(10*time.Second, "vm clean_delete %s", quote("Ghost"))
			return nil
		}
	}
	if _, err := os.Stat(rt.in.ghostFile); err != nil {
		return nil
	}
	r.ghosts[rt.in.ghostFile] = true
	for _, c := range use {
		if _, err := rt.hv.send(30*time.Second, "%s", c); err != nil {
			return err
		}
	}
	return nil
}

// logFile is the hypervisor's log, in the node's folder, as gns3-server
// names it.
func logFile(dynamipsID int) string { return "dynamips_i" + strconv.Itoa(dynamipsID) + "_log.txt" }

// routerLog is the log Dynamips writes of the router itself.
func routerLog(s settings) string { return s.Platform + "_i" + strconv.Itoa(s.DynamipsID) + "_log.txt" }

// serveLine opens the node's port for one of the router's lines.
func (r *Runner) serveLine(p app.Process, port int, what string) (*line, error) {
	lns, err := termproc.Listen(r.c.ConsoleHost, port)
	if err != nil {
		return nil, app.Errorf(app.ECONFLICT, "The %s port %d of %s cannot be opened %v: another program is using it. Give %s another %s port, then start it again",
			what, port, p.Name, err, p.Name, what)
	}
	l := &line{what: what}
	if what == "console" {
		// Dynamips' telnet server replays earlier output, so a line
		// connected late still sees the boot.
		l.boot = termproc.NewBootSign(ioscli.BootPrompt, ioscli.BootPhrase)
	}
	l.con = termproc.NewConsole(lns, l, "")
	return l, nil
}

// Booted is closed once a node's router has shown its prompt or "Press
// RETURN" on its console (ioscli.BootPrompt), or once its Dynamips has ended;
// nil when it runs none or has no console (booted at once).
func (r *Runner) Booted(nodeID string) <-chan struct{} {
	if rt, ok := r.routers.Get(nodeID); ok && rt.con != nil {
		return rt.con.boot.Booted()
	}
	return nil
}

// wait reaps the process and, when it ended by itself, says so.
func (r *Runner) wait(rt *router) {
	err := rt.cmd.Wait()
	if rt.con != nil {
		defer rt.con.boot.End() // nothing more to wait for
	}
	// The lines close before done does: a Stop that sees done forgets the
	// router, and a start that follows at once opens the same ports.
	rt.closeLines()
	close(rt.done)
	r.routers.Ended(rt.p.Ref(), rt, rt.stopping.Load(), func() string {
		detail := "Dynamips ended"
		if err != nil {
			detail = "Dynamips ended (" + err.Error() + ")"
		}
		detail += rt.lastWords()
		r.c.Logger.Warn("a Dynamips router stopped by itself", "node", rt.p.Name, "detail", detail)
		return detail
	})
}

// lastWords are the last lines the process printed and the router's log
// ended with, for a user told that it stopped.
func (rt *router) lastWords() string {
	var b strings.Builder
	if out := lastLines(rt.out.String(), 4); out != "" {
		b.WriteString("; Dynamips said: " + out)
	}
	if log, err := os.ReadFile(filepath.Join(rt.p.Dir, routerLog(rt.s))); err == nil {
		if l := lastLines(string(log), 4); l != "" {
			b.WriteString("; the router's log ends: " + l)
		}
	}
	return b.String()
}

// lastLines are the last n non-empty lines of s, joined by " | ".
func lastLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// get returns the running router of a node.
func (r *Runner) get(nodeID string) (*router, error) {
	rt, ok := r.routers.Get(nodeID)
	if !ok {
		return nil, app.Errorf(app.ECONFLICT, "The router is not running")
	}
	return rt, nil
}

// Stop stops a router as gns3-server does (vm stop, then its configs
// read back from NVRAM into its folder), then ends its process
// (vm delete, hypervisor stop; killed if it lingers).
func (r *Runner) Stop(nodeID string) error {
	rt, ok := r.routers.Get(nodeID)
	if !ok {
		return nil
	}
	rt.stopping.Store(true)
	name := quote(rt.p.Name)
	if rt.hv != nil {
		r.stopRouter(rt)
		_, _ = rt.hv.send(10*time.Second, "vm delete %s", name)
		_, _ = rt.hv.send(5*time.Second, "hypervisor stop")
		rt.hv.close()
	}
	select {
	case <-rt.done:
	case <-time.After(r.c.StopGrace):
		if !r.kill(rt) {
			// Still in the table and recorded: its exit forgets it, and
			// the next nodedesk ends it by its record if it never exits.
			return app.Errorf(app.ECONFLICT, "Dynamips of %s (process %d) did not end even when killed: end it yourself (kill -9 %d) or restart nodedesk, which ends it, then stop or start %s again",
				rt.p.Name, rt.cmd.Process.Pid, rt.cmd.Process.Pid, rt.p.Name)
		}
	}
	r.routers.Forget(nodeID, rt) // now, not when the exit is reported: a start may follow at once
	return nil
}

// stopRouter stops the router in its process and keeps its configs.
func (r *Runner) stopRouter(rt *router) {
	name := quote(rt.p.Name)
	st, err := rt.hv.send(10*time.Second, "vm get_status %s", name)
	if err == nil && len(st) > 0 && st[0] != "0" {
		if _, err := rt.hv.send(30*time.Second, "vm stop %s", name); err != nil {
			r.c.Logger.Warn("a router did not stop cleanly", "node", rt.p.Name, "err", err)
		}
	}
	if err := r.saveConfigs(rt); err != nil {
		r.c.Logger.Warn("a router's configs could not be read back", "node", rt.p.Name, "err", err)
	}
}

// saveConfigs writes the configs the router keeps in NVRAM into its
// folder, as gns3-server's save_configs does (vm extract_config; a
// private config that only holds the empty kerberos password is not kept).
func (r *Runner) saveConfigs(rt *router) error {
	out, err := rt.hv.send(30*time.Second, "vm extract_config %s", quote(rt.p.Name))
	if err != nil || len(out) == 0 {
		return err
	}
	parts := strings.Split(out[0], "'")
	if len(parts) < 6 { // conf 'name' 'startup' 'private'
		return fmt.Errorf("unreadable answer %q", out[0])
	}
	write := func(b64, rel string, skip func([]byte) bool) error {
		if b64 == "" {
			return nil
		}
		b, err := base64.StdEncoding.DecodeString(b64)
		if err != nil || skip(b) {
			return err
		}
		return os.WriteFile(filepath.Join(rt.p.Dir, rel), b, 0o644)
	}
	return errors.Join(
		write(parts[3], app.DynamipsStartupConfig(rt.s.DynamipsID), func([]byte) bool { return false }),
		write(parts[5], app.DynamipsPrivateConfig(rt.s.DynamipsID), func(b []byte) bool { return string(b) == "\nkerberos password \nend\n" }))
}

// kill ends a router's process group at once and waits for its end; it
// reports whether the process ended (its lines are closed then too).
func (r *Runner) kill(rt *router) bool {
	if rt.cmd.Process != nil {
		_ = syscall.Kill(-rt.cmd.Process.Pid, syscall.SIGKILL)
	}
	select {
	case <-rt.done:
		return true
	case <-time.After(5 * time.Second):
		r.c.Logger.Error("a Dynamips process did not end after SIGKILL", "node", rt.p.Name, "pid", rt.cmd.Process.Pid)
		return false
	}
}

// Suspend pauses a running router (vm suspend); Resume continues it.
func (r *Runner) Suspend(nodeID string) error { return r.vmCommand(nodeID, "suspend") }

// Resume continues a suspended router (vm resume).
func (r *Runner) Resume(nodeID string) error { return r.vmCommand(nodeID, "resume") }

func (r *Runner) vmCommand(nodeID, verb string) error {
	rt, err := r.get(nodeID)
	if err != nil {
		return err
	}
	if _, err := rt.hv.send(30*time.Second, "vm %s %s", verb, quote(rt.p.Name)); err != nil {
		return app.Errorf(app.ECONFLICT, "%s could not %s: %v", rt.p.Name, verb, err)
	}
	return nil
}

// Reload restarts the router in its process, as gns3-server does: a stop
// (its configs kept) and a start; its consoles' clients stay connected.
func (r *Runner) Reload(nodeID string) error {
	rt, err := r.get(nodeID)
	if err != nil {
		return err
	}
	r.stopRouter(rt)
	private, err := prepareConfigs(rt.s, rt.p)
	if err != nil {
		return app.Errorf(app.EINTERNAL, "The configs of %s could not be written: %v", rt.p.Name, err)
	}
	rt.in.privateConfig = private
	for _, c := range append(startCommands(rt.s, rt.in), runningCommands(rt.s, rt.in)...) {
		if _, err := rt.hv.send(30*time.Second, "%s", c); err != nil {
			return app.Errorf(app.ECONFLICT, "%s could not start again: %v", rt.p.Name, err)
		}
	}
	if l, err := r.connectLines(rt, func() bool { return true }); err != nil {
		return app.Errorf(app.ECONFLICT, "The %s line of %s did not answer after its reload: %v", l.what, rt.p.Name, err)
	}
	return nil
}

// resetLines disconnects every client of a router's consoles.
func (rt *router) resetLines() {
	for _, l := range []*line{rt.con, rt.aux} {
		if l != nil {
			l.con.ResetClients()
		}
	}
}

func (rt *router) closeLines() {
	for _, l := range []*line{rt.con, rt.aux} {
		if l != nil {
			l.close()
		}
	}
}

// tail keeps the last output of a process.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > 4096 {
		t.buf = t.buf[len(t.buf)-4096:]
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
