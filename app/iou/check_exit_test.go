package iou

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestDescribeExit(t *testing.T) {
	many := "for i in $(seq 1 15); do echo line$i; echo; done; exit 1"
	cases := []struct {
		name   string
		script string
		want   string
	}{
		{"status and both streams", "echo a; echo b >&2; exit 3",
			"exited with status 3. Its last 2 lines of output:\na\nb"},
		{"segmentation fault", "ulimit -c 0; kill -SEGV $$",
			"was killed by signal 11 (SIGSEGV, segmentation fault), and printed nothing"},
		{"abort after a line", "ulimit -c 0; echo 'IOS On Unix'; kill -ABRT $$",
			"was killed by signal 6 (SIGABRT, aborted). Its last output:\nIOS On Unix"},
		{"killed", "kill -KILL $$", "was killed by signal 9 (SIGKILL, killed), and printed nothing"},
		{"status 0", "printf 'bye\\r\\n'", "exited with status 0. Its last output:\nbye"},
		{"last 10 non-empty lines", many,
			"exited with status 1. Its last 10 lines of output:\nline6\nline7\nline8\nline9\nline10\nline11\nline12\nline13\nline14\nline15"},
		{"blank lines only", "printf '\\n  \\r\\n\\t\\n'; exit 2", "exited with status 2, and printed nothing"},
		{"trailing spaces and bad UTF-8", "printf 'caf\\351   \\n'; exit 4", "exited with status 4. Its last output:\ncaf\uFFFD"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := exec.Command("sh", "-c", c.script).CombinedOutput()
			if got := DescribeExit(err, out); got != c.want {
				t.Errorf("DescribeExit = %q\nwant           %q", got, c.want)
			}
		})
	}
}

func TestDescribeExitNotStarted(t *testing.T) {
	dir := t.TempDir()
	i386 := copyFile(t, fakeIOL(t, "fake-iol-i386.bin"), dir, "i86bi-linux.bin", 0o755)
	cases := []struct {
		name  string
		cmd   *exec.Cmd
		wants []string
	}{
		{"missing", exec.Command(filepath.Join(dir, "gone.bin")), []string{"could not be started:", "no such file or directory", "libc6:i386"}},
		{"not executable", exec.Command(writeFile(t, dir, "plain.bin", []byte("x"), 0o644)), []string{"could not be started:", "permission denied"}},
	}
	if err := exec.Command(i386).Run(); err != nil && strings.Contains(err.Error(), "exec format error") {
		cases = append(cases, struct {
			name  string
			cmd   *exec.Cmd
			wants []string
		}{"32-bit on a 64-bit-only kernel", exec.Command(i386, "-h"), []string{"could not be started:", "exec format error", "32-bit support"}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.cmd.Start()
			if err == nil {
				_ = c.cmd.Wait()
				t.Fatal("it started")
			}
			got := DescribeExit(err, nil)
			for _, w := range c.wants {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
			if strings.Contains(got, "printed") {
				t.Errorf("%q speaks of the output of a process that never ran", got)
			}
		})
	}
	if got := DescribeExit(fmt.Errorf("wrapped: %w", exec.ErrNotFound), nil); got != "could not be started: wrapped: executable file not found in $PATH" {
		t.Errorf("DescribeExit(other error) = %q", got)
	}
}
