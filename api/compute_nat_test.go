package api

import (
	"reflect"
	"strconv"
	"testing"
	"time"
)

// The NAT node as a GNS3 compute serves it: the test plays a GNS3 2.2.59
// controller that makes a VPCS and a NAT node through the compute paths and
// links them with two nio_udp on 127.0.0.1; the real VPCS takes a DHCP
// lease from the NAT gateway through the tunnel and pings it.
func TestCompute_NATNode(t *testing.T) {
	ts := newVPCSServer(t)
	c := &gns3Controller{ts: ts, t: t, pid: "4c5ab1f0-7e2d-4d3a-9a61-2f0c3b7d9e11"}
	ts.do("POST", "/v2/compute/projects", map[string]any{"name": "natlab", "project_id": c.pid}).want(t, 201)

	// GNS3's NAT view: name, node_id, project_id, status started and the
	// fixed nat0 port; nothing else (its schema has no other key).
	nat := c.node("nat", "NAT1", map[string]any{"ports_mapping": []any{}})
	natID := nat["node_id"].(string)
	wantPorts := []any{map[string]any{"name": "nat0", "port_number": 0.0, "type": "ethernet", "interface": "nat0"}}
	if nat["status"] != "started" || !reflect.DeepEqual(nat["ports_mapping"], wantPorts) || len(nat) != 5 {
		t.Fatalf("NAT compute view %v; want status started, ports_mapping %v and no other key", nat, wantPorts)
	}
	natPath := "/v2/compute/projects/" + c.pid + "/nat/nodes/" + natID
	if got := ts.do("GET", natPath, nil).want(t, 200).json(t); !reflect.DeepEqual(got, nat) {
		t.Fatalf("GET %v; POST answered %v", got, nat)
	}
	// A change of its ports is ignored, as GNS3 does; a rename is not.
	other := []any{map[string]any{"name": "eth9", "port_number": 3, "type": "ethernet", "interface": "eth9"}}
	if got := ts.do("PUT", natPath, map[string]any{"name": "NAT9", "ports_mapping": other}).want(t, 200).json(t); got["name"] != "NAT9" || !reflect.DeepEqual(got["ports_mapping"], wantPorts) {
		t.Fatalf("PUT answered %v", got)
	}
	ts.do("PUT", natPath, map[string]any{"console": 5000}).want(t, 400) // not a key of GNS3's NAT schema
	// It is always started: every action leaves it so.
	for _, a := range []string{"stop", "suspend", "reload", "start"} {
		ts.do("POST", natPath+"/"+a, map[string]any{}).want(t, 204)
		if s := ts.do("GET", natPath, nil).want(t, 200).json(t)["status"]; s != "started" {
			t.Fatalf("after %s the NAT node is %v", a, s)
		}
	}

	pc := c.node("vpcs", "PC1", map[string]any{"console_type": "telnet", "startup_script": "set pcname %h\n"})
	pcID := pc["node_id"].(string)
	c.link(computeEnd{"vpcs", pcID, 0, 0}, computeEnd{"nat", natID, 0, 0})
	ts.do("POST", c.nioPath("nat", natID, 0, 1), nio(c.udpPort(), 9, false)).want(t, 400) // nat0 is its only port

	v := ts.do("POST", "/v2/compute/projects/"+c.pid+"/vpcs/nodes/"+pcID+"/start", map[string]any{}).want(t, 200).json(t)
	con := dialConsole(t, v["console"].(float64))
	if !con.expect("PC1>", true, 15*time.Second) {
		t.Fatalf("no prompt: %q", con.seen.String())
	}
	if !con.run("ip dhcp", "GW 192.168.122.1", 30*time.Second) {
		t.Fatalf("no DHCP lease from the NAT gateway through the NIOs:\n%s", printable(con.log.String()))
	}
	lease := leaseRE.FindStringSubmatch(con.seen.String())
	if lease == nil {
		t.Fatalf("lease outside 192.168.122.0/24:\n%s", printable(con.seen.String()))
	}
	con.expect("PC1>", false, 5*time.Second)
	h := &labHost{id: pcID, name: "PC1", ip: lease[1], con: con}
	if !h.pings("192.168.122.1", 20*time.Second) {
		t.Fatalf("the gateway does not answer ping through the NIOs:\n%s", printable(con.log.String()))
	}
	t.Logf("console transcript through the NAT node's NIO:\n%s", printable(con.log.String()))

	// Without the NAT port's NIO the gateway is out of reach; deleting the
	// node takes its view away.
	ts.do("DELETE", c.nioPath("nat", natID, 0, 0), nil).want(t, 204)
	if !h.silent("192.168.122.1") {
		t.Fatal("the gateway still answers after its NIO was deleted")
	}
	ts.do("DELETE", natPath, nil).want(t, 204)
	ts.do("GET", natPath, nil).want(t, 404)
}

// The host's CPU and memory use carry one decimal, as GNS3's psutil gives
// them: the GNS3 GUI prints them as they come in its servers summary.
func TestHostUsage_OneDecimal(t *testing.T) {
	cpu, mem := hostUsage()
	for _, v := range []float64{cpu, mem} {
		if s := strconv.FormatFloat(v, 'f', -1, 64); len(s) > len(strconv.FormatFloat(v, 'f', 1, 64)) {
			t.Errorf("hostUsage gave %s; want one decimal at most", s)
		}
	}
	if mem <= 0 || mem > 100 {
		t.Errorf("memory use %v%%", mem)
	}
}
