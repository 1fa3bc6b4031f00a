package labtest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"nodedesk/app/kit"
	"nodedesk/app/vpcs/vpcstest"
)

// nodedesk as a GNS3 compute: the test plays a GNS3 2.2.59 controller and
// makes its exact calls (issue15-design C.3, C.4): every link, even between
// two nodes of one compute, is two nio_udp on 127.0.0.1 through ports the
// controller reserves with ports/udp. Real VPCS processes ping across a
// switch through those tunnels.

func TestCompute_GNS3ControllerSequence(t *testing.T) {
	ts := StartVPCS(t)
	caps := ts.Do("GET", "/v2/compute/capabilities", nil).Want(t, 200).JSON(t)
	if caps["version"] != "2.2.59" {
		t.Fatalf("capabilities: %v", caps)
	}
	c := &kit.Controller{API: ts.API, T: t, PID: uuid.NewString()}
	ts.Do("POST", "/v2/compute/projects", map[string]any{"name": "interop", "project_id": c.PID}).Want(t, 201)

	// The project's notification stream, to check that NIOs never reach a
	// client (read at the end).
	req, _ := http.NewRequest("GET", ts.URL+"/v2/projects/"+c.PID+"/notifications", nil)
	stream, err := ts.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	lines := bufio.NewScanner(stream.Body)
	lines.Scan() // the first ping: the subscription is in place

	// GNS3's VPCS template script names the node with %h; a project the
	// controller opens again sends back startup_script_path, which the
	// compute view showed.
	pc1 := c.Node("vpcs", "PC1", map[string]any{"console_type": "telnet", "startup_script": "set pcname %h\nip 10.0.0.1/24\n", "startup_script_path": "startup.vpc"})
	pc2 := c.Node("vpcs", "PC2", map[string]any{"console_type": "telnet", "startup_script": "set pcname PC2\nip 10.0.0.2/24\n"})
	ports := make([]any, 8)
	for i := range ports {
		ports[i] = map[string]any{"name": fmt.Sprintf("Ethernet%d", i), "port_number": i, "type": "access", "vlan": 1, "ethertype": "0x8100"}
	}
	sw := c.Node("ethernet_switch", "Switch1", map[string]any{"console_type": "none", "ports_mapping": ports})
	if _, ok := sw["console"]; !ok || sw["console_type"] != "none" {
		t.Fatalf("switch compute view lacks console/console_type (GNS3 reads both): %v", sw)
	}
	id := func(n map[string]any) string { return n["node_id"].(string) }

	lport1, _ := c.Link(kit.ComputeEnd{Type: "vpcs", Node: id(pc1), Adapter: 0, Port: 0}, kit.ComputeEnd{Type: "ethernet_switch", Node: id(sw), Adapter: 0, Port: 0})
	c.Link(kit.ComputeEnd{Type: "vpcs", Node: id(pc2), Adapter: 0, Port: 0}, kit.ComputeEnd{Type: "ethernet_switch", Node: id(sw), Adapter: 0, Port: 1})

	// A port with a NIO is not a link's, and the other way round.
	ts.Do("POST", "/v2/projects/"+c.PID+"/links", map[string]any{"nodes": []any{kit.End(id(pc1), 0, 0), kit.End(id(sw), 0, 5)}}).Want(t, 409)
	if got := ts.Do("GET", "/v2/projects/"+c.PID+"/links", nil).Want(t, 200).List(t); len(got) != 0 {
		t.Fatalf("NIOs show as links: %v", got)
	}
	// An lport a NIO holds is refused to another one; an unknown type is 409.
	ts.Do("POST", c.NIOPath("ethernet_switch", id(sw), 0, 6), kit.NIO(lport1, 9, false)).Want(t, 409)
	bad := kit.NIO(c.UDPPort(), 9, false)
	bad["type"] = "nio_ethernet"
	if r := ts.Do("POST", c.NIOPath("vpcs", id(pc2), 0, 0), bad).Want(t, 409); !strings.Contains(string(r.Body), "NIO of type nio_ethernet is not supported") {
		t.Errorf("unsupported type: %s", r.Body)
	}
	ts.Do("POST", c.NIOPath("vpcs", id(pc2), 0, 3), kit.NIO(c.UDPPort(), 9, false)).Want(t, 400) // no such port

	hosts := map[string]*kit.Host{}
	for _, n := range []map[string]any{pc1, pc2} {
		v := ts.Do("POST", "/v2/compute/projects/"+c.PID+"/vpcs/nodes/"+id(n)+"/start", map[string]any{}).Want(t, 200).JSON(t)
		con := kit.DialConsole(t, "127.0.0.1", int(v["console"].(float64)))
		name := n["name"].(string)
		if !con.Expect(name+">", true, 15*time.Second) {
			t.Fatalf("%s: no prompt: %q", name, con.Seen.String())
		}
		hosts[name] = &kit.Host{ID: id(n), Name: name, Con: con}
	}
	h := hosts["PC1"]
	h.Con.Drain()
	if !h.Pings("10.0.0.2", 20*time.Second) {
		t.Fatalf("PC1 cannot ping PC2 through the NIOs and the switch:\n%s", kit.Printable(h.Con.Seen.String()))
	}
	t.Logf("console transcript of a ping through the NIOs:\n%s", kit.Printable(h.Con.Log.String()))

	// PUT nio suspends and resumes the tunnel (the controller's suspend).
	p1 := c.NIOPath("vpcs", id(pc1), 0, 0)
	put := kit.NIO(lport1, 0, true)
	delete(put, "rport")
	put["rport"] = 1
	if r := ts.Do("PUT", p1, put).Want(t, 201).JSON(t); r["suspend"] != true {
		t.Fatalf("PUT nio answered %v", r)
	}
	if !h.Silent("10.0.0.2") {
		t.Fatalf("pings crossed a suspended NIO:\n%s", kit.Printable(h.Con.Seen.String()))
	}
	put["suspend"] = false
	ts.Do("PUT", p1, put).Want(t, 201)
	if !h.Pings("10.0.0.2", 15*time.Second) {
		t.Fatal("no pings after the NIO was resumed")
	}

	// Frame Relay switches take PUT nio too (GNS3's own compute answers 405
	// there, which its controller turns into a 500).
	fr := c.Node("frame_relay_switch", "FR1", map[string]any{"mappings": map[string]any{"1:101": "2:201"}})
	frPort := c.UDPPort()
	ts.Do("POST", c.NIOPath("frame_relay_switch", id(fr), 0, 1), kit.NIO(frPort, 9, false)).Want(t, 201)
	ts.Do("PUT", c.NIOPath("frame_relay_switch", id(fr), 0, 1), kit.NIO(frPort, 9, true)).Want(t, 201)

	// DELETE nio frees its lport and its port: pings stop, the lport may
	// be taken again, and the port may be linked.
	ts.Do("DELETE", p1, nil).Want(t, 204)
	ts.Do("DELETE", p1, nil).Want(t, 404)
	if !h.Silent("10.0.0.2") {
		t.Fatal("pings crossed a deleted NIO")
	}
	ts.Do("POST", c.NIOPath("ethernet_switch", id(sw), 0, 6), kit.NIO(lport1, 9, false)).Want(t, 201)
	ts.Do("POST", "/v2/projects/"+c.PID+"/links", map[string]any{"nodes": []any{kit.End(id(pc1), 0, 0), kit.End(id(sw), 0, 5)}}).Want(t, 201)

	// Nothing of the NIOs reached the project's stream: a node change,
	// made last, comes with no nio.* before it.
	ts.Do("PUT", "/v2/compute/projects/"+c.PID+"/vpcs/nodes/"+id(pc2), map[string]any{"name": "PC2b"}).Want(t, 200)
	for lines.Scan() {
		l := lines.Text()
		if strings.Contains(l, `"nio.`) {
			t.Fatalf("a client stream carried a NIO event: %s", l)
		}
		if strings.Contains(l, `"PC2b"`) {
			break
		}
	}
	// Nor the history.
	if hist := ts.Do("GET", "/v2/projects/"+c.PID+"/history", nil).Want(t, 200).Body; strings.Contains(string(hist), "nio") || strings.Contains(string(hist), "NIO") {
		t.Fatalf("history records NIOs: %s", hist)
	}
}

func TestCompute_CaptureHostAndProject(t *testing.T) {
	ts := Start(t, Options{DataPlane: true})
	c := &kit.Controller{API: ts.API, T: t, PID: uuid.NewString()}
	ts.Do("POST", "/v2/compute/projects", map[string]any{"name": "cap", "project_id": c.PID}).Want(t, 201)
	hub := c.Node("ethernet_hub", "HUB", map[string]any{})
	hid := hub["node_id"].(string)
	// Two far ends, the test's sockets, on ports 0 and 1 of the hub.
	var peers [2]*net.UDPConn
	var lports [2]int
	for i := range peers {
		conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		peers[i], lports[i] = conn, c.UDPPort()
		ts.Do("POST", c.NIOPath("ethernet_hub", hid, 0, i), kit.NIO(lports[i], conn.LocalAddr().(*net.UDPAddr).Port, false)).Want(t, 201)
	}
	// network/ports lists the NIOs' lports.
	np := ts.Do("GET", "/v2/compute/network/ports", nil).Want(t, 200).JSON(t)
	for _, p := range lports {
		if !slices.Contains(np["udp_ports"].([]any), any(float64(p))) {
			t.Errorf("network/ports udp_ports %v lacks lport %d", np["udp_ports"], p)
		}
	}

	port1 := fmt.Sprintf("/v2/compute/projects/%s/ethernet_hub/nodes/%s/adapters/0/ports/1", c.PID, hid)
	ts.Do("GET", port1+"/pcap", nil).Want(t, 409)
	cap := ts.Do("POST", port1+"/start_capture", map[string]any{"capture_file_name": "hub.pcap", "data_link_type": "DLT_EN10MB"}).Want(t, 200).JSON(t)
	if p, _ := cap["pcap_file_path"].(string); !strings.HasSuffix(p, "/project-files/captures/hub.pcap") {
		t.Fatalf("start_capture answered %v", cap)
	}
	ts.Do("POST", port1+"/start_capture", map[string]any{"capture_file_name": "hub.pcap"}).Want(t, 409)
	// The pcap is streamed as GNS3's controller proxies it: Host without a
	// port.
	streamed := make(chan []byte, 1)
	connected := make(chan struct{})
	go func() {
		req, _ := http.NewRequest("GET", ts.URL+port1+"/pcap", nil)
		req.Host = "127.0.0.1"
		resp, err := ts.Client.Do(req)
		close(connected) // the stream has answered (or failed): the capture may end now
		if err != nil || resp.StatusCode != 200 {
			streamed <- nil
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		streamed <- b
	}()
	frame := kit.EthFrame(kit.Broadcast, kit.MACA, []byte("through-the-nio"))
	got := false
	for range 20 { // until the frame crosses (the stream may still be connecting: it reads the file from its start anyway)
		if _, err := peers[0].WriteToUDP(frame, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: lports[0]}); err != nil {
			t.Fatal(err)
		}
		_ = peers[1].SetReadDeadline(time.Now().Add(250 * time.Millisecond))
		buf := make([]byte, 2048)
		if n, err := peers[1].Read(buf); err == nil && strings.Contains(string(buf[:n]), "through-the-nio") {
			got = true
			break
		}
	}
	if !got {
		t.Fatal("a frame sent into port 0's NIO did not leave by port 1's")
	}
	select { // the pcap client must be connected before the capture ends; it reads the whole file either way
	case <-connected:
	case <-time.After(10 * time.Second):
		t.Fatal("the pcap stream did not answer")
	}
	ts.Do("POST", port1+"/stop_capture", nil).Want(t, 204)
	select {
	case b := <-streamed:
		if !strings.Contains(string(b), "through-the-nio") {
			t.Fatalf("the streamed pcap (%d bytes) lacks the frame", len(b))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the pcap stream did not end with the capture")
	}

	// The host's interfaces, as GNS3's controller reads them.
	ifs := ts.Do("GET", "/v2/compute/network/interfaces", nil).Want(t, 200).List(t)
	lo := false
	for _, i := range ifs {
		if i["ip_address"] == "127.0.0.1" && i["netmask"] == "255.0.0.0" && i["special"] == true {
			lo = true
		}
	}
	if !lo {
		t.Errorf("network/interfaces lacks the loopback: %v", ifs)
	}
	ts.Do("GET", "/v2/compute/qemu/images", nil).Want(t, 200)

	// Variables, close (NIOs and reservations go, records stay), delete.
	pv := ts.Do("PUT", "/v2/compute/projects/"+c.PID, map[string]any{"variables": []any{map[string]any{"name": "a", "value": "1"}}}).Want(t, 200).JSON(t)
	if v, _ := pv["variables"].([]any); len(v) != 1 {
		t.Fatalf("PUT project answered %v", pv)
	}
	spare := c.UDPPort()
	ts.Do("POST", "/v2/compute/projects/"+c.PID+"/close", nil).Want(t, 204)
	ts.Do("PUT", c.NIOPath("ethernet_hub", hid, 0, 0), kit.NIO(lports[0], 9, true)).Want(t, 404)
	np = ts.Do("GET", "/v2/compute/network/ports", nil).Want(t, 200).JSON(t)
	for _, p := range append(lports[:], spare) {
		if slices.Contains(np["udp_ports"].([]any), any(float64(p))) {
			t.Errorf("after close, port %d is still held: %v", p, np["udp_ports"])
		}
	}
	ts.Do("GET", "/v2/compute/projects/"+c.PID+"/ethernet_hub/nodes/"+hid, nil).Want(t, 200)
	// A method the compute does not serve is a 404, which GNS3 maps, not
	// a 405, which it turns into its own 500.
	ts.Do("PATCH", "/v2/compute/projects/"+c.PID+"/ethernet_hub/nodes/"+hid, nil).Want(t, 404)
	ts.Do("DELETE", "/v2/compute/projects/"+c.PID, nil).Want(t, 204)
	ts.Do("GET", "/v2/projects/"+c.PID, nil).Want(t, 404)
}

// A VPCS that stops by itself is a log.error on the compute stream, as
// GNS3's compute says it; nodedesk's own streams carry only the status.
func TestCompute_ProcessExitLogged(t *testing.T) {
	ts := StartVPCS(t)
	c := &kit.Controller{API: ts.API, T: t, PID: uuid.NewString()}
	ts.Do("POST", "/v2/compute/projects", map[string]any{"name": "log", "project_id": c.PID}).Want(t, 201)
	pc := c.Node("vpcs", "PCX", map[string]any{"console_type": "telnet"})
	path := "/v2/compute/projects/" + c.PID + "/vpcs/nodes/" + pc["node_id"].(string)
	compute, _ := ts.WSListen(t, "/v2/compute/notifications/ws")
	project, _ := ts.WSListen(t, "/v2/projects/"+c.PID+"/notifications/ws")
	ts.Do("POST", path+"/start", map[string]any{}).Want(t, 200)
	vpid := vpcstest.PID(ts.Do("GET", path, nil).JSON(t)["node_directory"].(string))
	if vpid == 0 {
		t.Fatal("no vpcs process")
	}
	if err := syscall.Kill(vpid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for {
		e := compute()
		if e.Action == "log.error" {
			if msg, _ := e.Event["message"].(string); !strings.Contains(msg, "PCX") {
				t.Fatalf("log.error %v does not name the node", e.Event)
			}
			break
		}
		if e.Action != "node.updated" {
			t.Fatalf("compute stream: %s %v", e.Action, e.Event)
		}
	}
	// The project's stream says it once too, as GNS3's controller passes
	// on what its local compute says, so that nodedesk's own clients
	// (and a GNS3 GUI on nodedesk) learn why the node stopped.
	ts.Do("PUT", path, map[string]any{"name": "PCY"}).Want(t, 200)
	told := 0
	for {
		e := project()
		if e.Action == "log.error" {
			if msg, _ := e.Event["message"].(string); !strings.Contains(msg, "PCX has stopped by itself") || !strings.Contains(msg, "VPCS was ended by signal killed") {
				t.Errorf("the project was told %v", e.Event)
			}
			told++
		}
		if e.Event["name"] == "PCY" {
			break
		}
	}
	if told != 1 {
		t.Errorf("the project stream said the exit %d times, want once", told)
	}
}
