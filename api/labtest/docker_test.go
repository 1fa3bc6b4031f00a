package labtest

import (
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"nodedesk/app"
	"nodedesk/app/docker/dockertest"
	"nodedesk/app/kit"
)

// These tests run real containers on a private Docker Engine the test
// starts (scripts/test-dockerd.sh), from an image built offline from
// Debian's busybox-static: nodedesk-test/busybox.

// dockerNode creates a Docker node of the test image.
func dockerNode(t *testing.T, l *Lab, pid, name string) map[string]any {
	t.Helper()
	return l.MustCreateNode(pid, map[string]any{"node_type": "docker", "name": name, "console_type": "telnet",
		"properties": map[string]any{"image": dockertest.TestImage}})
}

// shell opens a container's telnet console at its shell.
func shell(t *testing.T, n map[string]any, port int) *kit.Console {
	t.Helper()
	c := kit.DialConsole(t, "127.0.0.1", port)
	if !c.Run("echo up-$((6*7))", "up-42", 20*time.Second) {
		t.Fatalf("%s: no shell on port %d: %q", n["name"], port, kit.Printable(c.Log.String()))
	}
	return c
}

// containers lists the engine's containers of a node, running or not.
func containers(t *testing.T, l *Lab, nodeID string) []string {
	t.Helper()
	out, err := exec.Command("docker", "-H", l.Env.Programs[app.Docker], "ps", "-aq", "--filter", "label=nodedesk.node="+nodeID).CombinedOutput()
	if err != nil {
		t.Fatalf("docker ps: %v %s", err, out)
	}
	return strings.Fields(string(out))
}

// vethExists reports whether this machine has an interface named name.
func vethExists(name string) bool {
	_, err := net.InterfaceByName(name)
	return err == nil
}

func nodeURL(pid string, n map[string]any) string {
	return "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
}

// TestDocker_Lab: a VPCS and two containers on one switch ping each other
// (from the VPCS's console and from a container's); the network settings
// written through the node files API configure the container at start
// and stay across stop and start; suspend silences a container and resume
// brings it back; the aux console is a shell in the container; deleting a
// running node leaves no container and no veth.
func TestDocker_Lab(t *testing.T) {
	l := Start(t, with(dockertest.Emulator))
	if imgs := l.Do("GET", "/v2/compute/docker/images", nil).Want(t, 200).Body; !strings.Contains(string(imgs), `"`+dockertest.TestImage+`"`) {
		t.Fatalf("the test image is not listed: %s", imgs)
	}
	pid := l.MustCreateProject("docker-lab")
	sw := l.MustCreateSwitch(t, pid, nil)
	c1, c2 := dockerNode(t, l, pid, "C1"), dockerNode(t, l, pid, "C2")
	// C1's address comes from its /etc/network/interfaces, written before
	// its first start as the GNS3 GUI's "Edit network configuration" does.
	ifaces := "auto eth0\niface eth0 inet static\n\taddress 10.0.0.2\n\tnetmask 255.255.255.0\n"
	l.Do("POST", nodeURL(pid, c1)+"/files/etc/network/interfaces", ifaces).Want(t, 201)
	l.Link(t, pid, c1["node_id"].(string), 0, sw, 1)
	l.Link(t, pid, c2["node_id"].(string), 0, sw, 2)
	pc := l.StartHost(t, pid, "PC1", "10.0.0.1")
	l.Link(t, pid, pc.ID, 0, sw, 0)

	for _, n := range []map[string]any{c1, c2} {
		l.Do("POST", nodeURL(pid, n)+"/start", nil).Want(t, 200)
	}
	s1 := shell(t, c1, int(c1["console"].(float64)))
	s2 := shell(t, c2, int(c2["console"].(float64)))
	s2.Send("ip addr add 10.0.0.3/24 dev eth0")
	if !pc.Pings("10.0.0.2", 30*time.Second) {
		t.Errorf("PC1 cannot ping C1: %q", kit.Printable(s1.Log.String()))
	}
	if !pc.Pings("10.0.0.3", 30*time.Second) {
		t.Errorf("PC1 cannot ping C2: %q", kit.Printable(s2.Log.String()))
	}
	if !s1.Run("ping -c 1 -W 2 10.0.0.3", " 0% packet loss", 20*time.Second) {
		t.Errorf("C1 cannot ping C2 over its console: %q", kit.Printable(s1.Log.String()))
	}
	aux := shell(t, c1, int(c1["properties"].(map[string]any)["aux"].(float64)))
	if !aux.Run("cat /etc/network/interfaces", "address 10.0.0.2", 10*time.Second) {
		t.Errorf("C1's aux shell does not see its interfaces file: %q", kit.Printable(aux.Log.String()))
	}
	// Both consoles also over the API's websockets, as the app's dock
	// opens them.
	for _, ws := range []string{"/console/ws", "/console/aux/ws"} {
		w, _, err := l.dialConsoleWS(t, nodeURL(pid, c1)+ws, nil)
		if err != nil {
			t.Fatalf("%s: %v", ws, err)
		}
		w.send("echo ws-$((6*7))\r")
		if !w.expect("ws-42", 15*time.Second) {
			t.Errorf("%s: no shell: %q", ws, w.seen.String())
		}
	}
	if _, resp, err := l.dialConsoleWS(t, nodeURL(pid, map[string]any{"node_id": pc.ID})+"/console/aux/ws", nil); err == nil || resp == nil || resp.StatusCode != 409 {
		t.Errorf("a VPCS's aux websocket: %v %v; want 409 (it has none)", resp, err)
	}

	// Suspend pauses the container: no answer until it resumes.
	l.Do("POST", nodeURL(pid, c1)+"/suspend", nil).Want(t, 200)
	if !pc.Silent("10.0.0.2") {
		t.Error("a suspended container answers pings")
	}
	l.Do("POST", nodeURL(pid, c1)+"/start", nil).Want(t, 200) // a suspended node resumes
	if !pc.Pings("10.0.0.2", 30*time.Second) {
		t.Error("C1 does not answer after resume")
	}

	// Stop and start: the interfaces file configures it again.
	l.Do("POST", nodeURL(pid, c1)+"/stop", nil).Want(t, 200)
	if ids := containers(t, l, c1["node_id"].(string)); len(ids) != 1 {
		t.Errorf("stopped C1 has containers %v; want its one, kept", ids)
	}
	if vethExists(app.VethName(c1["node_id"].(string), 0)) {
		t.Error("stopped C1 left its veth")
	}
	l.Do("POST", nodeURL(pid, c1)+"/start", nil).Want(t, 200)
	if !pc.Pings("10.0.0.2", 30*time.Second) {
		t.Error("C1 lost its address across stop and start")
	}
	if got := l.Do("GET", nodeURL(pid, c1)+"/files/etc/network/interfaces", nil).Want(t, 200).Body; string(got) != ifaces {
		t.Errorf("C1's interfaces file after a restart: %q", got)
	}

	// Deleting a running node ends its container and removes its veth.
	id2 := c2["node_id"].(string)
	if len(containers(t, l, id2)) != 1 || !vethExists(app.VethName(id2, 0)) {
		t.Fatalf("running C2 has containers %v, veth %v", containers(t, l, id2), vethExists(app.VethName(id2, 0)))
	}
	l.Do("DELETE", nodeURL(pid, c2), nil).Want(t, 204)
	if !kit.WaitFor(10*time.Second, func() bool { return len(containers(t, l, id2)) == 0 && !vethExists(app.VethName(id2, 0)) }) {
		t.Errorf("deleted C2 left containers %v or its veth", containers(t, l, id2))
	}
}

// TestDocker_MissingImage: a node whose image the engine does not have
// (and cannot pull: no registry is reachable) is made, without a
// container, and the project's users are told why; it does not start:
// the answer names the image, and nothing is left behind.
func TestDocker_MissingImage(t *testing.T) {
	l := Start(t, with(dockertest.Emulator))
	pid := l.MustCreateProject("missing")
	next, _ := l.WSListen(t, "/v2/projects/"+pid+"/notifications/ws")
	n := l.MustCreateNode(pid, map[string]any{"node_type": "docker", "name": "Ghost",
		"properties": map[string]any{"image": "nodedesk-test/absent:9"}})
	if cid := n["properties"].(map[string]any)["container_id"]; cid != nil {
		t.Errorf("a node of a missing image has container_id %v, want null", cid)
	}
	told := ""
	for deadline := time.Now().Add(90 * time.Second); told == "" && time.Now().Before(deadline); {
		if e := next(); e.Action == "log.warning" {
			told, _ = e.Event["message"].(string)
		}
	}
	if !strings.Contains(told, "Ghost") || !strings.Contains(told, "nodedesk-test/absent:9") {
		t.Errorf("the missing image was told as %q; want the node and the image named", told)
	}
	r := l.Do("POST", nodeURL(pid, n)+"/start", nil).Want(t, 409).JSON(t)
	if msg, _ := r["message"].(string); !strings.Contains(msg, "nodedesk-test/absent:9") {
		t.Errorf("start of a missing image: %v; want the image named", r)
	}
	if ids := containers(t, l, n["node_id"].(string)); len(ids) != 0 || vethExists(app.VethName(n["node_id"].(string), 0)) {
		t.Errorf("a failed start left containers %v or a veth", ids)
	}
	if got := l.Do("GET", nodeURL(pid, n), nil).Want(t, 200).JSON(t); got["status"] != "stopped" {
		t.Errorf("after a failed start the node is %v", got["status"])
	}
}

// TestDocker_ExitsByItself: a container whose command ends shows the node
// stopped, with the reason told on the project's stream, and leaves
// nothing behind.
func TestDocker_ExitsByItself(t *testing.T) {
	l := Start(t, with(dockertest.Emulator))
	pid := l.MustCreateProject("exits")
	n := l.MustCreateNode(pid, map[string]any{"node_type": "docker", "name": "Brief",
		"properties": map[string]any{"image": dockertest.TestImage, "start_command": "sh -c 'echo bye-bye; sleep 2; exit 3'"}})
	next, _ := l.WSListen(t, "/v2/projects/"+pid+"/notifications/ws")
	l.Do("POST", nodeURL(pid, n)+"/start", nil).Want(t, 200)
	deadline := time.Now().Add(30 * time.Second)
	told := ""
	for time.Now().Before(deadline) && told == "" {
		e := next()
		if e.Action == "log.error" {
			told, _ = e.Event["message"].(string)
		}
	}
	if !strings.Contains(told, "Brief") || !strings.Contains(told, "3") {
		t.Errorf("the exit was told as %q; want the node and its exit code", told)
	}
	if !kit.WaitFor(10*time.Second, func() bool {
		return l.Do("GET", nodeURL(pid, n), nil).JSON(t)["status"] == "stopped"
	}) {
		t.Error("the node does not show stopped")
	}
	if ids := containers(t, l, n["node_id"].(string)); len(ids) != 1 {
		t.Errorf("the ended node has containers %v; want its one, kept until it is deleted", ids)
	}
}

// dockerExec runs a command in a container, as a user does with docker
// exec, and returns its output.
func dockerExec(t *testing.T, l *Lab, container string, cmd ...string) string {
	t.Helper()
	args := append([]string{"-H", l.Env.Programs[app.Docker], "exec", container}, cmd...)
	out, err := exec.Command("docker", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("docker exec %v: %v %s", cmd, err, out)
	}
	return string(out)
}

// containerID is a node's container_id as its view shows it ("" for null).
func containerID(t *testing.T, l *Lab, pid, nodeID string) string {
	t.Helper()
	n := l.Do("GET", "/v2/projects/"+pid+"/nodes/"+nodeID, nil).Want(t, 200).JSON(t)
	id, _ := n["properties"].(map[string]any)["container_id"].(string)
	return id
}

// TestDocker_Container: a Docker node has its container from its
// creation, as in GNS3 2.2.59: the create answers with its container_id
// and ports that show each adapter's MAC (mac_address plus the adapter's
// number), and the network settings' example (one stanza per adapter)
// reads at once; what is written in the container lasts across a stop
// and a start of the same container; a delete removes it, an undo of the
// delete makes it again, with the node's folder back byte for byte;
// closing the project removes it, opening it makes it again.
func TestDocker_Container(t *testing.T) {
	l := Start(t, with(dockertest.Emulator))
	pid := l.MustCreateProject("containers")
	n := l.MustCreateNode(pid, map[string]any{"node_type": "docker", "name": "Box", "console_type": "telnet",
		"properties": map[string]any{"image": dockertest.TestImage, "adapters": 3}})
	id, url := n["node_id"].(string), nodeURL(pid, n)
	props := n["properties"].(map[string]any)
	cid, _ := props["container_id"].(string)
	if ids := containers(t, l, id); cid == "" || len(ids) != 1 || !strings.HasPrefix(cid, ids[0]) {
		t.Fatalf("the create's container_id %q, the engine's containers of the node %v; want the one made with it", cid, ids)
	}
	body := string(l.Do("GET", url+"/files/etc/network/interfaces", nil).Want(t, 200).Body)
	for i := range 3 {
		if !strings.Contains(body, fmt.Sprintf("#iface eth%d inet static", i)) {
			t.Errorf("the interfaces file of a new node lacks eth%d's example:\n%s", i, body)
		}
	}
	if strings.Contains(body, "eth3") {
		t.Errorf("the interfaces file has an example for an adapter the node lacks:\n%s", body)
	}
	base := props["mac_address"].(string) // 02:42:xx:xx:xx:00
	for i, p := range n["ports"].([]any) {
		want := base[:len(base)-2] + fmt.Sprintf("%02x", i)
		if got := p.(map[string]any)["mac_address"]; got != want {
			t.Errorf("port %d's mac_address = %v, want %s (mac_address plus %d)", i, got, want, i)
		}
	}

	l.Do("POST", url+"/start", nil).Want(t, 200)
	dockerExec(t, l, cid, "sh", "-c", "echo written-inside > /mark")
	if got := dockerExec(t, l, cid, "cat", "/sys/class/net/eth2/address"); strings.TrimSpace(got) != base[:len(base)-2]+"02" {
		t.Errorf("eth2's MAC in the container = %q, want its port's", got)
	}
	l.Do("POST", url+"/stop", nil).Want(t, 200)
	l.Do("POST", url+"/start", nil).Want(t, 200)
	if got := dockerExec(t, l, cid, "cat", "/mark"); got != "written-inside\n" {
		t.Errorf("/mark after a stop and a start = %q, want what was written before", got)
	}
	if now := containerID(t, l, pid, id); now != cid {
		t.Errorf("container_id after a restart = %q, want the same %q", now, cid)
	}

	// A delete removes the container; its undo makes one again, from
	// the node's folder as it was, byte for byte (what the container
	// wrote in its own layer, /mark, goes with it, as in GNS3).
	l.Do("POST", url+"/stop", nil).Want(t, 200)
	dir := n["node_directory"].(string)
	files := kit.FolderHashes(t, dir)
	l.Do("DELETE", url, nil).Want(t, 204)
	if ids := containers(t, l, id); len(ids) != 0 {
		t.Errorf("the delete answered with the node's containers %v left", ids)
	}
	l.Do("POST", "/v2/projects/"+pid+"/undo", nil).Want(t, 200)
	var back string
	if !kit.WaitFor(20*time.Second, func() bool {
		back = containerID(t, l, pid, id)
		ids := containers(t, l, id)
		return back != "" && back != cid && len(ids) == 1 && strings.HasPrefix(back, ids[0])
	}) {
		t.Errorf("after the undo of its delete the node has container_id %q and containers %v; want a new one", back, containers(t, l, id))
	}
	kit.WantFiles(t, "the container's node folder after the undo of its delete", kit.FolderHashes(t, dir), files)
	t.Logf("Box: %d files, %d bytes kept for undo", len(files), kit.FolderSize(t, dir))

	// Closing the project removes it; opening the project makes it again.
	l.Do("POST", "/v2/projects/"+pid+"/close", nil).Want(t, 204)
	if ids := containers(t, l, id); len(ids) != 0 {
		t.Errorf("the closed project's node has containers %v", ids)
	}
	if got := containerID(t, l, pid, id); got != "" {
		t.Errorf("the closed project's node shows container_id %q, want null", got)
	}
	l.Do("POST", "/v2/projects/"+pid+"/open", nil).Want(t, 201)
	if !kit.WaitFor(20*time.Second, func() bool { return containerID(t, l, pid, id) != "" && len(containers(t, l, id)) == 1 }) {
		t.Errorf("the reopened project's node has containers %v", containers(t, l, id))
	}
}
