package app_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"nodedesk/app"
)

// props is the free-form properties of a node of an emulated type.
func genericProps(tb testing.TB, kv map[string]any) *app.GenericUpdate {
	tb.Helper()
	g := app.GenericUpdate{}
	for k, v := range kv {
		raw, err := json.Marshal(v)
		if err != nil {
			tb.Fatal(err)
		}
		g[k] = raw
	}
	return &g
}

// TestService_CreateNode_DerivedPorts: the ports of the emulators nodedesk
// stores but does not run are derived from their properties as GNS3's
// controller derives them, so that the links of a GNS3 project find the
// ports they name.
func TestService_CreateNode_DerivedPorts(t *testing.T) {
	tests := []struct {
		name string
		give app.NodeCreate
		want []string // "adapter/port name link_type"
	}{
		{"QEMUCustomAdapter", app.NodeCreate{Type: app.QEMU, NodeUpdate: app.NodeUpdate{
			PortNameFormat: app.Some("eth{0}"),
			CustomAdapters: app.Some([]app.CustomAdapter{{AdapterNumber: 2, PortName: "mgmt"}}),
			Properties:     qemuProps(t, map[string]any{"adapters": 4})}},
			[]string{"0/0 eth0 ethernet", "1/0 eth1 ethernet", "2/0 mgmt ethernet", "3/0 eth3 ethernet"}},
		{"QEMUDefault", app.NodeCreate{Type: app.QEMU}, []string{"0/0 Ethernet0 ethernet"}},
		{"DynamipsC7200", app.NodeCreate{Type: app.Dynamips, NodeUpdate: app.NodeUpdate{Properties: dynamipsUpdate(t, map[string]any{
			"platform": "c7200", "slot0": "C7200-IO-FE", "slot1": "PA-4T+", "slot2": nil, "slot3": "PA-A1"})}},
			[]string{"0/0 FastEthernet0/0 ethernet", "1/0 Serial1/0 serial", "1/1 Serial1/1 serial", "1/2 Serial1/2 serial",
				"1/3 Serial1/3 serial", "3/0 ATM3/0 serial"}},
		{"DynamipsC3745WICs", app.NodeCreate{Type: app.Dynamips, NodeUpdate: app.NodeUpdate{Properties: dynamipsUpdate(t, map[string]any{
			"platform": "c3745", "slot0": "GT96100-FE", "slot1": "NM-1FE-TX", "wic0": "WIC-2T", "wic1": nil, "wic2": "WIC-1T"})}},
			[]string{"0/0 FastEthernet0/0 ethernet", "0/1 FastEthernet0/1 ethernet", "1/0 FastEthernet1/0 ethernet",
				"0/16 Serial0/0 serial", "0/17 Serial0/1 serial", "0/48 Serial0/2 serial"}},
		{"IOUSegments", app.NodeCreate{Type: app.IOU, NodeUpdate: app.NodeUpdate{
			PortNameFormat: app.Some("Ethernet{segment0}/{port0}"), PortSegmentSize: app.Some(4),
			Properties: &app.IOUUpdate{"ethernet_adapters": json.RawMessage("2"), "serial_adapters": json.RawMessage("1")}}},
			[]string{"0/0 Ethernet0/0 ethernet", "0/1 Ethernet0/1 ethernet", "0/2 Ethernet0/2 ethernet", "0/3 Ethernet0/3 ethernet",
				"1/0 Ethernet1/0 ethernet", "1/1 Ethernet1/1 ethernet", "1/2 Ethernet1/2 ethernet", "1/3 Ethernet1/3 ethernet",
				"2/0 Serial2/0 serial", "2/1 Serial2/1 serial", "2/2 Serial2/2 serial", "2/3 Serial2/3 serial"}},
		{"Docker", app.NodeCreate{Type: app.Docker, NodeUpdate: app.NodeUpdate{Properties: &app.DockerUpdate{"adapters": json.RawMessage("2")}}},
			[]string{"0/0 eth0 ethernet", "1/0 eth1 ethernet"}},
		{"ATM", app.NodeCreate{Type: app.ATMSwitch, NodeUpdate: app.NodeUpdate{Properties: &app.ATMUpdate{
			Mappings: app.Some(json.RawMessage(`{"1:0:100": "10:0:200"}`))}}},
			[]string{"0/1 1 serial", "0/10 10 serial"}},
		{"TraceNG", app.NodeCreate{Type: app.TraceNG}, []string{"0/0 Ethernet0 ethernet"}},
		{"VirtualBox", app.NodeCreate{Type: app.VirtualBox, NodeUpdate: app.NodeUpdate{Properties: genericProps(t, map[string]any{"adapters": 2})}},
			[]string{"0/0 Ethernet0 ethernet", "1/0 Ethernet1 ethernet"}},
		{"AdaptersNegative", app.NodeCreate{Type: app.VirtualBox, NodeUpdate: app.NodeUpdate{Properties: genericProps(t, map[string]any{"adapters": -3})}},
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := newService(t)
			n := mustFindNode(t, svc, mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, tt.give))
			var got []string
			for _, p := range n.Ports() {
				got = append(got, fmt.Sprintf("%d/%d %s %s", p.AdapterNumber, p.PortNumber, p.Name, p.LinkType))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ports %v; want %v", got, tt.want)
			}
		})
	}

	t.Run("AdaptersCapped", func(t *testing.T) {
		svc, _ := newService(t)
		n := mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, app.NodeCreate{Type: app.VirtualBox,
			NodeUpdate: app.NodeUpdate{Properties: genericProps(t, map[string]any{"adapters": 1_000_000})}})
		if got := len(n.Ports()); got != 1024 {
			t.Errorf("%d ports; want at most 1024 whatever the properties ask", got)
		}
	})
}
