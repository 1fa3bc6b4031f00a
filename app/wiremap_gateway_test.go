package app

import (
	"encoding/json"
	"maps"
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

// TestWireMap_KnownMACs: a MAC seen only away from its node (across a
// switch) is named by the MAC the node's configuration gives it.
func TestWireMap_KnownMACs(t *testing.T) {
	off := 3
	pc := &Node{ID: "pc1", Name: "PC1", Type: VPCS, Properties: Properties{MACOffset: &off}}
	iou := &Node{ID: "r1", Name: "R1", Type: IOU, Properties: Properties{Extra: map[string]json.RawMessage{"application_id": json.RawMessage("7"), "ethernet_adapters": json.RawMessage("2")}}}
	links := []*Link{{ID: "l1", Nodes: []LinkEnd{{NodeID: "sw"}, {NodeID: "sw2"}}}}
	seen := []WireSeen{{LinkID: "l1", MACs: []MACSeen{
		{MAC: "00:50:79:66:68:03", From: WireEnd{NodeID: "sw"}},
		{MAC: "aa:bb:cc:00:07:11", From: WireEnd{NodeID: "sw"}}, // Ethernet1/1
		{MAC: "02:00:00:00:00:01", From: WireEnd{NodeID: "sw"}},
	}}}
	m := buildWireMap(&WireMap{}, []*Node{pc, iou}, links, seen, nil)
	got := map[string]string{}
	for _, h := range m.Links[0].Hosts {
		got[h.MAC] = h.NodeID
	}
	want := map[string]string{"00:50:79:66:68:03": "pc1", "aa:bb:cc:00:07:11": "r1", "02:00:00:00:00:01": ""}
	if !maps.Equal(got, want) {
		t.Errorf("hosts %v, want %v", got, want)
	}
}
