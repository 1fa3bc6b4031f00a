package app

import "testing"

// The hosts rule and the filter side of a tunnel (remote_links.go).

func TestTunnelHosts(t *testing.T) {
	s := &Service{}
	s.cmp.conns = map[string]*computeConn{
		"b": {c: Compute{ID: "b", Host: "127.0.0.1"}},
		"c": {c: Compute{ID: "c", Host: "localhost"}},
		"d": {c: Compute{ID: "d", Host: "192.0.2.7"}},
	}
	for _, tc := range []struct {
		computes [2]string
		want     [2]string
	}{
		{[2]string{LocalCompute, "b"}, [2]string{"127.0.0.1", "127.0.0.1"}}, // this machine, seen from a loopback compute
		{[2]string{"b", "c"}, [2]string{"127.0.0.1", "127.0.0.1"}},          // two loopback computes: GNS3 fails, nodedesk does not
		{[2]string{"b", "d"}, [2]string{"127.0.0.1", "192.0.2.7"}},          // each remote side is its compute's host
		{[2]string{"d", "d"}, [2]string{"192.0.2.7", "192.0.2.7"}},
	} {
		got, err := s.tunnelHosts(tc.computes)
		if err != nil || got != tc.want {
			t.Errorf("tunnelHosts(%v) = %v, %v; want %v", tc.computes, got, err, tc.want)
		}
	}
}

func TestFilterSide(t *testing.T) {
	node := func(ty NodeType) *Node { return &Node{Type: ty} }
	tun := func(a, b string) *Tunnel { return &Tunnel{Ends: [2]TunnelEnd{{ComputeID: a}, {ComputeID: b}}} }
	for _, tc := range []struct {
		t    *Tunnel
		ends [2]*Node
		want int
	}{
		{tun("b", LocalCompute), [2]*Node{node(VPCS), node(EthernetSwitch)}, 1}, // this nodedesk's side first
		{tun("b", "b"), [2]*Node{node(EthernetSwitch), node(VPCS)}, 1},          // else GNS3's filter node
		{tun("b", "c"), [2]*Node{node(VPCS), node(Cloud)}, 0},
		{tun("b", "b"), [2]*Node{node(EthernetSwitch), node(EthernetHub)}, -1}, // none: switch to hub
	} {
		if got := filterSide(tc.t, tc.ends); got != tc.want {
			t.Errorf("filterSide(%v, %s–%s) = %d, want %d", tc.t.Ends, tc.ends[0].Type, tc.ends[1].Type, got, tc.want)
		}
	}
}

// captureSide picks as GNS3's _choose_capture_side does: a started
// always-running node here, then one anywhere, then a started node here,
// then any started node; none started is a 409.
func TestCaptureSide(t *testing.T) {
	node := func(tp NodeType, compute string, st Status) *Node {
		return &Node{Type: tp, ComputeID: compute, Status: st}
	}
	for _, tc := range []struct {
		name string
		ends [2]*Node
		want int
	}{
		{"switch on b over vpcs on b", [2]*Node{node(VPCS, "b", Started), node(EthernetSwitch, "b", Started)}, 1},
		{"local switch over remote switch", [2]*Node{node(EthernetSwitch, "b", Started), node(EthernetSwitch, LocalCompute, Started)}, 1},
		{"started vpcs over stopped vpcs", [2]*Node{node(VPCS, "b", Stopped), node(VPCS, "c", Started)}, 1},
		{"local vpcs over remote vpcs", [2]*Node{node(VPCS, "b", Started), node(VPCS, LocalCompute, Started)}, 1},
		{"first when alike", [2]*Node{node(VPCS, "b", Started), node(VPCS, "c", Started)}, 0},
		{"none started", [2]*Node{node(VPCS, "b", Stopped), node(VPCS, "c", Stopped)}, -1},
	} {
		got, err := captureSide(tc.ends)
		if tc.want < 0 {
			if ErrorCode(err) != ECONFLICT {
				t.Errorf("%s: %d %v, want ECONFLICT", tc.name, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: side %d %v, want %d", tc.name, got, err, tc.want)
		}
	}
}
