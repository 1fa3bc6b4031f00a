package labtest

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"nodedesk/api"
	"nodedesk/app"
	"nodedesk/app/dataplane"
	"nodedesk/app/emulators"
	"nodedesk/app/hostnet"
	"nodedesk/app/kit"
	"nodedesk/store"
	"nodedesk/store/storetest"
)

// Options choose what runs besides the API.
type Options struct {
	// Run runs the nodes of these emulators as real processes (each
	// fails the test when this machine lacks it), with the data plane.
	Run []kit.Emulator
	// Runner is a runner of the test's own (a VPCS runner whose binary is
	// missing, say), used instead of the one app/emulators makes for the
	// types it runs; it too comes with the data plane.
	Runner app.Runner
	// DataPlane carries frames without processes: cloud tunnels,
	// switches, hubs, NAT gateways.
	DataPlane bool
	// PortFree, when set, is asked instead of hostnet.PortFree whether a
	// port is free (with processes or the data plane): a test can take a
	// port right after nodedesk found it free.
	PortFree func(network string, port int) bool
	// IdlePCBoot is how long an image's idle-PC search waits for a
	// router that shows no prompt; default 1 s (the stand-in image boots
	// in under 0.5 s).
	IdlePCBoot time.Duration
}

// The lab's runners' waits at a stop: short, since a test's stops are
// many. stopGrace is how long a process asked to end has before it is
// killed (a Dynamips router takes up to 2 s); shutdownWait how long a
// guest has to power itself off.
const (
	stopGrace    = 2 * time.Second
	shutdownWait = 30 * time.Second
)

// Lab is the real stack of one test, closed when the test ends. Its
// kit.API sends the test's requests, each answer checked by
// Server.CheckResponse.
type Lab struct {
	*kit.API
	// Runners are the runners the service was given: those of the node
	// types Options chose, made by app/emulators as main makes them.
	Runners []app.Runner
	// Env is what the runners were made with: its Programs hold what
	// Options.Run prepared (the test's Docker Engine's address…).
	Env app.RunnerEnv
	// GNS3Images stands for ~/GNS3/images: the GNS3 images folder the
	// service looks in after its own (empty at start).
	GNS3Images string
	Store      *store.Store
	Service    *app.Service
	Events     *app.Broker
	Server     *api.Server
	Fabric     *dataplane.Fabric // nil without the data plane
	cancel     context.CancelFunc
}

// Start opens the store, the service with the runners opts chooses, the
// data plane (with processes or DataPlane) and the API server on
// 127.0.0.1:0.
func Start(tb testing.TB, opts Options) *Lab {
	tb.Helper()
	env := app.RunnerEnv{ConsoleHost: "127.0.0.1", RunDir: filepath.Join(tb.TempDir(), "run"),
		Programs: map[app.NodeType]string{}, StopGrace: stopGrace, ShutdownWait: shutdownWait}
	var only []app.NodeType // the node types whose runners app/emulators makes
	for _, e := range opts.Run {
		if opts.Runner != nil && opts.Runner.Runs(e.Type) {
			continue // the test's own runs them
		}
		e.Prepare(tb, &env)
		only = append(only, e.Type)
	}
	st := storetest.Open(tb) // closed after the rest: cleanups run last first
	l := &Lab{Store: st, Env: env, GNS3Images: filepath.Join(tb.TempDir(), "GNS3", "images")}
	tb.Cleanup(func() { l.close(); leftNoLinkPorts(tb) })
	l.Events = app.NewBroker()
	if opts.Runner != nil {
		l.Runners = append(l.Runners, opts.Runner)
	}
	if len(only) > 0 { // none would make them all
		l.Runners = append(l.Runners, emulators.New(env, only...)...)
	}
	// Without processes or a data plane, ports are allocated as if this
	// machine ran nothing else (the tests name them); with them, ports
	// other programs hold are skipped, as nodedesk does.
	portFree := func(string, int) bool { return true }
	fabric := len(l.Runners) > 0 || opts.DataPlane
	if fabric {
		portFree = hostnet.PortFree("127.0.0.1")
		if opts.PortFree != nil {
			portFree = opts.PortFree
		}
	}
	if opts.IdlePCBoot == 0 {
		opts.IdlePCBoot = time.Second
	}
	// NewService makes itself the observer of each runner (exits, notes).
	l.Service = app.NewService(app.Config{
		Store: st, Events: l.Events, Runners: l.Runners, DataDir: filepath.Dir(st.Path()), PortFree: portFree,
		UDPHolder:         hostnet.UDPHolder,
		GNS3ImagesDir:     l.GNS3Images,
		IdlePCBoot:        opts.IdlePCBoot,
		NetworkInterfaces: hostnet.NetworkInterfaces,
		HostInterfaces: func() []app.HostInterface {
			return []app.HostInterface{{Name: "eth0", Type: "ethernet"}, {Name: "lo", Special: true, Type: "ethernet"}}
		},
	})
	var ctx context.Context
	ctx, l.cancel = context.WithCancel(context.Background()) // a probe Open begins ends with the lab
	if err := l.Service.OpenRunners(ctx); err != nil {       // as main does
		tb.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	if fabric {
		l.Fabric = dataplane.NewFabric("127.0.0.1", quiet)
		if err := l.Fabric.Attach(context.Background(), l.Service, l.Events); err != nil {
			tb.Fatal(err)
		}
	}
	var err error
	l.Server, err = api.NewServer(l.Service, l.Events, quiet)
	if err != nil {
		tb.Fatal(err)
	}
	if l.Fabric != nil {
		l.Server.FollowCapture = l.Fabric.FollowCapture
	}
	if err := l.Server.Open("127.0.0.1:0"); err != nil {
		tb.Fatal(err)
	}
	l.API = kit.NewAPI(tb, l.Server.URL(), l.Server.CheckResponse)
	if l.Fabric != nil {
		l.Fabric.SetAPIPort(l.APIPort()) // NAT gateways refuse it, as main does
	}
	return l
}

func (l *Lab) close() {
	if l.cancel != nil {
		l.cancel()
	}
	if l.Service != nil {
		l.Service.StopRunners()
	}
	if l.Fabric != nil {
		l.Fabric.Close()
	}
	if l.API != nil {
		// Unused connections would hold up Shutdown for 5 s.
		l.Client.CloseIdleConnections()
	}
	if l.Server != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = l.Server.Close(ctx)
	}
}

// leftNoLinkPorts fails the test when, once its lab is closed, this
// process still holds a UDP port of the links' range: a later test's link
// would be refused that port ("held by labtest.test").
func leftNoLinkPorts(tb testing.TB) {
	var held []int
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		held = hostnet.OwnUDPPorts(app.DefaultUDPPorts.From, app.DefaultUDPPorts.To)
		if len(held) == 0 {
			return
		}
		if time.Now().After(deadline) {
			break
		}
	}
	tb.Errorf("the closed lab left UDP ports %v bound in this process: something of it was not closed", held)
}

// Driver is the lab's runner of nodes of type t as the checks' host
// driver; the test fails when that runner drives no host.
func (l *Lab) Driver(tb testing.TB, t app.NodeType) app.HostDriver {
	tb.Helper()
	for _, r := range l.Runners {
		if r.Runs(t) {
			if d, ok := r.(app.HostDriver); ok {
				return d
			}
			tb.Fatalf("the %s runner is no app.HostDriver", t)
		}
	}
	tb.Fatalf("the lab runs no %s nodes", t)
	return nil
}
