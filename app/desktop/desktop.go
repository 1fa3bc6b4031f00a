// Package desktop is the window's door: the Go methods the Wails window
// calls (bound to the page as window.go.desktop.App), and the bridge that
// forwards every committed change to the page as a "notification" event.
//
// The page has one binding for the whole API, Call (CallGesture is the same
// call as part of a gesture of the user, for the project's history): it
// hands a request to the REST router in-process (API.Call) and gives the
// page the answer — status and body — exactly as HTTP would, errors
// included. So the list of operations is written once, in api/openapi.json
// (the page's typed client is generated from it), and the window and REST
// clients share every step: contract check, service call, rendering, error
// codes. The other bindings are the window's own actions: Ready,
// OpenConsole, OpenCapture, the console sessions (ConsoleOpen,
// ConsoleWrite, ConsoleClose) and the project files behind the native file
// dialogs (OpenProjectFile, ImportProjectFile, ExportProject:
// projectfile.go). What they need of the API they ask as typed questions
// (API): app values and app errors, no JSON read back in Go.
// desktop imports app only; main gives it the API server as its API and
// DialConsole, and the data plane's capture stream as FollowCapture.
package desktop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"

	"nodedesk/app"
)

// API is the REST API as the window reaches it in-process (api.Server).
// Call and RenderEvent are the page's transport; the other methods are the
// questions of the window's own actions, typed: they answer app values and
// fail with app errors (*app.Error, or an internal error), so that nothing
// the window reads of an answer is decoded from JSON, and a renamed field
// fails to compile rather than reading as zero.
type API interface {
	// Call serves one request as HTTP would, and returns its status and
	// JSON body.
	Call(ctx context.Context, method, path string, body []byte) (status int, resp []byte)
	// RenderEvent is an event's payload as the notification streams
	// send it.
	RenderEvent(e app.Event) any
	// ShowNode is a node and where it runs: its console's port and host
	// as its view shows them.
	ShowNode(ctx context.Context, ref app.NodeRef) (*app.Node, app.NodeShown, error)
	// FindLink is a link of a project.
	FindLink(ctx context.Context, projectID, linkID string) (*app.Link, error)
	// FindProject is a project.
	FindProject(ctx context.Context, id string) (*app.Project, error)
	// LoadProject opens a .gns3 file of this machine (POST
	// /v2/projects/load).
	LoadProject(ctx context.Context, path string) (*app.Project, error)
	// ImportProject makes project id, named name, from a portable project
	// (POST /v2/projects/{id}/import?name=…).
	ImportProject(ctx context.Context, id, name string, body io.Reader) (*app.Project, error)
	// ExportProject is a project as a .gns3project archive (GET
	// /v2/projects/{id}/export), to read once and close.
	ExportProject(ctx context.Context, id string, snapshots, resetMACs, images bool) (io.ReadCloser, error)
}

// Emitter sends an event to the page (Wails' runtime.EventsEmit).
type Emitter func(ctx context.Context, name string, data ...any)

// App is bound to the window. Wails binds every exported method of App to
// the page, so App has exactly the page's methods (Call, CallGesture, Ready,
// OpenConsole, OpenCapture, the console sessions' ConsoleOpen,
// ConsoleWrite and ConsoleClose: console.go, and the project files'
// OpenProjectFile, ImportProjectFile and ExportProject: projectfile.go);
// the window's lifecycle is the package function Start, and its settings
// are fields.
type App struct {
	api    API
	events *app.Broker
	logger *slog.Logger
	// Emit sends events to the page; set it before Start. Nil drops them.
	Emit Emitter
	// Terminal runs a console command in the user's terminal; nil uses
	// x-terminal-emulator.
	Terminal func(args ...string) error
	// FollowCapture writes a link's capture file to w from its start and
	// then as it grows, until the capture stops or ctx ends (the data
	// plane's Fabric.FollowCapture); it fails with app.ECONFLICT when the
	// link is not capturing. Nil: OpenCapture only gives the file's path.
	FollowCapture func(ctx context.Context, linkID string, w io.Writer) error
	// Wireshark starts a packet viewer reading a pcap stream from stdin;
	// nil runs `wireshark -k -i -` (see Viewer).
	Wireshark Viewer
	// DialConsole connects to a node's telnet console as one more client
	// of it (the API server's DialConsole); the console sessions relay it
	// to the page. Nil: the window has no console tabs.
	DialConsole func(ctx context.Context, ref app.NodeRef) (net.Conn, error)
	// DialAux connects to a node's aux console likewise (the API
	// server's DialAux); nil: the window opens none.
	DialAux func(ctx context.Context, ref app.NodeRef) (net.Conn, error)
	// Dialogs are the native Open and Save dialogs of the project files;
	// without them OpenProjectFile and ExportProject say so.
	Dialogs Dialogs
	// NewID names an imported project; nil: a random UUID.
	NewID func() string
	// Viewer counts the window as a viewer of nodedesk's projects
	// (app.Service.AttachViewer): while it is open no auto_close project
	// is closed, whichever project it shows. Nil: the window counts as
	// none.
	Viewer func() (detach func())
	// QuitWindow closes the window (Wails' runtime.Quit), which Quit
	// calls; nil: Quit only lets the next close through (closing.go).
	QuitWindow func()

	close closing
	mu    sync.Mutex
	ctx   context.Context
	cons  consoles
}

// New returns the window's door onto api.
func New(api API, events *app.Broker, emit Emitter, logger *slog.Logger) *App {
	return &App{api: api, events: events, Emit: emit, logger: logger}
}

// Start is called when the window exists (Wails' OnStartup): from then on
// every committed change is forwarded to the page until ctx ends, and calls
// run under ctx. It is a function, not a method, so that the page cannot
// call it.
//
// From Start on the window is a viewer (Viewer) for as long as nodedesk
// runs: it is never detached, since closing the window ends nodedesk, whose
// shutdown stops the nodes and leaves every project as it is, rather than
// closing the auto_close ones a moment later.
func Start(ctx context.Context, a *App) {
	a.mu.Lock()
	a.ctx = ctx
	a.mu.Unlock()
	if a.Viewer != nil {
		_ = a.Viewer() // never detached: see above
	}
	ch, cancel := a.events.Subscribe(1024)
	emit := a.emitter()
	go func() {
		defer func() { cancel() }() // the current subscription
		for {
			select {
			case <-ctx.Done():
				return
			case e, ok := <-ch:
				if !ok {
					emit(ctx, "notification", map[string]any{"action": "resync"})
					ch, cancel = a.events.Subscribe(1024) // dropped for lagging: the page reloads its data
					continue
				}
				if e.Action.Internal() || e.ComputeOnly() {
					continue // the data plane's (nio.*) or a GNS3 controller's (log.*), not the page's; a remote compute's log.*, relayed, is
				}
				emit(ctx, "notification", map[string]any{"action": e.Action, "project_id": e.ProjectID, "event": a.api.RenderEvent(e)})
			}
		}
	}()
}

func (a *App) context() context.Context {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ctx == nil {
		return context.Background()
	}
	return a.ctx
}

// CallResult is one answer of the API as the page receives it: the HTTP
// status and the body (JSON text, or empty), unchanged.
type CallResult struct {
	Status int    `json:"status"`
	Body   string `json:"body"`
}

// Call serves one request of the REST API in-process: method, path (with
// its query, under /v2/) and the JSON body ("" for none). Every answer of
// the API, errors included, is a CallResult with the status and body HTTP
// would have; Call itself fails only when the request is not one for the
// API (an *app.Error, which the page receives through FormatError). The
// project's history shows the changes it makes as the window's.
func (a *App) Call(method, path, body string) (CallResult, error) {
	return a.CallGesture("", method, path, body)
}

// CallGesture is Call as part of one gesture of the user (a drag of a
// selection, a paste): consecutive changes of one project with the same
// gesture id are one history entry, undone as a whole — what the header
// X-Nodedesk-Gesture is to REST clients. An empty id is no gesture.
func (a *App) CallGesture(gesture, method, path, body string) (CallResult, error) {
	if !strings.HasPrefix(path, "/v2/") {
		return CallResult{}, app.Errorf(app.EINVALID, "The window calls only the API, whose paths start with /v2/; %q is not one", path)
	}
	src, err := app.ParseSource(string(app.OriginWindow), gesture)
	if err != nil {
		return CallResult{}, err
	}
	var raw []byte
	if body != "" {
		raw = []byte(body)
	}
	status, resp := a.serve(src, method, path, raw)
	return CallResult{Status: status, Body: string(resp)}, nil
}

// serve hands one request to the API in-process, as the window's (src:
// its origin and gesture, for the project's history).
func (a *App) serve(src app.Source, method, path string, body []byte) (int, []byte) {
	return a.api.Call(app.WithSource(a.context(), src), method, path, body)
}

// window is the source of the door's own questions: the window's, no
// gesture.
var window = app.Source{Origin: app.OriginWindow}

// asking is the context of the window's own questions to the API: the
// window's, from the window (for the project's history).
func (a *App) asking() context.Context {
	return app.WithSource(a.context(), window)
}

// pageError is an error as the page receives it from a binding: the
// message, the app code and, when the fault is in one field, its path. It
// has no HTTP status: a binding's own failure made no HTTP answer.
type pageError struct {
	Message string `json:"message"`
	Code    string `json:"code"`
	Field   string `json:"field,omitempty"`
}

// FormatError turns a binding's error into the JSON text Wails hands the
// page (Wails' ErrorFormatter). Errors other than *app.Error are internal.
func FormatError(err error) any {
	b, _ := json.Marshal(pageError{Message: app.ErrorMessage(err), Code: app.ErrorCode(err), Field: app.ErrorField(err)})
	return string(b)
}

// Ready is what the page calls once it has mounted; it logs the fact, so
// that a desktop test can see that the page inside the window loaded. A
// page that loads anew has no console sessions: those of the page before
// it are closed.
func (a *App) Ready() string {
	a.closeConsoles()
	a.logger.Info("desktop: page loaded")
	return "ready"
}

// emitter is a.Emit, or one that drops events when it is nil.
func (a *App) emitter() Emitter {
	if a.Emit == nil {
		return func(context.Context, string, ...any) {}
	}
	return a.Emit
}

// OpenConsole opens the user's terminal on a node's telnet console:
// `telnet <console_host> <console>` in x-terminal-emulator (Debian's
// alternative for the desktop's terminal). When no terminal can be opened,
// or the console is not telnet, it fails with app.ECONFLICT and says how
// to connect instead.
func (a *App) OpenConsole(pid, nid string) error {
	n, at, err := a.api.ShowNode(a.asking(), app.NodeRef{ProjectID: pid, NodeID: nid})
	if err != nil {
		return err
	}
	if at.Console == 0 || n.ConsoleType == app.ConsoleNone {
		return app.Invalid("console", "%s has no console; give it a console type first", n.Name)
	}
	host := app.DialHost(at.ConsoleHost)
	if n.ConsoleType != app.ConsoleTelnet {
		return app.Errorf(app.ECONFLICT, "The window opens telnet consoles only; connect to the %s console of %s at %s port %d yourself",
			n.ConsoleType, n.Name, host, at.Console)
	}
	run := a.Terminal
	if run == nil {
		run = func(args ...string) error {
			cmd := exec.Command("x-terminal-emulator", append([]string{"-e"}, args...)...)
			if err := cmd.Start(); err != nil {
				return err
			}
			go func() { _ = cmd.Wait() }()
			return nil
		}
	}
	if err := run("telnet", host, fmt.Sprint(at.Console)); err != nil {
		return app.Errorf(app.ECONFLICT,
			"No terminal could be opened (%v). Install one (for example `sudo apt-get install xterm`), or connect yourself: telnet %s %d", err, host, at.Console)
	}
	return nil
}

// Viewer starts a packet viewer that reads a pcap stream from stdin, and
// returns once it runs; exited is closed when it has ended. It owns stdin
// and closes it (also when it fails). It fails with an error wrapping
// exec.ErrNotFound when the viewer is not installed.
type Viewer func(stdin io.ReadCloser) (exited <-chan struct{}, err error)

// runWireshark is the Viewer of the desktop: `wireshark -k -i -`, as GNS3
// opens a live capture (-k: capture at once, -i -: from stdin).
func runWireshark(stdin io.ReadCloser) (<-chan struct{}, error) {
	defer stdin.Close() // the child has its own copy; ours must go, so that writes fail once it exits
	path, err := exec.LookPath("wireshark")
	if err != nil {
		return nil, err // wraps exec.ErrNotFound
	}
	cmd := exec.Command(path, "-k", "-i", "-")
	cmd.Stdin = stdin
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	return exited, nil
}

// CaptureView is what OpenCapture did: Opened when Wireshark shows the
// link's capture live; otherwise Reason says why not and what to do, and
// Path is the capture file to open instead.
type CaptureView struct {
	Opened   bool   `json:"opened"`
	FileName string `json:"file_name"`
	Path     string `json:"path"`
	Reason   string `json:"reason,omitempty"`
}

// OpenCapture opens Wireshark on a link's running capture, fed from the
// capture stream (the file from its start, then as it grows) until the
// capture stops, when Wireshark keeps what it got. When Wireshark cannot
// be started (not installed, or no data plane to stream from), the view is
// not Opened and names the file to open instead. It fails with the API's
// error when the link cannot be read, and with app.ECONFLICT when the link
// is not capturing.
func (a *App) OpenCapture(pid, lid string) (CaptureView, error) {
	l, err := a.api.FindLink(a.asking(), pid, lid)
	if err != nil {
		return CaptureView{}, err
	}
	if !l.Capturing || l.CaptureFilePath == nil {
		return CaptureView{}, notCapturing()
	}
	v := CaptureView{Path: *l.CaptureFilePath}
	if l.CaptureFileName != nil {
		v.FileName = *l.CaptureFileName
	}
	if a.FollowCapture == nil {
		v.Reason = fmt.Sprintf("This nodedesk has no capture stream to feed Wireshark; open %s in Wireshark yourself", v.Path)
		return v, nil
	}
	if err := a.openViewer(lid); err != nil {
		if app.ErrorCode(err) == app.ECONFLICT {
			return CaptureView{}, err
		}
		if errors.Is(err, exec.ErrNotFound) {
			v.Reason = fmt.Sprintf("Wireshark is not installed: install it (sudo apt-get install wireshark) and try again, or open %s in a capture viewer", v.Path)
		} else {
			a.logger.Warn("desktop: starting Wireshark", "err", err)
			v.Reason = fmt.Sprintf("Wireshark could not be started (%v); open %s in a capture viewer yourself", err, v.Path)
		}
		return v, nil
	}
	v.Opened = true
	return v, nil
}

func notCapturing() error {
	return app.Errorf(app.ECONFLICT, "This link is not capturing; start a capture first, then open it in Wireshark")
}

// openViewer feeds a viewer's stdin from the capture stream of link lid.
// The stream is started first, so that a capture that stopped meanwhile is
// an app.ECONFLICT and no viewer is started; then the viewer. The stream
// ends when the capture stops (the viewer reads the end of its input and
// keeps what it got), when the viewer exits, or when the window closes.
func (a *App) openViewer(lid string) error {
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(a.context())
	started := make(chan struct{})
	ended := make(chan error, 1)
	go func() {
		defer cancel()
		err := a.FollowCapture(ctx, lid, &firstWrite{w: pw, started: started})
		_ = pw.Close() // the viewer reads the end of the capture
		ended <- err
	}()
	select {
	case <-started:
	case err := <-ended:
		select {
		case <-started: // it began and has ended already: the viewer reads what it wrote
		default:
			_ = pr.Close()
			if err == nil || app.ErrorCode(err) == app.ECONFLICT {
				return notCapturing()
			}
			return err
		}
	}
	run := a.Wireshark
	if run == nil {
		run = runWireshark
	}
	exited, err := run(pr)
	if err != nil {
		_ = pr.Close() // the viewer should have; a second Close is harmless
		cancel()
		return err
	}
	go func() {
		select {
		case <-exited: // the user closed it: stop streaming
			cancel()
		case <-ctx.Done():
		}
	}()
	return nil
}

// firstWrite tells when the stream has begun: started is closed when the
// first Write is called (before it completes, as a pipe may block until
// the viewer reads).
type firstWrite struct {
	w       io.Writer
	started chan struct{}
	once    bool
}

func (f *firstWrite) Write(p []byte) (int, error) {
	if !f.once {
		f.once = true
		close(f.started)
	}
	return f.w.Write(p)
}
