package termproc

import (
	"context"
	"os/exec"
	"regexp"
	"testing"
	"time"
)

// shellPrompt ends the output of the test shell when it waits for a line.
var shellPrompt = regexp.MustCompile(`guest# $`)

// TestDialog_CommandAndConverse: a dialog types on a shell's terminal as a
// user would, reads its answer up to the prompt, and waits its turn while
// another dialog holds the console.
func TestDialog_CommandAndConverse(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-i")
	cmd.Env = []string{"PS1=guest# ", "PATH=/usr/bin:/bin"}
	p, err := Start(cmd, nil, Options{Program: "sh", Node: "guest"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(time.Second) })
	ctx := context.Background()
	prompt := func(out []byte) bool { return shellPrompt.Match(out) }

	talk, err := p.Console().Dialog().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out, done, err := talk.Command(ctx, "echo $((6*7))", prompt, 5*time.Second)
	if err != nil || !done || !regexp.MustCompile(`\b42\r\n`).Match(out) {
		t.Fatalf("Command: %q done %v %v", out, done, err)
	}

	// A second dialog waits for the first's turn to end.
	waited := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		_, err := p.Console().Dialog().Begin(ctx)
		waited <- err
	}()
	if err := <-waited; err == nil {
		t.Fatal("a second dialog began while the first held the console")
	}
	talk.End()

	lines, ok, err := p.Console().Converse(ctx, "echo hel''lo", regexp.MustCompile(`(?m)^hello`), 5*time.Second)
	if err != nil || !ok {
		t.Fatalf("Converse: %q %v %v", lines, ok, err)
	}
	if _, ok, _ := p.Console().Converse(ctx, "", regexp.MustCompile(`never`), 100*time.Millisecond); ok {
		t.Fatal("Converse matched what was never printed")
	}

	// The console closes with the process: a dialog is told.
	talk, err = p.Console().Dialog().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	talk.Type("exit\r")
	if _, _, err := talk.Until(ctx, func([]byte) bool { return false }, 5*time.Second); err != ErrConsoleClosed {
		t.Fatalf("a dialog on a console that closed: %v, want ErrConsoleClosed", err)
	}
	talk.End()
}
