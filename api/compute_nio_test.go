package api

import (
	"bufio"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// nodedesk as a GNS3 compute: the test plays a GNS3 2.2.59 controller and
// makes its exact calls (issue15-design C.3, C.4): every link, even between
// two nodes of one compute, is two nio_udp on 127.0.0.1 through ports the
// controller reserves with ports/udp. Real VPCS processes ping across a
// switch through those tunnels.

// gns3Controller is the test's controller: it calls the compute paths.
type gns3Controller struct {
	ts  *testServer
	t   *testing.T
	pid string
}

// node creates a node of type typ on the compute, with body as a GNS3
// controller sends it (node_id and name added).
func (c *gns3Controller) node(typ, name string, body map[string]any) map[string]any {
	c.t.Helper()
	body["node_id"], body["name"] = uuid.NewString(), name
	return c.ts.do("POST", "/v2/compute/projects/"+c.pid+"/"+typ+"/nodes", body).want(c.t, 201).json(c.t)
}

// udpPort reserves a UDP port on the compute.
func (c *gns3Controller) udpPort() int {
	c.t.Helper()
	return int(c.ts.do("POST", "/v2/compute/projects/"+c.pid+"/ports/udp", nil).want(c.t, 201).json(c.t)["udp_port"].(float64))
}

// nioPath is the NIO path of a node's port.
func (c *gns3Controller) nioPath(typ, node string, adapter, port int) string {
	return fmt.Sprintf("/v2/compute/projects/%s/%s/nodes/%s/adapters/%d/ports/%d/nio", c.pid, typ, node, adapter, port)
}

// nio is the body GNS3's UDPLink sends.
func nio(lport, rport int, suspend bool) map[string]any {
	return map[string]any{"type": "nio_udp", "lport": lport, "rhost": "127.0.0.1", "rport": rport, "filters": map[string]any{}, "suspend": suspend}
}

// computeEnd is one end of a link as the controller knows it.
type computeEnd struct {
	typ, node     string
	adapter, port int
}

// link makes a link as GNS3's UDPLink does: a port on each side, then the
// NIO of side 1, then side 2. It returns the lports.
func (c *gns3Controller) link(a, b computeEnd) (int, int) {
	c.t.Helper()
	pa, pb := c.udpPort(), c.udpPort()
	c.ts.do("POST", c.nioPath(a.typ, a.node, a.adapter, a.port), nio(pa, pb, false)).want(c.t, 201)
	c.ts.do("POST", c.nioPath(b.typ, b.node, b.adapter, b.port), nio(pb, pa, false)).want(c.t, 201)
	return pa, pb
}

func TestCompute_GNS3ControllerSequence(t *testing.T) {
	ts := newVPCSServer(t)
	caps := ts.do("GET", "/v2/compute/capabilities", nil).want(t, 200).json(t)
	if caps["version"] != "2.2.59" {
		t.Fatalf("capabilities: %v", caps)
	}
	c := &gns3Controller{ts: ts, t: t, pid: uuid.NewString()}
	ts.do("POST", "/v2/compute/projects", map[string]any{"name": "interop", "project_id": c.pid}).want(t, 201)

	// The project's notification stream, to check that NIOs never reach a
	// client (read at the end).
	req, _ := http.NewRequest("GET", ts.url+"/v2/projects/"+c.pid+"/notifications", nil)
	stream, err := ts.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	lines := bufio.NewScanner(stream.Body)
	lines.Scan() // the first ping: the subscription is in place

	// GNS3's VPCS template script names the node with %h; a project the
	// controller opens again sends back startup_script_path, which the
	// compute view showed.
	pc1 := c.node("vpcs", "PC1", map[string]any{"console_type": "telnet", "startup_script": "set pcname %h\nip 10.0.0.1/24\n", "startup_script_path": "startup.vpc"})
	pc2 := c.node("vpcs", "PC2", map[string]any{"console_type": "telnet", "startup_script": "set pcname PC2\nip 10.0.0.2/24\n"})
	ports := make([]any, 8)
	for i := range ports {
		ports[i] = map[string]any{"name": fmt.Sprintf("Ethernet%d", i), "port_number": i, "type": "access", "vlan": 1, "ethertype": "0x8100"}
	}
	sw := c.node("ethernet_switch", "Switch1", map[string]any{"console_type": "none", "ports_mapping": ports})
	if _, ok := sw["console"]; !ok || sw["console_type"] != "none" {
		t.Fatalf("switch compute view lacks console/console_type (GNS3 reads both): %v", sw)
	}
	id := func(n map[string]any) string { return n["node_id"].(string) }

	lport1, _ := c.link(computeEnd{"vpcs", id(pc1), 0, 0}, computeEnd{"ethernet_switch", id(sw), 0, 0})
	c.link(computeEnd{"vpcs", id(pc2), 0, 0}, computeEnd{"ethernet_switch", id(sw), 0, 1})

	// A port with a NIO is not a link's, and the other way round.
	ts.do("POST", "/v2/projects/"+c.pid+"/links", map[string]any{"nodes": []any{end(id(pc1), 0, 0), end(id(sw), 0, 5)}}).want(t, 409)
	if got := ts.do("GET", "/v2/projects/"+c.pid+"/links", nil).want(t, 200).list(t); len(got) != 0 {
		t.Fatalf("NIOs show as links: %v", got)
	}
	// An lport a NIO holds is refused to another one; an unknown type is 409.
	ts.do("POST", c.nioPath("ethernet_switch", id(sw), 0, 6), nio(lport1, 9, false)).want(t, 409)
	bad := nio(c.udpPort(), 9, false)
	bad["type"] = "nio_ethernet"
	if r := ts.do("POST", c.nioPath("vpcs", id(pc2), 0, 0), bad).want(t, 409); !strings.Contains(string(r.body), "NIO of type nio_ethernet is not supported") {
		t.Errorf("unsupported type: %s", r.body)
	}
	ts.do("POST", c.nioPath("vpcs", id(pc2), 0, 3), nio(c.udpPort(), 9, false)).want(t, 400) // no such port

	hosts := map[string]*labHost{}
	for _, n := range []map[string]any{pc1, pc2} {
		v := ts.do("POST", "/v2/compute/projects/"+c.pid+"/vpcs/nodes/"+id(n)+"/start", map[string]any{}).want(t, 200).json(t)
		con := dialConsole(t, v["console"].(float64))
		name := n["name"].(string)
		if !con.expect(name+">", true, 15*time.Second) {
			t.Fatalf("%s: no prompt: %q", name, con.seen.String())
		}
		hosts[name] = &labHost{id: id(n), name: name, con: con}
	}
	h := hosts["PC1"]
	h.con.drain()
	if !h.pings("10.0.0.2", 20*time.Second) {
		t.Fatalf("PC1 cannot ping PC2 through the NIOs and the switch:\n%s", printable(h.con.seen.String()))
	}
	t.Logf("console transcript of a ping through the NIOs:\n%s", printable(h.con.log.String()))

	// PUT nio suspends and resumes the tunnel (the controller's suspend).
	p1 := c.nioPath("vpcs", id(pc1), 0, 0)
	put := nio(lport1, 0, true)
	delete(put, "rport")
	put["rport"] = 1
	if r := ts.do("PUT", p1, put).want(t, 201).json(t); r["suspend"] != true {
		t.Fatalf("PUT nio answered %v", r)
	}
	if !h.silent("10.0.0.2") {
		t.Fatalf("pings crossed a suspended NIO:\n%s", printable(h.con.seen.String()))
	}
	put["suspend"] = false
	ts.do("PUT", p1, put).want(t, 201)
	if !h.pings("10.0.0.2", 15*time.Second) {
		t.Fatal("no pings after the NIO was resumed")
	}

	// Frame Relay switches take PUT nio too (GNS3's own compute answers 405
	// there, which its controller turns into a 500).
	fr := c.node("frame_relay_switch", "FR1", map[string]any{"mappings": map[string]any{"1:101": "2:201"}})
	frPort := c.udpPort()
	ts.do("POST", c.nioPath("frame_relay_switch", id(fr), 0, 1), nio(frPort, 9, false)).want(t, 201)
	ts.do("PUT", c.nioPath("frame_relay_switch", id(fr), 0, 1), nio(frPort, 9, true)).want(t, 201)

	// DELETE nio frees its lport and its port: pings stop, the lport may
	// be taken again, and the port may be linked.
	ts.do("DELETE", p1, nil).want(t, 204)
	ts.do("DELETE", p1, nil).want(t, 404)
	if !h.silent("10.0.0.2") {
		t.Fatal("pings crossed a deleted NIO")
	}
	ts.do("POST", c.nioPath("ethernet_switch", id(sw), 0, 6), nio(lport1, 9, false)).want(t, 201)
	ts.do("POST", "/v2/projects/"+c.pid+"/links", map[string]any{"nodes": []any{end(id(pc1), 0, 0), end(id(sw), 0, 5)}}).want(t, 201)

	// Nothing of the NIOs reached the project's stream: a node change,
	// made last, comes with no nio.* before it.
	ts.do("PUT", "/v2/compute/projects/"+c.pid+"/vpcs/nodes/"+id(pc2), map[string]any{"name": "PC2b"}).want(t, 200)
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
	if hist := ts.do("GET", "/v2/projects/"+c.pid+"/history", nil).want(t, 200).body; strings.Contains(string(hist), "nio") || strings.Contains(string(hist), "NIO") {
		t.Fatalf("history records NIOs: %s", hist)
	}
}
