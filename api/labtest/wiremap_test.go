package labtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"nodedesk/app"
	"nodedesk/app/kit"
)

// The wire map (issue 39): what real VPCS on nodedesk's switch put on the
// wire tells which addresses live on which link and what is wrong there,
// without logging into anything.

// TestWireMap_FaultsOnTheWire: three VPCS on one switch, two of them
// with the same address, one whose gateway does not exist, and a tagged
// frame sent into an access port by a cloud's UDP tunnel.
func TestWireMap_FaultsOnTheWire(t *testing.T) {
	ts := StartVPCS(t)
	pid := ts.MustCreateProject("wires")
	sw := ts.MustCreateSwitch(t, pid, nil) // 8 access ports of VLAN 1
	pc1 := ts.StartHostVia(t, pid, "pc1", "10.0.0.1", "10.0.0.254")
	pc2 := ts.StartHost(t, pid, "pc2", "10.0.0.1") // pc1's address again
	pc3 := ts.StartHost(t, pid, "pc3", "10.0.0.3")
	links := map[string]string{
		ts.Link(t, pid, pc1.ID, 0, sw, 0): pc1.ID,
		ts.Link(t, pid, pc2.ID, 0, sw, 1): pc2.ID,
		ts.Link(t, pid, pc3.ID, 0, sw, 2): pc3.ID,
	}
	peer := kit.NewUDPPeer(t)
	cloud := ts.CloudTunnels(t, pid, peer)
	tunnel := ts.Link(t, pid, cloud, 0, sw, 3)

	// pc2 reaches pc3 (its ARP claims 10.0.0.1); pc1 asks for its
	// gateway, which nobody holds (its ARP claims 10.0.0.1 too).
	if !pc2.Pings("10.0.0.3", 20*time.Second) {
		t.Fatalf("pc2 cannot ping pc3:\n%s", kit.Printable(pc2.Con.Seen.String()))
	}
	if !pc1.Silent("10.0.0.254") {
		t.Fatal("pc1's gateway answered, but none exists")
	}
	// A frame tagged with VLAN 42 into access port 3.
	arp := kit.ARP(1, kit.Broadcast, net.HardwareAddr{0x02, 0, 0, 0, 0, 0x42}, net.IPv4(10, 0, 0, 42), nil, net.IPv4(10, 0, 0, 1))
	tagged := append(append(slices.Clone(arp[:12]), 0x81, 0x00, 0, 42), arp[12:]...)
	peer.Send(t, tagged)

	var m app.WireMap
	faults := map[string]app.WireFault{}
	read := func() {
		body := ts.Do("GET", "/v2/projects/"+pid+"/wiremap", nil).Want(t, 200).Body
		m = app.WireMap{}
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatal(err)
		}
		clear(faults)
		for _, f := range m.Faults {
			faults[f.Code] = f
		}
	}
	ok := kit.WaitFor(10*time.Second, func() bool {
		read()
		return len(faults) == 3
	})
	if !ok {
		t.Fatalf("faults %+v; want duplicate_ip, gateway_silent and tagged_on_access", m.Faults)
	}
	for _, f := range m.Faults {
		t.Logf("%s: %s", f.Code, f.Message)
	}

	// Each VPCS's MAC and address on its own link, named by its node.
	macOf := map[string]string{}
	for _, l := range m.Links {
		node, ok := links[l.LinkID]
		if !ok {
			continue
		}
		for _, h := range l.Hosts {
			if h.NodeID == node {
				macOf[node] = h.MAC
				want := map[string]string{pc1.ID: "10.0.0.1", pc2.ID: "10.0.0.1", pc3.ID: "10.0.0.3"}[node]
				if !slices.Contains(h.IPv4, want) || !strings.HasPrefix(h.MAC, "00:50:79:66:68:") {
					t.Errorf("link %s: host %+v, want a VPCS MAC holding %s", l.LinkID, h, want)
				}
			}
		}
		if l.Kinds["arp"].Count == 0 || l.Since == nil {
			t.Errorf("link %s: kinds %v since %v, want ARP seen", l.LinkID, l.Kinds, l.Since)
		}
	}
	if len(macOf) != 3 {
		t.Fatalf("hosts found on their links: %v, want pc1, pc2 and pc3", macOf)
	}
	// VPCS's MAC is its mac_offset's (what names a VPCS seen away from
	// its own port, app.knownMACs).
	for node, mac := range macOf {
		n, err := ts.Service.FindNode(context.Background(), app.NodeRef{ProjectID: pid, NodeID: node})
		if err != nil || n.Properties.MACOffset == nil {
			t.Fatalf("node %s: %v, mac_offset %v", node, err, n)
		}
		if want := fmt.Sprintf("00:50:79:66:68:%02x", *n.Properties.MACOffset); mac != want {
			t.Errorf("%s: MAC %s on the wire, %s by its mac_offset", n.Name, mac, want)
		}
	}

	dup := faults[app.FaultDuplicateIP]
	wantMACs := []string{macOf[pc1.ID], macOf[pc2.ID]}
	slices.Sort(wantMACs)
	if dup.Address != "10.0.0.1" || !slices.Equal(dup.MACs, wantMACs) || !strings.Contains(dup.Message, "pc1") || !strings.Contains(dup.Message, "pc2") {
		t.Errorf("duplicate_ip: %+v, want 10.0.0.1 by %v", dup, wantMACs)
	}
	gw := faults[app.FaultGatewaySilent]
	if gw.Address != "10.0.0.254" || !slices.Equal(gw.NodeIDs, []string{pc1.ID}) || !strings.Contains(gw.Message, "10.0.0.254") {
		t.Errorf("gateway_silent: %+v, want pc1 asking for 10.0.0.254", gw)
	}
	tag := faults[app.FaultTaggedOnAccess]
	if !slices.Equal(tag.LinkIDs, []string{tunnel}) || !strings.Contains(tag.Message, "VLAN 42") || !strings.Contains(tag.Message, "access port of VLAN 1") {
		t.Errorf("tagged_on_access: %+v, want VLAN 42 on the tunnel's link", tag)
	}
}
