package labtest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"nodedesk/app/kit"
)

// The lab works: real VPCS processes ping each other through nodedesk's
// own switch, hub and links.

func TestDataPlane_PingAcrossSwitch(t *testing.T) {
	ts := StartVPCS(t)
	pid := ts.MustCreateProject("lab")
	sw := ts.MustCreateSwitch(t, pid, nil)
	pc1 := ts.StartHost(t, pid, "pc1", "10.0.0.1")
	pc2 := ts.StartHost(t, pid, "pc2", "10.0.0.2")
	l1 := ts.Link(t, pid, pc1.ID, 0, sw, 0)
	ts.Link(t, pid, pc2.ID, 0, sw, 1)

	pc1.Con.Drain()
	if !pc1.Pings("10.0.0.2", 20*time.Second) {
		t.Fatalf("pc1 cannot ping pc2 across the switch:\n%s", kit.Printable(pc1.Con.Seen.String()))
	}
	t.Logf("console transcript of a cross-switch ping:\n%s", kit.Printable(pc1.Con.Log.String()))

	// Suspending the link stops every frame; resuming brings them back.
	lpath := "/v2/projects/" + pid + "/links/" + l1
	ts.Do("PUT", lpath, map[string]any{"suspend": true}).Want(t, 200)
	if !pc1.Silent("10.0.0.2") {
		t.Fatalf("pings crossed a suspended link:\n%s", kit.Printable(pc1.Con.Seen.String()))
	}
	ts.Do("PUT", lpath, map[string]any{"suspend": false}).Want(t, 200)
	if !pc1.Pings("10.0.0.2", 15*time.Second) {
		t.Fatal("no pings after the link was resumed")
	}

	// packet_loss 100 drops everything; removing the filter restores.
	ts.Do("PUT", lpath, map[string]any{"filters": map[string]any{"packet_loss": []any{100}}}).Want(t, 200)
	if !pc1.Silent("10.0.0.2") {
		t.Fatal("pings crossed a link losing 100% of packets")
	}
	ts.Do("PUT", lpath, map[string]any{"filters": map[string]any{}}).Want(t, 200)
	if !pc1.Pings("10.0.0.2", 15*time.Second) {
		t.Fatal("no pings after the filter was removed")
	}

	// A capture file holds the ICMP of the pings.
	c := ts.Do("POST", lpath+"/start_capture", map[string]any{}).Want(t, 201).JSON(t)
	if c["capturing"] != true || c["capture_file_path"] == nil {
		t.Fatalf("link after start_capture: %v", c)
	}
	streamed := make(chan []byte, 1)
	go func() { // a client following the capture, as Wireshark does
		resp, err := ts.Client.Get(ts.URL + lpath + "/pcap")
		if err != nil {
			streamed <- nil
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		streamed <- b
	}()
	if !pc1.Pings("10.0.0.2", 15*time.Second) {
		t.Fatal("no pings while capturing")
	}
	ts.Do("POST", lpath+"/stop_capture", nil).Want(t, 201)
	path := c["capture_file_path"].(string)
	if icmp := countICMP(t, path); icmp < 2 {
		t.Errorf("capture holds %d ICMP packets, want the pings' (at least 2)", icmp)
	}
	select {
	case got := <-streamed:
		if file, _ := os.ReadFile(path); len(got) < 24 || !bytes.Equal(got, file) {
			t.Errorf("GET pcap streamed %d bytes, the finished file has %d: the stream must end with the capture's last frame", len(got), len(file))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("GET pcap did not end when the capture stopped")
	}

	// Deleting the link stops the pings; a new link restores them.
	ts.Do("DELETE", lpath, nil).Want(t, 204)
	if !pc1.Silent("10.0.0.2") {
		t.Fatal("pings crossed a deleted link")
	}
	ts.Link(t, pid, pc1.ID, 0, sw, 2)
	if !pc1.Pings("10.0.0.2", 15*time.Second) {
		t.Fatal("no pings over the new link")
	}
}

// countICMP reads a pcap file and counts its ICMP packets.
func countICMP(t *testing.T, path string) int {
	t.Helper()
	var raw []byte
	var err error
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if raw, err = os.ReadFile(path); err == nil && len(raw) > 24 {
			break
		}
	}
	r, err := pcapgo.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("capture %s is not a pcap file: %v", path, err)
	}
	if r.LinkType() != layers.LinkTypeEthernet {
		t.Errorf("capture link type %v, want Ethernet", r.LinkType())
	}
	n := 0
	for {
		data, _, err := r.ReadPacketData()
		if err != nil {
			return n
		}
		if len(data) > 23 && data[12] == 0x08 && data[13] == 0x00 && data[23] == 1 { // IPv4, protocol ICMP
			n++
		}
	}
}

func TestDataPlane_HubDirectAndVLANs(t *testing.T) {
	ts := StartVPCS(t)
	pid := ts.MustCreateProject("lab")
	port := func(n, vlan int) map[string]any {
		return map[string]any{"name": fmt.Sprintf("Ethernet%d", n), "port_number": n, "type": "access", "vlan": vlan}
	}
	sw := ts.MustCreateSwitch(t, pid, []any{port(0, 10), port(1, 20), port(2, 10)})
	hub := ts.MustCreateNode(pid, map[string]any{"node_type": "ethernet_hub"})["node_id"].(string)
	pc1 := ts.StartHost(t, pid, "pc1", "10.0.0.1")
	pc2 := ts.StartHost(t, pid, "pc2", "10.0.0.2")
	pc3 := ts.StartHost(t, pid, "pc3", "10.0.0.3")
	pc4 := ts.StartHost(t, pid, "pc4", "10.0.0.4")

	// Different access VLANs cannot reach each other; the same VLAN can.
	ts.Link(t, pid, pc1.ID, 0, sw, 0) // VLAN 10
	ts.Link(t, pid, pc2.ID, 0, sw, 1) // VLAN 20
	if !pc1.Silent("10.0.0.2") {
		t.Fatal("a host on VLAN 10 reached one on VLAN 20")
	}
	ts.Do("PUT", "/v2/projects/"+pid+"/nodes/"+sw, map[string]any{"properties": map[string]any{
		"ports_mapping": []any{port(0, 10), port(1, 10), port(2, 10)}}}).Want(t, 200)
	if !pc1.Pings("10.0.0.2", 15*time.Second) {
		t.Fatal("a change of ports_mapping on a running switch did not apply: no ping on one VLAN")
	}

	// Through a hub.
	ts.Link(t, pid, pc3.ID, 0, hub, 0)
	ts.Link(t, pid, pc4.ID, 0, hub, 1)
	if !pc3.Pings("10.0.0.4", 20*time.Second) {
		t.Fatalf("pc3 cannot ping pc4 through the hub:\n%s", kit.Printable(pc3.Con.Seen.String()))
	}
}

func TestDataPlane_DirectLink(t *testing.T) {
	ts := StartVPCS(t)
	pid := ts.MustCreateProject("lab")
	pc1 := ts.StartHost(t, pid, "pc1", "10.0.0.1")
	pc2 := ts.StartHost(t, pid, "pc2", "10.0.0.2")
	ts.Link(t, pid, pc1.ID, 0, pc2.ID, 0)
	if !pc1.Pings("10.0.0.2", 20*time.Second) {
		t.Fatalf("pc1 cannot ping pc2 over a direct link:\n%s", kit.Printable(pc1.Con.Seen.String()))
	}
	// Stopping and starting a VPCS takes effect at once.
	path := "/v2/projects/" + pid + "/nodes/" + pc2.ID
	ts.Do("POST", path+"/stop", nil).Want(t, 200)
	if !pc1.Silent("10.0.0.2") {
		t.Fatal("a stopped VPCS answered")
	}
	ts.Do("POST", path+"/start", nil).Want(t, 200)
	if !pc1.Pings("10.0.0.2", 20*time.Second) {
		t.Fatal("no pings after pc2 started again")
	}
	if got := ts.Do("GET", "/v2/projects/"+pid+"/links", nil).Want(t, 200).List(t); len(got) != 1 {
		t.Fatalf("links %v", got)
	}
	ts.Do("GET", "/v2/projects/"+pid+"/links/"+ts.Do("GET", "/v2/projects/"+pid+"/links", nil).List(t)[0]["link_id"].(string)+"/pcap", nil).Want(t, http.StatusConflict)
}

// capturedICMP reads a finished capture and returns the VLAN tags (tag
// protocol identifier and VLAN id, outer first) of its ICMP frames.
func capturedICMP(t *testing.T, path string) [][]layers.Dot1Q {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := pcapgo.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("capture %s is not a pcap file: %v", path, err)
	}
	var tagged [][]layers.Dot1Q
	for {
		data, _, err := r.ReadPacketData()
		if err != nil {
			return tagged
		}
		p := gopacket.NewPacket(data, layers.LayerTypeEthernet, gopacket.Default)
		if p.Layer(layers.LayerTypeICMPv4) == nil {
			continue
		}
		var tags []layers.Dot1Q
		for _, l := range p.Layers() {
			if q, ok := l.(*layers.Dot1Q); ok {
				tags = append(tags, *q)
			}
		}
		tagged = append(tagged, tags)
	}
}

// tpids lists the tag protocol identifiers of a frame's tags, outer first,
// with their VLAN ids: "0x88a8/100 0x8100/10". gopacket decodes every tag
// as Dot1Q and records the type that follows each one, so the outer TPID
// is read from the Ethernet header.
func tagString(outer layers.EthernetType, tags []layers.Dot1Q) string {
	s, tpid := "", outer
	for i, q := range tags {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("0x%04x/%d", uint16(tpid), q.VLANIdentifier)
		tpid = q.Type
	}
	return s
}

func TestDataPlane_Dot1QTrunk(t *testing.T) {
	ts := StartVPCS(t)
	pid := ts.MustCreateProject("lab")
	// Two switches, a dot1q trunk between their ports 2 (native VLAN 1):
	// pc1 on VLAN 10 of sw1, pc2 on VLAN 10 and pc3 on VLAN 20 of sw2.
	edge := func() string {
		return ts.MustCreateSwitch(t, pid, []any{kit.SwitchPort(0, "access", 10, ""), kit.SwitchPort(1, "access", 20, ""), kit.SwitchPort(2, "dot1q", 1, "")})
	}
	sw1, sw2 := edge(), edge()
	trunk := ts.Link(t, pid, sw1, 2, sw2, 2)
	pc1 := ts.StartHost(t, pid, "pc1", "10.0.0.1")
	pc2 := ts.StartHost(t, pid, "pc2", "10.0.0.2")
	pc3 := ts.StartHost(t, pid, "pc3", "10.0.0.3")
	ts.Link(t, pid, pc1.ID, 0, sw1, 0)
	ts.Link(t, pid, pc2.ID, 0, sw2, 0)
	ts.Link(t, pid, pc3.ID, 0, sw2, 1)

	lpath := "/v2/projects/" + pid + "/links/" + trunk
	c := ts.Do("POST", lpath+"/start_capture", map[string]any{"capture_file_name": "trunk.pcap"}).Want(t, 201).JSON(t)
	if !pc1.Pings("10.0.0.2", 20*time.Second) {
		t.Fatalf("pc1 cannot ping pc2 across the trunk:\n%s", kit.Printable(pc1.Con.Seen.String()))
	}
	if !pc1.Silent("10.0.0.3") {
		t.Fatal("a host on VLAN 10 reached one on VLAN 20 across the trunk")
	}
	ts.Do("POST", lpath+"/stop_capture", nil).Want(t, 201)

	frames := capturedICMP(t, c["capture_file_path"].(string))
	if len(frames) < 2 {
		t.Fatalf("the trunk's capture holds %d ICMP frames, want the pings'", len(frames))
	}
	for _, tags := range frames {
		if got := tagString(layers.EthernetTypeDot1Q, tags); len(tags) != 1 || got != "0x8100/10" {
			t.Fatalf("an ICMP frame on the trunk has tags %q, want one 802.1Q tag of VLAN 10", got)
		}
	}
}

func TestDataPlane_QinQ(t *testing.T) {
	ts := StartVPCS(t)
	pid := ts.MustCreateProject("lab")
	// A customer's VLAN 10 crosses a provider network in service VLAN 100:
	// pc1 - cust1 (access 10, trunk) - pe1 (qinq 100 0x88A8, trunk) ==
	// pe2 (trunk, qinq 100 0x88A8) - cust2 (trunk, access 10) - pc2.
	cust := func() string {
		return ts.MustCreateSwitch(t, pid, []any{kit.SwitchPort(0, "access", 10, ""), kit.SwitchPort(1, "dot1q", 1, "")})
	}
	pe := func() string {
		return ts.MustCreateSwitch(t, pid, []any{kit.SwitchPort(0, "qinq", 100, "0x88A8"), kit.SwitchPort(1, "dot1q", 1, "")})
	}
	cust1, pe1, pe2, cust2 := cust(), pe(), pe(), cust()
	ts.Link(t, pid, cust1, 1, pe1, 0)
	core := ts.Link(t, pid, pe1, 1, pe2, 1)
	ts.Link(t, pid, pe2, 0, cust2, 1)
	pc1 := ts.StartHost(t, pid, "pc1", "10.0.0.1")
	pc2 := ts.StartHost(t, pid, "pc2", "10.0.0.2")
	ts.Link(t, pid, pc1.ID, 0, cust1, 0)
	ts.Link(t, pid, pc2.ID, 0, cust2, 0)

	lpath := "/v2/projects/" + pid + "/links/" + core
	c := ts.Do("POST", lpath+"/start_capture", map[string]any{"capture_file_name": "core.pcap"}).Want(t, 201).JSON(t)
	if !pc1.Pings("10.0.0.2", 20*time.Second) {
		t.Fatalf("pc1 cannot ping pc2 through the Q-in-Q tunnel:\n%s", kit.Printable(pc1.Con.Seen.String()))
	}
	ts.Do("POST", lpath+"/stop_capture", nil).Want(t, 201)

	frames := capturedICMP(t, c["capture_file_path"].(string))
	if len(frames) < 2 {
		t.Fatalf("the core link's capture holds %d ICMP frames, want the pings'", len(frames))
	}
	for _, tags := range frames {
		if got := tagString(0x88a8, tags); len(tags) != 2 || got != "0x88a8/100 0x8100/10" {
			t.Fatalf("an ICMP frame in the provider core has tags %q, want the outer 0x88A8 tag of VLAN 100 over the customer's 802.1Q tag of VLAN 10", got)
		}
	}
}
