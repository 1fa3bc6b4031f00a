package telnet

import (
	"bytes"
	"testing"
)

func TestFilter(t *testing.T) {
	tests := []struct {
		name string
		in   [][]byte // split across reads
		want string
	}{
		{"plain", [][]byte{[]byte("show ip")}, "show ip"},
		{"CR LF is Enter", [][]byte{[]byte("ping\r\n")}, "ping\r"},
		{"CR NUL is Enter", [][]byte{[]byte("ping\r\x00")}, "ping\r"},
		{"CR LF split across reads", [][]byte{[]byte("a\r"), []byte("\nb")}, "a\rb"},
		{"negotiation dropped", [][]byte{{iac, do, optEcho, 'x', iac, will, 31}}, "x"},
		{"subnegotiation dropped", [][]byte{{iac, sb, 31, 0, 80, 0, 24, iac, se, 'y'}}, "y"},
		{"IAC split across reads", [][]byte{{'a', iac}, {dont, optSGA, 'b'}}, "ab"},
		{"escaped 0xFF", [][]byte{{iac, iac}}, "\xff"},
		{"other command", [][]byte{{iac, 241, 'z'}}, "z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f Filter
			var got []byte
			for _, part := range tt.in {
				got = f.Data(got, part)
			}
			if string(got) != tt.want {
				t.Errorf("filter = %q, want %q", got, tt.want)
			}
		})
	}
	if got := EscapeIAC([]byte{'a', iac, 'b'}); !bytes.Equal(got, []byte{'a', iac, iac, 'b'}) {
		t.Errorf("EscapeIAC = %v", got)
	}
}

// TestFilter_KeepLineEnds: read as a client of a server's console
// (Dynamips' vtty), telnet commands are taken out across reads; data,
// CR LF and a doubled 0xFF are kept.
func TestFilter_KeepLineEnds(t *testing.T) {
	f := Filter{KeepLineEnds: true}
	in := [][]byte{{255, 251, 1, 255, 251, 3, 'R', 'o'}, {'u', 't', 255}, {255, 'e', 'r', '>', '\r', '\n', 255, 250, 24}, {1, 255, 240, '!'}}
	var got []byte
	for _, b := range in {
		got = f.Data(got, b)
	}
	if want := "Rout\xffer>\r\n!"; string(got) != want {
		t.Errorf("%q, want %q", got, want)
	}
}
