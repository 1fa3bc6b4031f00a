package termproc

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/creack/pty"
)

// Options describe one process to start.
type Options struct {
	// Program names the simulator in messages ("VPCS", "QEMU").
	Program string
	// Node names the node in messages and logs.
	Node string
	// OnExit is called once the process has ended and its console is
	// closed, with whether Stop ended it (false: it ended by itself).
	OnExit func(p *Proc, stopped bool)
	// Pipes gives the process pipes for its standard input and output
	// (its errors merged into the output) instead of a terminal, as GNS3
	// runs IOU: such a simulator echoes what it reads itself.
	Pipes bool
	// BootPrompt, if set, tells the line the console shows once the
	// simulator has booted: it is matched against the last line of its
	// output (what follows the last newline, its escape sequences
	// removed) after each read. Nil: its first output. Booted is closed
	// when it matches.
	BootPrompt *regexp.Regexp
	// BootPhrase, if set, is a phrase that also tells the boot wherever
	// it shows in the output, even with lines after it (a Cisco image's
	// "Press RETURN to get started!", followed by its log messages).
	BootPhrase *regexp.Regexp
	Logger     *slog.Logger
}

// Proc is one running simulator and its console.
type Proc struct {
	o        Options
	cmd      *exec.Cmd
	tty      *os.File // what the console reads: the pseudo-terminal's master side, or the output pipe
	in       *os.File // what the console writes to: tty, or the input pipe
	con      *Console
	up       chan struct{} // closed at the first output
	upOnce   sync.Once
	boot     *BootSign     // its Booted is closed when the boot prompt appears, or at the end
	done     chan struct{} // closed once the process has exited and all is closed
	stopping atomic.Bool
}

// tailSize bounds the output kept for the exit message.
const tailSize = 2048

// Start runs cmd on a new 80×24 pseudo-terminal (or on pipes: o.Pipes),
// in its own session, and serves its console on lns (which it closes when
// the process ends). The process gets SIGTERM if nodedesk dies without
// stopping it.
func Start(cmd *exec.Cmd, lns []net.Listener, o Options) (*Proc, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
	var out, in *os.File
	var err error
	if o.Pipes {
		out, in, err = startPiped(cmd)
	} else {
		out, err = pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 80}) // pty adds Setsid, Setctty
		in = out
	}
	if err != nil {
		return nil, err
	}
	p := &Proc{o: o, cmd: cmd, tty: out, in: in, con: NewConsole(lns, in, ""),
		up: make(chan struct{}), boot: NewBootSign(o.BootPrompt, o.BootPhrase), done: make(chan struct{})}
	p.run()
	return p, nil
}

// startPiped starts cmd in its own session with a pipe for its input and
// one for its output and errors; it returns our ends of them.
func startPiped(cmd *exec.Cmd) (out, in *os.File, err error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, outW
	cmd.SysProcAttr.Setsid = true
	err = cmd.Start()
	inR.Close() // the child's ends: ours are closed when it ends
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, nil, err
	}
	return outR, inW, nil
}

// Pid is the process id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Up is closed at the process's first output.
func (p *Proc) Up() <-chan struct{} { return p.up }

// Booted is closed once the console has shown its boot prompt
// (Options.BootPrompt; its first output without one), or once the
// process has ended: see Done for which.
func (p *Proc) Booted() <-chan struct{} { return p.boot.Booted() }

// Done is closed once the process has ended and its console is closed.
func (p *Proc) Done() <-chan struct{} { return p.done }

// run starts the goroutines: terminal output to the clients, one accept
// loop per listener, and the supervisor that cleans up at exit.
func (p *Proc) run() {
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		buf := make([]byte, 4096)
		for {
			n, err := p.tty.Read(buf)
			if n > 0 {
				p.upOnce.Do(func() { close(p.up) })
				p.boot.Seen(buf[:n])
				p.con.Output(buf[:n])
			}
			if err != nil {
				return // EIO once the process is gone
			}
		}
	}()
	go func() {
		err := p.cmd.Wait()
		// What it wrote before it ended is read to the end first: a
		// crash's last words are there, and closing the terminal
		// before would drop them. (A child of its own holding the
		// output open would keep it from ending: 2 s at most.)
		select {
		case <-readerDone:
		case <-time.After(2 * time.Second):
		}
		p.con.mu.Lock()
		p.con.keep([]byte(p.exitText(err)))
		p.con.mu.Unlock()
		CloseAll(p.con.lns)
		p.tty.Close()
		if p.in != p.tty {
			p.in.Close()
		}
		p.con.Close()
		close(p.done)
		p.boot.End() // nothing more to wait for
		stopped := p.stopping.Load()
		if !stopped {
			p.o.Logger.Warn("a process stopped by itself", "program", p.o.Program, "node", p.o.Node, "detail", p.ExitDetail())
		}
		if p.o.OnExit != nil {
			p.o.OnExit(p, stopped)
		}
	}()
}

func (p *Proc) exitText(err error) string {
	if err == nil {
		return fmt.Sprintf("\n(%s exited, return code 0)", p.o.Program)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Sprintf("\n(%s was ended by signal %v)", p.o.Program, ws.Signal())
		}
		return fmt.Sprintf("\n(%s exited, return code %d)", p.o.Program, ee.ExitCode())
	}
	return "\n(" + err.Error() + ")"
}

// ExitDetail is the last output and the exit status, on one line.
func (p *Proc) ExitDetail() string {
	s := strings.Join(strings.Fields(string(p.con.Tail())), " ")
	if len(s) > 300 {
		s = "…" + s[len(s)-300:]
	}
	return s
}

// State is how the process ended; nil until it has.
func (p *Proc) State() *os.ProcessState {
	select {
	case <-p.done:
		return p.cmd.ProcessState
	default:
		return nil
	}
}

// Tail is the last output of the process (at most 2 KiB).
func (p *Proc) Tail() []byte { return p.con.Tail() }

// ResetClients disconnects every client of the console.
func (p *Proc) ResetClients() { p.con.ResetClients() }

// Signal sends sig to the process.
func (p *Proc) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }

// MarkStopping says that the process is being ended on purpose: its end
// is not reported as a failure.
func (p *Proc) MarkStopping() { p.stopping.Store(true) }

// Stop ends the process: SIGTERM, then SIGKILL after grace; it waits
// until it and its console are gone.
func (p *Proc) Stop(grace time.Duration) {
	p.MarkStopping()
	_ = p.cmd.Process.Signal(syscall.SIGCONT) // a suspended process must run to exit
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return
	case <-time.After(grace):
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL) // its session's group, children included
	_ = p.cmd.Process.Kill()
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.o.Logger.Error("a process did not end after SIGKILL", "program", p.o.Program, "node", p.o.Node, "pid", p.cmd.Process.Pid)
	}
}

// Listen opens a console's listeners on port, on ConsoleHosts(apiHost).
func Listen(apiHost string, port int) ([]net.Listener, error) {
	var lns []net.Listener
	for _, h := range ConsoleHosts(apiHost) {
		ln, err := net.Listen("tcp", net.JoinHostPort(h, strconv.Itoa(port)))
		if err != nil {
			CloseAll(lns)
			return nil, &ListenError{Host: h, Err: cause(err)}
		}
		lns = append(lns, ln)
	}
	return lns, nil
}

// ListenError says which address of a console could not be opened.
type ListenError struct {
	Host string
	Err  error
}

func (e *ListenError) Error() string { return fmt.Sprintf("on %s: %v", e.Host, e.Err) }

// ConsoleHosts are the addresses a console listens on: 127.0.0.1 and the
// API's own host (all interfaces if the API listens on all).
func ConsoleHosts(apiHost string) []string {
	switch apiHost {
	case "", "0.0.0.0", "::":
		return []string{""}
	case "127.0.0.1", "localhost":
		return []string{"127.0.0.1"}
	}
	if ip := net.ParseIP(apiHost); ip != nil && ip.IsLoopback() {
		return []string{apiHost}
	}
	return []string{"127.0.0.1", apiHost}
}

// CloseAll closes listeners.
func CloseAll(lns []net.Listener) {
	for _, ln := range lns {
		ln.Close()
	}
}

func cause(err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err
	}
	return err
}

// bootWatch finds a boot prompt in a stream of output, across reads.
type bootWatch struct {
	prompt *regexp.Regexp
	phrase *regexp.Regexp // matched anywhere in the output (nil: none)
	line   []byte         // the last line so far, without its escape sequences
	prev   []byte         // the end of the output before, for a phrase split across reads
	done   bool
}

// BootSign finds a boot prompt (and phrase) in a stream of output and
// closes its Booted channel then, or at End: a Proc's (Options.BootPrompt
// and BootPhrase), or that of a runner that serves the console of a
// process it does not start through Start. Seen is called by one reader.
type BootSign struct {
	w      bootWatch
	booted chan struct{}
	once   sync.Once
}

// NewBootSign returns a BootSign for the prompt (matched on the last
// line of output, as Options.BootPrompt; nil: the first output) and the
// phrase (anywhere, as Options.BootPhrase; nil: none).
func NewBootSign(prompt, phrase *regexp.Regexp) *BootSign {
	return &BootSign{w: bootWatch{prompt: prompt, phrase: phrase}, booted: make(chan struct{})}
}

// Seen reports whether the output b, after what was given before, shows
// the boot, the first time only; Booted is closed then.
func (s *BootSign) Seen(b []byte) bool {
	if !s.w.seen(b) {
		return false
	}
	s.End()
	return true
}

// Booted is closed once the boot was seen, or at End.
func (s *BootSign) Booted() <-chan struct{} { return s.booted }

// End closes Booted (the process ended: there is nothing more to wait for).
func (s *BootSign) End() { s.once.Do(func() { close(s.booted) }) }

// escapes are the terminal's control sequences (a shell's cursor
// position query follows its prompt) and carriage returns.
var escapes = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][0-9A-Za-z]|\r`)

// Plain is a terminal's output b as text: without its control sequences
// and carriage returns. Busybox's shell, for one, follows its prompt with
// a cursor position query ("guest# \x1b[6n"), so a prompt is matched on
// what Plain leaves.
func Plain(b []byte) []byte { return escapes.ReplaceAll(b, nil) }

// maxLine bounds the last line kept.
const maxLine = 256

// seen reports whether the output b, after what was read before, ends
// with the prompt (or is the first output, without one), the first time.
func (w *bootWatch) seen(b []byte) bool {
	if w.done {
		return false
	}
	if w.phrase != nil {
		text := Plain(append(w.prev, b...))
		if w.phrase.Match(text) {
			w.done = true
			return true
		}
		w.prev = append(w.prev[:0], text[max(0, len(text)-maxLine):]...)
	}
	if w.prompt == nil {
		w.done = true
		return true
	}
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		w.line, b = w.line[:0], b[i+1:]
	}
	w.line = append(w.line, b...)
	if len(w.line) > maxLine {
		w.line = append(w.line[:0], w.line[len(w.line)-maxLine:]...)
	}
	if w.prompt.Match(Plain(w.line)) {
		w.done = true
		return true
	}
	return false
}
