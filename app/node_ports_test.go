package app

import "testing"

func TestFormatPortName(t *testing.T) {
	for _, c := range []struct {
		format                  string
		iface, segment, adapter int
		want                    string
	}{
		{"Ethernet{0}", 3, 3, 3, "Ethernet3"},
		{"eth{port1}", 0, 0, 0, "eth1"},
		{"Ethernet{segment0}/{port0}", 2, 1, 1, "Ethernet1/2"},
		{"Gi{1}/0/{port1}", 0, 2, 5, "Gi2/0/1"},
		{"e{adapter}", 0, 0, 7, "e7"},
		{"{{literal}} {0}", 1, 0, 0, "{literal} 1"},
		{"bad {name} {9} {port9} {", 1, 1, 1, "bad {name} {9} {port9} {"},
	} {
		if got := formatPortName(c.format, c.iface, c.segment, c.adapter); got != c.want {
			t.Errorf("formatPortName(%q, %d, %d, %d) = %q, want %q", c.format, c.iface, c.segment, c.adapter, got, c.want)
		}
	}
}
