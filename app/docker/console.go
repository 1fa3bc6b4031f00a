package docker

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"nodedesk/app/termproc"
)

// A node's consoles, served by nodedesk in telnet to any number of
// clients (app/termproc's Console): the console is the terminal of the
// container's main process, reached through Docker's attach stream, as
// GNS3 serves it; the aux console is a shell of nodedesk's busybox run in
// the container with a terminal of its own (an exec), started again when
// it ends.

// stream is a terminal behind a console: the bytes between the console
// and a hijacked connection of the engine.
type stream struct {
	con  *termproc.Console
	conn *hijacked
	done chan struct{} // closed when the stream has ended
}

// serve copies what the terminal prints to the console's clients until
// the stream ends.
func serve(con *termproc.Console, conn *hijacked) *stream {
	s := &stream{con: con, conn: conn, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		buf := make([]byte, 4096)
		for {
			n, err := conn.Read(buf)
			if n > 0 {
				con.Output(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	return s
}

// close ends the console and its stream.
func (s *stream) close() {
	if s == nil {
		return
	}
	s.con.Close()
	s.conn.Close()
	select {
	case <-s.done:
	case <-time.After(2 * time.Second):
	}
}

// consoleGreeting is what each new client of a node's console reads
// first.
func consoleGreeting(name string) string {
	return "Console of " + name + ": the terminal of its container's main process. Press Enter if no prompt shows.\r\n"
}

// auxGreeting is what each new client of a node's aux console reads
// first.
func auxGreeting(name string) string {
	return "Shell in the container of " + name + " (aux console). Press Enter if no prompt shows.\r\n"
}

// auxShell is the aux console's command: nodedesk's busybox shell, again
// each time it ends, with the image's tools first and busybox's after.
var auxShell = []string{mountPoint + "/bin/busybox", "sh", "-c",
	`PATH="${PATH:-/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin}:` + mountPoint + `/bin"; export PATH TERM=vt100
while :; do ` + mountPoint + `/bin/busybox sh -i; done`}

// openAux starts the aux shell in container id and serves it on lns.
func (r *Runner) openAux(ctx context.Context, id, name string, lns []net.Listener) (*stream, error) {
	execID, conn, err := r.eng.exec(ctx, id, execConfig{Cmd: auxShell, User: "0", Tty: true, AttachStdin: true})
	if err != nil {
		return nil, err
	}
	q := url.Values{"h": {strconv.Itoa(termRows)}, "w": {strconv.Itoa(termCols)}}
	_ = r.eng.call(ctx, http.MethodPost, "/exec/"+execID+"/resize", q, nil, nil)
	return serve(termproc.NewConsole(lns, conn, auxGreeting(name)), conn), nil
}

// openConsole serves the terminal of container id's main process on lns.
func (r *Runner) openConsole(ctx context.Context, id, name string, lns []net.Listener) (*stream, error) {
	conn, err := r.eng.attach(ctx, id)
	if err != nil {
		return nil, err
	}
	return serve(termproc.NewConsole(lns, conn, consoleGreeting(name)), conn), nil
}

// The size of a console's terminal, as a telnet client's window starts.
const (
	termRows = 24
	termCols = 80
)

var _ io.Writer = (*hijacked)(nil)
