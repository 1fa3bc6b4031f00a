package api

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"time"

	"nodedesk/app"
)

// GNS3Version is the GNS3 server version nodedesk answers to; GNS3 clients
// compare it with their own before anything else.
const GNS3Version = app.GNS3Version

// Server is the REST API on one listener. Set its exported fields before
// Open.
type Server struct {
	// Auth, when set, requires HTTP basic authentication on every route,
	// websockets included.
	Auth *Credentials
	// Timeouts bound slow clients; zero fields take DefaultTimeouts.
	Timeouts Timeouts
	// UI is the built frontend served at /; nil serves a page that says
	// how to build it.
	UI fs.FS
	// FollowCapture streams a link's running capture file from its start
	// and as it grows, until the capture ends (the data plane's); an
	// error is returned before anything is written. nil: this nodedesk has
	// no data plane and GET …/pcap answers 409.
	FollowCapture func(ctx context.Context, linkID string, w io.Writer) error

	svc    *app.Service
	events *app.Broker
	logger *slog.Logger
	// cache holds encoded node answers (cache.go).
	cache *renderCache
	// closing is closed when the server shuts down, to end the streams.
	closing  chan struct{}
	contract *contract
	handler  http.Handler
	ln       net.Listener
	srv      *http.Server
	guard    *guard
}

// Credentials are the user name and password of HTTP basic authentication.
type Credentials struct {
	User, Password string
}

// Timeouts bound how long a client may take: to send its request headers,
// to send a whole request, and to stay idle between requests.
type Timeouts struct {
	ReadHeader, Read, Idle time.Duration
}

// DefaultTimeouts keep slow or stalled clients (slow-loris) from holding
// connections.
var DefaultTimeouts = Timeouts{ReadHeader: 10 * time.Second, Read: time.Minute, Idle: 2 * time.Minute}

// NewServer returns a Server for svc, whose changes events carries to the
// notification streams; call Open to start serving.
func NewServer(svc *app.Service, events *app.Broker, logger *slog.Logger) (*Server, error) {
	ct, err := loadContract()
	if err != nil {
		return nil, err
	}
	s := &Server{svc: svc, events: events, logger: logger, contract: ct, closing: make(chan struct{}), cache: newRenderCache()}
	events.OnPublish(s.cache.apply)
	router, err := s.routes()
	if err != nil {
		return nil, err
	}
	s.guard = &guard{next: router, logger: logger}
	s.handler = s.guard
	return s, nil
}

// Open binds addr (host:port; port 0 picks a free one) and serves in the
// background. Its error names the address and the problem.
func (s *Server) Open(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		var oe *net.OpError
		if errors.As(err, &oe) && oe.Err != nil {
			err = oe.Err
		}
		return fmt.Errorf("cannot listen on %s: %v; stop the program using it or choose another address with --listen", addr, err)
	}
	s.ln = ln
	s.guard.allowHosts(ln.Addr().(*net.TCPAddr))
	s.guard.auth = s.Auth
	t := s.Timeouts
	d := DefaultTimeouts
	s.srv = &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: cmp.Or(t.ReadHeader, d.ReadHeader),
		ReadTimeout:       cmp.Or(t.Read, d.Read),
		IdleTimeout:       cmp.Or(t.Idle, d.Idle),
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn),
	}
	s.srv.RegisterOnShutdown(func() { close(s.closing) })
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.logger.Error("server stopped", "err", err)
		}
	}()
	return nil
}

// URL is the base URL the server answers on, e.g. http://127.0.0.1:3080
// (a listener on all interfaces is reached through 127.0.0.1 here).
func (s *Server) URL() string {
	if s.ln == nil {
		return ""
	}
	addr := *s.ln.Addr().(*net.TCPAddr)
	if addr.IP.IsUnspecified() {
		addr.IP = net.IPv4(127, 0, 0, 1)
	}
	return "http://" + addr.String()
}

// Close stops accepting connections and waits, until ctx ends, for
// in-flight requests to finish.
func (s *Server) Close(ctx context.Context) error {
	if s.srv == nil {
		return nil
	}
	return s.srv.Shutdown(ctx)
}
