package dataplane

import (
	"testing"

	"nodedesk/app"
)

// newEthHub returns a hub configured with n ports.
func newEthHub(n int) *EthernetHub {
	h := NewEthernetHub()
	h.Configure(&app.Node{Properties: app.Properties{HubPorts: make([]app.HubPort, n)}})
	return h
}

func TestEthernetHub_Repeats(t *testing.T) {
	f := ethFrame(ethHost(2), ethHost(1))
	tests := []struct {
		name  string
		ports int
		in    int
		frame []byte
		want  map[int][]byte
	}{
		{"to every other port", 4, 1, f, map[int][]byte{0: f, 2: f, 3: f}},
		{"two ports", 2, 0, f, map[int][]byte{1: f}},
		{"tagged frame unchanged", 3, 2, ethTag(f, 0x8100, 7), map[int][]byte{0: ethTag(f, 0x8100, 7), 1: ethTag(f, 0x8100, 7)}},
		{"one port", 1, 0, f, map[int][]byte{}},
		{"port out of range", 4, 4, f, map[int][]byte{}},
		{"negative port", 4, -1, f, map[int][]byte{}},
		{"runt", 4, 0, f[:13], map[int][]byte{}},
		{"empty", 4, 0, nil, map[int][]byte{}},
		{"giant", 4, 0, make([]byte, MaxFrame+1), map[int][]byte{}},
		{"largest", 2, 0, make([]byte, MaxFrame), map[int][]byte{1: make([]byte, MaxFrame)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ethSend(t, newEthHub(tt.ports), tt.in, tt.frame, ethT0)
			if d := ethDiff(got, tt.want); d != "" {
				t.Error(d)
			}
		})
	}
}

func TestEthernetHub_EmitsInputFrame(t *testing.T) {
	f := ethFrame(ethHost(2), ethHost(1))
	out := newEthOut()
	newEthHub(3).Input(0, f, out)
	for _, em := range out.Frames() {
		if &em.Frame[0] != &f[0] || len(em.Frame) != len(f) {
			t.Errorf("port %d: not the input frame", em.Port)
		}
	}
}

func TestEthernetHub_Reconfigure(t *testing.T) {
	h := newEthHub(4)
	h.Configure(&app.Node{Properties: app.Properties{HubPorts: make([]app.HubPort, 2)}})
	f := ethFrame(ethHost(2), ethHost(1))
	if d := ethDiff(ethSend(t, h, 0, f, ethT0), map[int][]byte{1: f}); d != "" {
		t.Error(d)
	}
	if got := ethSend(t, h, 3, f, ethT0); len(got) != 0 {
		t.Errorf("input on a removed port: %v", ethDump(got))
	}
}

func TestEthernetHub_ZeroAllocs(t *testing.T) {
	h, f, out := newEthHub(8), ethFrame(ethHost(2), ethHost(1)), newEthOut()
	allocs := testing.AllocsPerRun(100, func() {
		out.Reset(ethT0)
		h.Input(3, f, out)
	})
	if allocs != 0 {
		t.Errorf("Input allocates %v times per frame", allocs)
	}
}

func BenchmarkEthernetHubInput(b *testing.B) {
	h, f, out := newEthHub(8), ethFrame(ethHost(2), ethHost(1), make([]byte, 500)...), newEthOut()
	b.ReportAllocs()
	for b.Loop() {
		out.Reset(ethT0)
		h.Input(3, f, out)
	}
}
