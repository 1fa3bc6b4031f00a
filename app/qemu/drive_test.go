package qemu

import "testing"

// TestAtPrompt: the driver types only at a shell's or a login's prompt,
// whatever control sequences follow it; a line still printing is not one.
func TestAtPrompt(t *testing.T) {
	for _, tc := range []struct {
		out  string
		want bool
	}{
		{"nodedesk-guest: ready\r\nguest# ", true},
		{"\r\nguest# \x1b[6n", true}, // busybox asks where the cursor is
		{"root@vm:~$ ", true},
		{"\r\nvm login: ", true},
		{"PING 10.0.0.1 (10.0.0.1): 56 data bytes\r\n", false},
		{"guest# ping -c 1 -W 1 10.0.0.1", false},
		{"", false},
	} {
		if got := atPrompt([]byte(tc.out)); got != tc.want {
			t.Errorf("atPrompt(%q) = %v, want %v", tc.out, got, tc.want)
		}
	}
}
