package iou

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// exitTailLines is how many lines of its output DescribeExit quotes.
const exitTailLines = 10

// DescribeExit says, in words for the user, how an IOU process that died
// at once ended, from the error exec's Wait (or Start) gave: "exited with
// status 1", "was killed by signal 11 (SIGSEGV, segmentation fault)",
// "could not be started: ...", followed by the last 10 non-empty lines of
// its output (stdout and stderr as the runner collected them), or by a
// note that it printed nothing. err nil means it exited with status 0;
// an error that is no *exec.ExitError means it never ran.
func DescribeExit(err error, output []byte) string {
	var b strings.Builder
	b.WriteString(exitStatus(err))
	lines := lastLines(output, exitTailLines)
	var exit *exec.ExitError
	ran := err == nil || errors.As(err, &exit)
	switch {
	case len(lines) == 0 && !ran:
	case len(lines) == 0:
		b.WriteString(", and printed nothing")
	case len(lines) == 1:
		b.WriteString(". Its last output:\n" + lines[0])
	default:
		fmt.Fprintf(&b, ". Its last %d lines of output:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	return b.String()
}

func exitStatus(err error) string {
	if err == nil {
		return "exited with status 0"
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return processState(exit.ProcessState)
	}
	switch {
	case errors.Is(err, syscall.ENOEXEC):
		return fmt.Sprintf("could not be started: %v (the kernel cannot run this kind of program: a 32-bit image needs a kernel with 32-bit support)", err)
	case errors.Is(err, os.ErrNotExist):
		return fmt.Sprintf("could not be started: %v (if the image is there, the program loader it asks for is missing: a 32-bit image needs the 32-bit C library, libc6:i386)", err)
	}
	return fmt.Sprintf("could not be started: %v", err)
}

func processState(ps *os.ProcessState) string {
	if ps == nil {
		return "ended"
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok {
		return ps.String()
	}
	switch {
	case ws.Exited():
		return fmt.Sprintf("exited with status %d", ws.ExitStatus())
	case ws.Signaled():
		s := fmt.Sprintf("was killed by signal %d (%s)", int(ws.Signal()), signalName(ws.Signal()))
		if ws.CoreDump() {
			s += " and dumped core"
		}
		return s
	case ws.Stopped():
		return fmt.Sprintf("was stopped by signal %d (%s)", int(ws.StopSignal()), signalName(ws.StopSignal()))
	}
	return ps.String()
}

// signalName is "SIGSEGV, segmentation fault".
func signalName(s syscall.Signal) string {
	if n := unix.SignalName(s); n != "" {
		return n + ", " + s.String()
	}
	return s.String()
}

// lastLines are the last n lines of out that are not blank, without their
// line ends and trailing spaces, invalid UTF-8 shown as U+FFFD.
func lastLines(out []byte, n int) []string {
	var lines []string
	for _, l := range bytes.Split(out, []byte("\n")) {
		l = bytes.TrimRight(l, " \t\r")
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		lines = append(lines, strings.ToValidUTF8(string(l), "\uFFFD"))
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}
