package vpcs

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"nodedesk/app"
	"nodedesk/app/telnet"
)

// proc is one running simulator and its console.
type proc struct {
	r        *Runner
	p        app.Process
	cmd      *exec.Cmd
	tty      *os.File // the pseudo-terminal's master side
	lns      []net.Listener
	cmdline  string
	up       chan struct{} // closed at the first output
	upOnce   sync.Once
	done     chan struct{} // closed once the process has exited and all is closed
	stopping atomic.Bool

	mu      sync.Mutex
	clients map[*client]struct{}
	tail    []byte     // the last output, for the exit message
	wmu     sync.Mutex // serialises writes to the terminal
}

// tailSize bounds the output kept for the exit message.
const tailSize = 2048

func newProc(r *Runner, p app.Process, cmd *exec.Cmd, tty *os.File, lns []net.Listener, cmdline string) *proc {
	return &proc{r: r, p: p, cmd: cmd, tty: tty, lns: lns, cmdline: cmdline,
		up: make(chan struct{}), done: make(chan struct{}), clients: map[*client]struct{}{}}
}

// run starts the goroutines: terminal output to the clients, one accept
// loop per listener, and the supervisor that cleans up at exit.
func (pr *proc) run() {
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		buf := make([]byte, 4096)
		for {
			n, err := pr.tty.Read(buf)
			if n > 0 {
				pr.upOnce.Do(func() { close(pr.up) })
				pr.output(buf[:n])
			}
			if err != nil {
				return // EIO once the process is gone
			}
		}
	}()
	for _, ln := range pr.lns {
		go pr.accept(ln)
	}
	go func() {
		err := pr.cmd.Wait()
		pr.mu.Lock()
		pr.tail = append(pr.tail, []byte(exitText(err))...)
		pr.mu.Unlock()
		closeAll(pr.lns)
		pr.tty.Close()
		select {
		case <-readerDone:
		case <-time.After(2 * time.Second):
		}
		pr.mu.Lock()
		for c := range pr.clients {
			c.close()
		}
		pr.mu.Unlock()
		close(pr.done)
		pr.r.ended(pr)
	}()
}

func exitText(err error) string {
	if err == nil {
		return "\n(VPCS exited, return code 0)"
	}
	if ee, ok := err.(*exec.ExitError); ok {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Sprintf("\n(VPCS was ended by signal %v)", ws.Signal())
		}
		return fmt.Sprintf("\n(VPCS exited, return code %d)", ee.ExitCode())
	}
	return "\n(" + err.Error() + ")"
}

// exitDetail is the last output and the exit status, on one line.
func (pr *proc) exitDetail() string {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	s := strings.Join(strings.Fields(string(pr.tail)), " ")
	if len(s) > 300 {
		s = "…" + s[len(s)-300:]
	}
	return s
}

// output sends terminal output to every client and keeps its tail.
func (pr *proc) output(b []byte) {
	msg := telnet.EscapeIAC(b)
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.tail = append(pr.tail, b...)
	if len(pr.tail) > tailSize {
		pr.tail = pr.tail[len(pr.tail)-tailSize:]
	}
	for c := range pr.clients {
		c.send(msg)
	}
}

// input writes what a client typed to the terminal.
func (pr *proc) input(b []byte) {
	pr.wmu.Lock()
	defer pr.wmu.Unlock()
	_, _ = pr.tty.Write(b)
}

func (pr *proc) accept(ln net.Listener) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return // closed when the process ends
		}
		c := newClient(pr, conn)
		pr.mu.Lock()
		select {
		case <-pr.done:
			pr.mu.Unlock()
			conn.Close()
			return
		default:
		}
		pr.clients[c] = struct{}{}
		pr.mu.Unlock()
		go c.serve()
	}
}

// resetClients disconnects every client of the console.
func (pr *proc) resetClients() {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	for c := range pr.clients {
		c.close()
	}
}

func (pr *proc) drop(c *client) {
	pr.mu.Lock()
	delete(pr.clients, c)
	pr.mu.Unlock()
}

// stop ends the process politely, then by force, and waits until it and
// its console are gone.
func (pr *proc) stop(grace time.Duration) {
	pr.stopping.Store(true)
	_ = pr.cmd.Process.Signal(syscall.SIGCONT) // a suspended process must run to exit
	_ = pr.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-pr.done:
		return
	case <-time.After(grace):
	}
	_ = pr.cmd.Process.Kill()
	select {
	case <-pr.done:
	case <-time.After(10 * time.Second):
		pr.r.c.Logger.Error("a VPCS process did not end after SIGKILL", "node", pr.p.Name, "pid", pr.cmd.Process.Pid)
	}
}
