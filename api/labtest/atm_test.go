package labtest

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"nodedesk/app/kit"
)

// An ATM switch on nodedesk as a GNS3 compute, driven as GNS3 2.2.59's
// controller drives one: created with its mappings, one UDP NIO per port
// (here to the test's sockets, standing for the PA-A1 ports of two
// c7200), a capture on a port. Cells cross by VC and VP, both ways,
// rewritten as dynamips' atmsw rewrites them.

// atmTestCell is a 53-byte cell: VPI (12 bits), VCI (16), PTI (3), CLP,
// the HEC of I.432 (CRC-8 x^8+x^2+x+1 of the first four bytes, XOR 0x55),
// 48 bytes of fill.
func atmTestCell(vpi, vci int, pti, clp, fill byte) []byte {
	c := make([]byte, 53)
	c[0], c[1] = byte(vpi>>4), byte(vpi<<4)|byte(vci>>12)
	c[2], c[3] = byte(vci>>4), byte(vci<<4)|pti<<1|clp
	var crc byte
	for _, b := range c[:4] {
		crc ^= b
		for range 8 {
			if crc&0x80 != 0 {
				crc = crc<<1 ^ 0x07
			} else {
				crc <<= 1
			}
		}
	}
	c[4] = crc ^ 0x55
	for i := 5; i < len(c); i++ {
		c[i] = fill
	}
	return c
}

func TestATM_ComputeSwitchesCells(t *testing.T) {
	ts := Start(t, Options{DataPlane: true})
	c := &kit.Controller{API: ts.API, T: t, PID: uuid.NewString()}
	ts.Do("POST", "/v2/compute/projects", map[string]any{"name": "atm", "project_id": c.PID}).Want(t, 201)

	// Mappings GNS3's dynamips cannot switch are refused, saying why.
	for _, bad := range []struct {
		mappings map[string]any
		says     string
	}{
		{map[string]any{"1:10:100": "2:20"}, "joins a virtual channel"},
		{map[string]any{"1:4096:1": "2:1:1"}, "VPI 4096"},
		{map[string]any{"1:1:65536": "2:1:1"}, "VCI 65536"},
		{map[string]any{"1:10": "2:20", "1:10:100": "3:1:1"}, "lies in virtual path 1:10"},
		{map[string]any{"1-10-100": "2:20:200"}, "port:VPI:VCI"},
		{map[string]any{"1:10:100": 2}, "mappings"},
	} {
		body := map[string]any{"node_id": uuid.NewString(), "name": "BAD", "mappings": bad.mappings}
		r := ts.Do("POST", "/v2/compute/projects/"+c.PID+"/atm_switch/nodes", body).Want(t, 400).JSON(t)
		if msg, _ := r["message"].(string); !strings.Contains(msg, bad.says) || r["status"] != float64(400) {
			t.Errorf("mappings %v: answered %v; want a message saying %q", bad.mappings, r, bad.says)
		}
	}

	atm := c.Node("atm_switch", "ATM1", map[string]any{"mappings": map[string]any{"1:10:100": "2:20:200", "1:5": "3:7"}})
	id := atm["node_id"].(string)
	if m, _ := atm["mappings"].(map[string]any); len(m) != 2 || m["1:5"] != "3:7" || atm["status"] != "started" {
		t.Fatalf("compute answered %v", atm)
	}
	peers, lports := map[int]*net.UDPConn{}, map[int]int{}
	for _, port := range []int{1, 2, 3} {
		conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		peers[port], lports[port] = conn, c.UDPPort()
		ts.Do("POST", c.NIOPath("atm_switch", id, 0, port), kit.NIO(lports[port], conn.LocalAddr().(*net.UDPAddr).Port, false)).Want(t, 201)
	}
	port1 := c.NIOPath("atm_switch", id, 0, 1)
	port1 = strings.TrimSuffix(port1, "/nio")
	cp := ts.Do("POST", port1+"/start_capture", map[string]any{"capture_file_name": "atm1.pcap", "data_link_type": "DLT_ATM_RFC1483"}).Want(t, 200).JSON(t)
	pcapPath, _ := cp["pcap_file_path"].(string)

	send := func(from int, cell []byte) {
		t.Helper()
		if _, err := peers[from].WriteToUDP(cell, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: lports[from]}); err != nil {
			t.Fatal(err)
		}
	}
	// crosses sends in from port from (again, within bounds, until it
	// crosses) and reports whether want reached port to; any other cell
	// with want's fill there is a wrong rewrite.
	crosses := func(from int, in []byte, to int, want []byte) bool {
		t.Helper()
		buf := make([]byte, 2048)
		for range 20 {
			send(from, in)
			_ = peers[to].SetReadDeadline(time.Now().Add(250 * time.Millisecond))
			for {
				n, err := peers[to].Read(buf)
				if err != nil {
					break
				}
				if bytes.Equal(buf[:n], want) {
					return true
				}
				if n == len(want) && buf[n-1] == want[n-1] {
					t.Fatalf("port %d -> %d: got % x, want % x", from, to, buf[:n], want)
				}
			}
		}
		return false
	}
	// dropped sends in from port 1, then a cell of VC vc (VPI 10, VCI vc
	// on port 1) until it reaches port 2 as VPI 20, VCI far: in, had it
	// crossed, would have come first on that same path.
	dropped := func(in []byte, vc, far int) {
		t.Helper()
		send(1, in)
		fill := in[len(in)-1] + 100
		marker, want := atmTestCell(10, vc, 0, 0, fill), atmTestCell(20, far, 0, 0, fill)
		buf := make([]byte, 2048)
		for range 20 {
			send(1, marker)
			_ = peers[2].SetReadDeadline(time.Now().Add(250 * time.Millisecond))
			for {
				n, err := peers[2].Read(buf)
				if err != nil {
					break
				}
				if n > 0 && buf[n-1] == in[len(in)-1] {
					t.Fatalf("cell % x crossed to port 2 as % x; want it dropped", in[:5], buf[:5])
				}
				if bytes.Equal(buf[:n], want) {
					return
				}
			}
		}
		t.Fatalf("the marker of VC 1:10:%d never reached port 2", vc)
	}
	for _, tc := range []struct {
		name string
		from int
		in   []byte
		to   int
		want []byte
	}{
		{"VC 1:10:100 -> 2:20:200", 1, atmTestCell(10, 100, 0, 0, 1), 2, atmTestCell(20, 200, 0, 0, 1)},
		{"VC back, PTI and CLP kept", 2, atmTestCell(20, 200, 0b001, 1, 2), 1, atmTestCell(10, 100, 0b001, 1, 2)},
		{"VP 1:5 -> 3:7, VCI kept", 1, atmTestCell(5, 4242, 0, 0, 3), 3, atmTestCell(7, 4242, 0, 0, 3)},
		{"VP back", 3, atmTestCell(7, 33, 0, 0, 4), 1, atmTestCell(5, 33, 0, 0, 4)},
	} {
		if !crosses(tc.from, tc.in, tc.to, tc.want) {
			t.Errorf("%s: no cell crossed", tc.name)
		}
	}
	dropped(atmTestCell(10, 101, 0, 0, 5), 100, 200) // unmapped VCI
	dropped(atmTestCell(6, 100, 0, 0, 6), 100, 200)  // unmapped VPI
	dropped(atmTestCell(10, 100, 0, 0, 7)[:52], 100, 200)

	// The capture of port 1 is a pcap of whole cells under GNS3's ATM
	// link type.
	ts.Do("POST", port1+"/stop_capture", nil).Want(t, 204)
	f, err := os.Open(pcapPath)
	if err != nil {
		t.Fatalf("capture file %q: %v (start_capture answered %v)", pcapPath, err, cp)
	}
	defer f.Close()
	r, err := pcapgo.NewReader(f)
	if err != nil {
		t.Fatalf("the capture is not a pcap file: %v", err)
	}
	if r.LinkType() != layers.LinkTypeATM_RFC1483 {
		t.Errorf("capture link type %v, want ATM_RFC1483", r.LinkType())
	}
	seen := map[string]bool{}
	for {
		data, _, err := r.ReadPacketData()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		seen[string(data)] = true
	}
	for _, want := range [][]byte{atmTestCell(10, 100, 0, 0, 1), atmTestCell(10, 100, 0b001, 1, 2), atmTestCell(5, 33, 0, 0, 4)} {
		if !seen[string(want)] {
			t.Errorf("the capture of port 1 lacks cell % x", want[:5])
		}
	}

	// New mappings apply at once: the old VC stops, the new one carries.
	// (Each port with a NIO keeps a mapping: a port a NIO uses cannot go.)
	ts.Do("PUT", "/v2/compute/projects/"+c.PID+"/atm_switch/nodes/"+id, map[string]any{"mappings": map[string]any{"1:10:101": "2:20:201", "1:5": "3:7"}}).Want(t, 200)
	if !crosses(1, atmTestCell(10, 101, 0, 0, 8), 2, atmTestCell(20, 201, 0, 0, 8)) {
		t.Error("the new VC 1:10:101 -> 2:20:201 does not carry cells")
	}
	dropped(atmTestCell(10, 100, 0, 0, 9), 101, 201) // the removed VC
	ts.Do("PUT", "/v2/compute/projects/"+c.PID+"/atm_switch/nodes/"+id, map[string]any{"mappings": map[string]any{"1:10:101": "2:20", "1:5": "3:7"}}).Want(t, 400)
}

// TestATM_ControllerRefusesBadMappings: the controller's door refuses them
// too, on create and on update, and keeps the node as it was.
func TestATM_ControllerRefusesBadMappings(t *testing.T) {
	ts := Start(t, Options{})
	pid := ts.MustCreateProject("atm")
	ts.Do("POST", "/v2/projects/"+pid+"/nodes", map[string]any{"node_type": "atm_switch", "name": "ATM0", "compute_id": "local",
		"properties": map[string]any{"mappings": map[string]any{"1:10:100": "1:10:100"}}}).Want(t, 400)
	n := ts.MustCreateNode(pid, map[string]any{"node_type": "atm_switch", "properties": map[string]any{"mappings": map[string]any{"1:0:100": "10:0:200"}}})
	id := n["node_id"].(string)
	if got := len(n["ports"].([]any)); got != 2 {
		t.Fatalf("ports %v; want 1 and 10", n["ports"])
	}
	r := ts.Do("PUT", "/v2/projects/"+pid+"/nodes/"+id, map[string]any{"properties": map[string]any{"mappings": map[string]any{"1:0:100": "10:0:200", "2:0:100": "10:0:200"}}}).Want(t, 400).JSON(t)
	if msg, _ := r["message"].(string); !strings.Contains(msg, "10:0:200 is used by two connections") {
		t.Errorf("answered %v", r)
	}
	got := ts.Do("GET", "/v2/projects/"+pid+"/nodes/"+id, nil).Want(t, 200).JSON(t)
	if m := got["properties"].(map[string]any)["mappings"].(map[string]any); len(m) != 1 {
		t.Errorf("after a refused update, mappings %v", m)
	}
}
