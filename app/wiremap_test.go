package app_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"nodedesk/app"
)

// The wire map's rules (wiremap.go), over what a fake data plane saw.

// fakeWatch is a data plane that saw what the test says.
type fakeWatch struct{ seen []app.WireSeen }

func (f *fakeWatch) WireSeen(string) []app.WireSeen { return f.seen }
func (f *fakeWatch) CaptureSlice(string, app.FrameKind, int) ([]byte, int) {
	return nil, 0
}

// wireLab is two VPCS on ports 0 and 1 of a switch (all access, VLAN 1).
type wireLab struct {
	svc      *app.Service
	watch    *fakeWatch
	p        *app.Project
	pc1, pc2 *app.Node
	sw       *app.Node
	l1, l2   *app.Link
}

func newWireLab(t *testing.T) *wireLab {
	t.Helper()
	svc, _ := newService(t)
	w := &wireLab{svc: svc, watch: &fakeWatch{}}
	svc.UseWireWatch(w.watch)
	w.p = mustCreateProject(t, svc, "wires")
	w.pc1, w.pc2 = mustCreateVPCS(t, svc, w.p.ID), mustCreateVPCS(t, svc, w.p.ID)
	w.sw = mustCreateNode(t, svc, w.p.ID, app.NodeCreate{Type: app.EthernetSwitch})
	w.l1 = mustLink(t, svc, w.p.ID, portEnd(w.pc1, 0, 0), portEnd(w.sw, 0, 0))
	w.l2 = mustLink(t, svc, w.p.ID, portEnd(w.pc2, 0, 0), portEnd(w.sw, 0, 1))
	return w
}

func wireEnd(n *app.Node, port int) app.WireEnd { return app.WireEnd{NodeID: n.ID, PortNumber: port} }

func (w *wireLab) mapOf(t *testing.T) *app.WireMap {
	t.Helper()
	m, err := w.svc.WireMap(context.Background(), w.p.ID)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func faultsOf(m *app.WireMap, code string) []app.WireFault {
	var out []app.WireFault
	for _, f := range m.Faults {
		if f.Code == code {
			out = append(out, f)
		}
	}
	return out
}

const (
	mac1 = "00:50:79:66:68:00"
	mac2 = "00:50:79:66:68:01"
)

// TestWireMap_HostsByEnd: each link lists the MACs seen on it, their
// addresses and the node whose port sent them; a MAC seen only on a
// link away from its node is named by the end it was first seen at.
func TestWireMap_HostsByEnd(t *testing.T) {
	w := newWireLab(t)
	now := time.Now()
	w.watch.seen = []app.WireSeen{
		{LinkID: w.l1.ID, Since: now, Kinds: map[string]app.KindSeen{"arp": {Count: 3, Last: now}},
			MACs: []app.MACSeen{{MAC: mac1, From: wireEnd(w.pc1, 0), IPv4: []string{"10.0.0.1"}}, {MAC: mac2, From: wireEnd(w.sw, 0), IPv4: []string{"10.0.0.2"}}}},
		{LinkID: w.l2.ID, Since: now, MACs: []app.MACSeen{{MAC: mac2, From: wireEnd(w.pc2, 0), IPv4: []string{"10.0.0.2"}}}},
		{LinkID: "not-of-this-project"},
	}
	m := w.mapOf(t)
	if len(m.Links) != 2 || len(m.Faults) != 0 {
		t.Fatalf("map %+v", m)
	}
	byID := map[string]app.WireLink{}
	for _, l := range m.Links {
		byID[l.LinkID] = l
	}
	l1 := byID[w.l1.ID]
	if l1.Since == nil || l1.Kinds["arp"].Count != 3 || len(l1.Hosts) != 2 || l1.Hosts[0].MAC != mac1 || !slices.Equal(l1.Hosts[0].IPv4, []string{"10.0.0.1"}) {
		t.Errorf("link 1: %+v", l1)
	}
	for _, h := range l1.Hosts {
		want := map[string]string{mac1: w.pc1.ID, mac2: w.pc2.ID}[h.MAC]
		if h.NodeID != want {
			t.Errorf("link 1: %s is %q, want %q (pc2's frames crossed the switch)", h.MAC, h.NodeID, want)
		}
	}
}

// TestWireMap_DuplicateIP: two MACs claiming one address is a fault that
// names the address, both MACs and their nodes; one MAC seen on two links
// is not.
func TestWireMap_DuplicateIP(t *testing.T) {
	w := newWireLab(t)
	w.watch.seen = []app.WireSeen{
		{LinkID: w.l1.ID, MACs: []app.MACSeen{{MAC: mac1, From: wireEnd(w.pc1, 0), IPv4: []string{"10.0.0.1", "10.0.0.9"}}, {MAC: mac2, From: wireEnd(w.sw, 0), IPv4: []string{"10.0.0.1"}}}},
		{LinkID: w.l2.ID, MACs: []app.MACSeen{{MAC: mac2, From: wireEnd(w.pc2, 0), IPv4: []string{"10.0.0.1"}}, {MAC: mac1, From: wireEnd(w.sw, 1), IPv4: []string{"10.0.0.9"}}}},
	}
	faults := faultsOf(w.mapOf(t), app.FaultDuplicateIP)
	if len(faults) != 1 {
		t.Fatalf("faults %+v, want one duplicate", faults)
	}
	f := faults[0]
	if f.Address != "10.0.0.1" || !slices.Equal(f.MACs, []string{mac1, mac2}) || !sameSet(f.NodeIDs, w.pc1.ID, w.pc2.ID) || !sameSet(f.LinkIDs, w.l1.ID, w.l2.ID) {
		t.Errorf("fault %+v", f)
	}
	for _, s := range []string{"10.0.0.1", mac1, mac2, w.pc1.Name, w.pc2.Name, "own address"} {
		if !strings.Contains(f.Message, s) {
			t.Errorf("message %q does not say %q", f.Message, s)
		}
	}
}

// TestWireMap_GatewaySilent: an address asked for three times with no
// answer on any link is a fault naming it and the asker; fewer asks, an
// answer seen on another link, or a host that holds the address is not.
func TestWireMap_GatewaySilent(t *testing.T) {
	w := newWireLab(t)
	ask := func(target string, n int, answered bool) app.ARPAsk {
		return app.ARPAsk{AskerMAC: mac1, AskerIPv4: "10.0.0.1", Target: target, Asks: n, Answered: answered}
	}
	w.watch.seen = []app.WireSeen{
		{LinkID: w.l1.ID, MACs: []app.MACSeen{{MAC: mac1, From: wireEnd(w.pc1, 0), IPv4: []string{"10.0.0.1"}}},
			Asks: []app.ARPAsk{ask("10.0.0.254", 3, false), ask("10.0.0.7", 2, false), ask("10.0.0.8", 5, false), ask("10.0.0.2", 4, false)}},
		{LinkID: w.l2.ID, MACs: []app.MACSeen{{MAC: mac2, From: wireEnd(w.pc2, 0), IPv4: []string{"10.0.0.2"}}},
			Asks: []app.ARPAsk{ask("10.0.0.254", 1, false), ask("10.0.0.8", 1, true)}},
	}
	faults := faultsOf(w.mapOf(t), app.FaultGatewaySilent)
	if len(faults) != 1 {
		t.Fatalf("faults %+v, want 10.0.0.254 only", faults)
	}
	f := faults[0]
	if f.Address != "10.0.0.254" || !slices.Equal(f.MACs, []string{mac1}) || !slices.Equal(f.NodeIDs, []string{w.pc1.ID}) || !sameSet(f.LinkIDs, w.l1.ID, w.l2.ID) {
		t.Errorf("fault %+v", f)
	}
	for _, s := range []string{"10.0.0.254", w.pc1.Name, "3 times", "nothing answered"} {
		if !strings.Contains(f.Message, s) {
			t.Errorf("message %q does not say %q", f.Message, s)
		}
	}
}

// TestWireMap_TaggedOnAccess: a tagged frame that arrived at a switch's
// access port is a fault naming the port, its VLAN and the sender; at a
// trunk, or at a host's port, it is not.
func TestWireMap_TaggedOnAccess(t *testing.T) {
	w := newWireLab(t)
	w.watch.seen = []app.WireSeen{
		{LinkID: w.l1.ID, Tags: []app.TagSeen{{At: wireEnd(w.sw, 0), VLAN: 20, Count: 2}, {At: wireEnd(w.sw, 0), VLAN: 10, Count: 1}, {At: wireEnd(w.pc1, 0), VLAN: 30}}},
		{LinkID: w.l2.ID, Tags: []app.TagSeen{{At: wireEnd(w.sw, 1), VLAN: 10}}},
	}
	faults := faultsOf(w.mapOf(t), app.FaultTaggedOnAccess)
	if len(faults) != 2 {
		t.Fatalf("faults %+v, want one per access port", faults)
	}
	f := faults[0]
	if !slices.Equal(f.LinkIDs, []string{w.l1.ID}) || !slices.Equal(f.NodeIDs, []string{w.sw.ID, w.pc1.ID}) {
		t.Errorf("fault %+v", f)
	}
	for _, s := range []string{"VLANs 10, 20", w.sw.Name, "Ethernet0", "access port of VLAN 1", w.pc1.Name, "dot1q trunk"} {
		if !strings.Contains(f.Message, s) {
			t.Errorf("message %q does not say %q", f.Message, s)
		}
	}
	// Port 1 becomes a trunk: its tags are no fault any more.
	ports := slices.Clone(w.sw.Properties.SwitchPorts)
	ports[1].Type = "dot1q"
	if _, err := w.svc.UpdateNode(context.Background(), ref(w.sw), app.NodeUpdate{Properties: &app.SwitchUpdate{PortsMapping: app.Some(ports)}}); err != nil {
		t.Fatal(err)
	}
	if faults := faultsOf(w.mapOf(t), app.FaultTaggedOnAccess); len(faults) != 1 || faults[0].LinkIDs[0] != w.l1.ID {
		t.Errorf("after port 1 became a trunk: %+v", faults)
	}
}

// TestWireMap_ClosedOrUnknown: a closed project's map has no links; an
// unknown project is not found.
func TestWireMap_ClosedOrUnknown(t *testing.T) {
	w := newWireLab(t)
	w.watch.seen = []app.WireSeen{{LinkID: w.l1.ID}}
	if m := w.mapOf(t); len(m.Links) != 2 {
		t.Errorf("open: %d links", len(m.Links))
	}
	if err := w.svc.CloseProject(context.Background(), w.p.ID); err != nil {
		t.Fatal(err)
	}
	if m := w.mapOf(t); len(m.Links) != 0 || m.Faults == nil {
		t.Errorf("closed: %+v", m)
	}
	_, err := w.svc.WireMap(context.Background(), "6b858a5c-5e1f-4a39-9a0e-6e7e1f000000")
	wantCode(t, err, app.ENOTFOUND)
}

func sameSet(got []string, want ...string) bool {
	g, w := slices.Clone(got), slices.Clone(want)
	slices.Sort(g)
	slices.Sort(w)
	return slices.Equal(g, w)
}
