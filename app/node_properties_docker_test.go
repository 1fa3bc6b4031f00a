package app_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"nodedesk/app"
	"nodedesk/store/storetest"
)

// dockerRecorder runs Docker nodes and keeps what it was given.
type dockerRecorder struct {
	fakeRunner
	got []app.Process
}

func (r *dockerRecorder) Runs(t app.NodeType) bool { return t == app.Docker }
func (r *dockerRecorder) Start(p app.Process) (string, error) {
	r.got = append(r.got, p)
	return "", nil
}

func dockerProps(tb testing.TB, body string) app.PropertiesUpdate {
	tb.Helper()
	u, err := app.DecodeProperties(app.Docker, []byte(body))
	if err != nil {
		tb.Fatal(err)
	}
	return u
}

// TestService_DockerNode: a new Docker node has GNS3's properties (an
// image without a tag is its latest, the MAC address from the node's id),
// an aux console port of its own beside its console, and starts with one
// veth name per adapter and no UDP ports.
func TestService_DockerNode(t *testing.T) {
	ctx := context.Background()
	d := &dockerRecorder{}
	svc := app.NewService(app.Config{Store: storetest.Open(t), DataDir: t.TempDir(), HostInterfaces: hostInterfaces,
		Runners: []app.Runner{d}, PortFree: everyPortFree})
	pid := mustCreateProject(t, svc, "lab").ID
	n := mustCreateNode(t, svc, pid, app.NodeCreate{Type: app.Docker, NodeUpdate: app.NodeUpdate{
		Properties: dockerProps(t, `{"image": "frrouting/frr", "adapters": 3, "environment": "A=1"}`)}})
	v := n.PropertiesView()
	want := map[string]string{"image": `"frrouting/frr:latest"`, "adapters": "3", "start_command": "null", "environment": `"A=1"`,
		"console_resolution": `"1024x768"`, "console_http_port": "80", "console_http_path": `"/"`, "extra_volumes": "[]",
		"mac_address": `"02:42:` + n.ID[2:4] + ":" + n.ID[4:6] + ":" + n.ID[6:8] + `:00"`}
	for k, w := range want {
		if got, _ := json.Marshal(v[k]); string(got) != w {
			t.Errorf("properties.%s = %s; want %s", k, got, w)
		}
	}
	if n.Console == 0 || n.Aux == 0 || n.Aux == n.Console || v["aux"] != n.Aux {
		t.Fatalf("console %d, aux %d (view %v); want two distinct ports", n.Console, n.Aux, v["aux"])
	}
	other := mustCreateNode(t, svc, pid, app.NodeCreate{Type: app.Docker})
	if taken := []int{n.Console, n.Aux}; slices.Contains(taken, other.Console) || slices.Contains(taken, other.Aux) {
		t.Errorf("second node got console %d aux %d; the first owns %v", other.Console, other.Aux, taken)
	}
	if _, err := svc.NodeAction(ctx, ref(n), app.Start); err != nil {
		t.Fatal(err)
	}
	p := d.got[0]
	wantIfs := []string{app.VethName(n.ID, 0), app.VethName(n.ID, 1), app.VethName(n.ID, 2)}
	if !slices.Equal(p.HostInterfaces, wantIfs) || len(p.Ports) != 0 || p.Aux != n.Aux {
		t.Errorf("process interfaces %v ports %v aux %d; want %v, none, %d", p.HostInterfaces, p.Ports, p.Aux, wantIfs, n.Aux)
	}
	if got := mustFindNode(t, svc, n); len(got.UDPPorts) != 0 {
		t.Errorf("a Docker node holds UDP ports %v", got.UDPPorts)
	}
	for _, name := range wantIfs {
		if len(name) > 15 {
			t.Errorf("veth name %q is longer than Linux allows", name)
		}
	}
}

// TestService_DockerNode_Invalid: values GNS3 refuses are refused, naming
// the property, and change nothing.
func TestService_DockerNode_Invalid(t *testing.T) {
	svc, _ := newService(t)
	n := mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, app.NodeCreate{Type: app.Docker,
		NodeUpdate: app.NodeUpdate{Properties: dockerProps(t, `{"image": "alpine"}`)}})
	for _, tt := range []struct{ body, field string }{
		{`{"adapters": 100}`, "properties.adapters"},
		{`{"adapters": -1}`, "properties.adapters"},
		{`{"console_resolution": "big"}`, "properties.console_resolution"},
		{`{"extra_volumes": ["etc/frr"]}`, "properties.extra_volumes"},
		{`{"extra_volumes": ["/etc/../root"]}`, "properties.extra_volumes"},
		{`{"mac_address": "02:42"}`, "properties.mac_address"},
		{`{"image": 3}`, "properties.image"},
		{`{"extra_hosts": "gateway 10.0.0.1"}`, "properties.extra_hosts"},
		{`{"extra_hosts": "gateway:ten"}`, "properties.extra_hosts"},
	} {
		_, err := svc.UpdateNode(context.Background(), ref(n), app.NodeUpdate{Properties: dockerProps(t, tt.body)})
		wantCode(t, err, app.EINVALID)
		if f := app.ErrorField(err); f != tt.field {
			t.Errorf("%s: field %q; want %q", tt.body, f, tt.field)
		}
	}
	_, err := svc.UpdateNode(context.Background(), ref(n), app.NodeUpdate{ConsoleType: app.Some(app.ConsoleVNC)})
	wantCode(t, err, app.EINVALID) // GNS3's vnc needs an X server nodedesk does not run
	if got, _ := json.Marshal(mustFindNode(t, svc, n).PropertiesView()["adapters"]); string(got) != "1" {
		t.Errorf("a refused change changed adapters to %s", got)
	}
}

// TestInterfacesExample: a new node's interfaces file sets nothing up.
func TestInterfacesExample(t *testing.T) {
	s := app.DockerInterfaces("R1", 2)
	for _, line := range strings.Split(s, "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			t.Errorf("an uncommented line: %q", line)
		}
	}
	for _, want := range []string{"#iface eth0 inet static", "#iface eth1 inet dhcp", "#\thostname R1"} {
		if !strings.Contains(s, want) {
			t.Errorf("the example lacks %q:\n%s", want, s)
		}
	}
}

// TestDockerPortMACs: a Docker node's ports show each adapter's MAC, its
// mac_address plus the adapter's number, or a custom adapter's own.
func TestDockerPortMACs(t *testing.T) {
	svc := app.NewService(app.Config{Store: storetest.Open(t), DataDir: t.TempDir(), HostInterfaces: hostInterfaces, PortFree: everyPortFree})
	pid := mustCreateProject(t, svc, "macs").ID
	n := mustCreateNode(t, svc, pid, app.NodeCreate{Type: app.Docker, NodeUpdate: app.NodeUpdate{
		Properties:     dockerProps(t, `{"image": "alpine", "adapters": 3, "mac_address": "02:42:aa:bb:cc:fe"}`),
		CustomAdapters: app.Some([]app.CustomAdapter{{AdapterNumber: 2, MACAddress: "02:00:00:00:00:99"}})}})
	var got []string
	for _, port := range n.Ports() {
		got = append(got, port.MACAddress)
	}
	if want := []string{"02:42:aa:bb:cc:fe", "02:42:aa:bb:cc:ff", "02:00:00:00:00:99"}; !slices.Equal(got, want) {
		t.Errorf("ports' MACs = %v, want %v", got, want)
	}
	if got := app.AdapterMAC("02:42:aa:bb:cc:ff", 1); got != "02:42:aa:bb:cd:00" {
		t.Errorf("AdapterMAC carries into the next byte: %s, want 02:42:aa:bb:cd:00", got)
	}
}
