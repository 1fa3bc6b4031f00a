package api

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"nodedesk/app"
)

// fakeVNC is a TCP server that speaks the first steps of RFB as a QEMU
// guest's VNC server does: it takes one client, sends its protocol
// version, reads the client's, then sends what it is given and closes.
type fakeVNC struct {
	port   int
	client chan []byte // the version the client sent
	then   chan []byte // what to send next, before closing
}

func startFakeVNC(t *testing.T) *fakeVNC {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeVNC{port: ln.Addr().(*net.TCPAddr).Port, client: make(chan []byte, 1), then: make(chan []byte, 1)}
	done := make(chan struct{})
	t.Cleanup(func() {
		ln.Close()
		close(f.then)
		<-done
	})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		ln.Close() // one client; then the port answers no more
		if err != nil {
			return
		}
		defer c.Close()
		if _, err := c.Write([]byte("RFB 003.008\n")); err != nil {
			return
		}
		b := make([]byte, 12)
		if _, err := io.ReadFull(c, b); err != nil {
			return
		}
		f.client <- b
		if more, ok := <-f.then; ok {
			_, _ = c.Write(more)
		}
	}()
	return f
}

// mustStartVNCNode makes a QEMU node whose VNC console is port, recorded
// as started (no QEMU runs in this package's tests: the store holds the
// status a runner would have recorded).
func (ts *testServer) mustStartVNCNode(pid string, port int) string {
	ts.tb.Helper()
	nid := ts.MustCreateNode(pid, map[string]any{"node_type": "qemu", "name": "vm1", "console_type": "vnc", "console": port})["node_id"].(string)
	err := ts.st.Update(func(tx app.Tx) error {
		n, err := tx.Node(pid, nid)
		if err != nil {
			return err
		}
		n.Status = app.Started
		return tx.PutNode(n)
	})
	if err != nil {
		ts.tb.Fatal(err)
	}
	return nid
}

func dialVNC(ctx context.Context, ts *testServer, path string, header http.Header) (*websocket.Conn, *http.Response, error) {
	return websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+path, &websocket.DialOptions{HTTPHeader: header})
}

func TestConsoleVNC(t *testing.T) {
	vnc := startFakeVNC(t)
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	nid := ts.mustStartVNCNode(pid, vnc.port)
	stopped := ts.MustCreateNode(pid, map[string]any{"node_type": "qemu", "name": "vm2", "console_type": "vnc"})["node_id"].(string)
	telnet := ts.MustCreateNode(pid, map[string]any{"node_type": "qemu", "name": "vm3"})["node_id"].(string)
	path := func(nid string) string { return "/v2/projects/" + pid + "/nodes/" + nid + "/console/vnc" }
	upgrade := http.Header{"Upgrade": {"websocket"}, "Connection": {"Upgrade"}, "Sec-Websocket-Version": {"13"}, "Sec-Websocket-Key": {"dGhlIHNhbXBsZSBub25jZQ=="}}

	// Refused before the upgrade, with the contract's JSON error.
	for _, tt := range []struct {
		name, path  string
		header      http.Header
		wantStatus  int
		wantMessage string
	}{
		{"PlainGET", path(nid), nil, 400, "WebSocket endpoint"},
		{"ErrConflictStopped", path(stopped), upgrade, 409, "vm2 is stopped; start it"},
		{"ErrConflictTelnet", path(telnet), upgrade, 409, "vm3 has no VNC console; give it console type vnc"},
		{"ErrNotFound", path(uuid.NewString()), upgrade, 404, "doesn't exist"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := ts.DoWith("GET", tt.path, nil, tt.header).Want(t, tt.wantStatus)
			if msg, _ := r.JSON(t)["message"].(string); !strings.Contains(msg, tt.wantMessage) {
				t.Errorf("message %q; want it to contain %q", msg, tt.wantMessage)
			}
		})
	}

	// A page of another site is refused before anything reaches the node
	// (the fake server's one client is RelaysRFB's).
	t.Run("ErrForbiddenOtherOrigin", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c, res, err := dialVNC(ctx, ts, path(nid), http.Header{"Origin": {"http://evil.example"}})
		if err == nil {
			c.CloseNow()
		}
		if err == nil || res == nil || res.StatusCode != http.StatusForbidden {
			t.Fatalf("a websocket from another site's page was not refused: %v", err)
		}
	})

	t.Run("RelaysRFB", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, _, err := dialVNC(ctx, ts, path(nid), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.CloseNow()
		// The server's version comes as binary messages.
		var got bytes.Buffer
		for got.Len() < 12 {
			typ, b, err := c.Read(ctx)
			if err != nil {
				t.Fatalf("reading the server's version: %v (so far %q)", err, got.String())
			}
			if typ != websocket.MessageBinary {
				t.Errorf("message of type %v; want binary", typ)
			}
			got.Write(b)
		}
		if got.String() != "RFB 003.008\n" {
			t.Fatalf("server version %q; want RFB 003.008", got.String())
		}
		// The client's bytes reach the server unchanged.
		if err := c.Write(ctx, websocket.MessageBinary, []byte("RFB 003.008\n")); err != nil {
			t.Fatal(err)
		}
		if b := <-vnc.client; string(b) != "RFB 003.008\n" {
			t.Fatalf("the server read %q; want the client's version", b)
		}
		// Bytes that are not text pass as they are; the server's close
		// ends the websocket normally.
		init := []byte{0x00, 0x00, 0x00, 0x01, 0xff, 0x00, 0x80}
		vnc.then <- init
		got.Reset()
		for {
			_, b, err := c.Read(ctx)
			if err != nil {
				if websocket.CloseStatus(err) != websocket.StatusNormalClosure {
					t.Errorf("websocket ended with %v; want a normal closure", err)
				}
				break
			}
			got.Write(b)
		}
		if !bytes.Equal(got.Bytes(), init) {
			t.Errorf("relayed %x; want %x", got.Bytes(), init)
		}
	})

	t.Run("ErrConflictNotAnswering", func(t *testing.T) {
		// The fake server has gone: its port answers no more.
		r := ts.DoWith("GET", path(nid), nil, upgrade).Want(t, 409)
		if msg, _ := r.JSON(t)["message"].(string); !strings.Contains(msg, "The VNC server of vm1 does not answer") {
			t.Errorf("message %q; want it to say the VNC server does not answer", msg)
		}
	})
}

// TestConsoleVNC_Auth: the VNC websocket is behind the same credentials as
// every route.
func TestConsoleVNC_Auth(t *testing.T) {
	ts := mustOpenServerWith(t, testOptions{auth: &Credentials{User: "lab", Password: "s3cret"}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, res, err := dialVNC(ctx, ts, "/v2/projects/"+uuid.NewString()+"/nodes/"+uuid.NewString()+"/console/vnc", nil)
	if err == nil {
		c.CloseNow()
	}
	if err == nil || res == nil || res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a websocket without credentials was not refused: %v", err)
	}
}
