package app_test

import (
	"slices"
	"testing"

	"nodedesk/app"
)

// TestSplitWords: command lines read as a POSIX shell reads words
// (a Docker node's start command, a QEMU node's options).
func TestSplitWords(t *testing.T) {
	for _, tt := range []struct {
		give string
		want []string
	}{
		{"", nil},
		{"  /usr/lib/frr/docker-start  ", []string{"/usr/lib/frr/docker-start"}},
		{`sh -c "echo 'a b'; exit 3"`, []string{"sh", "-c", "echo 'a b'; exit 3"}},
		{`echo 'it''s' a\ b "q\"uote" "\x"`, []string{"echo", "its", "a b", `q"uote`, `\x`}},
		{"a\tb\nc", []string{"a", "b", "c"}},
		{`""`, []string{""}},
	} {
		got, err := app.SplitWords(tt.give)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("app.SplitWords(%q) = %q, %v; want %q", tt.give, got, err, tt.want)
		}
	}
	for _, bad := range []string{`echo "a`, `echo 'a`, `echo a\`} {
		if _, err := app.SplitWords(bad); err == nil {
			t.Errorf("app.SplitWords(%q) accepted it", bad)
		}
	}
}
