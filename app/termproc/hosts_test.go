package termproc

import (
	"slices"
	"testing"
)

// TestConsoleHosts: consoles listen where the API does, plus 127.0.0.1.
func TestConsoleHosts(t *testing.T) {
	for host, want := range map[string][]string{
		"127.0.0.1":    {"127.0.0.1"},
		"localhost":    {"127.0.0.1"},
		"::1":          {"::1"},
		"0.0.0.0":      {""},
		"":             {""},
		"192.168.1.10": {"127.0.0.1", "192.168.1.10"},
	} {
		if got := ConsoleHosts(host); !slices.Equal(got, want) {
			t.Errorf("ConsoleHosts(%q) = %q, want %q", host, got, want)
		}
	}
}
