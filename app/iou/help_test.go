package iou

import (
	"bytes"
	"os/exec"
	"testing"
)

func TestDefaultsFromHelp(t *testing.T) {
	cases := []struct {
		name       string
		stderr     string
		nvram, ram int
	}{
		{"IOU's usage", "Usage: <image> [options] <application id>\n" +
			"-e <n>        Number of Ethernet interfaces (default 2)\n" +
			"-n <n>        Size of nvram in Kb (default 64KB)\n" +
			"-m <n>        Megabytes of router memory (default 256MB)\n", 64, 256},
		{"other numbers", "-n <n>\tSize of nvram in Kb (default 128KB)\n-m <n>\tMegabytes of router memory (default 1024MB)\n", 128, 1024},
		{"one space", "-n <n> Size of nvram in Kb (default 16KB)", 16, 0},
		{"CRLF and a vertical tab", "-m <n>\v Megabytes of router memory (default 512MB)\r\n", 0, 512},
		{"line break between", "-n <n>\n   Size of nvram in Kb (default 32KB)", 32, 0},
		{"bytes that are not UTF-8 are dropped", "-n <n>\xff   Size of nvram in Kb (default 8KB)", 8, 0},
		{"the first match counts", "-n <n> Size of nvram in Kb (default 64KB)\n-n <n> Size of nvram in Kb (default 99KB)", 64, 0},
		{"no space", "-n <n>Size of nvram in Kb (default 64KB)", 0, 0},
		{"other case", "-N <n>  size of nvram in kb (default 64KB)", 0, 0},
		{"other unit", "-n <n>  Size of nvram in Kb (default 64MB)\n-m <n>  Megabytes of router memory (default 1GB)", 0, 0},
		{"too big for an int", "-n <n>  Size of nvram in Kb (default 99999999999999999999999KB)", 0, 0},
		{"nothing", "", 0, 0},
		{"an error instead", "fake-iol: unknown option -h\n", 0, 0},
	}
	for _, c := range cases {
		n, m := DefaultsFromHelp(c.stderr)
		if n != c.nvram || m != c.ram {
			t.Errorf("%s: DefaultsFromHelp = %d KB, %d MB; want %d, %d", c.name, n, m, c.nvram, c.ram)
		}
	}
}

// TestDefaultsFromHelpFakeIOL reads what the stand-in image prints for -h
// on stderr, as GNS3 runs it.
func TestDefaultsFromHelpFakeIOL(t *testing.T) {
	cmd := exec.Command(fakeIOL(t, "fake-iol-x86_64.bin"), "-h")
	cmd.Dir = t.TempDir()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("-h: %v\n%s", err, stderr.String())
	}
	if n, m := DefaultsFromHelp(stderr.String()); n != 64 || m != 256 {
		t.Errorf("the stand-in's -h gives %d KB, %d MB; want 64, 256:\n%s", n, m, stderr.String())
	}
	if n, m := DefaultsFromHelp(stdout.String()); n != 0 || m != 0 {
		t.Errorf("stdout holds defaults %d, %d: the help is on stderr", n, m)
	}
}
