package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"nodedesk/app"
)

func TestFrameRelayCircuits(t *testing.T) {
	end := func(port, dlci int) app.FrameRelayEnd { return app.FrameRelayEnd{Port: port, DLCI: dlci} }
	tests := []struct {
		name    string
		give    map[string]string
		want    []app.FrameRelayCircuit
		wantErr bool
	}{
		{"None", map[string]string{}, nil, false},
		{"OneLowerEndFirst", map[string]string{"2:201": "1:101"}, []app.FrameRelayCircuit{{end(1, 101), end(2, 201)}}, false},
		{"BothDirectionsOnce", map[string]string{"1:101": "2:201", "2:201": "1:101"}, []app.FrameRelayCircuit{{end(1, 101), end(2, 201)}}, false},
		{"SortedByLowerEnd", map[string]string{"3:301": "4:401", "1:102": "2:202", "1:101": "3:300"},
			[]app.FrameRelayCircuit{{end(1, 101), end(3, 300)}, {end(1, 102), end(2, 202)}, {end(3, 301), end(4, 401)}}, false},
		{"DLCIBounds", map[string]string{"1:0": "2:1023"}, []app.FrameRelayCircuit{{end(1, 0), end(2, 1023)}}, false},
		// A fault leaves its entry out; what holds is still returned, for
		// the data plane and the ports array.
		{"ErrBadEntryRestKept", map[string]string{"1:101": "2:201", "x": "3:301"}, []app.FrameRelayCircuit{{end(1, 101), end(2, 201)}}, true},
		{"ErrEndTwiceFirstKept", map[string]string{"1:101": "2:201", "3:301": "2:201"}, []app.FrameRelayCircuit{{end(1, 101), end(2, 201)}}, true},
		{"ErrToItself", map[string]string{"1:101": "1:101"}, nil, true},
		{"ErrDLCI1024", map[string]string{"1:1024": "2:201"}, nil, true},
		{"ErrNegativeDLCI", map[string]string{"1:-1": "2:201"}, nil, true},
		{"ErrLeadingZero", map[string]string{"01:101": "2:201"}, nil, true},
		{"ErrSpace", map[string]string{"1: 101": "2:201"}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := app.FrameRelayCircuits(tt.give)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v; want an error: %v", err, tt.wantErr)
			}
			if err != nil {
				wantCode(t, err, app.EINVALID)
				if f := app.ErrorField(err); f != "properties.mappings" {
					t.Errorf("error field %q; want properties.mappings", f)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("FrameRelayCircuits(%v) = %v; want %v", tt.give, got, tt.want)
			}
		})
	}
}

// TestATMConnections: an ATM switch's mappings as GNS3 writes them, VCs
// ("port:vpi:vci") and VPs ("port:vpi"), each one connection both ways; the
// faults GNS3's Dynamips would refuse or mis-switch are refused.
func TestATMConnections(t *testing.T) {
	vc := func(port, vpi, vci int) app.ATMEnd { return app.ATMEnd{Port: port, VPI: vpi, VCI: vci} }
	vp := func(port, vpi int) app.ATMEnd { return app.ATMEnd{Port: port, VPI: vpi, VCI: app.ATMPath} }
	tests := []struct {
		name    string
		give    map[string]string
		want    []app.ATMConnection
		wantErr string
	}{
		{"None", map[string]string{}, nil, ""},
		{"VCLowerEndFirst", map[string]string{"2:20:200": "1:10:100"}, []app.ATMConnection{{vc(1, 10, 100), vc(2, 20, 200)}}, ""},
		{"VP", map[string]string{"1:10": "2:20"}, []app.ATMConnection{{vp(1, 10), vp(2, 20)}}, ""},
		{"BothDirectionsOnce", map[string]string{"1:10:100": "2:20:200", "2:20:200": "1:10:100"}, []app.ATMConnection{{vc(1, 10, 100), vc(2, 20, 200)}}, ""},
		{"VPsAndVCsSorted", map[string]string{"3:5": "4:6", "1:0:100": "10:0:200", "1:1:100": "3:0:300"},
			[]app.ATMConnection{{vc(1, 0, 100), vc(10, 0, 200)}, {vc(1, 1, 100), vc(3, 0, 300)}, {vp(3, 5), vp(4, 6)}}, ""},
		{"Bounds", map[string]string{"0:0:0": "65535:4095:65535"}, []app.ATMConnection{{vc(0, 0, 0), vc(65535, 4095, 65535)}}, ""},
		{"SameVPIOtherPortAsAPath", map[string]string{"1:10": "2:20", "3:10:100": "2:21:100"},
			[]app.ATMConnection{{vp(1, 10), vp(2, 20)}, {vc(2, 21, 100), vc(3, 10, 100)}}, ""},
		// A fault leaves its entry out; what holds is still returned.
		{"ErrBadEntryRestKept", map[string]string{"1:10:100": "2:20:200", "x": "3:1:1"}, []app.ATMConnection{{vc(1, 10, 100), vc(2, 20, 200)}}, "not of the form port:VPI:VCI"},
		{"ErrVCToVP", map[string]string{"1:10:100": "2:20"}, nil, "joins a virtual channel"},
		{"ErrEndTwice", map[string]string{"1:10:100": "2:20:200", "3:1:1": "2:20:200"}, []app.ATMConnection{{vc(1, 10, 100), vc(2, 20, 200)}}, "2:20:200 is used by two connections"},
		{"ErrToItself", map[string]string{"1:10": "1:10"}, nil, "ends where it starts"},
		{"ErrVPI4096", map[string]string{"1:4096:1": "2:1:1"}, nil, "VPI 4096"},
		{"ErrVCI65536", map[string]string{"1:1:65536": "2:1:1"}, nil, "VCI 65536"},
		{"ErrPort", map[string]string{"65536:1": "2:1"}, nil, "Port 65536"},
		{"ErrNegative", map[string]string{"1:-1:1": "2:1:1"}, nil, "not of the form"},
		{"ErrLeadingZero", map[string]string{"1:010:1": "2:1:1"}, nil, "not of the form"},
		{"ErrFourFields", map[string]string{"1:1:1:1": "2:1:1:1"}, nil, "not of the form"},
		{"ErrEmptyField", map[string]string{"1::1": "2:1:1"}, nil, "not of the form"},
		{"ErrVCInAPath", map[string]string{"1:10": "2:20", "1:10:100": "3:1:1"}, []app.ATMConnection{{vp(1, 10), vp(2, 20)}}, "1:10:100 lies in virtual path 1:10"},
		{"ErrPathOverVCs", map[string]string{"1:5:100": "3:1:1", "2:7": "1:5"}, []app.ATMConnection{{vc(1, 5, 100), vc(3, 1, 1)}}, "1:5:100 lies in virtual path 1:5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := app.ATMConnections(tt.give)
			if (err != nil) != (tt.wantErr != "") {
				t.Fatalf("error = %v; want an error saying %q", err, tt.wantErr)
			}
			if err != nil {
				wantCode(t, err, app.EINVALID)
				if f := app.ErrorField(err); f != "properties.mappings" {
					t.Errorf("error field %q; want properties.mappings", f)
				}
				if !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %q; want it to say %q", err, tt.wantErr)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ATMConnections(%v) = %v; want %v", tt.give, got, tt.want)
			}
		})
	}
}

// TestService_UpdateNode_ATMMappings: an ATM switch keeps mappings GNS3
// can switch, shows one ATM port per port number they use, and refuses
// the rest without changing what it had.
func TestService_UpdateNode_ATMMappings(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	atm := mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, app.NodeCreate{Type: app.ATMSwitch})
	update := func(m any) (*app.Node, error) {
		raw, err := json.Marshal(map[string]any{"mappings": m})
		if err != nil {
			t.Fatal(err)
		}
		u, err := app.DecodeProperties(app.ATMSwitch, raw)
		if err != nil {
			t.Fatal(err)
		}
		return svc.UpdateNode(ctx, ref(atm), app.NodeUpdate{Properties: u})
	}
	good := map[string]string{"1:10:100": "2:20:200", "3:5": "1:6"}
	got, err := update(good)
	if err != nil {
		t.Fatal(err)
	}
	var ports []string
	for _, p := range got.Ports() {
		ports = append(ports, fmt.Sprintf("%d %s %s %v", p.PortNumber, p.Name, p.LinkType, p.DataLinkTypes))
	}
	if want := []string{"1 1 serial map[ATM:DLT_ATM_RFC1483]", "2 2 serial map[ATM:DLT_ATM_RFC1483]", "3 3 serial map[ATM:DLT_ATM_RFC1483]"}; !reflect.DeepEqual(ports, want) {
		t.Errorf("ports %v; want %v", ports, want)
	}
	if !reflect.DeepEqual(got.ATMMappings(), good) {
		t.Errorf("mappings %v; want %v", got.ATMMappings(), good)
	}
	for _, bad := range []any{map[string]any{"1:10:100": "2:20"}, map[string]any{"1:10:100": 2}, []string{"1:1"}, "1:1"} {
		if _, err := update(bad); app.ErrorCode(err) != app.EINVALID || app.ErrorField(err) != "properties.mappings" {
			t.Errorf("mappings %v: error %v; want EINVALID on properties.mappings", bad, err)
		}
	}
	if n := mustFindNode(t, svc, atm); !reflect.DeepEqual(n.ATMMappings(), good) {
		t.Errorf("after refused updates, mappings %v; want %v kept", n.ATMMappings(), good)
	}
}

// TestService_UpdateNode_FrameRelayPorts: a Frame Relay switch has one
// serial port per port number its mappings use.
func TestService_UpdateNode_FrameRelayPorts(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	fr := mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, app.NodeCreate{Type: app.FrameRelaySwitch})
	got, err := svc.UpdateNode(ctx, ref(fr), app.NodeUpdate{Properties: &app.FrameRelayUpdate{Mappings: app.Some(map[string]string{
		"1:101": "2:201", "2:201": "1:101", "1:102": "4:401"})}})
	if err != nil {
		t.Fatal(err)
	}
	var numbers []int
	for _, p := range got.Ports() {
		if p.LinkType != "serial" {
			t.Errorf("port %+v; want serial", p)
		}
		numbers = append(numbers, p.PortNumber)
	}
	if want := []int{1, 2, 4}; !reflect.DeepEqual(numbers, want) {
		t.Errorf("port numbers %v; want %v", numbers, want)
	}
}

func TestService_UpdateNode_SwitchPorts(t *testing.T) {
	ctx := context.Background()
	ethertype := func(s string) *string { return &s }
	port := func(n int, typ string, vlan int, et *string) app.SwitchPort {
		return app.SwitchPort{Name: "Ethernet" + string(rune('0'+n)), PortNumber: n, Type: typ, VLAN: vlan, Ethertype: et}
	}
	tests := []struct {
		name      string
		give      []app.SwitchPort
		want      []app.SwitchPort
		wantField string
	}{
		{"VLANDefaultsTo1", []app.SwitchPort{port(0, "access", 0, nil)}, []app.SwitchPort{port(0, "access", 1, nil)}, ""},
		{"VLANBounds", []app.SwitchPort{port(0, "access", 1, nil), port(1, "dot1q", 4094, nil)},
			[]app.SwitchPort{port(0, "access", 1, nil), port(1, "dot1q", 4094, nil)}, ""},
		{"EmptyEthertypeIsNone", []app.SwitchPort{port(0, "qinq", 100, ethertype(""))}, []app.SwitchPort{port(0, "qinq", 100, nil)}, ""},
		{"EthertypeKept", []app.SwitchPort{port(0, "qinq", 100, ethertype("0x88A8"))}, []app.SwitchPort{port(0, "qinq", 100, ethertype("0x88A8"))}, ""},
		{"NoPorts", []app.SwitchPort{}, []app.SwitchPort{}, ""},
		{"ErrInvalidVLAN4095", []app.SwitchPort{port(0, "access", 1, nil), port(1, "access", 4095, nil)}, nil, "properties.ports_mapping.1.vlan"},
		{"ErrInvalidVLANNegative", []app.SwitchPort{port(0, "access", -1, nil)}, nil, "properties.ports_mapping.0.vlan"},
		{"ErrInvalidNumberTwice", []app.SwitchPort{port(0, "access", 1, nil), port(1, "access", 1, nil), port(0, "access", 1, nil)}, nil,
			"properties.ports_mapping.2.port_number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := newService(t)
			sw := mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, app.NodeCreate{Type: app.EthernetSwitch})
			got, err := svc.UpdateNode(ctx, ref(sw), app.NodeUpdate{Properties: &app.SwitchUpdate{PortsMapping: app.Some(tt.give)}})
			if tt.wantField != "" {
				wantCode(t, err, app.EINVALID)
				if f := app.ErrorField(err); f != tt.wantField {
					t.Errorf("error field %q; want %q", f, tt.wantField)
				}
				if stored := mustFindNode(t, svc, sw); !reflect.DeepEqual(stored.Properties.SwitchPorts, sw.Properties.SwitchPorts) {
					t.Errorf("a refused change changed the ports: %+v", stored.Properties.SwitchPorts)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Properties.SwitchPorts, tt.want) && !(len(tt.want) == 0 && len(got.Properties.SwitchPorts) == 0) {
				t.Errorf("ports %+v; want %+v", got.Properties.SwitchPorts, tt.want)
			}
			if len(got.Ports()) != len(tt.want) {
				t.Errorf("%d ports listed; want %d", len(got.Ports()), len(tt.want))
			}
		})
	}
}

// TestService_UpdateNode_PortOrder: a switch's or hub's ports are listed
// in the order of its mapping, numbered by position, named as given.
func TestService_UpdateNode_PortOrder(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	p := mustCreateProject(t, svc, "lab")
	hub := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.EthernetHub})
	got, err := svc.UpdateNode(ctx, ref(hub), app.NodeUpdate{Properties: &app.HubUpdate{PortsMapping: app.Some([]app.HubPort{
		{Name: "uplink", PortNumber: 7}, {Name: "down", PortNumber: 2}})}})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name, short string
		number      int
	}{{"uplink", "e0", 0}, {"down", "e1", 1}}
	ports := got.Ports()
	if len(ports) != len(want) {
		t.Fatalf("ports %+v; want %d", ports, len(want))
	}
	for i, w := range want {
		if ports[i].Name != w.name || ports[i].ShortName != w.short || ports[i].PortNumber != w.number || ports[i].AdapterNumber != 0 {
			t.Errorf("port %d = %+v; want %s (%s) number %d", i, ports[i], w.name, w.short, w.number)
		}
	}
}

func TestService_UpdateNode_CloudPorts(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		give      []app.CloudPort
		wantField string
	}{
		{"OK", []app.CloudPort{{Name: "eth0", PortNumber: 0, Type: "ethernet", Interface: "eth0"},
			{Name: "UDP tunnel 1", PortNumber: 1, Type: "udp", LPort: 20001, RHost: "192.0.2.1", RPort: 20002}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := newService(t)
			c := mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, app.NodeCreate{Type: app.Cloud})
			got, err := svc.UpdateNode(ctx, ref(c), app.NodeUpdate{Properties: &app.CloudUpdate{PortsMapping: app.Some(tt.give)}})
			if tt.wantField != "" {
				wantCode(t, err, app.EINVALID)
				if f := app.ErrorField(err); f != tt.wantField {
					t.Errorf("error field %q; want %q", f, tt.wantField)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Properties.CloudPorts, tt.give) {
				t.Errorf("cloud ports %+v; want %+v", got.Properties.CloudPorts, tt.give)
			}
			ports := got.Ports()
			if len(ports) != 2 || ports[1].Name != "UDP tunnel 1" || ports[1].PortNumber != 1 || ports[1].LinkType != "ethernet" {
				t.Errorf("ports %+v; want one ethernet port per mapping entry, by position", ports)
			}
		})
	}
	// A number given twice (the GNS3 GUI numbers a new port by count) is
	// renumbered by position, as GNS3's cloud does.
	t.Run("NumberTwiceRenumbered", func(t *testing.T) {
		svc, _ := newService(t)
		c := mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, app.NodeCreate{Type: app.Cloud})
		got, err := svc.UpdateNode(ctx, ref(c), app.NodeUpdate{Properties: &app.CloudUpdate{PortsMapping: app.Some([]app.CloudPort{
			{Name: "a", PortNumber: 1, Type: "ethernet", Interface: "eth0"}, {Name: "b", PortNumber: 1, Type: "tap", Interface: "tap0"}})}})
		if err != nil {
			t.Fatal(err)
		}
		if ps := got.Properties.CloudPorts; len(ps) != 2 || ps[0].PortNumber != 0 || ps[1].PortNumber != 1 || ps[1].Name != "b" {
			t.Errorf("cloud ports %+v; want a as 0 and b as 1", ps)
		}
	})
}
