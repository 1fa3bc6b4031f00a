package dataplane

import (
	"strings"
	"testing"

	"nodedesk/app"
	"nodedesk/app/natgw"
)

// TestEngines_TrafficText: the node-type table tells the user which types
// forward from the moment they exist; that is true of the types this
// package has an engine for, and of no other.
func TestEngines_TrafficText(t *testing.T) {
	for _, info := range app.NodeTypeInfos() {
		_, forwards := engines[info.Type]
		if says := strings.Contains(info.Traffic, "from the moment it exists"); says != forwards {
			t.Errorf("%s: traffic %q, but an engine forwards for it: %v", info.Type, info.Traffic, forwards)
		}
		// The cloud's host ports are endpoints of the fabric (hostif.go).
		if info.Type == app.Cloud && (strings.Contains(info.Traffic, "yet") || !strings.Contains(info.Traffic, "host interface") ||
			!strings.Contains(info.Traffic, "TAP device")) {
			t.Errorf("cloud: traffic %q, but its Ethernet and TAP ports carry frames", info.Traffic)
		}
		// The NAT node's engine is a gateway (nat.go, app/natgw).
		if info.Type == app.NAT && (strings.Contains(info.Traffic, "yet") || !strings.Contains(info.Traffic, "DHCP") ||
			!strings.Contains(info.Traffic, natgw.GatewayIP) || !strings.Contains(info.Traffic, "except nodedesk's API") ||
			strings.Contains(info.Traffic, "not carried") || !strings.Contains(info.Traffic, "ping_group_range")) {
			t.Errorf("nat: traffic %q, but it is a gateway with DHCP at %s that refuses the API and carries pings beyond it (icmp.go)", info.Traffic, natgw.GatewayIP)
		}
	}
}
