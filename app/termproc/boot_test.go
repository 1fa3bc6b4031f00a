package termproc

import (
	"regexp"
	"testing"
)

// TestBootWatch: the boot prompt is found at the end of the last line,
// across reads and behind a shell's escape sequences, and not in a
// boot loader's or kernel's lines; without a prompt, the first output is
// the boot.
func TestBootWatch(t *testing.T) {
	prompt := regexp.MustCompile(`(login:|[#$>])\s*$`)
	tests := []struct {
		name  string
		reads []string
		at    int // the read that boots; -1: none
	}{
		{"first output", nil, 0},
		{"shell prompt behind its cursor query", []string{"SeaBIOS (version 1.16)\r\n", "Booting from Hard Disk...\r\n", "nodedesk-guest: ready\r\nguest# \x1b[6n"}, 2},
		{"prompt split across reads", []string{"Debian GNU/Linux 12 host ttyS0\r\n\r\nhost lo", "gin: "}, 1},
		{"a > inside a line is no prompt", []string{"[    0.1] a -> b\r\n", "Loading vmlinuz... ok\r\n"}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := bootWatch{prompt: prompt}
			reads := tt.reads
			if reads == nil {
				w.prompt = nil
				reads = []string{"x", "y"}
			}
			if got := bootRead(t, w.seen, reads); got != tt.at {
				t.Errorf("booted at read %d, want %d", got, tt.at)
			}
		})
	}
}

// TestBootSignPhrase: a Cisco image's "Press RETURN" boots the node
// though log lines follow it in the same read, and when it is split
// across reads; a router's prompt on the last line boots it too, while
// a progress bar's # marks do not.
func TestBootSignPhrase(t *testing.T) {
	prompt := regexp.MustCompile(`^[\w.-]+[>#]\s*$`)
	phrase := regexp.MustCompile(`RETURN to get started`)
	tests := []struct {
		name  string
		reads []string
		at    int
	}{
		{"phrase then log lines", []string{"Self decompressing the image : ####", "#### [OK]\r\n", "Press RETURN to get started!\r\n\r\n*Mar 1: %SYS-5-RESTART\r\n"}, 2},
		{"phrase split", []string{"Press RETURN to ge", "t started!\r\n\r\n"}, 1},
		{"prompt", []string{"Cisco IOS Software\r\n", "\r\nRouter>"}, 1},
		{"none", []string{"Self decompressing the image : ####"}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := bootRead(t, NewBootSign(prompt, phrase).Seen, tt.reads); got != tt.at {
				t.Errorf("booted at read %d, want %d", got, tt.at)
			}
		})
	}
}

// bootRead gives seen the reads in turn and returns the one that booted
// (-1: none); booting twice fails the test.
func bootRead(t *testing.T, seen func([]byte) bool, reads []string) int {
	t.Helper()
	got := -1
	for i, r := range reads {
		if seen([]byte(r)) {
			if got >= 0 {
				t.Errorf("booted twice, at read %d and %d", got, i)
			}
			got = i
		}
	}
	return got
}
