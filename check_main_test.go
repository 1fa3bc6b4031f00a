package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"nodedesk/app"
	"nodedesk/app/vpcs/vpcstest"
)

// checkRunLimit bounds one nodedesk check of the small labs below.
const checkRunLimit = 60 * time.Second

const (
	checkPC1 = "0c000001-0000-4000-8000-000000000001"
	checkPC2 = "0c000001-0000-4000-8000-000000000002"
	checkSW1 = "0c000001-0000-4000-8000-000000000003"
	checkVM1 = "0c000001-0000-4000-8000-000000000004"
)

// checkLabFolder writes a GNS3 project folder: lab.gns3 (two VPCS at
// 10.0.0.1 and .2 on a switch, and extra nodes), their startup scripts,
// and checks.json when checks is not empty. It returns the .gns3's path.
func checkLabFolder(t *testing.T, checks string, extra ...map[string]any) string {
	t.Helper()
	dir := t.TempDir()
	node := func(id, typ, name string, props map[string]any) map[string]any {
		return map[string]any{"compute_id": "local", "node_id": id, "node_type": typ, "name": name, "console": nil,
			"console_type": "none", "properties": props, "x": 0, "y": 0, "z": 1, "symbol": ":/symbols/computer.svg",
			"port_name_format": "Ethernet{0}", "custom_adapters": []any{}}
	}
	link := func(id, node string, port int) map[string]any {
		return map[string]any{"link_id": id, "nodes": []any{
			map[string]any{"node_id": node, "adapter_number": 0, "port_number": 0},
			map[string]any{"node_id": checkSW1, "adapter_number": 0, "port_number": port},
		}, "filters": map[string]any{}, "suspend": false}
	}
	nodes := []any{
		node(checkPC1, "vpcs", "PC1", map[string]any{}),
		node(checkPC2, "vpcs", "PC2", map[string]any{}),
		node(checkSW1, "ethernet_switch", "SW1", map[string]any{}),
	}
	for _, n := range extra {
		nodes = append(nodes, node(n["node_id"].(string), n["node_type"].(string), n["name"].(string), n["properties"].(map[string]any)))
	}
	top := map[string]any{
		"project_id": "0c000000-0000-4000-8000-000000000039", "name": "checklab", "type": "topology", "revision": 9,
		"version": "2.2.59", "auto_start": false, "auto_open": false, "auto_close": true,
		"topology": map[string]any{"nodes": nodes, "links": []any{
			link("0c000002-0000-4000-8000-000000000001", checkPC1, 0),
			link("0c000002-0000-4000-8000-000000000002", checkPC2, 1),
		}, "drawings": []any{}, "computes": []any{}},
	}
	b, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	write := func(rel, content string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("lab.gns3", string(b))
	write("project-files/vpcs/"+checkPC1+"/startup.vpc", "set pcname PC1\nip 10.0.0.1/24\n")
	write("project-files/vpcs/"+checkPC2+"/startup.vpc", "set pcname PC2\nip 10.0.0.2/24\n")
	if checks != "" {
		write(app.ChecksFileName, checks)
	}
	return filepath.Join(dir, "lab.gns3")
}

// runCheck runs nodedesk check with args and returns its exit code and
// output.
func runCheck(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	p := start(t, nil, append([]string{"check"}, args...)...)
	code := p.waitExit(t, p.started, checkRunLimit, "nodedesk check")
	return code, p.stdout.String(), p.stderr.String()
}

// TestMain_CheckVPCSLab: nodedesk check on a .gns3 of two VPCS on a
// switch, its checks.json beside it, runs them in a nodedesk of its own:
// exit 0 when every check passes, 1 when one fails; nothing is left
// running and its temporary folder is gone.
func TestMain_CheckVPCSLab(t *testing.T) {
	vpcstest.MustHave(t)
	good := `{"version": 1, "checks": [
		{"id": "pc1-pc2", "kind": "reach", "from": "PC1", "to": "10.0.0.2"},
		{"id": "pc2-pc1", "kind": "reach", "from": "PC2", "to": "10.0.0.1"}
	]}`
	code, out, errs := runCheck(t, checkLabFolder(t, good))
	if code != 0 || !strings.Contains(out, "PASS pc1-pc2: ") || !strings.Contains(out, "PASS pc2-pc1: ") || !strings.Contains(out, "2 passed, 0 failed, 0 could not run") {
		t.Errorf("all good: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}

	bad := strings.Replace(good, `"to": "10.0.0.1"}`, `"to": "10.0.0.1"}, {"id": "nobody", "kind": "reach", "from": "PC1", "to": "10.0.0.99"}`, 1)
	code, out, errs = runCheck(t, checkLabFolder(t, bad))
	if code != 1 || !strings.Contains(out, "FAIL nobody: PC1 got no reply from 10.0.0.99") || !strings.Contains(out, "2 passed, 1 failed") {
		t.Errorf("one failing: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if left, _ := filepath.Glob(filepath.Join(os.TempDir(), "nodedesk-check-*")); len(left) > 0 {
		t.Errorf("temporary folders left: %v", left)
	}
}

// TestMain_CheckCannotRun: a lab that cannot run is exit 2, with why: a
// file that is not a lab, a node whose image is missing, a checks file
// that names a node the lab lacks, a project no nodedesk keeps.
func TestMain_CheckCannotRun(t *testing.T) {
	broken := filepath.Join(t.TempDir(), "broken.gns3")
	if err := os.WriteFile(broken, []byte(`{"type": "topology", "topology": `), 0o644); err != nil {
		t.Fatal(err)
	}
	missingImage := map[string]any{"node_id": checkVM1, "node_type": "qemu", "name": "VM1",
		"properties": map[string]any{"hda_disk_image": "no-such-disk.qcow2", "adapters": 1}}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"not a lab", []string{broken}, "could not be imported"},
		{"missing image", []string{checkLabFolder(t, "", missingImage)}, "did not all start"},
		{"checks name a missing node", []string{checkLabFolder(t, `{"version": 1, "checks": [{"id": "x", "kind": "reach", "from": "PC7", "to": "PC1"}]}`)},
			`Check "x", field from: project checklab has no node named "PC7"`},
		{"no nodedesk", []string{"lab", "--listen", "127.0.0.1:1", "--db", filepath.Join(t.TempDir(), "none.db")}, "no nodedesk serves at 127.0.0.1:1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCheck(t, c.args...)
			if code != 2 || !strings.Contains(errs, c.want) {
				t.Errorf("exit %d, want 2 saying %q\nstdout:\n%s\nstderr:\n%s", code, c.want, out, errs)
			}
		})
	}
}

// TestMain_CheckServedProject: with a project's name, nodedesk check asks
// the nodedesk serving at --listen; a check that cannot run there (its
// host is stopped) is exit 2 and says what to do.
func TestMain_CheckServedProject(t *testing.T) {
	p := start(t, nil, "--headless", "--listen", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "s.db"))
	url := p.waitServing(t)
	_, body := call(t, "POST", url+"/v2/projects", map[string]any{"name": "served"})
	var proj struct {
		ID string `json:"project_id"`
	}
	_ = json.Unmarshal(body, &proj)
	for _, name := range []string{"PC1", "PC2"} {
		call(t, "POST", url+"/v2/projects/"+proj.ID+"/nodes", map[string]any{"node_type": "vpcs", "name": name})
	}
	if code, body := call(t, "PUT", url+"/v2/projects/"+proj.ID+"/checks", map[string]any{"version": 1,
		"checks": []any{map[string]any{"id": "a", "kind": "reach", "from": "PC1", "to": "PC2"}}}); code != 200 {
		t.Fatalf("PUT checks: %d %s", code, body)
	}
	listen := strings.TrimPrefix(url, "http://")
	code, out, errs := runCheck(t, "served", "--listen", listen)
	if code != 2 || !strings.Contains(out, "ERROR a: PC1 is stopped: start it, then run the checks again") || !strings.Contains(out, "0 passed, 0 failed, 1 could not run") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	code, _, errs = runCheck(t, "--listen", listen, "nosuch")
	if code != 2 || !strings.Contains(errs, "keeps no project named nosuch; its projects are served") {
		t.Errorf("unknown project: exit %d\n%s", code, errs)
	}
	p.stop(t)
}
