package api

import (
	"crypto/subtle"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"nodedesk/app"
	"runtime/debug"
	"strconv"
	"strings"
)

// guard wraps the whole router (so it also covers unknown routes): it
// refuses requests a web page in the user's browser could forge, and turns
// a handler panic into a logged 500.
//
// Localhost is not a security boundary by itself: any web page can send
// requests to 127.0.0.1, and a DNS-rebinding page can even read answers.
// So the Host header must name the address nodedesk listens on (or
// localhost), and a state-changing request that comes from a page of
// another origin is refused. No CORS header is ever sent, so browsers keep
// foreign pages from reading answers.
type guard struct {
	next   http.Handler
	logger *slog.Logger
	// hosts are the Host header values accepted; nil accepts any (the
	// server listens on all interfaces).
	hosts map[string]bool
	// auth, when set, is required of every request.
	auth *Credentials
}

// allowHosts sets the accepted Host values for a listener on addr: its
// address, localhost, 127.0.0.1 or ::1, each with the port, or without
// it — a GNS3 controller that proxies a compute's pcap sends the compute's
// host alone. These are IP literals and localhost only, so a page of
// another site (DNS rebinding: its own name resolved to this machine)
// never passes.
func (g *guard) allowHosts(addr *net.TCPAddr) {
	if addr.IP.IsUnspecified() {
		g.hosts = nil
		return
	}
	port := strconv.Itoa(addr.Port)
	g.hosts = map[string]bool{}
	for _, h := range []string{addr.IP.String(), "localhost", "127.0.0.1", "::1"} {
		withPort := net.JoinHostPort(h, port)
		g.hosts[withPort] = true
		g.hosts[strings.TrimSuffix(withPort, ":"+port)] = true // "[::1]" for IPv6
	}
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			g.logger.Error("panic in handler", "method", r.Method, "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
			writeRefusal(w, fmt.Errorf("panic: %v", v))
		}
	}()
	if g.hosts != nil && !g.hosts[strings.ToLower(r.Host)] {
		writeRefusal(w, app.Errorf(app.EFORBIDDEN, "Host %q is not an address of this nodedesk; use %s", r.Host, g.anyHost()))
		return
	}
	if g.auth != nil && !g.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Basic realm="nodedesk", charset="UTF-8"`)
		writeRefusal(w, app.Errorf(app.EUNAUTHORIZED, "Authentication required: give the user and password nodedesk was started with (--auth-user/--auth-password)"))
		return
	}
	if !safeMethod(r.Method) {
		if err := crossSite(r); err != nil {
			writeRefusal(w, err)
			return
		}
	}
	g.next.ServeHTTP(w, r)
}

// crossSite refuses (EFORBIDDEN) a request that a page of another site
// sent: the guard's rule for state-changing requests, and the websockets'
// before they reach a node (console.go).
func crossSite(r *http.Request) error {
	if origin := r.Header.Get("Origin"); origin != "" && !sameOrigin(origin, r.Host) {
		return app.Errorf(app.EFORBIDDEN, "Requests from web pages of other sites (%s) are refused", origin)
	}
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return app.Errorf(app.EFORBIDDEN, "Requests from web pages of other sites are refused")
	}
	return nil
}

// authorized checks basic authentication in constant time.
func (g *guard) authorized(r *http.Request) bool {
	user, pass, ok := r.BasicAuth()
	userOK := subtle.ConstantTimeCompare([]byte(user), []byte(g.auth.User)) == 1
	passOK := subtle.ConstantTimeCompare([]byte(pass), []byte(g.auth.Password)) == 1
	return ok && userOK && passOK
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// sameOrigin reports whether origin is a page served by this nodedesk: the
// host the request was sent to (already checked against the listen address).
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Scheme == "http" && strings.EqualFold(u.Host, host)
}

func (g *guard) anyHost() string {
	for h := range g.hosts {
		if strings.HasPrefix(h, "127.0.0.1:") {
			return h
		}
	}
	return "the address nodedesk listens on"
}
