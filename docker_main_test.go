package main

import (
	"encoding/json"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"nodedesk/app"
	"nodedesk/app/docker/dockertest"
	"nodedesk/app/kit"
)

// dockerLab is a nodedesk process on a private Docker Engine with one
// project of n Docker nodes.
type dockerLab struct {
	host, db, pid string
	env           []string
	nodes         []string
}

func newDockerLab(t *testing.T, n int, wrapper []string) (*dockerLab, *proc, string) {
	t.Helper()
	d := &dockerLab{host: dockertest.Dockerd(t), db: filepath.Join(t.TempDir(), "d.db")}
	d.env = sandboxEnv(t, "DOCKER_HOST="+d.host)
	p := startUnder(t, d.env, wrapper, d.args()...)
	url := p.waitServing(t)
	_, body := call(t, "POST", url+"/v2/projects", map[string]any{"name": "d"})
	var proj struct {
		ProjectID string `json:"project_id"`
	}
	_ = json.Unmarshal(body, &proj)
	d.pid = proj.ProjectID
	if d.pid == "" {
		t.Fatalf("create project: %s", body)
	}
	for range n {
		code, body := call(t, "POST", url+"/v2/projects/"+d.pid+"/nodes", map[string]any{"node_type": "docker",
			"properties": map[string]any{"image": dockertest.TestImage, "adapters": 2}})
		var node struct {
			NodeID string `json:"node_id"`
		}
		if err := json.Unmarshal(body, &node); code != 201 || err != nil || node.NodeID == "" {
			t.Fatalf("create Docker node: %d %s", code, body)
		}
		d.nodes = append(d.nodes, node.NodeID)
	}
	return d, p, url
}

func (d *dockerLab) args() []string {
	return []string{"--headless", "--listen", "127.0.0.1:0", "--db", d.db}
}

// leftovers lists what remains of node id on this machine: its
// containers and its veths.
func (d *dockerLab) leftovers(t *testing.T, id string) []string {
	t.Helper()
	out, err := exec.Command("docker", "-H", d.host, "ps", "-aq", "--filter", "label=nodedesk.node="+id).CombinedOutput()
	if err != nil {
		t.Fatalf("docker ps: %v %s", err, out)
	}
	left := strings.Fields(string(out))
	for i := range 2 {
		if _, err := net.InterfaceByName(app.VethName(id, i)); err == nil {
			left = append(left, app.VethName(id, i))
		}
	}
	return left
}

// TestMain_DockerLeftBehind: after kill -9 of nodedesk with containers
// running, the next nodedesk removes them and their veths, shows the
// nodes stopped and makes each of them (their project is open) a new
// container, not running; a clean quit then leaves none.
func TestMain_DockerLeftBehind(t *testing.T) {
	d, p, url := newDockerLab(t, 2, nil)
	if code, body := call(t, "POST", url+"/v2/projects/"+d.pid+"/nodes/start", nil); code != 204 {
		t.Fatalf("start all: %d %s", code, body)
	}
	var old []string
	for _, id := range d.nodes {
		left := d.leftovers(t, id)
		if len(left) != 3 { // a container, two veths
			t.Fatalf("node %s runs as %v; want a container and two veths", id, left)
		}
		old = append(old, left[0])
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.done
	p = start(t, d.env, d.args()...)
	url = p.waitServing(t)
	for i, id := range d.nodes {
		if !kit.WaitFor(30*time.Second, func() bool {
			left := d.leftovers(t, id)
			return len(left) == 1 && left[0] != old[i] && !d.running(t, left[0])
		}) {
			t.Errorf("after kill -9 and a restart, node %s has %v (it had container %s); want one new container, not running, and no veth", id, d.leftovers(t, id), old[i])
		}
	}
	_, body := call(t, "GET", url+"/v2/projects/"+d.pid+"/nodes", nil)
	var got []struct{ Status string }
	if err := json.Unmarshal(body, &got); err != nil || len(got) != len(d.nodes) {
		t.Fatalf("after a crash the project lists %s; want its %d nodes", body, len(d.nodes))
	}
	for _, n := range got {
		if n.Status != "stopped" {
			t.Errorf("after a crash a node is %s at start-up, want stopped", n.Status)
		}
	}
	p.stop(t)
	for _, id := range d.nodes {
		if left := d.leftovers(t, id); len(left) != 0 {
			t.Errorf("after a clean quit node %s left %v", id, left)
		}
	}
}

// running reports whether a container runs.
func (d *dockerLab) running(t *testing.T, container string) bool {
	t.Helper()
	out, err := exec.Command("docker", "-H", d.host, "inspect", "-f", "{{.State.Running}}", container).CombinedOutput()
	if err != nil {
		t.Fatalf("docker inspect: %v %s", err, out)
	}
	return strings.TrimSpace(string(out)) == "true"
}

// TestMain_DockerWithoutNetAdmin: a nodedesk without CAP_NET_ADMIN cannot
// give a container its interfaces: the start answers 409 naming the
// capability and how to grant it, and leaves nothing behind.
func TestMain_DockerWithoutNetAdmin(t *testing.T) {
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Fatal("setpriv (util-linux) is needed to drop CAP_NET_ADMIN")
	}
	d, p, url := newDockerLab(t, 1, []string{"setpriv", "--bounding-set", "-net_admin", "--"})
	code, body := call(t, "POST", url+"/v2/projects/"+d.pid+"/nodes/"+d.nodes[0]+"/start", nil)
	if code != 409 || !strings.Contains(string(body), "CAP_NET_ADMIN") || !strings.Contains(string(body), "setcap") {
		t.Errorf("start without CAP_NET_ADMIN: %d %s; want 409 naming the capability and setcap", code, body)
	}
	if left := d.leftovers(t, d.nodes[0]); len(left) != 0 {
		t.Errorf("a refused start left %v", left)
	}
	p.stop(t)
}
