package app_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"nodedesk/app"
)

// keysOf returns the sorted keys of m.
func keysOf[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// TestService_CreateNode_Layout: what a new node looks like on the canvas
// and which properties it shows, per type, as GNS3 gives them.
func TestService_CreateNode_Layout(t *testing.T) {
	tests := []struct {
		typ        app.NodeType
		wantSymbol string
		wantSize   [2]int
		wantLabelY int
		wantProps  []string
	}{
		{app.VPCS, ":/symbols/vpcs_guest.svg", [2]int{65, 59}, -40, []string{"startup_script", "startup_script_path"}},
		{app.EthernetSwitch, ":/symbols/ethernet_switch.svg", [2]int{72, 32}, -26, []string{"ports_mapping"}},
		{app.EthernetHub, ":/symbols/hub.svg", [2]int{72, 32}, -26, []string{"ports_mapping"}},
		{app.FrameRelaySwitch, ":/symbols/frame_relay_switch.svg", [2]int{51, 48}, -34, []string{"mappings"}},
		{app.Cloud, ":/symbols/cloud.svg", [2]int{159, 71}, -46, []string{"interfaces", "ports_mapping", "remote_console_host",
			"remote_console_http_path", "remote_console_port", "remote_console_type"}},
		{app.NAT, ":/symbols/nat.svg", [2]int{159, 71}, -46, []string{"allow_host_loopback", "ports_mapping"}},
		// 45/2 + 10 = 32.5 rounds to even, as GNS3's Python round() does.
		{app.Dynamips, ":/symbols/router.svg", [2]int{66, 45}, -32, dynamipsC7200Keys},
		{app.QEMU, ":/symbols/qemu_guest.svg", [2]int{65, 59}, -40, qemuKeys},
	}
	for _, tt := range tests {
		t.Run(string(tt.typ), func(t *testing.T) {
			svc, _ := newService(t)
			n := mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, app.NodeCreate{Type: tt.typ})
			if n.Symbol == nil || *n.Symbol != tt.wantSymbol {
				t.Errorf("symbol %v; want %s", n.Symbol, tt.wantSymbol)
			}
			if w, h := n.Size(); w != tt.wantSize[0] || h != tt.wantSize[1] {
				t.Errorf("size %dx%d; want %dx%d", w, h, tt.wantSize[0], tt.wantSize[1])
			}
			if n.Label.Y != tt.wantLabelY || n.Z != 1 || n.PortNameFormat != "Ethernet{0}" {
				t.Errorf("label y, z, port name format = %d, %d, %q; want %d, 1, Ethernet{0}", n.Label.Y, n.Z, n.PortNameFormat, tt.wantLabelY)
			}
			if got := keysOf(n.PropertiesView()); !slices.Equal(got, tt.wantProps) {
				t.Errorf("properties keys %v; want %v", got, tt.wantProps)
			}
		})
	}
}

func TestService_UpdateNode_VPCSScript(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	pc := mustCreateVPCS(t, svc, mustCreateProject(t, svc, "lab").ID)
	if p := scriptPath(pc); p != nil {
		t.Errorf("a VPCS without a script has script path %q; want none", *p)
	}
	got, err := svc.UpdateNode(ctx, ref(pc), app.NodeUpdate{Properties: &app.VPCSUpdate{StartupScript: app.Some("ip dhcp")}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Properties.StartupScript == nil || *got.Properties.StartupScript != "ip dhcp" || scriptPath(got) == nil ||
		*scriptPath(got) != app.VPCSScriptFile {
		t.Errorf("script, path = %v, %v; want ip dhcp in %s", got.Properties.StartupScript, scriptPath(got), app.VPCSScriptFile)
	}
	if v := got.PropertiesView(); *(v["startup_script"].(*string)) != "ip dhcp" {
		t.Errorf("properties view %v", v)
	}
	if got, err = svc.UpdateNode(ctx, ref(pc), app.NodeUpdate{Properties: &app.VPCSUpdate{StartupScript: app.Null[string]()}}); err != nil {
		t.Fatal(err)
	}
	if got.Properties.StartupScript != nil || scriptPath(got) != nil {
		t.Errorf("after a null script: %v, %v; want none", got.Properties.StartupScript, scriptPath(got))
	}
}

// scriptPath is a VPCS node's startup_script_path, as its view shows it.
func scriptPath(n *app.Node) *string {
	p, _ := n.PropertiesView()["startup_script_path"].(*string)
	return p
}

func TestService_UpdateNode_CloudRemoteConsole(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	c := mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, app.NodeCreate{Type: app.Cloud})
	view := c.PropertiesView()
	if view["remote_console_host"] != "" || *(view["remote_console_port"].(*int)) != 23 || view["remote_console_type"] != "none" ||
		view["remote_console_http_path"] != "/" {
		t.Errorf("a new cloud's remote console %v; want GNS3's defaults", view)
	}
	// A change of some keys keeps the others.
	got, err := svc.UpdateNode(ctx, ref(c), app.NodeUpdate{Properties: &app.CloudUpdate{
		RemoteConsoleHost: app.Some("192.0.2.9"), RemoteConsoleType: app.Some("telnet")}})
	if err != nil {
		t.Fatal(err)
	}
	rc := got.Properties.RemoteConsole
	if rc == nil || rc.Host != "192.0.2.9" || rc.Type != "telnet" || rc.Port == nil || *rc.Port != 23 || rc.HTTPPath != "/" {
		t.Fatalf("remote console %+v; want host and type changed, port 23 and path / kept", rc)
	}
	if got, err = svc.UpdateNode(ctx, ref(c), app.NodeUpdate{Properties: &app.CloudUpdate{RemoteConsolePort: app.Null[int]()}}); err != nil {
		t.Fatal(err)
	}
	if rc := got.Properties.RemoteConsole; rc.Port != nil || rc.Host != "192.0.2.9" {
		t.Errorf("after a null port: %+v; want no port, the host kept", rc)
	}
	// Interfaces are kept as given.
	ifaces := []app.HostInterface{{Name: "tap0", Type: "tap"}}
	if got, err = svc.UpdateNode(ctx, ref(c), app.NodeUpdate{Properties: &app.CloudUpdate{Interfaces: app.Some(ifaces)}}); err != nil ||
		!reflect.DeepEqual(got.Properties.Interfaces, ifaces) {
		t.Errorf("interfaces = %+v, %v; want %+v", got.Properties.Interfaces, err, ifaces)
	}
}

func TestService_UpdateNode_GenericProperties(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	q := mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, app.NodeCreate{Type: app.VirtualBox})
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	upd := func(m map[string]json.RawMessage) app.NodeUpdate {
		g := app.GenericUpdate(m)
		return app.NodeUpdate{Properties: &g}
	}
	got, err := svc.UpdateNode(ctx, ref(q), upd(map[string]json.RawMessage{"ram": raw("256"), "hda_disk_image": raw(`"linux.qcow2"`)}))
	if err != nil {
		t.Fatal(err)
	}
	// Keys given replace, the others stay, and a null removes one.
	if got, err = svc.UpdateNode(ctx, ref(q), upd(map[string]json.RawMessage{"ram": raw("512"), "hda_disk_image": raw("null"), "adapters": raw("2")})); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"ram": "512", "adapters": "2"}
	if gotKeys := keysOf(got.Properties.Extra); !slices.Equal(gotKeys, keysOf(want)) {
		t.Fatalf("properties %v; want keys %v", got.Properties.Extra, keysOf(want))
	}
	for k, v := range want {
		if string(got.Properties.Extra[k]) != v {
			t.Errorf("property %s = %s; want %s", k, got.Properties.Extra[k], v)
		}
	}
	if len(got.Ports()) != 2 {
		t.Errorf("%d ports; want one per adapter (2)", len(got.Ports()))
	}
	if stored := mustFindNode(t, svc, q); !reflect.DeepEqual(stored.Properties.Extra, got.Properties.Extra) {
		t.Errorf("stored properties %v; want %v", stored.Properties.Extra, got.Properties.Extra)
	}
}

// TestService_UpdateNode_NATPortsIgnored: a NAT node's one port is fixed;
// a change of its ports_mapping is read and ignored, as in GNS3.
func TestService_UpdateNode_NATPortsIgnored(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	nat := mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, app.NodeCreate{Type: app.NAT})
	got, err := svc.UpdateNode(ctx, ref(nat), app.NodeUpdate{Properties: &app.NATUpdate{PortsMapping: app.Some(json.RawMessage(`[]`))}})
	if err != nil {
		t.Fatal(err)
	}
	ports := got.Ports()
	if len(ports) != 1 || ports[0].Name != "nat0" || ports[0].PortNumber != 0 {
		t.Errorf("NAT ports %+v; want nat0 alone", ports)
	}
}

func TestDecodeProperties(t *testing.T) {
	tests := []struct {
		name     string
		typ      app.NodeType
		give     string
		want     app.PropertiesUpdate
		wantCode string
	}{
		{"Empty", app.VPCS, "", nil, ""},
		{"VPCS", app.VPCS, `{"startup_script": "ip dhcp"}`, &app.VPCSUpdate{StartupScript: app.Some("ip dhcp")}, ""},
		// A compute request's body: the node's own fields beside the
		// properties; they are not read here.
		{"ComputeBody", app.VPCS, `{"name": "PC1", "console": 5000, "startup_script": "ip dhcp"}`,
			&app.VPCSUpdate{StartupScript: app.Some("ip dhcp")}, ""},
		{"FrameRelay", app.FrameRelaySwitch, `{"mappings": {"1:101": "2:201"}}`,
			&app.FrameRelayUpdate{Mappings: app.Some(map[string]string{"1:101": "2:201"})}, ""},
		{"Generic", app.VMware, `{"ram": 256}`, &app.GenericUpdate{"ram": json.RawMessage("256")}, ""},
		// A compute request's body for a QEMU node: its properties, not
		// the node's own fields.
		{"QEMUComputeBody", app.QEMU, `{"name": "VM1", "console": 5000, "console_type": "vnc", "node_id": "x", "ram": 512}`,
			&app.QEMUUpdate{"ram": json.RawMessage("512")}, ""},
		{"ErrInvalidJSON", app.VPCS, `{"startup_script": `, nil, app.EINVALID},
		{"ErrInvalidShape", app.EthernetSwitch, `{"ports_mapping": "all"}`, nil, app.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := app.DecodeProperties(tt.typ, []byte(tt.give))
			wantCode(t, err, tt.wantCode)
			if tt.wantCode != "" {
				if f := app.ErrorField(err); f != "properties" {
					t.Errorf("error field %q; want properties", f)
				}
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("DecodeProperties = %#v; want %#v", got, tt.want)
			}
		})
	}
}

// TestService_UpdateNode_Fields covers the checks of the node's own fields
// that TestService_UpdateNode and TestService_UpdateNode_Console leave out.
func TestService_UpdateNode_Fields(t *testing.T) {
	ctx := context.Background()
	label := func(rot int) app.Label { return app.Label{Text: "a", Rotation: rot} }
	tests := []struct {
		name      string
		typ       app.NodeType
		give      app.NodeUpdate
		wantField string // "" for a change that is accepted
		check     func(t *testing.T, n *app.Node)
	}{
		{"LabelRotationBounds", app.VPCS, app.NodeUpdate{Label: app.Some(label(-359))}, "", func(t *testing.T, n *app.Node) {
			if n.Label.Rotation != -359 || n.Label.Text != "a" {
				t.Errorf("label %+v", n.Label)
			}
		}},
		{"ErrInvalidLabelRotation", app.VPCS, app.NodeUpdate{Label: app.Some(label(361))}, "label.rotation", nil},
		{"ErrInvalidLabelRotationLow", app.VPCS, app.NodeUpdate{Label: app.Some(label(-360))}, "label.rotation", nil},
		{"ErrInvalidPortSegmentSize", app.QEMU, app.NodeUpdate{PortSegmentSize: app.Some(-1)}, "port_segment_size", nil},
		{"ErrInvalidConsoleWithoutConsoleType", app.EthernetHub, app.NodeUpdate{Console: app.Some(6000)}, "console", nil},
		{"SymbolNull", app.VPCS, app.NodeUpdate{Symbol: app.Null[string]()}, "", func(t *testing.T, n *app.Node) {
			if n.Symbol != nil {
				t.Errorf("symbol %v; want none", *n.Symbol)
			}
		}},
		{"EmptyCustomAdaptersAreNone", app.QEMU, app.NodeUpdate{CustomAdapters: app.Some([]app.CustomAdapter{}), X: app.Some(1)}, "",
			func(t *testing.T, n *app.Node) {
				if n.CustomAdapters != nil {
					t.Errorf("custom adapters %v; want none", n.CustomAdapters)
				}
			}},
		{"PortNaming", app.QEMU, app.NodeUpdate{PortNameFormat: app.Some("eth{0}"), FirstPortName: app.Some("mgmt"),
			CustomAdapters: app.Some([]app.CustomAdapter{{AdapterNumber: 0, PortName: "wan"}}),
			Properties:     &app.QEMUUpdate{"adapters": json.RawMessage("3")}}, "",
			func(t *testing.T, n *app.Node) {
				var names []string
				for _, p := range n.Ports() {
					names = append(names, p.Name)
				}
				// A custom adapter's name wins over the first port name.
				if want := []string{"wan", "eth0", "eth1"}; !slices.Equal(names, want) {
					t.Errorf("port names %v; want %v", names, want)
				}
			}},
		{"ConsoleAutoStartAndLock", app.VPCS, app.NodeUpdate{ConsoleAutoStart: app.Some(true), Locked: app.Some(true)}, "",
			func(t *testing.T, n *app.Node) {
				if !n.ConsoleAutoStart || !n.Locked {
					t.Errorf("console_auto_start, locked = %v, %v; want both", n.ConsoleAutoStart, n.Locked)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := newService(t)
			n := mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, app.NodeCreate{Type: tt.typ})
			got, err := svc.UpdateNode(ctx, ref(n), tt.give)
			if tt.wantField != "" {
				wantCode(t, err, app.EINVALID)
				if f := app.ErrorField(err); f != tt.wantField {
					t.Errorf("error field %q; want %q", f, tt.wantField)
				}
				if after := mustFindNode(t, svc, n); !reflect.DeepEqual(after, n) {
					t.Errorf("a refused change changed the node:\n got %+v\nwant %+v", after, n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, got)
			tt.check(t, mustFindNode(t, svc, n))
		})
	}
}

// A NAT node's allow_host_loopback is off by default: false in its
// properties, absent from what a project file or a compute gets (GNS3 2.2's
// compute knows no such key); on, it is true everywhere and the node
// allows the host's loopback; null turns it off again.
func TestService_UpdateNode_NATHostLoopback(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	nat := mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, app.NodeCreate{Type: app.NAT})
	check := func(what string, n *app.Node, want bool) {
		t.Helper()
		_, inFile := n.PropertiesWithoutFiles()["allow_host_loopback"]
		_, toCompute := n.SettableProperties()["allow_host_loopback"]
		if n.AllowsHostLoopback() != want || n.PropertiesView()["allow_host_loopback"] != want || inFile != want || toCompute != want {
			t.Errorf("%s: allows %v, view %v, in the file %v, to a compute %v; want %v",
				what, n.AllowsHostLoopback(), n.PropertiesView(), inFile, toCompute, want)
		}
	}
	check("a new NAT node", nat, false)
	for _, c := range []struct {
		give string
		want bool
	}{{`{"allow_host_loopback": true}`, true}, {`{"allow_host_loopback": null}`, false},
		{`{"allow_host_loopback": true}`, true}, {`{"allow_host_loopback": false}`, false}} {
		u, err := app.DecodeProperties(app.NAT, []byte(c.give))
		if err != nil {
			t.Fatal(err)
		}
		got, err := svc.UpdateNode(ctx, ref(nat), app.NodeUpdate{Properties: u})
		if err != nil {
			t.Fatal(err)
		}
		check("after "+c.give, got, c.want)
		back, err := svc.FindNode(ctx, ref(nat))
		if err != nil {
			t.Fatal(err)
		}
		check("after "+c.give+", stored", back, c.want)
	}
}
