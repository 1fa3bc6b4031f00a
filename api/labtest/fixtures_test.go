package labtest

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"nodedesk/app"
	"nodedesk/app/iou/ioutest"
	"nodedesk/app/kit"
)

// Fixture labs for "check my lab" (issue 39), each built through the API
// as a user would and returned with what a checks, lint or wire-map test
// needs: its project, its nodes and links by name, its hosts' addresses.
// Each has a fault to inject. TestLab_ChecksFixtures
// (checks_fixtures_test.go) runs their checks with and without it.

// Fixture is a lab built for the checks.
type Fixture struct {
	Project string
	Nodes   map[string]string // node name → node id
	Links   map[string]string // a short name ("PC1-SW1") → link id
	Addrs   map[string]string // host name → its IPv4 address, as its config says
}

func newFixture(t *testing.T, l *Lab, name string) *Fixture {
	t.Helper()
	return &Fixture{Project: l.MustCreateProject(name), Nodes: map[string]string{}, Links: map[string]string{}, Addrs: map[string]string{}}
}

// path is the API path of node name in f.
func (f *Fixture) path(name string) string {
	return "/v2/projects/" + f.Project + "/nodes/" + f.Nodes[name]
}

// host adds a VPCS named name with address cidr ("10.0.0.1/24") and
// gateway gw ("": none).
func (f *Fixture) host(t *testing.T, l *Lab, name, cidr, gw string) {
	t.Helper()
	n := l.MustCreateNode(f.Project, map[string]any{"node_type": "vpcs", "name": name,
		"properties": map[string]any{"startup_script": vpcsScript(name, cidr, gw)}})
	f.Nodes[name] = n["node_id"].(string)
	f.Addrs[name] = strings.Split(cidr, "/")[0]
}

// vpcsScript is a VPCS's startup script naming it and giving it cidr and
// gateway gw ("": none; "dhcp": a lease).
func vpcsScript(name, cidr, gw string) string {
	if cidr == "dhcp" {
		return "set pcname " + name + "\ndhcp\n"
	}
	return strings.TrimSpace(fmt.Sprintf("set pcname %s\nip %s %s", name, cidr, gw)) + "\n"
}

// link joins port pa of node a and port pb of node b (adapter 0, or the
// adapter in "adapter/port" names through linkAt), named a-b.
func (f *Fixture) link(t *testing.T, l *Lab, a string, pa int, b string, pb int) {
	t.Helper()
	f.Links[a+"-"+b] = l.Link(t, f.Project, f.Nodes[a], pa, f.Nodes[b], pb)
}

// start starts every node of the lab and waits until each VPCS holds its
// address (VPCS takes one only after checking for 1–3 s that nobody else
// has it: a ping before then finds nobody there).
func (f *Fixture) start(t *testing.T, l *Lab) {
	t.Helper()
	l.Do("POST", "/v2/projects/"+f.Project+"/nodes/start", nil).Want(t, 204)
	var ids, addrs []string
	for name, addr := range f.Addrs {
		if l.Do("GET", f.path(name), nil).Want(t, 200).JSON(t)["node_type"] == "vpcs" {
			ids, addrs = append(ids, f.Nodes[name]), append(addrs, addr)
		}
	}
	awaitAddresses(t, l, ids, addrs)
}

// readdress gives a VPCS another address (a fault) and reloads it.
func (f *Fixture) readdress(t *testing.T, l *Lab, name, cidr, gw string) {
	t.Helper()
	l.Do("PUT", f.path(name), map[string]any{"properties": map[string]any{"startup_script": vpcsScript(name, cidr, gw)}}).Want(t, 200)
	l.Do("POST", f.path(name)+"/reload", nil).Want(t, 200)
	f.Addrs[name] = strings.Split(cidr, "/")[0]
	awaitAddresses(t, l, []string{f.Nodes[name]}, []string{f.Addrs[name]})
}

// FixtureVLANs: two switches SW1 and SW2 joined by a dot1q trunk (their
// ports 2, link "SW1-SW2"); on each, port 0 is an access port of VLAN 10
// and port 1 of VLAN 20. Each VLAN has its own subnet, as labs are built:
// PC1 (10.0.10.1) and PC3 (10.0.10.3) on the switches' ports 0, PC2
// (10.0.20.2) and PC4 (10.0.20.4) on their ports 1; a host in the wrong
// VLAN is then in the wrong subnet too, which lint can tell. Started.
func FixtureVLANs(t *testing.T, l *Lab) *Fixture {
	t.Helper()
	f := newFixture(t, l, "vlans")
	for _, sw := range []string{"SW1", "SW2"} {
		f.Nodes[sw] = l.MustCreateNode(f.Project, map[string]any{"node_type": "ethernet_switch", "name": sw,
			"properties": map[string]any{"ports_mapping": vlanPorts(10)}})["node_id"].(string)
	}
	f.link(t, l, "SW1", 2, "SW2", 2)
	for i, at := range []struct {
		sw         string
		port, vlan int
	}{{"SW1", 0, 10}, {"SW1", 1, 20}, {"SW2", 0, 10}, {"SW2", 1, 20}} {
		name := fmt.Sprintf("PC%d", i+1)
		f.host(t, l, name, fmt.Sprintf("10.0.%d.%d/24", at.vlan, i+1), "")
		f.link(t, l, name, 0, at.sw, at.port)
	}
	f.start(t, l)
	return f
}

// vlanPorts is an edge switch's ports: 0 access in VLAN first, 1 access
// in VLAN 20, 2 a dot1q trunk (native VLAN 1).
func vlanPorts(first int) []any {
	return []any{kit.SwitchPort(0, "access", first, ""), kit.SwitchPort(1, "access", 20, ""), kit.SwitchPort(2, "dot1q", 1, "")}
}

// FaultWrongVLAN puts SW2's port 0 (PC3's) in VLAN 20 (wrong: true), or
// back in VLAN 10: PC1 no longer reaches PC3.
func FaultWrongVLAN(t *testing.T, l *Lab, f *Fixture, wrong bool) {
	t.Helper()
	vlan := 10
	if wrong {
		vlan = 20
	}
	l.Do("PUT", f.path("SW2"), map[string]any{"properties": map[string]any{"ports_mapping": vlanPorts(vlan)}}).Want(t, 200)
}

// FaultDuplicateIP gives PC4 PC2's address (both in VLAN 20): two hosts
// then claim 10.0.20.2. VPCS refuses an address another host answers ARP
// for, so PC4 is reloaded while its link is suspended, as a host that was
// off when the other took it.
func FaultDuplicateIP(t *testing.T, l *Lab, f *Fixture) {
	t.Helper()
	FaultSuspendLink(t, l, f, "PC4-SW2", true)
	f.readdress(t, l, "PC4", "10.0.20.2/24", "")
	FaultSuspendLink(t, l, f, "PC4-SW2", false)
}

// FixtureFrameRelay: a Frame Relay switch FR1 in hub and spoke, for lint
// only (no host nodedesk runs speaks Frame Relay: VPCS cannot, and the
// stand-in IOU drops serial frames): its port 1 (the hub's) maps DLCI 102
// to port 2's DLCI 201 and DLCI 103 to port 3's DLCI 301. IOU routers HUB,
// SPOKE2 and SPOKE3 (serial adapters) are linked to ports 1, 2 and 3 by
// their Serial2/0 (adapter 2, port 0), their startup configs naming the
// DLCIs in `frame-relay map ip`. Not started; the IOU image is placed.
func FixtureFrameRelay(t *testing.T, l *Lab) *Fixture {
	t.Helper()
	f := newFixture(t, l, "frame-relay")
	f.Nodes["FR1"] = l.MustCreateNode(f.Project, map[string]any{"node_type": "frame_relay_switch", "name": "FR1",
		"properties": map[string]any{"mappings": map[string]any{"1:102": "2:201", "1:103": "3:301"}}})["node_id"].(string)
	image := iouImage(t, l)
	for i, r := range []struct{ name, addr, maps string }{
		{"HUB", "10.0.123.1", " frame-relay map ip 10.0.123.2 102 broadcast\n frame-relay map ip 10.0.123.3 103 broadcast\n"},
		{"SPOKE2", "10.0.123.2", " frame-relay map ip 10.0.123.1 201 broadcast\n"},
		{"SPOKE3", "10.0.123.3", " frame-relay map ip 10.0.123.1 301 broadcast\n"},
	} {
		n := iouNode(t, l, f.Project, r.name, image, map[string]any{"ethernet_adapters": 2, "serial_adapters": 1})
		f.Nodes[r.name] = n["node_id"].(string)
		f.Addrs[r.name] = r.addr
		l.Do("POST", f.path(r.name)+"/files/startup-config.cfg", []byte(frConfig(r.name, r.addr, r.maps))).Want(t, 201)
		f.Links[r.name+"-FR1"] = l.Do("POST", "/v2/projects/"+f.Project+"/links", map[string]any{"nodes": []any{
			kit.End(f.Nodes[r.name], 2, 0), kit.End(f.Nodes["FR1"], 0, i+1)}}).Want(t, 201).JSON(t)["link_id"].(string)
	}
	return f
}

func frConfig(name, addr, maps string) string {
	return "hostname " + name + "\n!\ninterface Serial2/0\n encapsulation frame-relay\n ip address " + addr +
		" 255.255.255.0\n" + maps + " no shutdown\n!\nend\n"
}

// FaultAsymmetricDLCI makes SPOKE3 map the hub by DLCI 310, which FR1
// does not carry (it maps port 3's DLCI 301): the hub and SPOKE3 no longer
// agree.
func FaultAsymmetricDLCI(t *testing.T, l *Lab, f *Fixture) {
	t.Helper()
	l.Do("POST", f.path("SPOKE3")+"/files/startup-config.cfg",
		[]byte(frConfig("SPOKE3", "10.0.123.3", " frame-relay map ip 10.0.123.1 310 broadcast\n"))).Want(t, 201)
}

// natGateway is the NAT node's address on its lab side.
const natGateway = "192.168.122.1"

// FixtureNAT: PC1, with a DHCP lease from the NAT node NAT1 (its startup
// script says `dhcp`), behind switch SW1 (links "NAT1-SW1", "PC1-SW1").
// Started; PC1's address is not known before its lease.
func FixtureNAT(t *testing.T, l *Lab) *Fixture {
	t.Helper()
	f := newFixture(t, l, "nat")
	f.Nodes["NAT1"] = l.MustCreateNode(f.Project, map[string]any{"node_type": "nat", "name": "NAT1"})["node_id"].(string)
	f.Nodes["SW1"] = l.MustCreateSwitch(t, f.Project, nil)
	f.host(t, l, "PC1", "dhcp", "")
	delete(f.Addrs, "PC1")
	f.link(t, l, "NAT1", 0, "SW1", 0)
	f.link(t, l, "PC1", 0, "SW1", 1)
	f.start(t, l)
	return f
}

// FaultSuspendLink suspends link name of f.
func FaultSuspendLink(t *testing.T, l *Lab, f *Fixture, name string, suspend bool) {
	t.Helper()
	l.Do("PUT", "/v2/projects/"+f.Project+"/links/"+f.Links[name], map[string]any{"suspend": suspend}).Want(t, 200)
}

// FixtureDynamips: a c7200 R1 running the stand-in IOS (fake-ios, which
// answers ARP and ping at 192.0.2.1 on FastEthernet0/0 but has no ping
// command), on switch SW1 with PC1 192.0.2.2/24 (links "R1-SW1",
// "PC1-SW1"). Started.
func FixtureDynamips(t *testing.T, l *Lab) *Fixture {
	t.Helper()
	f := newFixture(t, l, "dynamips")
	iosImage(t, l, "c7200-fake.image", "c7200")
	f.Nodes["R1"] = routerNode(t, l, f.Project, "R1", map[string]any{"platform": "c7200", "image": "c7200-fake.image",
		"npe": "npe-400", "slot0": "C7200-IO-FE", "idlepc": fakeIdlePC})["node_id"].(string)
	f.Addrs["R1"] = "192.0.2.1"
	l.Do("POST", f.path("R1")+"/files/configs/i1_startup-config.cfg",
		[]byte("!\nhostname R1\n!\ninterface FastEthernet0/0\n ip address 192.0.2.1 255.255.255.0\n!\nend\n")).Want(t, 201)
	f.Nodes["SW1"] = l.MustCreateSwitch(t, f.Project, nil)
	f.host(t, l, "PC1", "192.0.2.2/24", "")
	f.link(t, l, "R1", 0, "SW1", 0)
	f.link(t, l, "PC1", 0, "SW1", 1)
	f.start(t, l)
	return f
}

// FaultWrongAddress gives PC1 of FixtureDynamips an address outside R1's
// subnet (192.0.3.2/24).
func FaultWrongAddress(t *testing.T, l *Lab, f *Fixture) {
	t.Helper()
	f.readdress(t, l, "PC1", "192.0.3.2/24", "")
}

// iouImage places the stand-in IOU router image (fake-iol, x86_64, L3) in
// nodedesk's images and answers its name; the lab must run with the IOU
// licence check off (startIOULab).
func iouImage(t *testing.T, l *Lab) string {
	t.Helper()
	const image = "i86bi-linux-l3-adventerprisek9-test.bin"
	ioutest.PlaceImage(t, filepath.Dir(l.Store.Path()), image)
	return image
}

// iouRouterConfig is R1's startup config in FixtureIOU, Ethernet0/1 shut
// down when shut.
func iouRouterConfig(shut bool) string {
	e01 := " no shutdown\n"
	if shut {
		e01 = " shutdown\n"
	}
	return "hostname R1\n!\ninterface Ethernet0/0\n ip address 10.1.0.1 255.255.255.0\n no shutdown\n!\n" +
		"interface Ethernet0/1\n ip address 10.2.0.1 255.255.255.0\n" + e01 + "!\nline con 0\n privilege level 15\n!\nend\n"
}

// FixtureIOU: an IOU L3 router R1 (the stand-in fake-iol) routes between
// PC1 10.1.0.2/24 on its Ethernet0/0 (10.1.0.1) and PC2 10.2.0.2/24 on its
// Ethernet0/1 (10.2.0.1), both interfaces `no shutdown` in its startup
// config (links "PC1-R1", "PC2-R1"). Started.
func FixtureIOU(t *testing.T, l *Lab) *Fixture {
	t.Helper()
	f := newFixture(t, l, "iou")
	f.Nodes["R1"] = iouNode(t, l, f.Project, "R1", iouImage(t, l), map[string]any{"serial_adapters": 0})["node_id"].(string)
	f.Addrs["R1"] = "10.1.0.1"
	l.Do("POST", f.path("R1")+"/files/startup-config.cfg", []byte(iouRouterConfig(false))).Want(t, 201)
	f.host(t, l, "PC1", "10.1.0.2/24", "10.1.0.1")
	f.host(t, l, "PC2", "10.2.0.2/24", "10.2.0.1")
	f.link(t, l, "PC1", 0, "R1", 0)
	f.link(t, l, "PC2", 0, "R1", 1)
	f.start(t, l)
	return f
}

// FaultShutInterface shuts R1's Ethernet0/1 in its startup config
// (written while R1 is stopped: a stop reads its NVRAM back) and starts it
// again: PC2's subnet is cut off.
func FaultShutInterface(t *testing.T, l *Lab, f *Fixture) {
	t.Helper()
	l.Do("POST", f.path("R1")+"/stop", nil).Want(t, 200)
	l.Do("POST", f.path("R1")+"/files/startup-config.cfg", []byte(iouRouterConfig(true))).Want(t, 201)
	l.Do("POST", f.path("R1")+"/start", nil).Want(t, 200)
}

// awaitAddresses waits until each started VPCS of ids holds its address of
// addrs, as `show ip` on its console says: VPCS takes an address only
// after checking for 1–3 s that nobody else answers for it, and a ping
// before then finds nobody there.
func awaitAddresses(t *testing.T, l *Lab, ids, addrs []string) {
	t.Helper()
	d := l.Driver(t, app.VPCS)
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			want := regexp.MustCompile(`IP/MASK\s*: ` + regexp.QuoteMeta(addrs[i]) + `/`)
			for end := time.Now().Add(20 * time.Second); time.Now().Before(end); {
				lines, ok, err := d.Converse(context.Background(), ids[i], "show ip", want, 2*time.Second)
				if ok {
					errs[i] = nil
					return
				}
				errs[i] = fmt.Errorf("%s has no address %s: %q %v", ids[i], addrs[i], lines, err)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}
