package api

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
)

// The lab works: real VPCS processes ping each other through nodedesk's
// own switch, hub and links.

// labHost is one started VPCS with a console.
type labHost struct {
	id   string
	name string
	ip   string
	con  *console
}

// startHost creates and starts a VPCS with an address, and opens its
// console at the prompt.
func (ts *testServer) startHost(t *testing.T, pid, name, ip string) *labHost {
	t.Helper()
	n := ts.mustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": name,
		"properties": map[string]any{"startup_script": fmt.Sprintf("set pcname %s\nip %s/24\n", name, ip)}})
	ts.do("POST", "/v2/projects/"+pid+"/nodes/"+n["node_id"].(string)+"/start", nil).want(t, 200)
	c := dialConsole(t, n["console"].(float64))
	if !c.expect(name+">", true, 15*time.Second) {
		t.Fatalf("%s: no prompt: %q", name, c.seen.String())
	}
	return &labHost{id: n["node_id"].(string), name: name, ip: ip, con: c}
}

// link joins port a of node x to port b of node y and returns the link id.
func (ts *testServer) link(t *testing.T, pid, x string, a int, y string, b int) string {
	t.Helper()
	return ts.do("POST", "/v2/projects/"+pid+"/links", map[string]any{"nodes": []any{end(x, 0, a), end(y, 0, b)}}).
		want(t, 201).json(t)["link_id"].(string)
}

// pings reports whether h gets ICMP echo replies from ip within limit.
func (h *labHost) pings(ip string, limit time.Duration) bool {
	h.con.t.Helper()
	if !h.con.run("ping "+ip+" -c 2", "ttl=", limit) { // a reply: "icmp_seq=1 ttl=64 time=0.3 ms"
		return false
	}
	h.con.expect(h.name+">", false, 5*time.Second) // the last reply, so none is read as the next command's
	return true
}

// silent reports whether h gets no reply from ip in two tries.
func (h *labHost) silent(ip string) bool {
	h.con.t.Helper()
	h.con.drain()
	h.con.send("ping " + ip + " -c 2")
	return !h.con.expect("ttl=", false, 5*time.Second) // a loss reads "icmp_seq=1 timeout"
}

func mustCreateSwitch(ts *testServer, t *testing.T, pid string, ports []any) string {
	t.Helper()
	body := map[string]any{"node_type": "ethernet_switch"}
	if ports != nil {
		body["properties"] = map[string]any{"ports_mapping": ports}
	}
	return ts.mustCreateNode(pid, body)["node_id"].(string)
}

func TestDataPlane_PingAcrossSwitch(t *testing.T) {
	ts := newVPCSServer(t)
	pid := ts.mustCreateProject("lab")
	sw := mustCreateSwitch(ts, t, pid, nil)
	pc1 := ts.startHost(t, pid, "pc1", "10.0.0.1")
	pc2 := ts.startHost(t, pid, "pc2", "10.0.0.2")
	l1 := ts.link(t, pid, pc1.id, 0, sw, 0)
	ts.link(t, pid, pc2.id, 0, sw, 1)

	pc1.con.drain()
	if !pc1.pings("10.0.0.2", 20*time.Second) {
		t.Fatalf("pc1 cannot ping pc2 across the switch:\n%s", printable(pc1.con.seen.String()))
	}
	t.Logf("console transcript of a cross-switch ping:\n%s", printable(pc1.con.log.String()))

	// Suspending the link stops every frame; resuming brings them back.
	lpath := "/v2/projects/" + pid + "/links/" + l1
	ts.do("PUT", lpath, map[string]any{"suspend": true}).want(t, 200)
	if !pc1.silent("10.0.0.2") {
		t.Fatalf("pings crossed a suspended link:\n%s", printable(pc1.con.seen.String()))
	}
	ts.do("PUT", lpath, map[string]any{"suspend": false}).want(t, 200)
	if !pc1.pings("10.0.0.2", 15*time.Second) {
		t.Fatal("no pings after the link was resumed")
	}

	// packet_loss 100 drops everything; removing the filter restores.
	ts.do("PUT", lpath, map[string]any{"filters": map[string]any{"packet_loss": []any{100}}}).want(t, 200)
	if !pc1.silent("10.0.0.2") {
		t.Fatal("pings crossed a link losing 100% of packets")
	}
	ts.do("PUT", lpath, map[string]any{"filters": map[string]any{}}).want(t, 200)
	if !pc1.pings("10.0.0.2", 15*time.Second) {
		t.Fatal("no pings after the filter was removed")
	}

	// A capture file holds the ICMP of the pings.
	c := ts.do("POST", lpath+"/start_capture", map[string]any{}).want(t, 201).json(t)
	if c["capturing"] != true || c["capture_file_path"] == nil {
		t.Fatalf("link after start_capture: %v", c)
	}
	streamed := make(chan []byte, 1)
	go func() { // a client following the capture, as Wireshark does
		resp, err := ts.client.Get(ts.url + lpath + "/pcap")
		if err != nil {
			streamed <- nil
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		streamed <- b
	}()
	if !pc1.pings("10.0.0.2", 15*time.Second) {
		t.Fatal("no pings while capturing")
	}
	ts.do("POST", lpath+"/stop_capture", nil).want(t, 201)
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
	ts.do("DELETE", lpath, nil).want(t, 204)
	if !pc1.silent("10.0.0.2") {
		t.Fatal("pings crossed a deleted link")
	}
	ts.link(t, pid, pc1.id, 0, sw, 2)
	if !pc1.pings("10.0.0.2", 15*time.Second) {
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
	ts := newVPCSServer(t)
	pid := ts.mustCreateProject("lab")
	port := func(n, vlan int) map[string]any {
		return map[string]any{"name": fmt.Sprintf("Ethernet%d", n), "port_number": n, "type": "access", "vlan": vlan}
	}
	sw := mustCreateSwitch(ts, t, pid, []any{port(0, 10), port(1, 20), port(2, 10)})
	hub := ts.mustCreateNode(pid, map[string]any{"node_type": "ethernet_hub"})["node_id"].(string)
	pc1 := ts.startHost(t, pid, "pc1", "10.0.0.1")
	pc2 := ts.startHost(t, pid, "pc2", "10.0.0.2")
	pc3 := ts.startHost(t, pid, "pc3", "10.0.0.3")
	pc4 := ts.startHost(t, pid, "pc4", "10.0.0.4")

	// Different access VLANs cannot reach each other; the same VLAN can.
	ts.link(t, pid, pc1.id, 0, sw, 0) // VLAN 10
	ts.link(t, pid, pc2.id, 0, sw, 1) // VLAN 20
	if !pc1.silent("10.0.0.2") {
		t.Fatal("a host on VLAN 10 reached one on VLAN 20")
	}
	ts.do("PUT", "/v2/projects/"+pid+"/nodes/"+sw, map[string]any{"properties": map[string]any{
		"ports_mapping": []any{port(0, 10), port(1, 10), port(2, 10)}}}).want(t, 200)
	if !pc1.pings("10.0.0.2", 15*time.Second) {
		t.Fatal("a change of ports_mapping on a running switch did not apply: no ping on one VLAN")
	}

	// Through a hub.
	ts.link(t, pid, pc3.id, 0, hub, 0)
	ts.link(t, pid, pc4.id, 0, hub, 1)
	if !pc3.pings("10.0.0.4", 20*time.Second) {
		t.Fatalf("pc3 cannot ping pc4 through the hub:\n%s", printable(pc3.con.seen.String()))
	}
}

func TestDataPlane_DirectLink(t *testing.T) {
	ts := newVPCSServer(t)
	pid := ts.mustCreateProject("lab")
	pc1 := ts.startHost(t, pid, "pc1", "10.0.0.1")
	pc2 := ts.startHost(t, pid, "pc2", "10.0.0.2")
	ts.link(t, pid, pc1.id, 0, pc2.id, 0)
	if !pc1.pings("10.0.0.2", 20*time.Second) {
		t.Fatalf("pc1 cannot ping pc2 over a direct link:\n%s", printable(pc1.con.seen.String()))
	}
	// Stopping and starting a VPCS takes effect at once.
	path := "/v2/projects/" + pid + "/nodes/" + pc2.id
	ts.do("POST", path+"/stop", nil).want(t, 200)
	if !pc1.silent("10.0.0.2") {
		t.Fatal("a stopped VPCS answered")
	}
	ts.do("POST", path+"/start", nil).want(t, 200)
	if !pc1.pings("10.0.0.2", 20*time.Second) {
		t.Fatal("no pings after pc2 started again")
	}
	if got := ts.do("GET", "/v2/projects/"+pid+"/links", nil).want(t, 200).list(t); len(got) != 1 {
		t.Fatalf("links %v", got)
	}
	ts.do("GET", "/v2/projects/"+pid+"/links/"+ts.do("GET", "/v2/projects/"+pid+"/links", nil).list(t)[0]["link_id"].(string)+"/pcap", nil).want(t, http.StatusConflict)
}

// swPort is one entry of a switch's ports_mapping.
func swPort(n int, kind string, vlan int, ethertype string) map[string]any {
	p := map[string]any{"name": fmt.Sprintf("Ethernet%d", n), "port_number": n, "type": kind, "vlan": vlan}
	if kind == "qinq" {
		p["ethertype"] = ethertype
	}
	return p
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
	ts := newVPCSServer(t)
	pid := ts.mustCreateProject("lab")
	// Two switches, a dot1q trunk between their ports 2 (native VLAN 1):
	// pc1 on VLAN 10 of sw1, pc2 on VLAN 10 and pc3 on VLAN 20 of sw2.
	edge := func() string {
		return mustCreateSwitch(ts, t, pid, []any{swPort(0, "access", 10, ""), swPort(1, "access", 20, ""), swPort(2, "dot1q", 1, "")})
	}
	sw1, sw2 := edge(), edge()
	trunk := ts.link(t, pid, sw1, 2, sw2, 2)
	pc1 := ts.startHost(t, pid, "pc1", "10.0.0.1")
	pc2 := ts.startHost(t, pid, "pc2", "10.0.0.2")
	pc3 := ts.startHost(t, pid, "pc3", "10.0.0.3")
	ts.link(t, pid, pc1.id, 0, sw1, 0)
	ts.link(t, pid, pc2.id, 0, sw2, 0)
	ts.link(t, pid, pc3.id, 0, sw2, 1)

	lpath := "/v2/projects/" + pid + "/links/" + trunk
	c := ts.do("POST", lpath+"/start_capture", map[string]any{"capture_file_name": "trunk.pcap"}).want(t, 201).json(t)
	if !pc1.pings("10.0.0.2", 20*time.Second) {
		t.Fatalf("pc1 cannot ping pc2 across the trunk:\n%s", printable(pc1.con.seen.String()))
	}
	if !pc1.silent("10.0.0.3") {
		t.Fatal("a host on VLAN 10 reached one on VLAN 20 across the trunk")
	}
	ts.do("POST", lpath+"/stop_capture", nil).want(t, 201)

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
	ts := newVPCSServer(t)
	pid := ts.mustCreateProject("lab")
	// A customer's VLAN 10 crosses a provider network in service VLAN 100:
	// pc1 - cust1 (access 10, trunk) - pe1 (qinq 100 0x88A8, trunk) ==
	// pe2 (trunk, qinq 100 0x88A8) - cust2 (trunk, access 10) - pc2.
	cust := func() string {
		return mustCreateSwitch(ts, t, pid, []any{swPort(0, "access", 10, ""), swPort(1, "dot1q", 1, "")})
	}
	pe := func() string {
		return mustCreateSwitch(ts, t, pid, []any{swPort(0, "qinq", 100, "0x88A8"), swPort(1, "dot1q", 1, "")})
	}
	cust1, pe1, pe2, cust2 := cust(), pe(), pe(), cust()
	ts.link(t, pid, cust1, 1, pe1, 0)
	core := ts.link(t, pid, pe1, 1, pe2, 1)
	ts.link(t, pid, pe2, 0, cust2, 1)
	pc1 := ts.startHost(t, pid, "pc1", "10.0.0.1")
	pc2 := ts.startHost(t, pid, "pc2", "10.0.0.2")
	ts.link(t, pid, pc1.id, 0, cust1, 0)
	ts.link(t, pid, pc2.id, 0, cust2, 0)

	lpath := "/v2/projects/" + pid + "/links/" + core
	c := ts.do("POST", lpath+"/start_capture", map[string]any{"capture_file_name": "core.pcap"}).want(t, 201).json(t)
	if !pc1.pings("10.0.0.2", 20*time.Second) {
		t.Fatalf("pc1 cannot ping pc2 through the Q-in-Q tunnel:\n%s", printable(pc1.con.seen.String()))
	}
	ts.do("POST", lpath+"/stop_capture", nil).want(t, 201)

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
