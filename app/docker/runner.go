package docker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	// RunDir keeps a record of each running node (records.go) and the
	// resources folder mounted in every container (resources.go);
	// "" keeps no records and puts the resources in a temporary folder.
	RunDir string
	// Host is the Docker Engine's address, as DOCKER_HOST gives it
	// (unix:///var/run/docker.sock); "" is $DOCKER_HOST, else DefaultHost.
	Host string
	// StopGrace is how long a stop waits after SIGTERM before SIGKILL;
	// default 3 s.
	StopGrace time.Duration
	// PullWait bounds the pull of an image a node names and the engine
	// lacks; default 60 s.
	PullWait time.Duration
	Logger   *slog.Logger
}

// Runner runs Docker nodes on the machine's Docker Engine. It is safe for
// concurrent use; the Service also serialises the calls for one node.
type Runner struct {
	supervise.Lifecycle // Observe, Open, StopAll, ResetConsole
	c                   Config
	eng                 *engine
	engErr              error // why there is no engine (DOCKER_HOST)
	nodes               *supervise.Table[*node]
	made                madeTable // every node's container, running or not

	resMu    sync.Mutex
	resReady bool
}

// node is one running Docker node.
type node struct {
	p       app.Process
	rec     record
	vols    []string // the kept folders
	targets []string // the folders bound into the container
	cmdline string
	console *stream
	aux     *stream
	http    *httpRelay
	ending  atomic.Bool   // a stop or the exit has begun its clean-up
	done    chan struct{} // closed once the node is cleaned up
}

var (
	_ app.Runner        = (*Runner)(nil)
	_ app.ConsoleServer = (*Runner)(nil)
	_ app.DockerEngine  = (*Runner)(nil)
	_ app.Supervised    = (*Runner)(nil)
	_ app.Provisioner   = (*Runner)(nil)
)

// NewRunner is the Docker runner of nodedesk (app/emulators): env's
// program for Docker, if any, is the engine's address, and its records
// and resources are in env's folder for Docker.
func NewRunner(env app.RunnerEnv) app.Runner {
	return New(Config{ConsoleHost: env.ConsoleHost, RunDir: supervise.RunDir(env, app.Docker), Host: env.Programs[app.Docker],
		StopGrace: env.StopGrace, Logger: env.Logger})
}

// New returns a Runner.
func New(c Config) *Runner {
	if c.StopGrace == 0 {
		c.StopGrace = 3 * time.Second
	}
	if c.PullWait == 0 {
		c.PullWait = 60 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	r := &Runner{c: c}
	r.eng, r.engErr = newEngine(c.Host)
	r.nodes = supervise.New(supervise.Config[*node]{What: "Docker nodes", Reap: r.reapOrphans,
		Stop: r.Stop, Reset: (*node).resetConsoles, Logger: c.Logger})
	r.Lifecycle = r.nodes.Lifecycle()
	return r
}

// note tells the user something of a node: environment lines it skipped.
func (r *Runner) note(p app.Process, n app.Note) { r.nodes.Note(p.Ref(), n) }

// Runs reports whether t is Docker.
func (r *Runner) Runs(t app.NodeType) bool { return t == app.Docker }

// Images lists the engine's local images, sorted, as GNS3 lists them.
func (r *Runner) Images(ctx context.Context) ([]app.DockerImage, error) {
	if r.eng == nil {
		return nil, r.engErr
	}
	tags, err := r.eng.imageTags(ctx)
	if err != nil {
		return nil, r.engineError(err, "list its images")
	}
	out := make([]app.DockerImage, len(tags))
	for i, t := range tags {
		out[i] = app.DockerImage{Image: t}
	}
	return out, nil
}

// engineError turns an error of the engine into one for the user: an
// engine that cannot be reached says so already; a refusal says what
// nodedesk was doing.
func (r *Runner) engineError(err error, doing string) error {
	var ae *apiError
	if errors.As(err, &ae) {
		return app.Errorf(app.ECONFLICT, "Docker refused to %s: %s", doing, ae.Message)
	}
	if app.ErrorCode(err) != app.EINTERNAL {
		return err
	}
	return app.Errorf(app.ECONFLICT, "Docker failed to %s: %v", doing, err)
}

// startWait bounds a start's calls of the engine, besides a pull.
const startWait = 2 * time.Minute

// Start creates and starts a node's container, gives it its interfaces
// and serves its consoles. It returns once all is up, with the
// container's command; on any failure it leaves nothing behind.
func (r *Runner) Start(p app.Process) (string, error) {
	if r.eng == nil {
		return "", r.engErr
	}
	if old, ok := r.nodes.Get(p.NodeID); ok {
		return old.cmdline, nil
	}
	st, err := r.check(p)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), startWait)
	defer cancel()
	if err := r.gather(ctx, st); err != nil {
		return "", err
	}
	n, err := r.build(ctx, st)
	if err != nil {
		return "", err
	}
	r.nodes.Put(p.NodeID, n)
	first := r.nodes.FirstInProject(p.ProjectID) // once a project
	go r.watch(n)
	if first && len(st.refused) > 0 {
		// Nothing is wrong for the user (CAP_NET_ADMIN, the one a lab
		// needs, is checked before): the log says it, no notice does.
		r.c.Logger.Info("docker: containers run without capabilities this machine's bounding set lacks", "capabilities", strings.Join(st.refused, ","))
	}
	return n.cmdline, nil
}

// startPlan is one start of a node under way: what it was given, what was
// found for it, what is made, and what to undo if it fails.
type startPlan struct {
	p     app.Process
	s     settings
	veths []string // the host ends of its veth pairs
	macs  []net.HardwareAddr
	env   []string
	hosts string

	im            *imageInfo
	vols          []string // the kept folders
	caps, refused []string // capabilities asked for; those the host refuses

	n              *node
	cfg            *containerConfig
	conLns, auxLns []net.Listener
	undo           []func() // in the order made
}

// rollback undoes what a failed start made, last first.
func (st *startPlan) rollback() {
	for i := len(st.undo) - 1; i >= 0; i-- {
		st.undo[i]()
	}
}

// check reads and checks what a node's start is given, before anything
// is asked of the engine.
func (r *Runner) check(p app.Process) (*startPlan, error) {
	s, err := readSettings(p.Properties)
	if err != nil {
		return nil, err
	}
	if p.ConsoleType == app.ConsoleVNC {
		// GNS3 runs an X server with VNC on the host for such a node;
		// nodedesk does not.
		return nil, app.Errorf(app.ECONFLICT, "%s has a VNC console, which nodedesk does not serve for Docker nodes: set its console type to telnet (the container's terminal) or http (its web page), then start it again", p.Name)
	}
	if s.Image == "" {
		return nil, app.Errorf(app.ECONFLICT, "%s names no Docker image: choose one in its settings, then start it again", p.Name)
	}
	if !validImage(s.Image) {
		return nil, app.Errorf(app.ECONFLICT, "%q is not a Docker image name: give %s an image such as alpine:latest", s.Image, p.Name)
	}
	st := &startPlan{p: p, s: s, veths: p.HostInterfaces}
	if len(st.veths) == 0 {
		for i := range s.Adapters {
			st.veths = append(st.veths, app.VethName(p.NodeID, i))
		}
	}
	if len(st.veths) > 0 && !haveNetAdmin() {
		return nil, errNoNetAdmin(p.Name)
	}
	base, err := baseMAC(s, p.NodeID)
	if err != nil {
		return nil, err
	}
	if st.macs, err = adapterMACs(base, len(st.veths), p.CustomAdapters); err != nil {
		return nil, err
	}
	if _, err := app.SplitWords(s.StartCommand); err != nil {
		return nil, app.Errorf(app.ECONFLICT, "The start command of %s cannot be read (%v): fix its quotes, then start it again", p.Name, err)
	}
	if st.hosts, err = extraHosts(s); err != nil {
		return nil, err
	}
	var skipped []string
	if st.env, skipped = environment(s, p); len(skipped) > 0 {
		r.note(p, app.Note{Message: fmt.Sprintf("%q starts without some of its environment variables: a line has no name, or a name nodedesk sets itself. Check them in its panel (Environment).", p.Name),
			Detail: "Lines left out: " + strings.Join(skipped, "; ")})
	}
	return st, nil
}

// gather finds what a start needs of the engine and this machine: the
// image (pulled if need be), the kept folders it implies, the resources
// folder, and the capabilities a container may have.
func (r *Runner) gather(ctx context.Context, st *startPlan) error {
	var err error
	if st.im, err = r.image(ctx, st.s.Image, st.p.Name); err != nil {
		return err
	}
	if st.vols, err = persistentFolders(st.s, st.im); err != nil {
		return err
	}
	if err := r.resources(); err != nil {
		return err
	}
	bnd, err := capSet("CapBnd")
	if err != nil {
		return app.Errorf(app.EINTERNAL, "This machine's capabilities could not be read: %v", err)
	}
	if st.caps, st.refused = labCaps(bnd); !slices.Contains(st.caps, "CAP_NET_ADMIN") {
		return app.Errorf(app.ECONFLICT, "%s cannot start: this machine does not let containers manage their own network interfaces, which a lab node needs. Run nodedesk outside the sandbox or container it runs in now (technically: CAP_NET_ADMIN is not in its capability bounding set)", st.p.Name)
	}
	return nil
}

// build makes the running node: its consoles' ports, its folders, its
// container (the one it has if made with its settings) and interfaces.
// On a failure it undoes what it made; the container stays the node's.
func (r *Runner) build(ctx context.Context, st *startPlan) (*node, error) {
	st.n = &node{p: st.p, done: make(chan struct{})}
	err := r.openPorts(st)
	if err == nil {
		err = r.prepare(ctx, st)
	}
	if err == nil {
		err = r.makeContainer(ctx, st)
	}
	if err == nil {
		err = r.boot(ctx, st)
	}
	if err != nil {
		st.rollback()
		return nil, err
	}
	return st.n, nil
}

// openPorts opens the consoles' ports first: one another program holds
// fails the start before anything is made.
func (r *Runner) openPorts(st *startPlan) error {
	p := st.p
	var err error
	if (p.ConsoleType == app.ConsoleTelnet || p.ConsoleType == app.ConsoleHTTP) && p.Console != 0 {
		if st.conLns, err = termproc.Listen(r.c.ConsoleHost, p.Console); err != nil {
			return portError(p, "Console", p.Console, err)
		}
		st.undo = append(st.undo, func() { termproc.CloseAll(st.conLns) })
	}
	if p.Aux != 0 {
		if st.auxLns, err = termproc.Listen(r.c.ConsoleHost, p.Aux); err != nil {
			return portError(p, "Aux console", p.Aux, err)
		}
		st.undo = append(st.undo, func() { termproc.CloseAll(st.auxLns) })
	}
	return nil
}

// prepare makes the node's folder and fills its kept folders.
func (r *Runner) prepare(ctx context.Context, st *startPlan) error {
	p := st.p
	if err := os.MkdirAll(p.Dir, 0o755); err != nil {
		return app.Errorf(app.EINTERNAL, "The folder of %s could not be made (%v); check free disk space and permissions", p.Name, err)
	}
	if err := r.prepareFolders(ctx, p, st.s.Image, st.vols, mountTargets(st.vols, st.im), len(st.veths)); err != nil {
		if app.ErrorCode(err) == app.EINTERNAL { // not the engine's own message
			err = app.Errorf(app.ECONFLICT, "The kept folders of %s could not be prepared in its folder %s: %v", p.Name, p.Dir, err)
		}
		return err
	}
	return nil
}

// makeContainer gives the node its container (ensure) and attaches its
// console before the start, so that the console shows the first output.
// A failed start leaves the container stopped.
func (r *Runner) makeContainer(ctx context.Context, st *startPlan) error {
	p, n := st.p, st.n
	m, _, err := r.ensure(ctx, st)
	if err != nil {
		return err
	}
	n.rec, n.vols, n.targets, n.cmdline = m.rec, m.vols, m.targets, m.cmdline
	id := m.rec.Container
	st.undo = append(st.undo, func() { _ = r.eng.stop(context.Background(), id, 0) })
	if st.conLns != nil && p.ConsoleType == app.ConsoleTelnet {
		if n.console, err = r.openConsole(ctx, id, p.Name, st.conLns); err != nil {
			return r.engineError(err, "attach the console of "+p.Name)
		}
		st.undo = append(st.undo, n.console.close)
	}
	return nil
}

// boot starts the container, gives it its interfaces and serves its http
// and aux consoles.
func (r *Runner) boot(ctx context.Context, st *startPlan) error {
	p, n, id := st.p, st.n, st.n.rec.Container
	if err := r.eng.start(ctx, id); err != nil {
		return r.startError(err, p, st.caps)
	}
	info, err := r.eng.inspect(ctx, id)
	if err != nil {
		return r.engineError(err, "tell the state of the container of "+p.Name)
	}
	if !info.State.Running || info.State.Pid == 0 {
		return app.Errorf(app.ECONFLICT, "The container of %s ended as soon as it started: %s", p.Name, r.exitDetail(ctx, id, info.State.ExitCode))
	}
	_ = r.eng.resize(ctx, id, termRows, termCols)
	if err := r.addVeths(ctx, st, info.State.Pid); err != nil {
		return err
	}
	if st.conLns != nil && p.ConsoleType == app.ConsoleHTTP {
		n.http = r.openHTTP(id, st.s.ConsoleHTTPPort, st.conLns)
		st.undo = append(st.undo, n.http.close)
	}
	if st.auxLns != nil {
		if n.aux, err = r.openAux(ctx, id, p.Name, st.auxLns); err != nil {
			return r.engineError(err, "start the aux shell of "+p.Name)
		}
		st.undo = append(st.undo, n.aux.close)
	}
	return nil
}

// addVeths makes the node's veth pairs, the peer of each in the
// container's namespace (pid) as eth<n>.
func (r *Runner) addVeths(ctx context.Context, st *startPlan, pid int) error {
	p, id := st.p, st.n.rec.Container
	for i, v := range st.veths {
		st.undo = append(st.undo, func() { deleteLink(v) })
		if err := addVeth(v, i, pid, st.macs[i]); err != nil {
			if isPermission(err) {
				return errNoNetAdmin(p.Name)
			}
			if c, ierr := r.eng.inspect(ctx, id); ierr == nil && !c.State.Running {
				return app.Errorf(app.ECONFLICT, "The container of %s ended as soon as it started: %s", p.Name, r.exitDetail(ctx, id, c.State.ExitCode))
			}
			return app.Errorf(app.ECONFLICT, "Interface eth%d of %s could not be made (%v)", i, p.Name, err)
		}
	}
	return nil
}

// portError is the refusal of a console port another program holds.
func portError(p app.Process, what string, port int, err error) error {
	return app.Errorf(app.ECONFLICT, "%s port %d of %s cannot be opened %v: another program is using it. Give %s another port, then start it again",
		what, port, p.Name, err, p.Name)
}

// image reads the image a node names, pulling it (a bounded time) if the
// engine lacks it.
func (r *Runner) image(ctx context.Context, ref, name string) (*imageInfo, error) {
	im, err := r.eng.inspectImage(ctx, ref)
	if status(err) != http.StatusNotFound {
		if err != nil {
			return nil, r.engineError(err, "read the image "+ref)
		}
		return im, nil
	}
	pctx, cancel := context.WithTimeout(ctx, r.c.PullWait)
	defer cancel()
	perr := r.eng.pull(pctx, ref)
	if perr == nil {
		if im, err = r.eng.inspectImage(ctx, ref); err == nil {
			return im, nil
		}
		perr = err
	}
	if errors.Is(perr, context.DeadlineExceeded) || pctx.Err() != nil {
		perr = fmt.Errorf("no answer within %v", r.c.PullWait)
	}
	var ae *apiError
	if errors.As(perr, &ae) {
		perr = errors.New(ae.Message)
	}
	return nil, app.Errorf(app.ECONFLICT, "The Docker image %s of %s is not on this machine, and pulling it failed (%v). Get it with `docker pull %s`, or load it from a file with `docker load -i <file>`, then start %s again",
		ref, name, perr, ref, name)
}

// resources makes the resources folder, once a runner.
func (r *Runner) resources() error {
	r.resMu.Lock()
	defer r.resMu.Unlock()
	if r.resReady {
		return nil
	}
	if err := installResources(r.resourcesDir()); err != nil {
		if app.ErrorCode(err) != app.EINTERNAL {
			return err
		}
		return app.Errorf(app.EINTERNAL, "The Docker nodes' resources could not be installed in %s (%v); check free disk space and permissions", r.resourcesDir(), err)
	}
	r.resReady = true
	return nil
}

func (r *Runner) resourcesDir() string {
	if r.c.RunDir == "" {
		return filepath.Join(os.TempDir(), "nodedesk-docker-"+strconv.Itoa(os.Getuid()), "resources")
	}
	return filepath.Join(r.c.RunDir, "resources")
}

// containerConfig is a node's container: GNS3's settings (network none,
// a terminal for its main process, its host name, its environment) with
// nodedesk's init first and the node's kept folders bound in place.
func (r *Runner) containerConfig(p app.Process, s settings, im *imageInfo, vols, targets []string, adapters int, env []string, hosts string, caps []string) *containerConfig {
	cmd, _ := app.SplitWords(s.StartCommand) // checked by Start
	entry := slices.Clone(im.Config.Entrypoint)
	if len(cmd) == 0 {
		cmd = slices.Clone(im.Config.Cmd)
	}
	if len(cmd) == 0 && len(entry) == 0 {
		cmd = []string{"/bin/sh"}
	}
	e := []string{"container=docker",
		"NODEDESK_ADAPTERS=" + strconv.Itoa(adapters),
		"NODEDESK_VOLUMES=" + strings.Join(vols, ":")}
	if adapters > 0 {
		e = append(e, "GNS3_MAX_ETHERNET=eth"+strconv.Itoa(adapters-1))
	}
	if hosts != "" {
		e = append(e, "NODEDESK_EXTRA_HOSTS="+hosts)
	}
	user := ""
	if im.Config.User != "" {
		user = "0:0" // the init runs as root, the command as the image's user
		e = append(e, "NODEDESK_USER="+im.Config.User)
	}
	return &containerConfig{
		Hostname:        hostname(p.Name),
		Image:           s.Image,
		Entrypoint:      append([]string{mountPoint + "/init.sh"}, entry...),
		Cmd:             cmd,
		Env:             append(e, env...),
		User:            user,
		Labels:          r.labels(p),
		Tty:             true,
		OpenStdin:       true,
		AttachStdin:     true,
		AttachStdout:    true,
		AttachStderr:    true,
		NetworkDisabled: true,
		HostConfig:      hostConfig{Mounts: r.mounts(p.Dir, targets), CapAdd: caps, NetworkMode: "none"},
	}
}

// mounts are the folders bound into a node's container: the resources,
// read-only, and the kept folders (targets) from the node's folder.
func (r *Runner) mounts(nodeDir string, targets []string) []mount {
	ms := []mount{{Type: "bind", Source: r.resourcesDir(), Target: mountPoint, ReadOnly: true}}
	for _, v := range targets {
		ms = append(ms, mount{Type: "bind", Source: hostFolder(nodeDir, v), Target: v})
	}
	return ms
}

// create creates a node's container. An engine older than the kernel
// refuses capabilities it does not know: they are left out.
func (r *Runner) create(ctx context.Context, name string, cfg *containerConfig, p app.Process) (string, error) {
	for range len(capNames) {
		id, err := r.eng.create(ctx, name, cfg)
		if err == nil {
			return id, nil
		}
		if m := unknownCap.FindStringSubmatch(err.Error()); m != nil && slices.Contains(cfg.HostConfig.CapAdd, m[1]) {
			cfg.HostConfig.CapAdd = slices.DeleteFunc(cfg.HostConfig.CapAdd, func(c string) bool { return c == m[1] })
			continue
		}
		return "", r.engineError(err, "create the container of "+p.Name)
	}
	return "", app.Errorf(app.ECONFLICT, "Docker refused every capability nodedesk asked for the container of %s", p.Name)
}

// startError is a refused start: one for capabilities names those asked.
func (r *Runner) startError(err error, p app.Process, caps []string) error {
	if strings.Contains(err.Error(), "caps") || strings.Contains(err.Error(), "capabilit") {
		return app.Errorf(app.ECONFLICT, "Docker could not give the container of %s the capabilities nodedesk asked for (%s): %v. Run nodedesk where Docker can grant them (at least CAP_NET_ADMIN)",
			p.Name, strings.Join(caps, ", "), err)
	}
	return r.engineError(err, "start the container of "+p.Name)
}

// removeStale removes a container of the node's name left by a nodedesk
// that was killed before it could reap it.
func (r *Runner) removeStale(ctx context.Context, rec record) {
	if c, err := r.eng.inspect(ctx, rec.ContainerName); err == nil && c.Config.Labels[labelNode] == rec.NodeID {
		_ = r.eng.remove(ctx, c.ID)
	}
}

// exitDetail says how a container ended: its exit code and the last
// lines it printed.
func (r *Runner) exitDetail(ctx context.Context, id string, code int) string {
	d := fmt.Sprintf("its command exited with code %d", code)
	if code == 137 {
		d += " (killed)"
	}
	logs, err := r.eng.logs(ctx, id, 10)
	if err == nil {
		if s := strings.Join(strings.Fields(logs), " "); s != "" {
			if len(s) > 300 {
				s = "…" + s[len(s)-300:]
			}
			d += "; its last output: " + s
		}
	}
	return d
}

// watch waits for a node's container to end and, unless a stop ended
// it, cleans up and reports the exit.
func (r *Runner) watch(n *node) {
	code, err := r.eng.wait(context.Background(), n.rec.Container)
	if !n.ending.CompareAndSwap(false, true) {
		return // a stop ended it
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	detail := "Docker stopped answering about its container: " + fmt.Sprint(err)
	if err == nil {
		detail = r.exitDetail(ctx, n.rec.Container, code)
	}
	_ = r.teardown(ctx, n, true)
	r.c.Logger.Warn("a Docker node stopped by itself", "node", n.p.Name, "detail", detail)
	r.nodes.Exited(n.p.Ref(), detail)
}

// Stop ends a node's container (SIGTERM, then SIGKILL after the grace)
// and removes its interfaces and consoles; the container stays, with what
// was written in it, until Release, and its kept folders are handed back
// to nodedesk's user first. A node that does not run is already stopped.
func (r *Runner) Stop(nodeID string) error {
	n, ok := r.nodes.Get(nodeID)
	if !ok {
		return nil
	}
	if !n.ending.CompareAndSwap(false, true) {
		<-n.done // it ended by itself and is being cleaned up
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute+r.c.StopGrace)
	defer cancel()
	id := n.rec.Container
	if c, err := r.eng.inspect(ctx, id); err == nil && c.State.Paused {
		_ = r.eng.unpause(ctx, id)
	}
	return r.teardown(ctx, n, false)
}

// handBackWait bounds the stop's hand-back of the kept folders.
const handBackWait = 20 * time.Second

// teardown ends a node: its consoles, its container's processes (after
// handing its kept folders back), its interfaces. The container and its
// record stay. exited says that the container has ended by itself.
func (r *Runner) teardown(ctx context.Context, n *node, exited bool) error {
	defer close(n.done)
	n.console.close()
	n.aux.close()
	n.http.close()
	id := n.rec.Container
	if err := r.handBack(ctx, n, exited); err != nil {
		r.c.Logger.Warn("the kept folders of a Docker node could not be handed back to nodedesk's user", "node", n.p.Name, "err", err)
	}
	var err error
	if serr := r.eng.stop(ctx, id, r.c.StopGrace); serr != nil && status(serr) != http.StatusNotFound {
		if kerr := r.eng.kill(ctx, id); kerr != nil && status(kerr) != http.StatusConflict && status(kerr) != http.StatusNotFound {
			err = r.engineError(serr, "stop the container of "+n.p.Name)
		}
	}
	for _, v := range n.rec.Veths {
		deleteLink(v)
	}
	r.nodes.Forget(n.p.NodeID, n)
	return err
}

// handBack records the owners and modes of the node's kept folders and
// gives their files to nodedesk's user (handBackScript): in the running
// container, or in a container of the image made for that if it has
// ended.
func (r *Runner) handBack(ctx context.Context, n *node, exited bool) error {
	ctx, cancel := context.WithTimeout(ctx, handBackWait)
	defer cancel()
	cmd := handBackCommand(n.vols)
	if !exited {
		code, out, err := r.eng.run(ctx, n.rec.Container, cmd...)
		if err == nil && code != 0 {
			err = fmt.Errorf("exit code %d: %s", code, strings.TrimSpace(out))
		}
		return err
	}
	s, _ := readSettings(n.p.Properties)
	id, err := r.eng.create(ctx, "", &containerConfig{
		Image: s.Image, Entrypoint: cmd, Cmd: []string{}, User: "0:0",
		NetworkDisabled: true, Labels: r.labels(n.p),
		HostConfig: hostConfig{Mounts: r.mounts(n.p.Dir, n.targets), NetworkMode: "none"},
	})
	if err != nil {
		return err
	}
	defer func() { _ = r.eng.remove(context.WithoutCancel(ctx), id) }()
	if err := r.eng.start(ctx, id); err != nil {
		return err
	}
	code, err := r.eng.wait(ctx, id)
	if err == nil && code != 0 {
		logs, _ := r.eng.logs(ctx, id, 5)
		err = fmt.Errorf("exit code %d: %s", code, strings.TrimSpace(logs))
	}
	return err
}

// Suspend freezes a node's container (Docker's pause): its processes
// stop, and with them its frames.
func (r *Runner) Suspend(nodeID string) error { return r.freeze(nodeID, true) }

// Resume thaws a suspended node's container.
func (r *Runner) Resume(nodeID string) error { return r.freeze(nodeID, false) }

// freezeWait bounds a pause or an unpause.
const freezeWait = 30 * time.Second

// freeze pauses (or unpauses) a node's container; one already so is
// fine.
func (r *Runner) freeze(nodeID string, pause bool) error {
	n, err := r.get(nodeID)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), freezeWait)
	defer cancel()
	id := n.rec.Container
	doing := "unpause the container of " + n.p.Name
	if pause {
		err, doing = r.eng.pause(ctx, id), "pause the container of "+n.p.Name
	} else {
		err = r.eng.unpause(ctx, id)
	}
	if status(err) == http.StatusConflict {
		// Already so, or not running at all: which one, the state says.
		if c, ierr := r.eng.inspect(ctx, id); ierr == nil && c.State.Running && c.State.Paused == pause {
			return nil
		}
	}
	if err != nil {
		return r.engineError(err, doing)
	}
	return nil
}

func (r *Runner) get(nodeID string) (*node, error) {
	n, ok := r.nodes.Get(nodeID)
	if !ok {
		return nil, app.Errorf(app.ECONFLICT, "The node's container is not running; start the node first")
	}
	return n, nil
}

// resetConsoles disconnects every telnet client of a node's consoles (the
// container and the listeners stay).
func (n *node) resetConsoles() {
	for _, s := range []*stream{n.console, n.aux} {
		if s != nil {
			s.con.ResetClients()
		}
	}
}
