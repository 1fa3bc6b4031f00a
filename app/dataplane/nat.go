package dataplane

import (
	"time"

	"nodedesk/app"
	"nodedesk/app/natgw"
)

// natEngine is the NAT node's Engine: its one port, nat0, is the lab side
// of a user-mode gateway to the host's network (app/natgw). Frames for the
// gateway go into it without waiting; what it sends enters the lab at
// nat0 from its own goroutines (Fabric.emit).
type natEngine struct {
	g *natgw.Gateway
}

// newNATEngine starts the gateway of NAT node n.
func newNATEngine(f *Fabric, n *app.Node) (Engine, error) {
	at := end{n.ID, 0, 0}
	g, err := natgw.New(natgw.Config{
		NodeID:       n.ID,
		Log:          f.log,
		Out:          func(frame []byte) { f.emit(at, frame) },
		Refused:      func(port uint16) bool { p := f.apiPort.Load(); return p != 0 && int32(port) == p },
		HostLoopback: n.AllowsHostLoopback(),
	})
	if err != nil {
		return nil, err
	}
	return &natEngine{g: g}, nil
}

// Input hands a frame arrived on nat0 to the gateway; it never blocks.
func (e *natEngine) Input(port int, frame []byte, _ *Out) {
	if port == 0 {
		e.g.Input(frame)
	}
}

// Configure applies the node's allow_host_loopback to the flows that
// start from now on (those open keep going).
func (e *natEngine) Configure(n *app.Node) { e.g.SetHostLoopback(n.AllowsHostLoopback()) }

// close stops the gateway (closer).
func (e *natEngine) close() { e.g.Close() }

// closer is an Engine that holds resources (goroutines, sockets): the
// fabric closes it when its node is deleted or the fabric closes.
type closer interface{ close() }

// emit carries a frame that an engine sends of its own accord (not in
// answer to Input) into the lab at port at.
func (f *Fabric) emit(at end, frame []byte) {
	if len(frame) == 0 || len(frame) > MaxFrame {
		return
	}
	w := f.workers.Get().(*worker)
	defer f.workers.Put(w)
	w.now = time.Now()
	w.input(at, frame)
	w.flush()
}

// SetAPIPort names the TCP port of nodedesk's API on this host, which NAT
// gateways refuse to reach through their address or the host's (the lab
// must not drive the API, even where it listens on every address or the
// NAT node allows the host's loopback). 0 refuses nothing.
func (f *Fabric) SetAPIPort(port int) { f.apiPort.Store(int32(port)) }
