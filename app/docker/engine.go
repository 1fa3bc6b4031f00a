package docker

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"nodedesk/app"
)

// The Docker Engine API (docs.docker.com/engine/api), spoken over the
// engine's unix socket with net/http: the few calls nodedesk needs, no
// more (decision 0037).

// DefaultHost is where the Docker Engine listens unless DOCKER_HOST says
// otherwise.
const DefaultHost = "unix:///var/run/docker.sock"

// apiVersion is the API version nodedesk asks for when the engine serves
// it: Docker 20.10's. minAPIVersion is the oldest nodedesk accepts
// (Docker 19.03).
const (
	apiVersion    = "1.41"
	minAPIVersion = "1.40"
)

// engine is a client of one Docker Engine.
type engine struct {
	socket string // the unix socket's path
	hc     *http.Client

	mu      sync.Mutex
	version string // the API version spoken, once asked
}

// newEngine returns a client of the engine at host (a DOCKER_HOST value;
// "" is $DOCKER_HOST, else DefaultHost). Only unix sockets are spoken.
func newEngine(host string) (*engine, error) {
	if host == "" {
		host = os.Getenv("DOCKER_HOST")
	}
	if host == "" {
		host = DefaultHost
	}
	socket, ok := strings.CutPrefix(host, "unix://")
	if !ok || socket == "" {
		return nil, app.Errorf(app.ECONFLICT, "nodedesk reaches Docker only through its unix socket, and DOCKER_HOST is %q: unset DOCKER_HOST or set it to %s (a remote engine cannot give containers nodedesk's interfaces)", host, DefaultHost)
	}
	e := &engine{socket: socket}
	e.hc = &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return e.dial(ctx)
		},
		MaxIdleConns:    4,
		IdleConnTimeout: 30 * time.Second,
	}}
	return e, nil
}

func (e *engine) dial(ctx context.Context) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "unix", e.socket)
}

// apiError is an answer of the engine other than success.
type apiError struct {
	Status  int
	Message string
}

func (e *apiError) Error() string {
	return fmt.Sprintf("%s (HTTP %d)", e.Message, e.Status)
}

// status is err's HTTP status, if the engine answered it; 0 otherwise.
func status(err error) int {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.Status
	}
	return 0
}

// reachError says why the engine could not be reached and what to do.
func (e *engine) reachError(err error) error {
	switch {
	case errors.Is(err, syscall.ENOENT), errors.Is(err, syscall.ECONNREFUSED):
		return app.Errorf(app.ECONFLICT, "Docker is not running or not installed (nothing answers on %s). Install it with `sudo apt-get install docker.io`, or start it with `sudo systemctl start docker`, then try again", e.socket)
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return app.Errorf(app.ECONFLICT, "nodedesk may not use Docker's socket %s (permission denied). Add your user to the docker group with `sudo usermod -aG docker $USER`, then log out and in again and restart nodedesk", e.socket)
	case errors.Is(err, context.DeadlineExceeded):
		return app.Errorf(app.ECONFLICT, "Docker did not answer in time on %s; check that dockerd is healthy (`sudo systemctl status docker`) and try again", e.socket)
	}
	return app.Errorf(app.ECONFLICT, "Docker could not be reached on %s: %v", e.socket, err)
}

// api is the path prefix of the API version spoken, asking the engine
// which versions it serves the first time.
func (e *engine) api(ctx context.Context) (string, error) {
	e.mu.Lock()
	v := e.version
	e.mu.Unlock()
	if v != "" {
		return "/v" + v, nil
	}
	ver, err := e.Version(ctx)
	if err != nil {
		return "", err
	}
	if versionLess(ver.APIVersion, minAPIVersion) {
		return "", app.Errorf(app.ECONFLICT, "Docker %s is too old for nodedesk (its API is %s; nodedesk needs %s, Docker 19.03 or newer): upgrade Docker", ver.Version, ver.APIVersion, minAPIVersion)
	}
	v = apiVersion
	if versionLess(ver.APIVersion, v) {
		v = ver.APIVersion
	}
	if ver.MinAPIVersion != "" && versionLess(v, ver.MinAPIVersion) {
		v = ver.MinAPIVersion
	}
	e.mu.Lock()
	e.version = v
	e.mu.Unlock()
	return "/v" + v, nil
}

// versionLess compares API versions ("1.41" < "1.100").
func versionLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) || i < len(pb); i++ {
		var x, y int
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}

// request makes the request of one call: path is under the API version
// (versioned is false only for /version), body is sent as JSON.
func (e *engine) request(ctx context.Context, method, path string, q url.Values, body any, versioned bool) (*http.Request, error) {
	prefix := ""
	if versioned {
		var err error
		if prefix, err = e.api(ctx); err != nil {
			return nil, err
		}
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	u := "http://docker" + prefix + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// stream makes a call and returns its answer's body, which the caller
// closes; an answer other than 2xx is an *apiError.
func (e *engine) stream(ctx context.Context, method, path string, q url.Values, body any) (io.ReadCloser, error) {
	return e.streamVersioned(ctx, method, path, q, body, true)
}

func (e *engine) streamVersioned(ctx context.Context, method, path string, q url.Values, body any, versioned bool) (io.ReadCloser, error) {
	req, err := e.request(ctx, method, path, q, body, versioned)
	if err != nil {
		return nil, err
	}
	resp, err := e.hc.Do(req)
	if err != nil {
		return nil, e.reachError(err)
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		return nil, readAPIError(resp)
	}
	return resp.Body, nil
}

// readAPIError reads the engine's {"message": …} of an answer that is not
// a success.
func readAPIError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var m struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(b, &m) != nil || m.Message == "" {
		m.Message = strings.TrimSpace(string(b))
	}
	if m.Message == "" {
		m.Message = resp.Status
	}
	return &apiError{Status: resp.StatusCode, Message: m.Message}
}

// call makes a call and decodes its JSON answer into out (nil: drops it).
func (e *engine) call(ctx context.Context, method, path string, q url.Values, body, out any) error {
	rc, err := e.stream(ctx, method, path, q, body)
	if err != nil {
		return err
	}
	defer rc.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(rc, 1<<20))
		return nil
	}
	if err := json.NewDecoder(rc).Decode(out); err != nil {
		return fmt.Errorf("an answer of Docker to %s %s could not be read: %w", method, path, err)
	}
	return nil
}

// hijacked is a connection the engine has handed over to a raw stream
// (attach, exec): reads come from the buffered reader that read the
// answer's head.
type hijacked struct {
	net.Conn
	r *bufio.Reader
}

func (h *hijacked) Read(p []byte) (int, error) { return h.r.Read(p) }

// hijack makes a call whose connection then carries a raw stream both
// ways, as attach and exec start do.
func (e *engine) hijack(ctx context.Context, path string, q url.Values, body any) (*hijacked, error) {
	req, err := e.request(ctx, http.MethodPost, path, q, body, true)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "tcp")
	conn, err := e.dial(ctx)
	if err != nil {
		return nil, e.reachError(err)
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if err := req.Write(conn); err != nil {
		conn.Close()
		return nil, e.reachError(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		conn.Close()
		return nil, e.reachError(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols && resp.StatusCode != http.StatusOK {
		err := readAPIError(resp)
		conn.Close()
		return nil, err
	}
	if !stop() {
		conn.Close()
		return nil, e.reachError(ctx.Err())
	}
	_ = conn.SetDeadline(time.Time{})
	return &hijacked{Conn: conn, r: br}, nil
}
