package labtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"nodedesk/app/hostnet"
	"nodedesk/app/kit"
	"nodedesk/app/vpcs/vpcstest"
)

// A process-run node's UDP pair: its process binds the local port, the
// data plane the remote one (decision 0066). Debian's VPCS (0.5b2) also
// binds its -s port + 9, its relay, which it cannot turn off.

// TestLab_EightVPCSOnSwitchesAndHub: eight VPCS of Debian's vpcs 0.5b2,
// four on each of two Ethernet switches joined through a hub, each
// pinging its neighbour and the host across the hub. Pairs handed out two
// by two put the fifth VPCS's data-plane end at the first one's relay
// port; every reply must come back.
func TestLab_EightVPCSOnSwitchesAndHub(t *testing.T) {
	vpcstest.MustHave(t)
	if out, _ := exec.Command("/usr/bin/vpcs", "-v").CombinedOutput(); !strings.Contains(string(out), "version 0.5b2") {
		t.Fatalf("this test runs Debian's vpcs 0.5b2, which cannot turn off its relay; /usr/bin/vpcs says %q", out)
	}
	// Every UDP port looks free when it is claimed, as it did to the user
	// (a port checked a moment before a VPCS binds its relay): the pairs
	// come out side by side, and only the claim of each relay port with
	// its pair keeps PC1's relay (its -s port + 9) off PC5's end.
	// Consoles are checked on the host as usual.
	opts := with()
	tcpFree := hostnet.PortFree("127.0.0.1")
	opts.PortFree = func(network string, port int) bool { return network == "udp" || tcpFree(network, port) }
	ts := Start(t, opts)
	pid := ts.MustCreateProject("eight")
	sw1 := ts.MustCreateSwitch(t, pid, nil)
	sw2 := ts.MustCreateSwitch(t, pid, nil)
	hub := ts.MustCreateNode(pid, map[string]any{"node_type": "ethernet_hub", "name": "HUB1"})["node_id"].(string)
	ts.Link(t, pid, sw1, 7, hub, 0)
	ts.Link(t, pid, sw2, 7, hub, 1)
	hosts := make([]*kit.Host, 8)
	for i := range hosts {
		name, ip := fmt.Sprintf("PC%d", i+1), fmt.Sprintf("10.0.0.%d", i+1)
		n := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": name,
			"properties": map[string]any{"startup_script": fmt.Sprintf("set pcname %s\nip %s/24\n", name, ip)}})
		hosts[i] = &kit.Host{ID: n["node_id"].(string), Name: name, IP: ip}
		sw := sw1
		if i >= 4 {
			sw = sw2
		}
		ts.Link(t, pid, hosts[i].ID, 0, sw, i%4)
	}
	// The first four are started one by one, as a user clicks Start, and
	// are at their prompt (their relays bound) before "Start every node"
	// starts the other four.
	prompt := func(h *kit.Host) {
		h.Con = kit.DialConsole(t, "127.0.0.1", int(ts.Do("GET", "/v2/projects/"+pid+"/nodes/"+h.ID, nil).Want(t, 200).JSON(t)["console"].(float64)))
		if !h.Con.Expect(h.Name+">", true, 15*time.Second) {
			t.Fatalf("%s: no prompt: %q", h.Name, h.Con.Seen.String())
		}
	}
	for _, h := range hosts[:4] {
		ts.Do("POST", "/v2/projects/"+pid+"/nodes/"+h.ID+"/start", nil).Want(t, 200)
		prompt(h)
	}
	ts.Do("POST", "/v2/projects/"+pid+"/nodes/start", nil).Want(t, 204)
	for _, h := range hosts[4:] {
		prompt(h)
	}
	for _, n := range ts.Do("GET", "/v2/projects/"+pid+"/nodes", nil).Want(t, 200).List(t) {
		if n["node_type"] == "vpcs" && n["status"] != "started" {
			t.Fatalf("%s is %v; want started", n["name"], n["status"])
		}
	}
	// Each host's console is its own: they ping side by side.
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed []string
	for i, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, j := range []int{(i + 1) % 8, (i + 4) % 8} {
				to := hosts[j]
				if !h.Pings(to.IP, 20*time.Second) {
					mu.Lock()
					failed = append(failed, fmt.Sprintf("%s → %s (%s):\n%s", h.Name, to.Name, to.IP, kit.Printable(h.Con.Seen.String())))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if len(failed) > 0 {
		t.Fatalf("%d pings got no reply:\n%s", len(failed), strings.Join(failed, "\n"))
	}
}

// TestLab_StartWithTakenUDPPort: a UDP port of a node's pair that another
// program takes after nodedesk found it free fails the start with a 409
// naming the node, the port and who holds it (this test's own process),
// and the node stays stopped: never a green node with a dead link. Both
// ends are tried: the data plane's (the pair's remote port) and VPCS's
// own (its local port).
func TestLab_StartWithTakenUDPPort(t *testing.T) {
	for _, c := range []struct {
		end string
		odd int // the pair's port the test takes: 1 the remote, 0 the local
	}{{"data plane's end", 1}, {"VPCS's end", 0}} {
		t.Run(c.end, func(t *testing.T) {
			var mu sync.Mutex
			var taken int
			var held net.PacketConn
			// The test takes the port right after nodedesk found it free.
			opts := with()
			opts.PortFree = func(network string, port int) bool {
				mu.Lock()
				defer mu.Unlock()
				if network == "udp" && held == nil && port%2 == c.odd {
					var err error
					if held, err = net.ListenPacket("udp", "127.0.0.1:"+strconv.Itoa(port)); err != nil {
						t.Errorf("the test cannot take UDP port %d: %v", port, err)
						return false
					}
					taken = port
				}
				return true
			}
			ts := Start(t, opts)
			t.Cleanup(func() {
				if held != nil {
					held.Close()
				}
			})
			pid := ts.MustCreateProject("taken")
			n := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": "PC1"})
			path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
			msg, _ := ts.Do("POST", path+"/start", nil).Want(t, 409).JSON(t)["message"].(string)
			for _, want := range []string{"PC1", fmt.Sprintf("UDP port %d", taken), fmt.Sprintf("pid %d (", os.Getpid())} {
				if !strings.Contains(msg, want) {
					t.Errorf("the 409 says %q; want it to name %q", msg, want)
				}
			}
			if st := ts.Do("GET", path, nil).Want(t, 200).JSON(t)["status"]; st != "stopped" {
				t.Errorf("PC1 is %v after its start was refused; want stopped", st)
			}
		})
	}
}

// TestLab_UDPEndFailsLater: an end of a running node's pair that fails
// later (its socket broken under the data plane, as BreakEnds does) stops
// the node, says so on the project's stream (node.updated stopped, then
// a log.error naming the node, the port and what to do), and the API
// shows it stopped.
func TestLab_UDPEndFailsLater(t *testing.T) {
	ts := StartVPCS(t)
	pid := ts.MustCreateProject("fault")
	sw := ts.MustCreateSwitch(t, pid, nil)
	pc1 := ts.StartHost(t, pid, "PC1", "10.0.0.1")
	pc2 := ts.StartHost(t, pid, "PC2", "10.0.0.2")
	ts.Link(t, pid, pc1.ID, 0, sw, 0)
	ts.Link(t, pid, pc2.ID, 0, sw, 1)
	if !pc1.Pings(pc2.IP, 20*time.Second) {
		t.Fatalf("PC1 cannot ping PC2:\n%s", kit.Printable(pc1.Con.Seen.String()))
	}
	next, _ := ts.WSListen(t, "/v2/projects/"+pid+"/notifications/ws")
	ports, err := ts.Fabric.BreakEnds(pc2.ID)
	if err != nil {
		t.Fatal(err)
	}
	var stopped bool
	var said string
	for said == "" {
		e := next()
		switch e.Action {
		case "node.updated":
			if e.Event["node_id"] == pc2.ID && e.Event["status"] == "stopped" {
				stopped = true
			}
		case "log.error":
			said, _ = e.Event["message"].(string)
		}
	}
	if !stopped {
		t.Error("no node.updated with PC2 stopped came before the log.error")
	}
	for _, want := range []string{"PC2", fmt.Sprintf("UDP port %d", ports[0]), "start PC2 again"} {
		if !strings.Contains(said, want) {
			t.Errorf("the log.error says %q; want it to name %q", said, want)
		}
	}
	if st := ts.Do("GET", "/v2/projects/"+pid+"/nodes/"+pc2.ID, nil).Want(t, 200).JSON(t)["status"]; st != "stopped" {
		t.Errorf("PC2 is %v after its end failed; want stopped", st)
	}
	// Started again, it is given its ends anew and answers.
	ts.Do("POST", "/v2/projects/"+pid+"/nodes/"+pc2.ID+"/start", nil).Want(t, 200)
	if !pc1.Pings(pc2.IP, 20*time.Second) {
		t.Fatalf("PC1 cannot ping PC2 started again:\n%s", kit.Printable(pc1.Con.Seen.String()))
	}
}
