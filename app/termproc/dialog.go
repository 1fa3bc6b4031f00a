package termproc

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"
	"time"
)

// A dialog is nodedesk typing on a console as a person at it would, for
// the checks (app.HostDriver): what it types goes to the terminal as a
// client's keys do, and it reads what the terminal prints, which every
// client sees too. One dialog holds a console at a time (Begin waits its
// turn), so two never type into each other; a person at the console keeps
// typing as they like. What to type and how to read the answer is the
// runner's knowledge, not this file's.

// ErrConsoleClosed says the console ended (its node stopped) during a
// dialog.
var ErrConsoleClosed = errors.New("the console closed: the node stopped")

// dialogKeep bounds the output a dialog keeps; older output is dropped.
const dialogKeep = 64 << 10

// tap collects a console's output for one dialog.
type tap struct {
	mu     sync.Mutex
	buf    []byte
	closed bool
	more   chan struct{} // signalled (without blocking) at each output
}

func (t *tap) add(b []byte) {
	t.mu.Lock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > dialogKeep {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-dialogKeep:]...)
	}
	t.mu.Unlock()
	t.signal()
}

func (t *tap) close() {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.signal()
}

func (t *tap) signal() {
	select {
	case t.more <- struct{}{}:
	default:
	}
}

// Dialog is a console's turn: held by one dialog at a time.
type Dialog struct {
	con  *Console
	turn chan struct{} // one slot: holding it is having the turn
}

// Dialog is the console's dialog: Begin takes its turn.
func (c *Console) Dialog() *Dialog { return c.dialog }

// Console is the process's console.
func (p *Proc) Console() *Console { return p.con }

// Begin waits for the console's turn (or ctx's end) and starts reading
// its output from now on.
func (d *Dialog) Begin(ctx context.Context) (*Talk, error) {
	select {
	case d.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	t := &tap{more: make(chan struct{}, 1)}
	c := d.con
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		<-d.turn
		return nil, ErrConsoleClosed
	}
	c.taps[t] = struct{}{}
	c.mu.Unlock()
	return &Talk{d: d, tap: t}, nil
}

// Talk is one dialog on a console, from Begin to End.
type Talk struct {
	d     *Dialog
	tap   *tap
	ended bool
}

// Type sends s to the terminal as a client's keys.
func (t *Talk) Type(s string) { t.d.con.input([]byte(s)) }

// Output is what the terminal printed since Begin or the last Clear.
func (t *Talk) Output() []byte {
	t.tap.mu.Lock()
	defer t.tap.mu.Unlock()
	return append([]byte(nil), t.tap.buf...)
}

// Tail is the console's last output, from before Begin too.
func (t *Talk) Tail() []byte { return t.d.con.Tail() }

// Clear forgets the output read so far.
func (t *Talk) Clear() {
	t.tap.mu.Lock()
	t.tap.buf = nil
	t.tap.mu.Unlock()
}

// Until waits until done says yes of the output since Begin or the last
// Clear, within limit (or ctx's end); it answers that output and whether
// done said yes. The error is ErrConsoleClosed when the console closed
// first.
func (t *Talk) Until(ctx context.Context, done func(out []byte) bool, limit time.Duration) ([]byte, bool, error) {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for {
		t.tap.mu.Lock()
		out := append([]byte(nil), t.tap.buf...)
		closed := t.tap.closed
		t.tap.mu.Unlock()
		if done(out) {
			return out, true, nil
		}
		if closed {
			return out, false, ErrConsoleClosed
		}
		select {
		case <-t.tap.more:
		case <-timer.C:
			return out, false, nil
		case <-ctx.Done():
			return out, false, ctx.Err()
		}
	}
}

// End gives the console's turn back.
func (t *Talk) End() {
	if t.ended {
		return
	}
	t.ended = true
	c := t.d.con
	c.mu.Lock()
	delete(c.taps, t.tap)
	c.mu.Unlock()
	<-t.d.turn
}

// EndWhen gives the turn back once done says yes of the output (the
// program is ready for the next command again) or limit has passed, in
// the background: the caller has its answer, the next dialog waits until
// the program can take it.
func (t *Talk) EndWhen(done func(out []byte) bool, limit time.Duration) {
	go func() {
		_, _, _ = t.Until(context.Background(), done, limit)
		t.End()
	}()
}

// Command brings the console to a prompt (pressing Enter if its output
// does not end with one, within limit), types line and Enter, and reads
// until the prompt is back or limit has passed since it was typed: out is
// what came since it was typed, done whether the prompt came back. It is
// for programs that keep what is typed while they are busy (IOS, a
// shell); prompt says whether output ends with the program's prompt.
func (t *Talk) Command(ctx context.Context, line string, prompt func(out []byte) bool, limit time.Duration) (out []byte, done bool, err error) {
	if !prompt(t.Tail()) {
		t.Clear()
		t.Type("\r")
		if _, ok, err := t.Until(ctx, prompt, limit); err != nil || !ok {
			return nil, false, err
		}
	}
	t.Clear()
	t.Type(line + "\r")
	return t.Until(ctx, prompt, limit)
}

// Converse is a HostDriver's Converse on a console (app.HostDriver): it
// types send and Enter (unless send is empty) and reads until expect
// matches what the console printed since, or within passes; it answers
// the lines read and whether expect matched.
func (c *Console) Converse(ctx context.Context, send string, expect *regexp.Regexp, within time.Duration) ([]string, bool, error) {
	t, err := c.Dialog().Begin(ctx)
	if err != nil {
		return nil, false, err
	}
	defer t.End()
	if send != "" {
		t.Type(send + "\r")
	}
	out, ok, err := t.Until(ctx, func(out []byte) bool { return expect.Match(out) }, within)
	if err != nil && !errors.Is(err, ErrConsoleClosed) {
		return nil, false, err
	}
	return Lines(out), ok, nil
}

// Lines splits a terminal's output into its lines, their line ends and
// trailing blanks taken off, empty ones left out.
func Lines(out []byte) []string {
	var ls []string
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimRight(strings.TrimLeft(l, "\r"), "\r ")
		if l != "" {
			ls = append(ls, l)
		}
	}
	return ls
}

// Answer is what a line typed on a console by Ask gave.
type Answer struct {
	Out   []byte   // what the console printed after the line was typed
	Lines []string // Out's lines, without the line's echo and the prompt that ends them
	Done  bool     // the prompt came back within the limit
}

// Ask types line on the console at its prompt, in a dialog of its own
// (Command), and reads until the prompt is back or limit has passed.
// ready, unless nil, is first asked of the console's tail: its error ends
// the dialog before anything is typed. When the prompt did not come back,
// the turn is given back only once it has (EndWhen), so the next dialog
// types at a prompt. The error is ErrConsoleClosed when the console
// closed.
func (c *Console) Ask(ctx context.Context, line string, prompt func(out []byte) bool, limit time.Duration, ready func(tail []byte) error) (Answer, error) {
	t, err := c.Dialog().Begin(ctx)
	if err != nil {
		return Answer{}, err
	}
	if ready != nil {
		if err := ready(t.Tail()); err != nil {
			t.End()
			return Answer{}, err
		}
	}
	out, done, err := t.Command(ctx, line, prompt, limit)
	if err != nil {
		t.End()
		return Answer{}, err
	}
	if done {
		t.End()
	} else {
		t.EndWhen(prompt, limit)
	}
	lines := Lines(out)
	if len(lines) > 0 && lines[0] == line {
		lines = lines[1:]
	}
	if done && len(lines) > 0 {
		lines = lines[:len(lines)-1] // the prompt
	}
	return Answer{Out: out, Lines: lines, Done: done}, nil
}
