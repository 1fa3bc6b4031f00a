package app_test

import (
	"context"
	"reflect"
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
