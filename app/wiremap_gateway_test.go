package app

import (
	"strings"
	"testing"
)

// TestWireMap_GatewayFromConfigs: when the configs name a host's gateway,
// only unanswered asks for it are a silent gateway, said as such; asks
// for another address nobody holds are left to the reach checks.
func TestWireMap_GatewayFromConfigs(t *testing.T) {
	pc := &Node{ID: "pc1", Name: "PC1", Type: VPCS}
	links := []*Link{{ID: "l1", Nodes: []LinkEnd{{NodeID: "pc1"}, {NodeID: "sw"}}}}
	ask := func(target string) ARPAsk {
		return ARPAsk{AskerMAC: "00:50:79:66:68:00", AskerIPv4: "10.0.0.1", Target: target, Asks: 5}
	}
	seen := []WireSeen{{LinkID: "l1", MACs: []MACSeen{{MAC: "00:50:79:66:68:00", From: WireEnd{NodeID: "pc1"}, IPv4: []string{"10.0.0.1"}}},
		Asks: []ARPAsk{ask("10.0.0.7"), ask("10.0.0.254")}}}
	addrs := []HostAddress{{NodeID: "pc1", Address: "10.0.0.1/24", Gateway: "10.0.0.254", Source: "config"}}
	m := buildWireMap(&WireMap{}, []*Node{pc}, links, seen, addrs)
	if len(m.Faults) != 1 || m.Faults[0].Code != FaultGatewaySilent || m.Faults[0].Address != "10.0.0.254" {
		t.Fatalf("faults %+v, want the gateway's only", m.Faults)
	}
	if msg := m.Faults[0].Message; !strings.HasPrefix(msg, "The gateway 10.0.0.254 of 00:50:79:66:68:00 (PC1) at 10.0.0.1 never answers") {
		t.Errorf("message %q", msg)
	}
	// Without the configs' word, every silent address is told.
	if m := buildWireMap(&WireMap{}, []*Node{pc}, links, seen, nil); len(m.Faults) != 2 {
		t.Errorf("without configs: %+v, want both addresses", m.Faults)
	}
}
