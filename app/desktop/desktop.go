// Package desktop is the window's door: the Go methods the Wails window
// calls (bound to the page as window.go.desktop.App), and the bridge that
// forwards every committed change to the page as a "notification" event.
//
// Each binding is one line: it hands the call to the API in-process
// (Caller), so the window and REST clients share every step — contract
// check, service call, rendering, errors. desktop imports app only; main
// gives it the API server as its Caller.
package desktop

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"os/exec"
	"strings"
	"sync"

	"nodedesk/app"
)

// Caller serves one API request in-process (api.Server does).
type Caller interface {
	Call(ctx context.Context, method, path string, body []byte) (status int, resp []byte)
	RenderEvent(e app.Event) any
}

// Emitter sends an event to the page (Wails' runtime.EventsEmit).
type Emitter func(ctx context.Context, name string, data ...any)

// App is bound to the window. Its methods return what the REST API
// answers for the same call; their errors become {code, message, status}
// in the page (FormatError).
type App struct {
	call   Caller
	events *app.Broker
	emit   Emitter
	logger *slog.Logger
	// Terminal runs a console command in the user's terminal; nil uses
	// x-terminal-emulator.
	Terminal func(args ...string) error

	mu  sync.Mutex
	ctx context.Context
}

// New returns the window's door.
func New(call Caller, events *app.Broker, emit Emitter, logger *slog.Logger) *App {
	return &App{call: call, events: events, emit: emit, logger: logger}
}

// SetEmitter sets how events reach the page (runtime.EventsEmit).
func (a *App) SetEmitter(emit Emitter) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.emit = emit
}

// Startup is called by Wails when the window exists: from then on every
// committed change is forwarded to the page until ctx ends.
func (a *App) Startup(ctx context.Context) {
	a.mu.Lock()
	a.ctx = ctx
	a.mu.Unlock()
	ch, cancel := a.events.Subscribe(1024)
	emit := a.emit
	if emit == nil {
		emit = func(context.Context, string, ...any) {}
	}
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
				emit(ctx, "notification", map[string]any{"action": e.Action, "project_id": e.ProjectID, "event": a.call.RenderEvent(e)})
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

// Error is a failed call as the page sees it.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Status  int    `json:"status"`
}

func (e *Error) Error() string { return e.Message }

// FormatError turns an error into the JSON string Wails hands the page.
func FormatError(err error) any {
	e, ok := err.(*Error)
	if !ok {
		e = &Error{Code: app.EINTERNAL, Message: err.Error(), Status: 500}
	}
	b, _ := json.Marshal(e)
	return string(b)
}

// codes maps an API status back to an app error code.
var codes = map[int]string{400: app.EINVALID, 404: app.ENOTFOUND, 409: app.ECONFLICT}

// do serves one call and decodes its answer.
func (a *App) do(method, path string, body any) (any, error) {
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return nil, &Error{Code: app.EINVALID, Message: "The request could not be encoded: " + err.Error(), Status: 400}
		}
	}
	status, resp := a.call.Call(a.context(), method, path, raw)
	if status >= 400 {
		var e struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(resp, &e)
		code, ok := codes[status]
		if !ok {
			code = app.EINTERNAL
		}
		return nil, &Error{Code: code, Message: e.Message, Status: status}
	}
	if len(resp) == 0 {
		return nil, nil
	}
	var out any
	if err := json.Unmarshal(resp, &out); err != nil {
		return nil, &Error{Code: app.EINTERNAL, Message: "The answer could not be read: " + err.Error(), Status: 500}
	}
	return out, nil
}

func p(parts ...string) string {
	for i, s := range parts {
		if i%2 == 1 {
			parts[i] = url.PathEscape(s)
		}
	}
	return strings.Join(parts, "")
}

// Ready is what the page calls once it has mounted; it logs the fact, so
// that a desktop test can see that the page inside the window loaded.
func (a *App) Ready() string {
	a.logger.Info("desktop: page loaded")
	return "ready"
}

// Projects.

func (a *App) ListProjects() (any, error)          { return a.do("GET", "/v2/projects", nil) }
func (a *App) CreateProject(body any) (any, error) { return a.do("POST", "/v2/projects", body) }
func (a *App) UpdateProject(id string, body any) (any, error) {
	return a.do("PUT", p("/v2/projects/", id), body)
}
func (a *App) DeleteProject(id string) error {
	_, err := a.do("DELETE", p("/v2/projects/", id), nil)
	return err
}
func (a *App) OpenProject(id string) (any, error) {
	return a.do("POST", p("/v2/projects/", id, "/open"), nil)
}
func (a *App) CloseProject(id string) error {
	_, err := a.do("POST", p("/v2/projects/", id, "/close"), nil)
	return err
}

// Nodes.

func (a *App) ListNodes(pid string) (any, error) {
	return a.do("GET", p("/v2/projects/", pid, "/nodes"), nil)
}
func (a *App) GetNode(pid, nid string) (any, error) {
	return a.do("GET", p("/v2/projects/", pid, "/nodes/", nid), nil)
}
func (a *App) CreateNodeFromTemplate(pid, tid string, body any) (any, error) {
	return a.do("POST", p("/v2/projects/", pid, "/templates/", tid), body)
}
func (a *App) UpdateNode(pid, nid string, body any) (any, error) {
	return a.do("PUT", p("/v2/projects/", pid, "/nodes/", nid), body)
}
func (a *App) DeleteNode(pid, nid string) error {
	_, err := a.do("DELETE", p("/v2/projects/", pid, "/nodes/", nid), nil)
	return err
}
func (a *App) DuplicateNode(pid, nid string, body any) (any, error) {
	return a.do("POST", p("/v2/projects/", pid, "/nodes/", nid, "/duplicate"), body)
}

// NodeAction is start, stop, suspend or reload of one node.
func (a *App) NodeAction(pid, nid, action string) (any, error) {
	if !validAction(action) {
		return nil, &Error{Code: app.EINVALID, Message: fmt.Sprintf("Unknown action %q; use start, stop, suspend or reload", action), Status: 400}
	}
	return a.do("POST", p("/v2/projects/", pid, "/nodes/", nid, "/")+action, nil)
}

// ProjectAction is start, stop, suspend or reload of every node.
func (a *App) ProjectAction(pid, action string) error {
	if !validAction(action) {
		return &Error{Code: app.EINVALID, Message: fmt.Sprintf("Unknown action %q; use start, stop, suspend or reload", action), Status: 400}
	}
	_, err := a.do("POST", p("/v2/projects/", pid, "/nodes/")+action, nil)
	return err
}

func validAction(action string) bool {
	for _, x := range app.Actions {
		if string(x) == action {
			return true
		}
	}
	return false
}

// Links and templates.

func (a *App) ListLinks(pid string) (any, error) {
	return a.do("GET", p("/v2/projects/", pid, "/links"), nil)
}
func (a *App) CreateLink(pid string, body any) (any, error) {
	return a.do("POST", p("/v2/projects/", pid, "/links"), body)
}
func (a *App) UpdateLink(pid, lid string, body any) (any, error) {
	return a.do("PUT", p("/v2/projects/", pid, "/links/", lid), body)
}
func (a *App) DeleteLink(pid, lid string) error {
	_, err := a.do("DELETE", p("/v2/projects/", pid, "/links/", lid), nil)
	return err
}
func (a *App) ListTemplates() (any, error) { return a.do("GET", "/v2/templates", nil) }

// OpenConsole opens the user's terminal on a node's console:
// `telnet <console_host> <console>` in x-terminal-emulator (Debian's
// alternative for the desktop's terminal).
func (a *App) OpenConsole(pid, nid string) error {
	n, err := a.GetNode(pid, nid)
	if err != nil {
		return err
	}
	node, _ := n.(map[string]any)
	port, ok := node["console"].(float64)
	if !ok {
		return &Error{Code: app.EINVALID, Message: fmt.Sprintf("%v has no console", node["name"]), Status: 400}
	}
	host, _ := node["console_host"].(string)
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
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
	if err := run("telnet", host, fmt.Sprint(int(port))); err != nil {
		return &Error{Code: app.ECONFLICT, Status: 409, Message: fmt.Sprintf(
			"No terminal could be opened (%v). Install one (for example `sudo apt-get install xterm`), or connect yourself: telnet %s %d", err, host, int(port))}
	}
	return nil
}
