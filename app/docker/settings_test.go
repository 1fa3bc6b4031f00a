package docker

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"nodedesk/app"
)

// The rules of a node's container that need no engine.

func TestReadSettings_Image(t *testing.T) {
	for give, want := range map[string]string{
		"alpine":                       "alpine:latest",
		"alpine:3.20":                  "alpine:3.20",
		"frrouting/frr":                "frrouting/frr:latest",
		"registry.local:5000/frr":      "registry.local:5000/frr:latest",
		"registry.local:5000/frr:v9":   "registry.local:5000/frr:v9",
		"alpine@sha256:0123456789abcd": "alpine@sha256:0123456789abcd",
	} {
		s, err := readSettings(map[string]json.RawMessage{"image": json.RawMessage(fmt.Sprintf("%q", give)), "start_command": json.RawMessage("null")})
		if err != nil || s.Image != want || s.Adapters != 1 {
			t.Errorf("readSettings(image %q) = %q, %d adapters, %v; want %q and 1", give, s.Image, s.Adapters, err, want)
		}
	}
	for _, bad := range []string{"a b", "../x", "x?y", "/abs", ""} {
		if validImage(bad) {
			t.Errorf("validImage(%q) = true", bad)
		}
	}
}

// TestReadSettings_NewNode: a new node's settings are the settings
// table's defaults, key for key: the runner restates none of them.
func TestReadSettings_NewNode(t *testing.T) {
	const id = "a1b2c3d4-0000-4000-8000-000000000000"
	props, err := app.NewNodeProperties(app.Docker, id, map[string]any{"image": "alpine"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := readSettings(props)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range app.SettingsDiff(props, s) {
		t.Error(d)
	}
	if mac, err := baseMAC(s, id); s.Adapters != 1 || s.ConsoleHTTPPort != 80 || s.Image != "alpine:latest" || err != nil || mac.String() != "02:42:b2:c3:d4:00" {
		t.Errorf("a new node has %d adapters, http port %d, image %q, MAC %s (%v); want GNS3's 1, 80, alpine:latest, 02:42:b2:c3:d4:00",
			s.Adapters, s.ConsoleHTTPPort, s.Image, mac, err)
	}
}

func TestAdapterMACs(t *testing.T) {
	base, err := baseMAC(settings{}, "a1b2c3d4-0000-4000-8000-000000000000")
	if err != nil || base.String() != "02:42:b2:c3:d4:00" {
		t.Fatalf("baseMAC = %s, %v; want GNS3's 02:42:b2:c3:d4:00", base, err)
	}
	macs, err := adapterMACs(net.HardwareAddr{2, 0x42, 0, 0, 0, 0xfe}, 3, []app.CustomAdapter{{AdapterNumber: 2, MACAddress: "02:00:00:00:00:99"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(macs); got != "[02:42:00:00:00:fe 02:42:00:00:00:ff 02:00:00:00:00:99]" {
		t.Errorf("adapterMACs = %s; want base+n and the custom one", got)
	}
	macs, _ = adapterMACs(net.HardwareAddr{2, 0x42, 0, 0, 0, 0xff}, 2, nil)
	if macs[1].String() != "02:42:00:00:01:00" {
		t.Errorf("adapter 1 of ...:ff = %s, want the carry 02:42:00:00:01:00", macs[1])
	}
	if _, err := baseMAC(settings{MACAddress: "nope"}, "x"); app.ErrorCode(err) != app.EINVALID {
		t.Errorf("baseMAC(nope) = %v, want invalid", err)
	}
}

func TestPersistentFolders(t *testing.T) {
	im := &imageInfo{}
	im.Config.Volumes = map[string]struct{}{"/var/lib/frr": {}, "/etc/network/if-up.d": {}}
	got, err := persistentFolders(settings{ExtraVolumes: []string{"/etc/frr", "/var/lib", "/etc/frr/sub"}}, im)
	if want := []string{"/etc/network", "/etc/frr", "/var/lib"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("persistentFolders = %q, %v; want %q (a folder inside a kept one goes with it)", got, err, want)
	}
	if got, want := mountTargets(got, im), []string{"/etc/frr", "/etc/network", "/etc/network/if-up.d", "/var/lib", "/var/lib/frr"}; !slices.Equal(got, want) {
		t.Errorf("mountTargets = %q, want %q (the image's volumes bound again)", got, want)
	}
	for _, bad := range []string{"etc/frr", "/etc/../root", "/"} {
		if _, err := persistentFolders(settings{ExtraVolumes: []string{bad}}, im); app.ErrorCode(err) != app.EINVALID {
			t.Errorf("persistentFolders(%q) = %v, want invalid", bad, err)
		}
	}
}

func TestEnvironmentAndHosts(t *testing.T) {
	p := app.Process{Name: `R "1"`, NodeID: "nid", ProjectID: "pid", Dir: "/p/project-files/docker/nid"}
	env, skipped := environment(settings{Environment: "A=1\n\n NAME=%vm-name% \nID=%vm-id%/%project-id%\nPATHX=%project-path%\n=bad\nGNS3_X=1\nNODEDESK_VOLUMES=/"}, p)
	if want := []string{"A=1", `NAME="R \"1\""`, "ID=nid/pid", `PATHX="/p"`}; !slices.Equal(env, want) {
		t.Errorf("environment = %q, want %q", env, want)
	}
	if want := []string{"=bad", "GNS3_X=1", "NODEDESK_VOLUMES=/"}; !slices.Equal(skipped, want) {
		t.Errorf("skipped = %q, want %q", skipped, want)
	}
	hosts, err := extraHosts(settings{ExtraHosts: "gw:10.0.0.1\n\n db : fd00::1 "})
	if err != nil || hosts != "10.0.0.1\tgw\nfd00::1\tdb" {
		t.Errorf("extraHosts = %q, %v", hosts, err)
	}
	if _, err := extraHosts(settings{ExtraHosts: "gw 10.0.0.1"}); app.ErrorCode(err) != app.EINVALID {
		t.Errorf("extraHosts without a colon = %v, want invalid", err)
	}
}

func TestNames(t *testing.T) {
	p := app.Process{Name: "Router 1/é", NodeID: "0123abcd-ffff-4000-8000-000000000000"}
	if got := containerName(p); got != "nodedesk-Router-1-0123abcd" {
		t.Errorf("containerName = %q", got)
	}
	if got := hostname("FRR_1.lab"); got != "FRR-1-lab" {
		t.Errorf("hostname = %q", got)
	}
	if got := hostname("ééé"); got != "docker" {
		t.Errorf("hostname of no usable letter = %q", got)
	}
	if got := app.VethName(p.NodeID, 12); len(got) > 15 {
		t.Errorf("VethName = %q, longer than Linux allows", got)
	}
}

func TestCaps(t *testing.T) {
	asked, refused := labCaps(0x1fffeffffff)
	if len(asked) != len(capNames)-1 || !slices.Equal(refused, []string{"CAP_SYS_RESOURCE"}) || !slices.Contains(asked, "CAP_NET_ADMIN") {
		t.Errorf("labCaps = %v / %v", asked, refused)
	}
	if m := unknownCap.FindStringSubmatch(`invalid CapAdd: unknown capability: "CAP_BPF"`); m == nil || m[1] != "CAP_BPF" {
		t.Errorf("unknownCap = %q", m)
	}
}

func TestEngineErrors(t *testing.T) {
	e := &engine{socket: "/run/docker.sock"}
	for _, tt := range []struct {
		give error
		want string
	}{
		{syscall.ENOENT, "Docker is not running or not installed"},
		{syscall.ECONNREFUSED, "sudo systemctl start docker"},
		{syscall.EACCES, "sudo usermod -aG docker $USER"},
	} {
		err := e.reachError(&net.OpError{Op: "dial", Err: &os.SyscallError{Syscall: "connect", Err: tt.give}})
		if app.ErrorCode(err) != app.ECONFLICT || !strings.Contains(app.ErrorMessage(err), tt.want) {
			t.Errorf("reachError(%v) = %v, want a conflict saying %q", tt.give, err, tt.want)
		}
	}
	if !versionLess("1.9", "1.41") || versionLess("1.41", "1.41") || !versionLess("1.41", "2.0") {
		t.Error("versionLess compares wrongly")
	}
	mux := []byte{1, 0, 0, 0, 0, 0, 0, 3, 'a', 'b', 'c', 2, 0, 0, 0, 0, 0, 0, 1, '!'}
	if got := string(demux(mux)); got != "abc!" {
		t.Errorf("demux = %q", got)
	}
	if got := string(demux([]byte("raw tty output"))); got != "raw tty output" {
		t.Errorf("demux of a raw stream = %q", got)
	}
}

// TestUntar: an image's folder is copied into the node's folder, never
// over the node's own files and never outside it.
func TestUntar(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "etc", "frr"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "etc", "frr", "frr.conf"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	add := func(h *tar.Header, body string) {
		h.Size = int64(len(body))
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		_, _ = tw.Write([]byte(body))
	}
	add(&tar.Header{Name: "frr/", Typeflag: tar.TypeDir, Mode: 0o750, Uid: 100, Gid: 101}, "")
	add(&tar.Header{Name: "frr/frr.conf", Typeflag: tar.TypeReg, Mode: 0o640, Uid: 100, Gid: 101}, "image's")
	add(&tar.Header{Name: "frr/daemons", Typeflag: tar.TypeReg, Mode: 0o600, Uid: 100, Gid: 101}, "bgpd=yes\n")
	add(&tar.Header{Name: "frr/out", Typeflag: tar.TypeSymlink, Linkname: "/"}, "")
	add(&tar.Header{Name: "frr/out/escaped", Typeflag: tar.TypeReg, Mode: 0o644}, "no")
	add(&tar.Header{Name: "frr/../../escaped2", Typeflag: tar.TypeReg, Mode: 0o644}, "no")
	tw.Close()

	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	perms, err := untar(root, "etc/frr", "/etc/frr", &b)
	if err == nil {
		t.Error("untar wrote through a link out of the node's folder without an error")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "etc", "frr", "frr.conf")); string(got) != "mine" {
		t.Errorf("the node's own frr.conf = %q, want it kept", got)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "etc", "frr", "daemons")); string(got) != "bgpd=yes\n" {
		t.Errorf("daemons = %q, want the image's", got)
	}
	for _, p := range []string{"/escaped", "/escaped2", filepath.Join(filepath.Dir(dir), "escaped2")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("untar wrote %s, outside the node's folder", p)
		}
	}
	if !slices.Contains(perms, "600:100:101:/etc/frr/daemons\n") || !slices.Contains(perms, "750:100:101:/etc/frr\n") {
		t.Errorf("perms = %q; want the owners and modes inside the container", perms)
	}
}
