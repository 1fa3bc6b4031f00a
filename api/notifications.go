package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/gorilla/mux"

	"nodedesk/app"
)

// Notification streams, as GNS3 clients read them: a project stream
// (node.*, link.* and drawing.* of one project, and nodedesk's
// history.updated and check.run.updated, a whole app.CheckRun as it goes,
// which GNS3 clients ignore) and the controller stream
// (project.*, compute.* and template.*), each as a chunked HTTP response
// of one JSON object a line and as a websocket of one JSON text message
// each. Every stream opens with a ping and pings again after pingEvery
// without events.

// pingEvery is the idle interval between pings.
const pingEvery = 5 * time.Second

// writeWait bounds one write to a listener; a listener that cannot take a
// message in that time is dropped.
const writeWait = 5 * time.Second

// subscriberBuffer is how many events a listener may lag behind before it
// is dropped (the Broker never blocks a writer).
const subscriberBuffer = 256

// notification is one message on the wire. ProjectID is set on the
// compute stream only, where GNS3 puts a project event's project at the
// top level.
type notification struct {
	Action    app.EventAction `json:"action"`
	Event     any             `json:"event"`
	ProjectID string          `json:"project_id,omitempty"`
}

// filter picks the events a stream carries.
type filter func(app.Event) bool

// stream is what one listener asked for.
type stream struct {
	carries filter
	// controller streams also report the local compute with each ping,
	// as GNS3's controller reports its computes.
	controller bool
	// compute is the compute stream a GNS3 controller reads
	// (/v2/compute/notifications/ws): node.updated as compute views.
	compute bool
	// project is the project of a project stream, whose listener it
	// counts (app.Service.ListenProject: auto_close); "" for the others.
	project string
	// viewer is a controller stream of a UI of nodedesk (?viewer=true),
	// counted as a viewer (app.Service.AttachViewer: auto_close).
	viewer bool
}

func projectFilter(projectID string) filter {
	return func(e app.Event) bool {
		return e.ProjectID == projectID && !e.Action.ProjectWide() && !e.Action.Internal() && !e.ComputeOnly()
	}
}

func controllerFilter(e app.Event) bool {
	return e.Action.ProjectWide() || e.Action.AboutCompute() || e.Action.AboutTemplate()
}

// computeFilter picks what a compute tells its controller: the changes of
// nodes that have a compute view. Never a controller's events (link.*,
// project.*, node.created…): a GNS3 controller passes actions it does not
// know on to its GUI clients. Nor the nodes this nodedesk's own
// controller runs on other computes: they are not this compute's.
func computeFilter(e app.Event) bool {
	if e.Action.ComputeOnly() {
		return e.ComputeOnly() // never a log.* relayed from a remote compute
	}
	n, ok := e.Payload.(*app.Node)
	return ok && e.Action == app.EventNodeUpdated && n.Type.HasComputeView() && !n.Remote()
}

// streamOf resolves the project of a project stream (404 before any
// streaming starts) or returns the controller stream.
func (s *Server) streamOf(r *http.Request) (stream, error) {
	if strings.HasPrefix(r.URL.Path, "/v2/compute/") {
		return stream{carries: computeFilter, compute: true}, nil
	}
	id, ok := mux.Vars(r)["project_id"]
	if !ok {
		viewer := r.URL.Query().Get("viewer")
		if viewer != "" && viewer != "true" && viewer != "false" {
			return stream{}, app.Invalid("viewer", "viewer is true or false, not %q", viewer)
		}
		return stream{carries: controllerFilter, controller: true, viewer: viewer == "true"}, nil
	}
	p, err := s.svc.FindProjectByID(r.Context(), id)
	if err != nil {
		return stream{}, err
	}
	return stream{carries: projectFilter(p.ID), project: p.ID}, nil
}

// pump subscribes, then hands sendJSON a ping and every matching event,
// each encoded once, until the listener leaves (ctx), lags, fails a write,
// or the server shuts down.
func (s *Server) pump(ctx context.Context, st stream, sendJSON func([]byte) error) {
	send := func(m notification) error {
		b, err := json.Marshal(m)
		if err != nil {
			return err
		}
		return sendJSON(b)
	}
	events, cancel := s.events.Subscribe(subscriberBuffer)
	defer cancel()
	leave := func() {}
	switch {
	case st.project != "":
		leave = s.svc.ListenProject(st.project)
	case st.viewer:
		leave = s.svc.AttachViewer()
	}
	defer func() {
		select {
		case <-s.closing: // shutting down: the projects stay as they are
		default:
			leave()
		}
	}()
	ping := func() error {
		cpu, mem := hostUsage()
		err := send(notification{Action: "ping", Event: map[string]float64{"cpu_usage_percent": cpu, "memory_usage_percent": mem}})
		if err == nil && st.controller {
			err = send(notification{Action: app.EventComputeUpdated, Event: s.localCompute(cpu, mem)})
		}
		return err
	}
	if ping() != nil {
		return
	}
	t := time.NewTimer(pingEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.closing:
			return
		case <-t.C:
			if ping() != nil {
				return
			}
		case e, ok := <-events:
			if !ok {
				return // lagged too far behind: dropped by the Broker
			}
			if !st.carries(e) {
				continue
			}
			m := notification{Action: e.Action, Event: s.eventJSON(e)}
			if n, ok := e.Payload.(*app.Node); ok && st.compute {
				m = notification{Action: e.Action, Event: s.computeJSON(n), ProjectID: e.ProjectID}
			} else if st.compute {
				m.ProjectID = e.ProjectID
			}
			if send(m) != nil {
				return
			}
		}
		t.Reset(pingEvery)
	}
}

// handleNotificationStream serves a stream as chunked HTTP.
func (s *Server) handleNotificationStream(w http.ResponseWriter, r *http.Request) error {
	st, err := s.streamOf(r)
	if err != nil {
		return err
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{}) // the stream outlives the server's read timeout
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	s.pump(r.Context(), st, func(b []byte) error {
		_ = rc.SetWriteDeadline(time.Now().Add(writeWait))
		if _, err := w.Write(append(b, '\n')); err != nil {
			return err
		}
		return rc.Flush()
	})
	return nil
}

// handleNotificationWS serves a stream as a websocket. Messages from the
// client are read and ignored.
func (s *Server) handleNotificationWS(w http.ResponseWriter, r *http.Request) error {
	if err := requireWebSocket(r, "GET "+strings.TrimSuffix(r.URL.Path, "/ws")+" for a line-per-event HTTP stream"); err != nil {
		return err
	}
	st, err := s.streamOf(r)
	if err != nil {
		return err
	}
	c := acceptWebSocket(w, r)
	if c == nil {
		return nil // Accept has answered the client
	}
	defer c.CloseNow()
	ctx := c.CloseRead(r.Context())
	s.pump(ctx, st, func(b []byte) error {
		wctx, cancel := context.WithTimeout(ctx, writeWait)
		defer cancel()
		return c.Write(wctx, websocket.MessageText, b)
	})
	c.Close(websocket.StatusNormalClosure, "")
	return nil
}
