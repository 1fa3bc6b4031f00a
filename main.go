// Command nodedesk keeps network labs (projects and their nodes) in a bbolt
// store and serves them through a GNS3 /v2-compatible REST API on
// localhost. main only wires the pieces: flags -> store.Open ->
// app.NewService -> api.Server.Open, then waits for a signal.
package main

import (
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"nodedesk/api"
	"nodedesk/app"
	"nodedesk/app/dataplane"
	"nodedesk/app/desktop"
	"nodedesk/app/emulators"
	"nodedesk/app/hostnet"
	"nodedesk/app/remote"
	"nodedesk/store"
)

// ui is the built frontend (frontend/dist, made by `make build`); a clone
// that has not built it holds only .gitkeep, and the server then says how.
//
//go:embed all:frontend/dist
var ui embed.FS

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// shutdownGrace bounds how long in-flight requests may take at shutdown.
const shutdownGrace = 10 * time.Second

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		var status exitStatus
		if errors.As(err, &status) { // nodedesk check has said why
			os.Exit(int(status))
		}
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "nodedesk:", err)
			os.Exit(1)
		}
	}
}

// cliOptions are the command-line settings.
type cliOptions struct {
	headless bool
	listen   string
	db       string
	auth     *api.Credentials
	udpPorts app.PortRange
}

func parseFlags(args []string, stdout, stderr io.Writer) (cliOptions, error) {
	var o cliOptions
	fs := flag.NewFlagSet("nodedesk", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned, usage is printed once below
	fs.BoolVar(&o.headless, "headless", false, "serve the REST API only, with no window")
	fs.StringVar(&o.listen, "listen", "127.0.0.1:3080", "address of the REST API (`host:port`)")
	fs.StringVar(&o.db, "db", defaultDB(), "the store `file`; created with its folder if missing")
	config := fs.String("config", defaultConfig(), "optional configuration `file` (key = value lines: listen, db, auth_user, auth_password, udp_ports)")
	user := fs.String("auth-user", "", "require HTTP basic authentication with this `user`")
	password := fs.String("auth-password", "", "the `password` of --auth-user (better kept in the configuration file)")
	udpPorts := fs.String("udp-ports", app.DefaultUDPPorts.String(), "the `FROM-TO` range of UDP ports for links and NIOs (two nodedesks on one machine need disjoint ranges)")
	showVersion := fs.Bool("version", false, "print the version and exit")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: nodedesk [--headless] [--listen ADDR] [--db PATH] [--config FILE] [--auth-user USER --auth-password PASSWORD] [--udp-ports FROM-TO] [--version] [--help]\n\n"+
			"nodedesk keeps your network labs and serves them on a GNS3 v2-compatible REST API.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fs.Usage()
			return o, err
		}
		return o, fmt.Errorf("%v; see nodedesk --help", err)
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q; see nodedesk --help", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	conf, err := readConfig(*config, set["config"])
	if err != nil {
		return o, err
	}
	for key, dst := range map[string]*string{"listen": &o.listen, "db": &o.db, "auth-user": user, "auth-password": password, "udp-ports": udpPorts} {
		if v, ok := conf[strings.ReplaceAll(key, "-", "_")]; ok && !set[key] {
			*dst = v
		}
	}
	// The data folder is absolute, whatever the current folder: the
	// emulators' processes run in their nodes' folders, and Dynamips is
	// told its folders by path (issue 38).
	if o.db, err = filepath.Abs(o.db); err != nil {
		return o, fmt.Errorf("--db %q: %v", o.db, err)
	}
	if (*user == "") != (*password == "") {
		return o, errors.New("basic authentication needs both a user and a password (--auth-user and --auth-password, or auth_user and auth_password in the configuration file)")
	}
	if *user != "" {
		o.auth = &api.Credentials{User: *user, Password: *password}
	}
	if o.udpPorts, err = app.ParsePortRange(*udpPorts); err != nil {
		return o, fmt.Errorf("--udp-ports: %v", err)
	}
	if _, _, err := net.SplitHostPort(o.listen); err != nil {
		return o, fmt.Errorf("--listen %q is not host:port (for example 127.0.0.1:3080)", o.listen)
	}
	if *showVersion {
		fmt.Fprintf(stdout, "nodedesk %s (GNS3 API %s)\n", version, api.GNS3Version)
		return o, flag.ErrHelp
	}
	return o, nil
}

// defaultDB is $XDG_DATA_HOME/nodedesk/nodedesk.db, else
// ~/.local/share/nodedesk/nodedesk.db.
func defaultDB() string {
	dir := os.Getenv("XDG_DATA_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = "."
		}
		dir = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(dir, "nodedesk", "nodedesk.db")
}

// gns3ImagesDir is GNS3's images folder, ~/GNS3/images, whose QEMU, IOS
// and IOU subfolders nodedesk also looks in ("" without a home folder).
func gns3ImagesDir() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, "GNS3", "images")
}

// loopbackOnly reports whether a listen host keeps the API on this machine.
func loopbackOnly(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func run(args []string, stdout, stderr io.Writer) error {
	// Catch signals first, so that one arriving at any point of start-up
	// leads to a clean shutdown rather than the default of dying at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(args) > 0 && args[0] == "check" { // nodedesk check (check_cli.go)
		return checkCommand(ctx, args[1:], stdout, stderr)
	}
	o, err := parseFlags(args, stdout, stderr)
	if err != nil {
		return err
	}
	return serve(ctx, o, stderr, nil)
}

// serve runs nodedesk with o until ctx ends, logging to logw; ready, when
// set, is told the API's URL once it serves.
func serve(ctx context.Context, o cliOptions, logw io.Writer, ready func(url string)) error {
	logger := slog.New(slog.NewTextHandler(logw, nil))

	st, err := store.Open(o.db)
	if err != nil {
		return err
	}
	defer st.Close()

	host, apiPort, _ := net.SplitHostPort(o.listen)
	local := loopbackOnly(host)
	if host == "" {
		host = "0.0.0.0" // all interfaces: clients use the address they reached us on
	}
	events := app.NewBroker()
	// Every emulator's runner, made in one loop (app/emulators).
	runners := emulators.New(app.RunnerEnv{ConsoleHost: host, RunDir: filepath.Join(filepath.Dir(o.db), "run"), Logger: logger})
	svc := app.NewService(app.Config{
		Store:       st,
		Events:      events,
		DataDir:     filepath.Dir(o.db),
		ConsoleHost: host,
		Runners:     runners, // observed by the service from here on
		// This machine's interfaces and free ports (app/hostnet).
		HostInterfaces:    hostnet.Interfaces,
		NetworkInterfaces: hostnet.NetworkInterfaces,
		PortFree:          hostnet.PortFree(host),
		UDPHolder:         hostnet.UDPHolder,
		Computes:          remote.Dial, // remote computes' clients (app/remote)
		UDPPorts:          o.udpPorts,
		Logger:            logger,
		// Images: GNS3's folder after nodedesk's own.
		GNS3ImagesDir: gns3ImagesDir(),
	})
	defer svc.CloseComputes()
	defer svc.StopRunners()                      // nothing is left running, whatever happened
	if err := svc.OpenRunners(ctx); err != nil { // what a killed nodedesk left running
		logger.Error("the processes a previous nodedesk left could not all be looked for", "err", err)
	}
	if done, err := svc.FinishRestores(ctx); err != nil { // what a crash kept of a restore's files from following its records
		logger.Error("snapshot restores cut short could not all be finished", "err", err, "projects", done)
	} else if len(done) > 0 {
		logger.Warn("finished the file swaps of snapshot restores cut short", "projects", done)
	}
	if removed, err := svc.SweepDebris(ctx); err != nil { // what a crash left of imports and uploads
		logger.Error("the leftovers of interrupted imports and uploads could not all be removed", "err", err, "removed", removed)
	} else if len(removed) > 0 {
		logger.Warn("removed the leftovers of interrupted imports and uploads", "paths", removed)
	}
	if err := errors.Join(svc.ReconcileStatuses(ctx), svc.ReconcileCaptures(ctx)); err != nil {
		return err
	}
	fabric := dataplane.NewFabric("127.0.0.1", logger)
	defer fabric.Close()
	if p, err := strconv.Atoi(apiPort); err == nil {
		fabric.SetAPIPort(p) // NAT gateways refuse it, from the first one started
	}
	if err := fabric.Attach(ctx, svc, events); err != nil {
		return err
	}
	if faultHook != nil { // only in a build for the browser tests (faulthook.go)
		faultHook(ctx, svc, fabric, logger)
	}
	srv, err := api.NewServer(svc, events, logger)
	if err != nil {
		return err
	}
	srv.Auth = o.auth
	srv.FollowCapture = fabric.FollowCapture
	srv.UI, _ = fs.Sub(ui, "frontend/dist")
	if err := svc.StartComputes(ctx); err != nil {
		logger.Error("remote computes not connected", "err", err)
	}
	if err := srv.Open(o.listen); err != nil {
		return err
	}
	if u, err := url.Parse(srv.URL()); err == nil { // the port bound, when --listen asked for any (:0)
		if p, err := strconv.Atoi(u.Port()); err == nil {
			fabric.SetAPIPort(p)
		}
	}
	if !local {
		logger.Warn("the API is reachable from other machines; use --listen 127.0.0.1:PORT to keep it local", "listen", o.listen)
	}
	logger.Info("nodedesk is serving", "url", srv.URL(), "store", o.db, "version", version)
	if ready != nil {
		ready(srv.URL())
	}

	if o.headless {
		<-ctx.Done()
	} else {
		door := desktop.New(srv, events, nil, logger)
		door.FollowCapture = fabric.FollowCapture // OpenCapture feeds Wireshark from the data plane
		door.DialConsole = srv.DialConsole        // the window's console tabs
		door.DialAux = srv.DialAux
		door.Viewer = svc.AttachViewer // the window keeps auto_close projects open
		if err := runWindow(ctx, door, srv.UI, logger); err != nil {
			logger.Warn(err.Error() + "; serving the API headless until Ctrl+C")
			<-ctx.Done()
		}
	}
	logger.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err = srv.Close(sctx)
	if perr := svc.StopProcesses(sctx); perr != nil {
		logger.Error("stopping the running nodes", "err", perr)
	}
	return err
}
