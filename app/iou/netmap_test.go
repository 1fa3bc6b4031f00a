package iou

import (
	"strings"
	"testing"
)

func TestNetmap(t *testing.T) {
	cases := []struct {
		id                 int
		first, fifth, last string
	}{
		{1, "513:0/0    1:0/0", "513:1/0    1:1/0", "513:15/3    1:15/3"},
		{2, "514:0/0    2:0/0", "514:1/0    2:1/0", "514:15/3    2:15/3"},
		{42, "554:0/0   42:0/0", "554:1/0   42:1/0", "554:15/3   42:15/3"},
		{471, "983:0/0  471:0/0", "983:1/0  471:1/0", "983:15/3  471:15/3"},
		{511, "1023:0/0  511:0/0", "1023:1/0  511:1/0", "1023:15/3  511:15/3"},
	}
	for _, c := range cases {
		m := Netmap(c.id)
		if !strings.HasSuffix(m, "\n") {
			t.Errorf("id %d: NETMAP does not end with a newline", c.id)
		}
		lines := strings.Split(strings.TrimSuffix(m, "\n"), "\n")
		if len(lines) != 64 {
			t.Fatalf("id %d: %d lines, want 64", c.id, len(lines))
		}
		if lines[0] != c.first || lines[4] != c.fifth || lines[63] != c.last {
			t.Errorf("id %d: lines 1, 5, 64 are %q, %q, %q; want %q, %q, %q", c.id, lines[0], lines[4], lines[63], c.first, c.fifth, c.last)
		}
		seen := map[string]bool{}
		for _, l := range lines {
			if seen[l] {
				t.Errorf("id %d: line %q twice", c.id, l)
			}
			seen[l] = true
		}
	}
}
