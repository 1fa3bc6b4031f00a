package docker

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"nodedesk/app"
	"nodedesk/app/docker/dockertest"
	"nodedesk/app/kit"
	"nodedesk/app/supervise"
)

// The runner's tests run real containers on a dockerd of their own
// (dockertest.Dockerd), under the lab lock:
//
//	flock /tmp/nodedesk-lab.lock go test -race -count=1 ./app/docker/
//
// They share one engine: each subtest makes its nodes and leaves none.

func TestRunner(t *testing.T) {
	host := dockertest.Dockerd(t)
	t.Run("Engine", func(t *testing.T) { testEngine(t, host) })
	t.Run("StartStop", func(t *testing.T) { testStartStop(t, host) })
	t.Run("KeptContainer", func(t *testing.T) { testKeptContainer(t, host) })
	t.Run("FramesFlow", func(t *testing.T) { testFramesFlow(t, host) })
	t.Run("DHCP", func(t *testing.T) { testDHCP(t, host) })
	t.Run("KeptFolders", func(t *testing.T) { testKeptFolders(t, host) })
	t.Run("SuspendResume", func(t *testing.T) { testSuspendResume(t, host) })
	t.Run("ExitsByItself", func(t *testing.T) { testExitsByItself(t, host) })
	t.Run("MissingImage", func(t *testing.T) { testMissingImage(t, host) })
	t.Run("Consoles", func(t *testing.T) { testConsoles(t, host) })
	t.Run("HTTPConsole", func(t *testing.T) { testHTTPConsole(t, host) })
	t.Run("Open", func(t *testing.T) { testOpen(t, host) })
	t.Run("NoNetAdmin", func(t *testing.T) { testNoNetAdmin(t, host) })
	if t.Failed() {
		return
	}
	// Nothing is left on the engine by any subtest.
	r := newRunner(t, host, t.TempDir())
	if list := containersOf(t, r, "", ""); len(list) > 0 {
		t.Errorf("containers left on the engine: %v", list)
	}
}

// newRunner is a runner on host with its records in runDir, whose nodes
// are all stopped when the test ends.
func newRunner(t *testing.T, host, runDir string) *Runner {
	t.Helper()
	r := New(Config{Host: host, RunDir: runDir, ConsoleHost: "127.0.0.1", StopGrace: time.Second, PullWait: 5 * time.Second})
	if r.eng == nil {
		t.Fatal(r.engErr)
	}
	t.Cleanup(r.StopAll)
	return r
}

// process is a Docker node of the test image with adapters adapters,
// in its own folder, and the given properties.
func process(t *testing.T, name string, adapters int, props map[string]any) app.Process {
	t.Helper()
	id := uuid.NewString()
	p := app.Process{ProjectID: uuid.NewString(), NodeID: id, Name: name,
		Dir:        filepath.Join(t.TempDir(), "project-files", "docker", id),
		Properties: map[string]json.RawMessage{}}
	all := map[string]any{"image": dockertest.TestImage, "adapters": adapters}
	for k, v := range props {
		all[k] = v
	}
	for k, v := range all {
		p.Properties[k], _ = json.Marshal(v)
	}
	for i := range adapters {
		p.HostInterfaces = append(p.HostInterfaces, app.VethName(id, i))
	}
	return p
}

// mustStart starts p, stopping it when the test ends.
func mustStart(t *testing.T, r *Runner, p app.Process) *node {
	t.Helper()
	if _, err := r.Start(p); err != nil {
		t.Fatalf("start %s: %v", p.Name, err)
	}
	t.Cleanup(func() { _ = r.Stop(p.NodeID) })
	n, err := r.get(p.NodeID)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// inContainer runs a command in a node's container and returns its
// output, failing the test if it fails.
func inContainer(t *testing.T, r *Runner, n *node, cmd ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	code, out, err := r.eng.run(ctx, n.rec.Container, cmd...)
	if err != nil || code != 0 {
		t.Fatalf("%s in %s: code %d, %v\n%s", strings.Join(cmd, " "), n.p.Name, code, err, out)
	}
	return out
}

// containersOf lists the engine's containers (of node nodeID if given,
// else all of them, by name).
func containersOf(t *testing.T, r *Runner, key, value string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var list []struct {
		ID     string `json:"Id"`
		Names  []string
		Labels map[string]string
	}
	if err := r.eng.call(ctx, "GET", "/containers/json", map[string][]string{"all": {"1"}}, nil, &list); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range list {
		if key == "" || c.Labels[key] == value {
			out = append(out, strings.Join(c.Names, ","))
		}
	}
	return out
}

// mustBeGone checks that nothing is left of a node: no container, no
// host end of a veth, no record.
func mustBeGone(t *testing.T, r *Runner, p app.Process) {
	t.Helper()
	if list := containersOf(t, r, labelNode, p.NodeID); len(list) > 0 {
		t.Errorf("%s's containers are left: %v", p.Name, list)
	}
	for _, v := range p.HostInterfaces {
		if linkExists(v) {
			t.Errorf("%s's interface %s is left", p.Name, v)
		}
	}
	if _, err := os.Stat(r.recordPath(p.NodeID)); err == nil {
		t.Errorf("%s's record is left", p.Name)
	}
}

// mustBeStopped checks that a stopped node keeps its container, not
// running, and its record, and that its interfaces are gone.
func mustBeStopped(t *testing.T, r *Runner, p app.Process) {
	t.Helper()
	id := r.Provisioned(p.NodeID)
	if id == "" {
		t.Fatalf("%s has no container after its stop", p.Name)
	}
	c, err := r.eng.inspect(context.Background(), id)
	if err != nil || c.State.Running {
		t.Errorf("%s's container after its stop: %+v, %v; want it there, not running", p.Name, c, err)
	}
	for _, v := range p.HostInterfaces {
		if linkExists(v) {
			t.Errorf("%s's interface %s is left after its stop", p.Name, v)
		}
	}
	if _, err := os.Stat(r.recordPath(p.NodeID)); err != nil {
		t.Errorf("%s's record is gone while its container is there: %v", p.Name, err)
	}
}

// mustRelease releases a node and checks nothing is left of it.
func mustRelease(t *testing.T, r *Runner, p app.Process) {
	t.Helper()
	if err := r.Release(p.NodeID); err != nil {
		t.Fatal(err)
	}
	mustBeGone(t, r, p)
	if id := r.Provisioned(p.NodeID); id != "" {
		t.Errorf("%s still has container %s after its release", p.Name, id)
	}
}

func testEngine(t *testing.T, host string) {
	r := newRunner(t, host, t.TempDir())
	ctx := context.Background()
	v, err := r.eng.Version(ctx)
	if err != nil || v.APIVersion == "" {
		t.Fatalf("Version = %+v, %v", v, err)
	}
	images, err := r.Images(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(images, app.DockerImage{Image: dockertest.TestImage}) {
		t.Errorf("Images = %v, want %s among them", images, dockertest.TestImage)
	}

	t.Run("NoEngine", func(t *testing.T) {
		r := New(Config{Host: "unix://" + filepath.Join(t.TempDir(), "none.sock")})
		_, err := r.Images(ctx)
		if app.ErrorCode(err) != app.ECONFLICT || !strings.Contains(app.ErrorMessage(err), "Docker is not running or not installed") {
			t.Errorf("Images without an engine = %v, want a conflict saying Docker is not running", err)
		}
		_, err = r.Start(process(t, "D1", 1, nil))
		if app.ErrorCode(err) != app.ECONFLICT || !strings.Contains(app.ErrorMessage(err), "apt-get install docker.io") {
			t.Errorf("Start without an engine = %v, want a conflict saying how to install Docker", err)
		}
		// Nothing to reap on a machine without Docker; a record that
		// names a container waits for the engine.
		runDir := t.TempDir()
		r = New(Config{Host: "unix://" + filepath.Join(t.TempDir(), "none.sock"), RunDir: runDir})
		if ended, err := r.Open(ctx); err != nil || len(ended) > 0 {
			t.Errorf("Open without an engine and records = %v, %v; want nothing", ended, err)
		}
		if err := r.keep(record{NodeID: "n1", Name: "D1", ContainerName: "nodedesk-D1-n1"}); err != nil {
			t.Fatal(err)
		}
		if ended, err := r.Open(ctx); err == nil || !slices.Equal(ended, []string{"D1"}) {
			t.Errorf("Open without an engine = %v, %v; want D1 (the node's name) and the engine's error", ended, err)
		}
		if _, err := os.Stat(r.recordPath("n1")); err != nil {
			t.Errorf("the record was dropped although its container could not be removed: %v", err)
		}
	})
	t.Run("TCPRefused", func(t *testing.T) {
		r := New(Config{Host: "tcp://127.0.0.1:2375"})
		_, err := r.Images(ctx)
		if app.ErrorCode(err) != app.ECONFLICT || !strings.Contains(app.ErrorMessage(err), "unix socket") {
			t.Errorf("Images over tcp:// = %v, want a conflict saying only the unix socket is spoken", err)
		}
	})
	t.Run("DockerHost", func(t *testing.T) {
		t.Setenv("DOCKER_HOST", host)
		r := New(Config{})
		if _, err := r.Images(ctx); err != nil {
			t.Errorf("Images with DOCKER_HOST=%s: %v", host, err)
		}
	})
}

func testStartStop(t *testing.T, host string) {
	r := newRunner(t, host, t.TempDir())
	var notes []string
	r.Observe(supervise.Funcs{Note: func(_, _ string, n app.Note) { notes = append(notes, n.Message+" | "+n.Detail) }})
	p := process(t, "Router 1", 3, nil)
	n := mustStart(t, r, p)
	// Capabilities the host refuses, but a lab does not need, are no
	// notice to the user (issue 40: jargon on every container start).
	if len(notes) != 0 {
		t.Errorf("notes = %q; want none", notes)
	}

	rec, err := os.ReadFile(r.recordPath(p.NodeID))
	if err != nil || !strings.Contains(string(rec), n.rec.Container) {
		t.Errorf("record = %s, %v; want it to name container %s", rec, err, n.rec.Container)
	}
	// The container's init sets its interfaces up once they are there.
	var links string
	kit.WaitFor(10*time.Second, func() bool {
		links = inContainer(t, r, n, "ip", "-o", "link")
		for i := range 3 {
			if !linkUp(lineWith(links, ": eth"+string(rune('0'+i))+"@")) {
				return false
			}
		}
		return true
	})
	for i, want := range []string{"02:42:" + p.NodeID[2:4] + ":" + p.NodeID[4:6] + ":" + p.NodeID[6:8] + ":00",
		"02:42:" + p.NodeID[2:4] + ":" + p.NodeID[4:6] + ":" + p.NodeID[6:8] + ":01",
		"02:42:" + p.NodeID[2:4] + ":" + p.NodeID[4:6] + ":" + p.NodeID[6:8] + ":02"} {
		line := lineWith(links, ": eth"+string(rune('0'+i))+"@")
		if !strings.Contains(line, "link/ether "+want) || !linkUp(line) {
			t.Errorf("eth%d in the container: %q; want it up with MAC %s\n%s", i, line, want, links)
		}
		if !linkExists(p.HostInterfaces[i]) {
			t.Errorf("host end %s of eth%d does not exist", p.HostInterfaces[i], i)
		}
	}
	if got := strings.TrimSpace(inContainer(t, r, n, "hostname")); got != "Router-1" {
		t.Errorf("hostname = %q, want Router-1", got)
	}
	if b, err := os.ReadFile(filepath.Join(p.Dir, "etc", "network", "interfaces")); err != nil || !strings.Contains(string(b), "#iface eth2 inet static") {
		t.Errorf("the node's interfaces file = %q, %v; want examples for eth0..eth2", b, err)
	}

	if err := r.Stop(p.NodeID); err != nil {
		t.Fatal(err)
	}
	mustBeStopped(t, r, p)
	if err := r.Stop(p.NodeID); err != nil {
		t.Errorf("a second stop: %v", err)
	}
	mustRelease(t, r, p)
	if err := r.Release(p.NodeID); err != nil {
		t.Errorf("a second release: %v", err)
	}
}

// testKeptContainer: a node's container is made before its first start
// (Provision, as GNS3 makes it with the node) with the node's interfaces
// file in its folder; what is written inside it lasts across a stop and
// a start, in the same container; a change of the node's settings makes
// it again; Release removes it, and stops it first if it runs.
func testKeptContainer(t *testing.T, host string) {
	r := newRunner(t, host, t.TempDir())
	ctx := context.Background()
	p := process(t, "Keeper2", 2, nil)
	id, err := r.Provision(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := r.eng.inspect(ctx, id); err != nil || c.State.Running || c.State.Status != "created" {
		t.Fatalf("the provisioned container: %+v, %v; want it created, not running", c, err)
	}
	if again, err := r.Provision(ctx, p); err != nil || again != id {
		t.Errorf("a second Provision = %s, %v; want the same container %s", again, err, id)
	}
	b, err := os.ReadFile(filepath.Join(p.Dir, "etc", "network", "interfaces"))
	if err != nil || strings.Count(string(b), "inet static") != 2 {
		t.Errorf("the interfaces file before any start = %q, %v; want one stanza per adapter", b, err)
	}
	n := mustStart(t, r, p)
	if n.rec.Container != id {
		t.Errorf("the start used container %s, want the provisioned %s", n.rec.Container, id)
	}
	inContainer(t, r, n, "sh", "-c", "echo written-inside > /mark")
	if err := r.Stop(p.NodeID); err != nil {
		t.Fatal(err)
	}
	mustBeStopped(t, r, p)
	n = mustStart(t, r, p)
	if n.rec.Container != id {
		t.Errorf("the second start used container %s, want %s", n.rec.Container, id)
	}
	if got := inContainer(t, r, n, "cat", "/mark"); got != "written-inside\n" {
		t.Errorf("/mark after a stop and a start = %q, want what was written before", got)
	}
	if err := r.Stop(p.NodeID); err != nil {
		t.Fatal(err)
	}
	// Changed settings: the container is made again, the old one removed.
	changed := p
	changed.Properties = maps.Clone(p.Properties)
	changed.Properties["environment"], _ = json.Marshal("ROLE=edge")
	id2, err := r.Provision(ctx, changed)
	if err != nil || id2 == id || id2 == "" {
		t.Fatalf("Provision with a new environment = %s, %v; want a new container", id2, err)
	}
	if _, err := r.eng.inspect(ctx, id); status(err) != http.StatusNotFound {
		t.Errorf("the old container is left: %v", err)
	}
	mustStart(t, r, changed)
	mustRelease(t, r, changed)
}

// lineWith is the first line of s that holds sub.
// linkUp reports whether a line of `ip -o link` has the UP flag (not
// LOWER_UP alone, and not the loopback's).
func linkUp(line string) bool {
	open, end := strings.IndexByte(line, '<'), strings.IndexByte(line, '>')
	if open < 0 || end < open {
		return false
	}
	return slices.Contains(strings.Split(line[open+1:end], ","), "UP")
}

func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

func testFramesFlow(t *testing.T, host string) {
	r := newRunner(t, host, t.TempDir())
	p := process(t, "Pinger", 1, map[string]any{"mac_address": "02:42:aa:bb:cc:00"})
	writeInterfaces(t, p, "auto eth0\niface eth0 inet static\n\taddress 198.18.77.2\n\tnetmask 255.255.255.0\n")
	n := mustStart(t, r, p)
	kit.Sh(t, "ip", "addr", "add", "198.18.77.1/24", "dev", p.HostInterfaces[0])
	if !kit.WaitFor(10*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		code, _, err := r.eng.run(ctx, n.rec.Container, "ping", "-c", "1", "-W", "1", "198.18.77.1")
		return err == nil && code == 0
	}) {
		t.Errorf("the container cannot ping this machine over eth0:\n%s%s",
			inContainer(t, r, n, "ip", "addr"), inContainer(t, r, n, "cat", "/etc/network/interfaces"))
	}
	if addrs := inContainer(t, r, n, "ip", "-o", "link", "show", "eth0"); !strings.Contains(addrs, "02:42:aa:bb:cc:00") {
		t.Errorf("eth0 = %q, want the node's mac_address", addrs)
	}
}

// testDHCP: "inet dhcp" in the node's interfaces file gets an address,
// a default route and a name server from a DHCP server on the wire
// (busybox's udhcpd on the host end).
func testDHCP(t *testing.T, host string) {
	r := newRunner(t, host, t.TempDir())
	p := process(t, "Client", 1, nil)
	writeInterfaces(t, p, "auto eth0\niface eth0 inet dhcp\n")
	n := mustStart(t, r, p)
	veth := p.HostInterfaces[0]
	kit.Sh(t, "ip", "addr", "add", "198.18.78.1/24", "dev", veth)
	dir := t.TempDir()
	conf := "start 198.18.78.10\nend 198.18.78.20\ninterface " + veth + "\nlease_file " + filepath.Join(dir, "leases") +
		"\noption subnet 255.255.255.0\noption router 198.18.78.1\noption dns 198.18.78.53\n"
	if err := os.WriteFile(filepath.Join(dir, "udhcpd.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	server := exec.Command("busybox", "udhcpd", "-f", filepath.Join(dir, "udhcpd.conf"))
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = server.Process.Kill(); _ = server.Wait() }()
	if !kit.WaitFor(30*time.Second, func() bool {
		return strings.Contains(inContainer(t, r, n, "ip", "-4", "addr", "show", "eth0"), "inet 198.18.78.")
	}) {
		logs, _ := r.eng.logs(context.Background(), n.rec.Container, 20)
		t.Fatalf("eth0 got no address by DHCP:\n%s", logs)
	}
	if got := inContainer(t, r, n, "ip", "route"); !strings.Contains(got, "default via 198.18.78.1 dev eth0") {
		t.Errorf("routes = %q, want the lease's default route", got)
	}
	if got := inContainer(t, r, n, "cat", "/etc/resolv.conf"); !strings.Contains(got, "nameserver 198.18.78.53") {
		t.Errorf("resolv.conf = %q, want the lease's name server", got)
	}
}

// writeInterfaces writes a node's /etc/network/interfaces before its
// first start, as a user does through the node's files.
func writeInterfaces(t *testing.T, p app.Process, conf string) {
	t.Helper()
	dir := filepath.Join(p.Dir, "etc", "network")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "interfaces"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
}

func testKeptFolders(t *testing.T, host string) {
	r := newRunner(t, host, t.TempDir())
	image := volumeImage(t, r)
	p := process(t, "Keeper", 1, map[string]any{"image": image, "extra_volumes": []string{"/data", "/srv"}})
	n := mustStart(t, r, p)
	if got := inContainer(t, r, n, "cat", "/srv/data/seed"); got != "seeded\n" {
		t.Errorf("the image's /srv/data/seed in the container = %q, want it copied from the image", got)
	}
	inContainer(t, r, n, "sh", "-c", "echo '# edited inside' >> /etc/network/interfaces && echo kept > /data/file && "+
		"chown 1234:1234 /data/file && chmod 640 /data/file && echo new > /srv/data/new")
	if err := r.Stop(p.NodeID); err != nil {
		t.Fatal(err)
	}
	mustBeStopped(t, r, p)
	b, err := os.ReadFile(filepath.Join(p.Dir, "etc", "network", "interfaces"))
	if err != nil || !strings.Contains(string(b), "# edited inside") {
		t.Errorf("the interfaces file after the stop = %q, %v; want the edit made inside", b, err)
	}
	// The image's own volume inside a kept folder is kept with it.
	if b, err := os.ReadFile(filepath.Join(p.Dir, "srv", "data", "new")); err != nil || string(b) != "new\n" {
		t.Errorf("/srv/data/new in the node's folder = %q, %v; want what the container wrote", b, err)
	}
	fi, err := os.Stat(filepath.Join(p.Dir, "data", "file"))
	if err != nil {
		t.Fatal(err)
	}
	if uid := fileUID(fi); uid != os.Getuid() {
		t.Errorf("/data/file belongs to %d on this machine while stopped, want nodedesk's user %d", uid, os.Getuid())
	}

	n = mustStart(t, r, p)
	if got := inContainer(t, r, n, "cat", "/etc/network/interfaces"); !strings.Contains(got, "# edited inside") {
		t.Errorf("interfaces after a restart = %q; want the edit kept", got)
	}
	if got := strings.TrimSpace(inContainer(t, r, n, "stat", "-c", "%u:%g:%a", "/data/file")); got != "1234:1234:640" {
		t.Errorf("/data/file inside after a restart = %s, want its owner and mode back (1234:1234:640)", got)
	}
}

// volumeImage makes an image of the test image that declares a volume,
// /srv/data, holding a file (as images of routers declare theirs).
func volumeImage(t *testing.T, r *Runner) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id, err := r.eng.create(ctx, "", &containerConfig{Image: dockertest.TestImage,
		Cmd: []string{"sh", "-c", "mkdir -p /srv/data && echo seeded > /srv/data/seed"}, HostConfig: hostConfig{NetworkMode: "none"}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.eng.remove(context.Background(), id) }()
	if err := r.eng.start(ctx, id); err != nil {
		t.Fatal(err)
	}
	if code, err := r.eng.wait(ctx, id); err != nil || code != 0 {
		t.Fatalf("making the volume image: code %d, %v", code, err)
	}
	const image = "nodedesk-test/volume:latest"
	q := map[string][]string{"container": {id}, "repo": {"nodedesk-test/volume"}, "tag": {"latest"},
		"changes": {"VOLUME /srv/data", `CMD ["/bin/sh"]`}}
	if err := r.eng.call(ctx, "POST", "/commit", q, nil, nil); err != nil {
		t.Fatal(err)
	}
	return image
}

func testSuspendResume(t *testing.T, host string) {
	r := newRunner(t, host, t.TempDir())
	p := process(t, "Sleeper", 1, nil)
	n := mustStart(t, r, p)
	state := func() (paused, running bool) {
		c, err := r.eng.inspect(context.Background(), n.rec.Container)
		if err != nil {
			t.Fatal(err)
		}
		return c.State.Paused, c.State.Running
	}
	if err := r.Suspend(p.NodeID); err != nil {
		t.Fatal(err)
	}
	if paused, _ := state(); !paused {
		t.Error("the container runs after Suspend")
	}
	if err := r.Resume(p.NodeID); err != nil {
		t.Fatal(err)
	}
	if paused, running := state(); paused || !running {
		t.Errorf("after Resume: paused %v, running %v", paused, running)
	}
	// A suspended node stops like any other.
	if err := r.Suspend(p.NodeID); err != nil {
		t.Fatal(err)
	}
	if err := r.Stop(p.NodeID); err != nil {
		t.Fatal(err)
	}
	mustBeStopped(t, r, p)
}

func testExitsByItself(t *testing.T, host string) {
	r := newRunner(t, host, t.TempDir())
	type exit struct{ node, detail string }
	exits := make(chan exit, 1)
	r.Observe(supervise.Funcs{Exit: func(_, nodeID, detail string) { exits <- exit{nodeID, detail} }})
	p := process(t, "Quitter", 1, map[string]any{"start_command": `sh -c "touch /etc/network/mine; chown 1234:1234 /etc/network/mine; read line; echo goodbye-now; exit 3"`})
	n := mustStart(t, r, p)
	// It reads a line from its terminal, then ends.
	conn, err := r.eng.attach(context.Background(), n.rec.Container)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("go\n")); err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-exits:
		if e.node != p.NodeID || !strings.Contains(e.detail, "code 3") || !strings.Contains(e.detail, "goodbye-now") {
			t.Errorf("exit = %+v; want the node, its code 3 and its last output", e)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no exit was reported")
	}
	mustBeStopped(t, r, p)
	if err := r.Stop(p.NodeID); err != nil {
		t.Errorf("a stop after the exit: %v", err)
	}
	// Its kept folders are handed back as at a stop.
	fi, err := os.Stat(filepath.Join(p.Dir, "etc", "network", "mine"))
	if err != nil {
		t.Fatal(err)
	}
	if uid := fileUID(fi); uid != os.Getuid() {
		t.Errorf("a file the container made belongs to %d on this machine after the exit, want nodedesk's user %d", uid, os.Getuid())
	}
	if b, _ := os.ReadFile(filepath.Join(p.Dir, "etc", "network", permsFile)); !strings.Contains(string(b), ":1234:1234:/etc/network/mine\n") {
		t.Errorf("%s = %q; want the file's owner inside recorded", permsFile, b)
	}
}

func testMissingImage(t *testing.T, host string) {
	r := newRunner(t, host, t.TempDir())
	p := process(t, "Ghost", 1, map[string]any{"image": "nodedesk-test/absent"})
	_, err := r.Start(p)
	t.Log(err)
	if app.ErrorCode(err) != app.ECONFLICT || !strings.Contains(app.ErrorMessage(err), "nodedesk-test/absent:latest") ||
		!strings.Contains(app.ErrorMessage(err), "docker pull") {
		t.Errorf("Start = %v; want a conflict naming the image and how to get it", err)
	}
	mustBeGone(t, r, p)
}

func testConsoles(t *testing.T, host string) {
	r := newRunner(t, host, t.TempDir())
	p := process(t, "Talker", 1, nil)
	p.ConsoleType, p.Console, p.Aux = app.ConsoleTelnet, kit.FreeTCP(t), kit.FreeTCP(t)
	mustStart(t, r, p)

	a := kit.DialConsole(t, "127.0.0.1", p.Console)
	if !a.Expect("Console of Talker", false, 5*time.Second) {
		t.Fatalf("no greeting on the console: %q", a.Log.String())
	}
	b := kit.DialConsole(t, "127.0.0.1", p.Console)
	b.Drain()
	if !a.Run("echo hello-$((6*7))", "hello-42", 10*time.Second) {
		t.Fatalf("the console's shell did not answer: %q", kit.Printable(a.Log.String()))
	}
	if !b.Expect("hello-42", false, 5*time.Second) {
		t.Errorf("a second client did not see the first one's command: %q", kit.Printable(b.Log.String()))
	}
	r.ResetConsole(p.NodeID)
	if !kit.WaitFor(5*time.Second, func() bool {
		_ = a.Conn.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		_, err := a.Conn.Read(make([]byte, 256))
		return err != nil && !os.IsTimeout(err)
	}) {
		t.Error("a client stays connected after ResetConsole")
	}

	aux := kit.DialConsole(t, "127.0.0.1", p.Aux)
	if !aux.Run("echo aux-$((1+1)) $(hostname)", "aux-2 Talker", 10*time.Second) {
		t.Errorf("the aux shell did not answer: %q", kit.Printable(aux.Log.String()))
	}
	// Another console's port that is taken fails the start cleanly.
	q := process(t, "Blocked", 1, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	q.ConsoleType, q.Console = app.ConsoleTelnet, ln.Addr().(*net.TCPAddr).Port
	if _, err := r.Start(q); app.ErrorCode(err) != app.ECONFLICT {
		t.Errorf("Start on a taken console port = %v, want a conflict", err)
	}
	mustBeGone(t, r, q)
}

// testOpen: the Open of the next runner on the records' folder removes
// what a killed nodedesk left (a recorded container, one labelled but
// unrecorded) and no other nodedesk's, and returns the nodes' names.
func testOpen(t *testing.T, host string) {
	runDir := t.TempDir()
	crashed := newRunner(t, host, runDir)
	p := process(t, "Orphan", 2, nil)
	n := mustStart(t, crashed, p)
	// A node made and never started keeps its container, recorded.
	ctx := context.Background()
	kept := process(t, "NeverStarted", 1, nil)
	if _, err := crashed.Provision(ctx, kept); err != nil {
		t.Fatal(err)
	}
	// The killed nodedesk's runner is forgotten as it was.
	crashed.nodes.Forget(p.NodeID, n)
	n.ending.Store(true)
	crashed.made = madeTable{}
	// A container made after its record and before its id was written.
	stray := app.Process{ProjectID: p.ProjectID, NodeID: uuid.NewString(), Name: "Stray"}
	if _, err := crashed.eng.create(ctx, "", &containerConfig{Image: dockertest.TestImage, Cmd: []string{"sh"},
		Labels: crashed.labels(stray), HostConfig: hostConfig{NetworkMode: "none"}}); err != nil {
		t.Fatal(err)
	}
	// Another nodedesk's container stays.
	other := newRunner(t, host, t.TempDir())
	otherID, err := other.eng.create(ctx, "", &containerConfig{Image: dockertest.TestImage, Cmd: []string{"sh"},
		Labels: other.labels(app.Process{ProjectID: p.ProjectID, NodeID: uuid.NewString(), Name: "Other"}), HostConfig: hostConfig{NetworkMode: "none"}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.eng.remove(ctx, otherID) }()

	next := newRunner(t, host, runDir)
	ended, err := next.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(ended)
	want := []string{p.Name, stray.Name, kept.Name} // names, as app.Supervised.Open says
	slices.Sort(want)
	if !slices.Equal(ended, want) {
		t.Errorf("Open = %v, want %v", ended, want)
	}
	mustBeGone(t, next, p)
	mustBeGone(t, next, kept)
	if list := containersOf(t, next, labelNode, stray.NodeID); len(list) > 0 {
		t.Errorf("the unrecorded container is left: %v", list)
	}
	if _, err := other.eng.inspect(ctx, otherID); err != nil {
		t.Errorf("another nodedesk's container was removed: %v", err)
	}
	if ended, err := next.Open(ctx); err != nil || len(ended) > 0 {
		t.Errorf("a second Open = %v, %v; want nothing", ended, err)
	}
}

// testNoNetAdmin starts a node from a copy of this test that runs without
// CAP_NET_ADMIN (capsh drops it from its bounding set).
func testNoNetAdmin(t *testing.T, host string) {
	if os.Getenv("NODEDESK_TEST_NO_NET_ADMIN") != "" {
		return
	}
	capsh, err := exec.LookPath("capsh")
	if err != nil {
		t.Fatal("capsh is missing: sudo apt-get install libcap2-bin")
	}
	runDir := t.TempDir()
	cmd := exec.Command(capsh, "--drop=cap_net_admin", "--", "-c", `exec "$0" -test.run '^TestNoNetAdminHelper$' -test.v`, os.Args[0])
	cmd.Env = append(os.Environ(), "NODEDESK_TEST_NO_NET_ADMIN="+host, "NODEDESK_TEST_RUN_DIR="+runDir)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestNoNetAdminHelper") {
		t.Errorf("the start without CAP_NET_ADMIN: %v\n%s", err, out)
	}
	r := newRunner(t, host, runDir)
	if list := containersOf(t, r, labelRun, r.runLabel()); len(list) > 0 {
		t.Errorf("containers left by the refused start: %v", list)
	}
}

// TestNoNetAdminHelper is testNoNetAdmin's start, in a process without
// CAP_NET_ADMIN.
func TestNoNetAdminHelper(t *testing.T) {
	host := os.Getenv("NODEDESK_TEST_NO_NET_ADMIN")
	if host == "" {
		kit.RunElsewhere(t, "a child process of TestRunner/NoNetAdmin")
	}
	if haveNetAdmin() {
		t.Fatal("the helper runs with CAP_NET_ADMIN")
	}
	r := New(Config{Host: host, RunDir: os.Getenv("NODEDESK_TEST_RUN_DIR")})
	p := process(t, "Unprivileged", 1, nil)
	_, err := r.Start(p)
	t.Log(err)
	msg := app.ErrorMessage(err)
	if app.ErrorCode(err) != app.ECONFLICT || !strings.Contains(msg, "CAP_NET_ADMIN") || !strings.Contains(msg, "setcap cap_net_raw,cap_net_admin+ep") {
		t.Errorf("Start without CAP_NET_ADMIN = %v; want a conflict saying how to grant it", err)
	}
	mustBeGone(t, r, p)
}

// fileUID is the owner of a file of this machine.
func fileUID(fi os.FileInfo) int { return int(fi.Sys().(*syscall.Stat_t).Uid) }

// testHTTPConsole: a node whose console type is http serves, on its
// console port, the web page its container serves on its own loopback
// at console_http_port; the port closes when the node stops.
func testHTTPConsole(t *testing.T, host string) {
	r := newRunner(t, host, t.TempDir())
	p := process(t, "Web", 1, map[string]any{"console_http_port": 8080,
		"start_command": "sh -c 'mkdir -p /www && echo hello-from-the-container > /www/index.html && exec httpd -f -p 127.0.0.1:8080 -h /www'"})
	p.ConsoleType, p.Console = app.ConsoleHTTP, kit.FreeTCP(t)
	mustStart(t, r, p)
	url := "http://127.0.0.1:" + strconv.Itoa(p.Console) + "/index.html"
	var body string
	ok := kit.WaitFor(20*time.Second, func() bool {
		resp, err := http.Get(url)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		body = string(b)
		return resp.StatusCode == 200
	})
	if !ok || !strings.Contains(body, "hello-from-the-container") {
		t.Fatalf("GET %s: %q; want the container's page", url, body)
	}
	if err := r.Stop(p.NodeID); err != nil {
		t.Fatal(err)
	}
	if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(p.Console), time.Second); err == nil {
		c.Close()
		t.Error("the http console still listens after the stop")
	}
}

// TestRunner_VNCRefused: a node with a VNC console does not start (GNS3
// runs an X server on the host for it; nodedesk does not), and the
// answer says which console types work.
func TestRunner_VNCRefused(t *testing.T) {
	r := New(Config{Host: "unix://" + filepath.Join(t.TempDir(), "none.sock")})
	p := process(t, "Screen", 1, nil)
	p.ConsoleType, p.Console = app.ConsoleVNC, 5901
	_, err := r.Start(p)
	if app.ErrorCode(err) != app.ECONFLICT || !strings.Contains(app.ErrorMessage(err), "telnet") {
		t.Errorf("start with a VNC console: %v; want a conflict naming the console types that work", err)
	}
}
