package desktop_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"nodedesk/api"
	"nodedesk/app"
	"nodedesk/app/dataplane"
	"nodedesk/app/desktop"
	"nodedesk/app/hostnet"
	"nodedesk/app/kit"
	"nodedesk/store/storetest"
)

// pageConsoles records the console events the page receives, per session.
type pageConsoles struct {
	mu     sync.Mutex
	data   map[string]*bytes.Buffer
	drop   map[string]int
	closed map[string]string
	hold   chan struct{} // while non-nil and open, emitting blocks: a page that does not keep up
}

func newPageConsoles() *pageConsoles {
	return &pageConsoles{data: map[string]*bytes.Buffer{}, drop: map[string]int{}, closed: map[string]string{}}
}

func (p *pageConsoles) emit(_ context.Context, name string, data ...any) {
	id, ok := strings.CutPrefix(name, "console:")
	if !ok || len(data) != 1 {
		return
	}
	ev, ok := data[0].(desktop.ConsoleEvent)
	if !ok {
		panic(fmt.Sprintf("console event of type %T", data[0]))
	}
	p.mu.Lock()
	hold := p.hold
	p.mu.Unlock()
	if hold != nil {
		<-hold
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.data[id] == nil {
		p.data[id] = &bytes.Buffer{}
	}
	p.data[id].Write(ev.Data)
	p.drop[id] += ev.Dropped
	if ev.Closed {
		p.closed[id] = ev.Reason
	}
}

func (p *pageConsoles) seen(id string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if b := p.data[id]; b != nil {
		return b.String()
	}
	return ""
}

// waitFor waits until cond holds for what the page has, or fails.
func (p *pageConsoles) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !kit.WaitFor(10*time.Second, cond) {
		t.Fatalf("the page never got %s", what)
	}
}

func (p *pageConsoles) closedReason(id string) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.closed[id]
	return r, ok
}

// fakeConsole is a telnet console on 127.0.0.1: each client gets a prompt
// at once, and what it types is echoed.
type fakeConsole struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
	got   bytes.Buffer
	greet string
	serve func(c net.Conn) // replaces the echo
}

func newFakeConsole(t *testing.T, serve func(c net.Conn)) *fakeConsole {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeConsole{ln: ln, greet: "PC1> ", serve: serve}
	t.Cleanup(func() {
		ln.Close()
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, c := range f.conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			f.mu.Lock()
			f.conns = append(f.conns, c)
			f.mu.Unlock()
			if f.serve != nil {
				go f.serve(c)
				continue
			}
			go func() {
				_, _ = io.WriteString(c, f.greet)
				buf := make([]byte, 1024)
				for {
					n, err := c.Read(buf)
					f.mu.Lock()
					f.got.Write(buf[:n])
					f.mu.Unlock()
					if err != nil {
						return
					}
					if _, err := c.Write(buf[:n]); err != nil {
						return
					}
				}
			}()
		}
	}()
	return f
}

func (f *fakeConsole) typed() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.got.String()
}

// dial is the door's DialConsole: node "n1" of project "p1" has the fake
// console; another node is not started, an unknown one not found.
func (f *fakeConsole) dial(ctx context.Context, ref app.NodeRef) (net.Conn, error) {
	switch {
	case ref.ProjectID != "p1":
		return nil, app.Errorf(app.ENOTFOUND, "Project ID %s doesn't exist", ref.ProjectID)
	case ref.NodeID == "stopped":
		return nil, app.Errorf(app.ECONFLICT, "PC2 is not started; start it to reach its console")
	case ref.NodeID != "n1":
		return nil, app.Errorf(app.ENOTFOUND, "Node ID %s doesn't exist", ref.NodeID)
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", f.ln.Addr().String())
}

func newConsoleDoor(t *testing.T, f *fakeConsole) (*desktop.App, *pageConsoles) {
	t.Helper()
	page := newPageConsoles()
	door := desktop.New(&fakeAPI{status: 200}, app.NewBroker(), page.emit, quiet)
	door.DialConsole = f.dial
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	desktop.Start(ctx, door)
	return door, page
}

// TestConsoleSession: the window opens a node's console as a session whose
// output (the prompt sent at once included) reaches the page as its event,
// types into it in order, and closes it; the page hears the end.
func TestConsoleSession(t *testing.T) {
	f := newFakeConsole(t, nil)
	door, page := newConsoleDoor(t, f)
	if err := door.ConsoleOpen("tab-1", "p1", "n1"); err != nil {
		t.Fatal(err)
	}
	page.waitFor(t, "the prompt", func() bool { return page.seen("tab-1") == "PC1> " })
	var want strings.Builder
	for i := range 200 {
		s := fmt.Sprintf("%d ", i)
		want.WriteString(s)
		if err := door.ConsoleWrite("tab-1", s); err != nil {
			t.Fatal(err)
		}
	}
	page.waitFor(t, "the echo of what was typed, in order", func() bool { return page.seen("tab-1") == "PC1> "+want.String() })
	if f.typed() != want.String() {
		t.Errorf("the console got %q", f.typed())
	}
	// A second session of the same console is one more client.
	if err := door.ConsoleOpen("tab-2", "p1", "n1"); err != nil {
		t.Fatal(err)
	}
	page.waitFor(t, "the second prompt", func() bool { return page.seen("tab-2") == "PC1> " })

	door.ConsoleClose("tab-1")
	page.waitFor(t, "the end of tab-1", func() bool { _, ok := page.closedReason("tab-1"); return ok })
	if r, _ := page.closedReason("tab-1"); r != "closed" {
		t.Errorf("closed with reason %q", r)
	}
	if err := door.ConsoleWrite("tab-1", "x"); app.ErrorCode(err) != app.ENOTFOUND {
		t.Errorf("writing to a closed session: %v", err)
	}
	door.ConsoleClose("tab-1") // again: nothing
	if err := door.ConsoleOpen("tab-1", "p1", "n1"); err != nil {
		t.Errorf("an id is free again once its session ended: %v", err)
	}
	// A page that loads anew closes the sessions of the page before.
	door.Ready()
	page.waitFor(t, "the end of every session", func() bool {
		_, a := page.closedReason("tab-2")
		_, b := page.closedReason("tab-1")
		return a && b
	})
}

// TestConsoleSessionEnds: when the console ends the connection (the node
// stopped, its console was reset) the page hears it and the session is
// gone.
func TestConsoleSessionEnds(t *testing.T) {
	f := newFakeConsole(t, func(c net.Conn) {
		_, _ = io.WriteString(c, "bye")
		c.Close()
	})
	door, page := newConsoleDoor(t, f)
	if err := door.ConsoleOpen("s", "p1", "n1"); err != nil {
		t.Fatal(err)
	}
	page.waitFor(t, "the end", func() bool { _, ok := page.closedReason("s"); return ok })
	if r, _ := page.closedReason("s"); page.seen("s") != "bye" || r != "the console closed the connection" {
		t.Errorf("got %q, closed: %q", page.seen("s"), r)
	}
	if err := door.ConsoleWrite("s", "x"); app.ErrorCode(err) != app.ENOTFOUND {
		t.Errorf("writing to an ended session: %v", err)
	}
}

// TestConsoleOpenRefused: the API's refusals come through with their code;
// the door's own: a bad or used id, too many sessions, no dialer.
func TestConsoleOpenRefused(t *testing.T) {
	f := newFakeConsole(t, nil)
	door, _ := newConsoleDoor(t, f)
	for _, c := range []struct {
		name, id, pid, nid string
		want               string
	}{
		{"NotStarted", "a", "p1", "stopped", app.ECONFLICT},
		{"UnknownNode", "a", "p1", "nx", app.ENOTFOUND},
		{"UnknownProject", "a", "px", "n1", app.ENOTFOUND},
		{"EmptyID", "", "p1", "n1", app.EINVALID},
		{"BadID", "a b", "p1", "n1", app.EINVALID},
		{"LongID", strings.Repeat("a", 65), "p1", "n1", app.EINVALID},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := door.ConsoleOpen(c.id, c.pid, c.nid); app.ErrorCode(err) != c.want {
				t.Errorf("ConsoleOpen = %v, want code %s", err, c.want)
			}
		})
	}
	if err := door.ConsoleOpen("a", "p1", "n1"); err != nil {
		t.Fatalf("the refused id is free: %v", err)
	}
	if err := door.ConsoleOpen("a", "p1", "n1"); app.ErrorCode(err) != app.EINVALID || app.ErrorField(err) != "id" {
		t.Errorf("an id in use: %v", err)
	}
	for i := 1; i < desktop.MaxConsoleSessions; i++ {
		if err := door.ConsoleOpen(fmt.Sprint("s", i), "p1", "n1"); err != nil {
			t.Fatal(err)
		}
	}
	if err := door.ConsoleOpen("one-too-many", "p1", "n1"); app.ErrorCode(err) != app.ECONFLICT {
		t.Errorf("past %d sessions: %v", desktop.MaxConsoleSessions, err)
	}
	bare := desktop.New(&fakeAPI{status: 200}, app.NewBroker(), nil, quiet)
	if err := bare.ConsoleOpen("a", "p1", "n1"); app.ErrorCode(err) != app.ECONFLICT {
		t.Errorf("no DialConsole: %v", err)
	}
}

// TestConsoleSlowPage: a page that does not keep up never holds the
// console up: the console writes on, the output the page has not taken is
// bounded, and the page learns how much it missed.
func TestConsoleSlowPage(t *testing.T) {
	const total = 4 << 20
	door, page := newConsoleDoor(t, newFakeConsole(t, nil))
	// A console with no buffer of its own between it and the door (a pipe,
	// unlike a socket): its write ends only once the door has read it all.
	wrote := make(chan error, 1)
	door.DialConsole = func(context.Context, app.NodeRef) (net.Conn, error) {
		door, console := net.Pipe()
		go func() {
			_ = console.SetWriteDeadline(time.Now().Add(10 * time.Second))
			_, err := console.Write(bytes.Repeat([]byte("x"), total))
			wrote <- err
		}()
		return door, nil
	}
	hold := make(chan struct{})
	page.hold = hold // the page takes nothing for now
	if err := door.ConsoleOpen("s", "p1", "n1"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-wrote:
		if err != nil {
			t.Fatalf("the console could not write: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a page that takes nothing held the console up")
	}
	page.mu.Lock()
	page.hold = nil
	page.mu.Unlock()
	close(hold)
	page.waitFor(t, "every byte, shown or counted as dropped", func() bool {
		page.mu.Lock()
		defer page.mu.Unlock()
		return page.data["s"] != nil && page.data["s"].Len()+page.drop["s"] == total
	})
	page.mu.Lock()
	defer page.mu.Unlock()
	// The page gets what the door held: 256 KiB, the event it was
	// emitting when the page stopped taking them, and the console's last
	// read (the console's write returns once the door has read it, which
	// may be before the door has buffered it: it can land in the room the
	// first event taken after the release leaves).
	if got := page.data["s"].Len(); got > 256<<10+2*32<<10 || page.drop["s"] == 0 {
		t.Errorf("the page got %d bytes and %d dropped: the buffer is not bounded", got, page.drop["s"])
	}
}

// TestConsoleSwitch: through the real API server's DialConsole, the
// window reaches an Ethernet switch's console and uses its shell.
func TestConsoleSwitch(t *testing.T) {
	events := app.NewBroker()
	svc := app.NewService(app.Config{Store: storetest.Open(t), Events: events, DataDir: t.TempDir(), ConsoleHost: "127.0.0.1", PortFree: hostnet.PortFree("127.0.0.1")})
	fabric := dataplane.NewFabric("127.0.0.1", quiet)
	t.Cleanup(fabric.Close)
	if err := fabric.Attach(context.Background(), svc, events); err != nil {
		t.Fatal(err)
	}
	srv, err := api.NewServer(svc, events, quiet)
	if err != nil {
		t.Fatal(err)
	}
	page := newPageConsoles()
	door := desktop.New(srv, events, page.emit, quiet)
	door.DialConsole = srv.DialConsole
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	desktop.Start(ctx, door)

	_, p := call(t, door, "POST", "/v2/projects", map[string]any{"name": "lab"})
	pid := p["project_id"].(string)
	status, sw := call(t, door, "POST", "/v2/projects/"+pid+"/nodes", map[string]any{"node_type": "ethernet_switch", "name": "Sw1", "console_type": "telnet"})
	if status != 201 {
		t.Fatalf("switch: %d %v", status, sw)
	}
	if err := door.ConsoleOpen("sw", pid, sw["node_id"].(string)); err != nil {
		t.Fatal(err)
	}
	page.waitFor(t, "the switch prompt", func() bool { return strings.Contains(page.seen("sw"), "Sw1> ") })
	if err := door.ConsoleWrite("sw", "show vlan\r"); err != nil {
		t.Fatal(err)
	}
	page.waitFor(t, "show vlan", func() bool { return strings.Contains(page.seen("sw"), "Ethernet7") })
	_, pc := call(t, door, "POST", "/v2/projects/"+pid+"/nodes", map[string]any{"node_type": "vpcs", "name": "PC1"})
	if err := door.ConsoleOpen("pc", pid, pc["node_id"].(string)); app.ErrorCode(err) != app.ECONFLICT {
		t.Errorf("the console of a stopped VPCS: %v", err)
	}
}

// TestConsoleSessionAux: the window opens a node's aux console (a
// Docker node's shell) through DialAux, as a session like any other; a
// window without DialAux says it cannot.
func TestConsoleSessionAux(t *testing.T) {
	f := newFakeConsole(t, nil)
	door, page := newConsoleDoor(t, f)
	door.DialConsole = nil // the aux console is reached through DialAux only
	door.DialAux = f.dial
	if err := door.ConsoleOpenAux("aux-1", "p1", "n1"); err != nil {
		t.Fatal(err)
	}
	page.waitFor(t, "the aux console's output", func() bool { return page.seen("aux-1") == "PC1> " })
	if err := door.ConsoleOpenAux("aux-2", "p1", "stopped"); app.ErrorCode(err) != app.ECONFLICT {
		t.Errorf("aux console of a stopped node: %v", err)
	}
	bare := desktop.New(&fakeAPI{status: 200}, app.NewBroker(), nil, quiet)
	if err := bare.ConsoleOpenAux("a", "p1", "n1"); app.ErrorCode(err) != app.ECONFLICT {
		t.Errorf("no DialAux: %v", err)
	}
}
