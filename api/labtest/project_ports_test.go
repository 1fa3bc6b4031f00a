package labtest

import (
	"fmt"
	"net"
	"testing"
	"time"

	"nodedesk/app/kit"
)

// TestClosedProjectReleasesPorts: a project's cloud tunnels and switch
// consoles hold this machine's ports only while it is open, as GNS3's do.
// Closing or deleting it gives them back at once (so its export can be
// imported and run, and nothing of a lab the user put away stays reachable);
// opening it binds them again.
func TestClosedProjectReleasesPorts(t *testing.T) {
	ts := Start(t, Options{DataPlane: true})
	pid := ts.MustCreateProject("put-away")
	peer := kit.NewUDPPeer(t)
	ts.CloudTunnels(t, pid, peer) // the fabric binds peer.LPort
	sw := ts.MustCreateNode(pid, map[string]any{"node_type": "ethernet_switch", "console_type": "telnet"})
	console := int(sw["console"].(float64))

	udpHeld := func() bool {
		c, err := net.ListenPacket("udp", fmt.Sprintf("127.0.0.1:%d", peer.LPort))
		if err == nil {
			c.Close()
		}
		return err != nil
	}
	tcpHeld := func() bool {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", console), time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	}
	want := func(when string, held bool) {
		t.Helper()
		if !kit.WaitFor(5*time.Second, func() bool { return udpHeld() == held && tcpHeld() == held }) {
			t.Fatalf("%s: tunnel port %d held %v, console %d held %v; want both %v", when, peer.LPort, udpHeld(), console, tcpHeld(), held)
		}
	}
	want("open", true)
	ts.Do("POST", "/v2/projects/"+pid+"/close", nil).Want(t, 204)
	want("closed", false)
	ts.Do("POST", "/v2/projects/"+pid+"/open", nil).Want(t, 201)
	want("opened again", true)
	ts.Do("DELETE", "/v2/projects/"+pid, nil).Want(t, 204)
	want("deleted", false)
}

// TestStartInClosedProject: starting a node of a closed project opens the
// project first, so the node's frames are carried.
func TestStartInClosedProject(t *testing.T) {
	ts := StartVPCS(t)
	pid := ts.MustCreateProject("closed")
	sw := ts.MustCreateSwitch(t, pid, nil)
	pc := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs"})["node_id"].(string)
	ts.Link(t, pid, pc, 0, sw, 0)
	ts.Do("POST", "/v2/projects/"+pid+"/close", nil).Want(t, 204)
	ts.Do("POST", "/v2/projects/"+pid+"/nodes/"+pc+"/start", nil).Want(t, 200)
	if st := ts.Do("GET", "/v2/projects/"+pid, nil).Want(t, 200).JSON(t)["status"]; st != "opened" {
		t.Fatalf("project status after a node's start: %v, want opened", st)
	}
	ts.Do("POST", "/v2/projects/"+pid+"/nodes/"+pc+"/stop", nil).Want(t, 200)
}
