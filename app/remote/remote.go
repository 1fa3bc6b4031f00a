// Package remote is nodedesk's client of a remote compute (another
// nodedesk, or a GNS3 2.2.59 server): its HTTP API under /v2/compute and
// its notification websocket, kept open by a supervisor that reconnects
// with a backoff. It implements app.ComputeClient, the domain's port, and
// is the one place that knows the compute API's paths, bodies and answers
// (wire.go); main.go gives app its Dial as the app.ComputeDialer.
package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"nodedesk/app"
)

// Timeouts and backoff.
const (
	// callTimeout bounds one HTTP call to a compute.
	callTimeout = 20 * time.Second
	// connectTimeout bounds the capabilities request and the websocket
	// handshake of a connection attempt.
	connectTimeout = 5 * time.Second
	// pingEvery is how often the websocket is pinged; pingTimeout how long
	// a pong may take before the connection counts as lost.
	pingEvery   = 5 * time.Second
	pingTimeout = 5 * time.Second
	// The reconnection backoff: from minBackoff, doubling, up to
	// maxBackoff.
	minBackoff = time.Second
	maxBackoff = 30 * time.Second
)

// Bounds on what a compute's answers may make nodedesk keep or show.
const (
	// maxMessage is the most of a compute's error message put into one
	// of nodedesk's.
	maxMessage = 1 << 10
	// maxCapabilities is the largest capabilities answer kept.
	maxCapabilities = 64 << 10
)

// Client talks to one remote compute.
type Client struct {
	c       app.Compute
	http    *http.Client
	onState func(app.ComputeState)
	onEvent func(app.ComputeEvent)

	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{}
	started sync.Once

	mu    sync.Mutex
	state app.ComputeState
}

// Dial makes a client of c (an app.ComputeDialer); Start starts its
// supervisor.
func Dial(c app.Compute, onState func(app.ComputeState), onEvent func(app.ComputeEvent)) app.ComputeClient {
	// Redirects are not followed: a compute that answers 3xx could send a
	// call (a DELETE) anywhere, this nodedesk included; refusal() says so.
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	cl := &Client{c: c, http: hc, onState: onState, onEvent: onEvent, done: make(chan struct{})}
	cl.ctx, cl.cancel = context.WithCancel(context.Background())
	return cl
}

// Start starts the supervisor, once.
func (cl *Client) Start() { cl.started.Do(func() { go cl.supervise() }) }

// Close stops the supervisor (if it was started) and closes its
// connection.
func (cl *Client) Close() {
	cl.cancel()
	cl.started.Do(func() { close(cl.done) }) // never started: nothing to wait for
	<-cl.done
}

func (cl *Client) url(path string) string { return cl.c.BaseURL() + "/v2/compute" + path }

func (cl *Client) auth(h http.Header) {
	if cl.c.User != nil && *cl.c.User != "" {
		pw := ""
		if cl.c.Password != nil {
			pw = *cl.c.Password
		}
		r := &http.Request{Header: h}
		r.SetBasicAuth(*cl.c.User, pw)
	}
}

// unreachable is the error of a request that got no answer: the one
// mark (app.ErrComputeUnreachable) that tells a compute gone from one
// that refused.
func (cl *Client) unreachable(err error) error {
	return app.Unreachable("Compute %s (%s) is unreachable: %v", cl.c.Name, cl.c.BaseURL(), err)
}

// call sends one request to /v2/compute+path, body as JSON (nil: no
// body), and decodes a JSON answer into out (nil: dropped). It gives up
// after callTimeout. Errors are as app.ComputeClient says.
func (cl *Client) call(ctx context.Context, method, path string, body, out any) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	status, raw, err := cl.do(ctx, method, path, body)
	if err != nil {
		return cl.unreachable(err)
	}
	if status >= 300 {
		return cl.refusal(method, path, status, raw)
	}
	if out != nil && len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			return app.Errorf(app.ECONFLICT, "Compute %s answered %s %s with something that is not GNS3's JSON: %v", cl.c.Name, method, path, err)
		}
	}
	return nil
}

// streamBuffer is what stream holds of a stream at once.
const streamBuffer = 32 << 10

// stream sends a GET to /v2/compute+path and copies the answer to w as it
// comes, flushing w after each chunk when w can flush. The compute has
// callTimeout to answer; then the copy lasts until the compute ends the
// stream or ctx is done. Memory is bounded: one streamBuffer.
func (cl *Client) stream(ctx context.Context, path string, w io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	waiting := time.AfterFunc(callTimeout, cancel) // bounds the wait for the answer only
	req, err := http.NewRequestWithContext(ctx, "GET", cl.url(path), nil)
	if err != nil {
		return err
	}
	cl.auth(req.Header)
	resp, err := cl.http.Do(req)
	waiting.Stop()
	if err != nil {
		return cl.unreachable(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return cl.refusal("GET", path, resp.StatusCode, raw)
	}
	flush := func() {}
	if f, ok := w.(interface{ Flush() }); ok {
		flush = f.Flush
	}
	buf := make([]byte, streamBuffer)
	for {
		n, rerr := resp.Body.Read(buf)
		if n > 0 {
			if _, err := w.Write(buf[:n]); err != nil {
				return nil // the listener left
			}
			flush()
		}
		if rerr != nil {
			return nil // the compute ended the stream, or ctx is done
		}
	}
}

// do sends one request and reads the whole answer.
func (cl *Client) do(ctx context.Context, method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, cl.url(path), rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	cl.auth(req.Header)
	resp, err := cl.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	return resp.StatusCode, raw, err
}

// refusal turns a compute's error answer into an *app.Error carrying the
// compute's own message.
func (cl *Client) refusal(method, path string, status int, raw []byte) error {
	var e struct {
		Message string `json:"message"`
	}
	msg := strings.TrimSpace(string(raw))
	if json.Unmarshal(raw, &e) == nil && e.Message != "" {
		msg = e.Message
	}
	if len(msg) > maxMessage {
		msg = strings.ToValidUTF8(msg[:maxMessage], "") + "…"
	}
	code := app.ECONFLICT
	switch status {
	case http.StatusBadRequest:
		code = app.EINVALID
	case http.StatusNotFound:
		code = app.ENOTFOUND
	case http.StatusUnauthorized, http.StatusForbidden:
		msg = "Invalid auth for compute " + cl.c.Name + ": check its user and password (" + msg + ")"
	}
	if status < 400 {
		msg = fmt.Sprintf("it answered %s %s with a redirection (status %d), which nodedesk does not follow; check the compute's address", method, path, status)
	}
	return app.Errorf(code, "Compute %s: %s", cl.c.Name, msg)
}

// report hands a new state to the Service.
func (cl *Client) report(f func(st *app.ComputeState)) {
	cl.mu.Lock()
	f(&cl.state)
	st := cl.state
	cl.mu.Unlock()
	cl.onState(st)
}

// supervise connects, follows the notification stream while it lasts, and
// reconnects after a loss with a backoff, until Close.
func (cl *Client) supervise() {
	defer close(cl.done)
	backoff := minBackoff
	for cl.ctx.Err() == nil {
		connected, err := cl.session()
		if cl.ctx.Err() != nil {
			return
		}
		msg := err.Error()
		cl.report(func(st *app.ComputeState) {
			st.Connected, st.CPU, st.Memory, st.LastError = false, nil, nil, &msg
		})
		if connected {
			backoff = minBackoff
		}
		select {
		case <-cl.ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, maxBackoff)
	}
}

// session makes one connection: capabilities (the version must be
// nodedesk's), then the notification websocket, read until it fails.
// connected says whether it got that far.
func (cl *Client) session() (connected bool, err error) {
	caps, err := cl.capabilities()
	if err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(cl.ctx, connectTimeout)
	h := http.Header{}
	cl.auth(h)
	ws := strings.Replace(cl.url("/notifications/ws"), "http", "ws", 1)
	conn, resp, err := websocket.Dial(ctx, ws, &websocket.DialOptions{HTTPClient: cl.http, HTTPHeader: h})
	cancel()
	if err != nil && resp != nil && resp.StatusCode == http.StatusNotFound {
		return cl.poll(caps) // a compute without the stream: watched by its capabilities
	}
	if err != nil {
		return false, fmt.Errorf("Compute %s (%s): its notification stream cannot be opened: %v", cl.c.Name, cl.c.BaseURL(), err)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(16 << 20)
	cl.report(func(st *app.ComputeState) {
		st.Connected, st.Capabilities, st.LastError = true, caps, nil
	})
	rctx, stop := context.WithCancel(cl.ctx)
	defer stop()
	go cl.keepAlive(rctx, stop, conn)
	for {
		_, msg, err := conn.Read(rctx)
		if err != nil {
			if cl.ctx.Err() == nil && rctx.Err() != nil {
				err = errors.New("it stopped answering pings")
			}
			return true, fmt.Errorf("Compute %s (%s) was lost: %v", cl.c.Name, cl.c.BaseURL(), err)
		}
		cl.dispatch(msg)
	}
}

// poll watches a compute that has no notification stream by asking its
// capabilities every pingEvery; the first failure ends the session.
func (cl *Client) poll(caps json.RawMessage) (bool, error) {
	cl.report(func(st *app.ComputeState) {
		st.Connected, st.Capabilities, st.LastError = true, caps, nil
	})
	t := time.NewTicker(pingEvery)
	defer t.Stop()
	for {
		select {
		case <-cl.ctx.Done():
			return true, cl.ctx.Err()
		case <-t.C:
			if _, err := cl.capabilities(); err != nil {
				return true, fmt.Errorf("Compute %s (%s) was lost: %v", cl.c.Name, cl.c.BaseURL(), err)
			}
		}
	}
}

// keepAlive pings the websocket; a ping without a pong ends the session.
func (cl *Client) keepAlive(ctx context.Context, stop func(), conn *websocket.Conn) {
	t := time.NewTicker(pingEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			pctx, cancel := context.WithTimeout(ctx, pingTimeout)
			err := conn.Ping(pctx)
			cancel()
			if err != nil {
				stop()
				return
			}
		}
	}
}

// dispatch handles one notification: a ping gives the compute's usage; a
// node.updated and a log.* go to the Service, decoded (event); anything
// else is not for nodedesk.
func (cl *Client) dispatch(msg []byte) {
	var m struct {
		Action    string          `json:"action"`
		Event     json.RawMessage `json:"event"`
		ProjectID string          `json:"project_id"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return
	}
	if m.Action != "ping" {
		if ev, ok := event(m.Action, m.ProjectID, m.Event); ok {
			cl.onEvent(ev)
		}
		return
	}
	var u struct {
		CPU *float64 `json:"cpu_usage_percent"`
		Mem *float64 `json:"memory_usage_percent"`
	}
	if json.Unmarshal(m.Event, &u) == nil {
		cl.report(func(st *app.ComputeState) { st.CPU, st.Memory = u.CPU, u.Mem })
	}
}

// capabilities asks the compute what it is, as GNS3's controller does on
// connect, and refuses another version than nodedesk's.
func (cl *Client) capabilities() (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(cl.ctx, connectTimeout)
	defer cancel()
	status, raw, err := cl.do(ctx, "GET", "/capabilities", nil)
	name := cl.c.Name
	switch {
	case err != nil:
		return nil, fmt.Errorf("Cannot connect to compute %s (%s): %v", name, cl.c.BaseURL(), err)
	case status == http.StatusUnauthorized:
		return nil, fmt.Errorf("Invalid auth for compute %s: check its user and password", name)
	case status == http.StatusNotFound:
		return nil, fmt.Errorf("The server %s is not a GNS3 server or it's a 1.X server", name)
	case status != http.StatusOK:
		return nil, fmt.Errorf("Compute %s answered its capabilities with status %d", name, status)
	case len(raw) > maxCapabilities:
		return nil, fmt.Errorf("Compute %s answered capabilities of %d bytes, more than the %d nodedesk keeps", name, len(raw), maxCapabilities)
	}
	var c struct {
		Version *string `json:"version"`
	}
	if json.Unmarshal(raw, &c) != nil || c.Version == nil {
		return nil, fmt.Errorf("The server %s is not a GNS3 server", name)
	}
	if v := strings.SplitN(*c.Version, "-", 2)[0]; v != app.GNS3Version {
		return nil, fmt.Errorf("GNS3 controller version %s is not the same as compute %s version %s", app.GNS3Version, name, *c.Version)
	}
	return raw, nil
}
