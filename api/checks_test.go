package api

import (
	"strings"
	"testing"
)

// checksFile is a checks file as a person writes it: its own spacing and
// key order, which nodedesk keeps byte for byte.
const checksFile = "{\n  \"version\": 1,\n  \"checks\": [\n    {\"kind\": \"reach\", \"id\": \"pc1-pc2\",   \"from\": \"PC1\", \"to\": \"PC2\"},\n" +
	"    {\"id\": \"stp\", \"kind\": \"wire\", \"at\": {\"node\": \"Switch1\", \"port\": \"Ethernet0\"}, \"frames\": \"stp\", \"within\": \"2s\"}\n  ]\n}\n"

// TestChecksFile: GET answers an empty file, a PUT that breaks a rule is
// a 400 naming the check and its field and writes nothing, a good one is
// kept byte for byte through export, import, export again and a snapshot
// restored.
func TestChecksFile(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	for _, name := range []string{"PC1", "PC2"} {
		ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": name})
	}
	ts.MustCreateNode(pid, map[string]any{"node_type": "ethernet_switch", "name": "Switch1"})
	base := "/v2/projects/" + pid + "/checks"
	if f := ts.Do("GET", base, nil).Want(t, 200).JSON(t); f["version"] != 1.0 || len(f["checks"].([]any)) != 0 {
		t.Errorf("no file: %v", f)
	}
	bad := strings.Replace(checksFile, `"to": "PC2"`, `"to": "PC9"`, 1)
	if m := ts.Do("PUT", base, bad).Want(t, 400).JSON(t)["message"].(string); !strings.Contains(m, `Check "pc1-pc2", field to: "PC9" is neither a node of lab nor an IPv4 address`) {
		t.Errorf("400 says %q", m)
	}
	ts.Do("GET", "/v2/projects/"+pid+"/files/checks.json", nil).Want(t, 404) // nothing written
	f := ts.Do("PUT", base, checksFile).Want(t, 200).JSON(t)
	if cs := f["checks"].([]any); len(cs) != 2 || cs[1].(map[string]any)["at"].(map[string]any)["port"] != "Ethernet0" {
		t.Errorf("PUT answered %v", f)
	}
	if b := ts.Do("GET", "/v2/projects/"+pid+"/files/checks.json", nil).Want(t, 200).Body; string(b) != checksFile {
		t.Errorf("checks.json holds %q, want the bytes sent", b)
	}

	// Export, import, export: the same bytes.
	first := readZip(t, ts.Do("GET", "/v2/projects/"+pid+"/export", nil).Want(t, 200).Body)
	if string(first["checks.json"]) != checksFile {
		t.Fatalf("the export's checks.json is %q", first["checks.json"])
	}
	again := "0000000e-0000-4000-8000-000000000039"
	ts.importArchive(again, ts.Do("GET", "/v2/projects/"+pid+"/export", nil).Want(t, 200).Body, "name=again").Want(t, 201)
	ts.Do("POST", "/v2/projects/"+again+"/open", nil).Want(t, 201)
	second := readZip(t, ts.Do("GET", "/v2/projects/"+again+"/export", nil).Want(t, 200).Body)
	if string(second["checks.json"]) != checksFile {
		t.Errorf("after export, import, export: %q", second["checks.json"])
	}
	if cs := ts.Do("GET", "/v2/projects/"+again+"/checks", nil).Want(t, 200).JSON(t)["checks"].([]any); len(cs) != 2 {
		t.Errorf("the imported project's checks: %v", cs)
	}

	// A snapshot keeps it: a restore brings back the bytes.
	snap := ts.Do("POST", "/v2/projects/"+pid+"/snapshots", map[string]any{"name": "s"}).Want(t, 201).JSON(t)["snapshot_id"].(string)
	ts.Do("PUT", base, `{"version": 1, "checks": []}`).Want(t, 200)
	ts.Do("POST", "/v2/projects/"+pid+"/snapshots/"+snap+"/restore", nil).Want(t, 201)
	if b := ts.Do("GET", "/v2/projects/"+pid+"/files/checks.json", nil).Want(t, 200).Body; string(b) != checksFile {
		t.Errorf("after the snapshot's restore checks.json holds %q", b)
	}
}

// TestChecksRun: a run answers 201 at once, its project's stream carries
// check.run.updated to its end, GET answers the newest run; with no
// runner to start the hosts, the reach check is an error that says what
// to do, not a failure.
func TestChecksRun(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	for _, name := range []string{"PC1", "PC2"} {
		ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": name})
	}
	base := "/v2/projects/" + pid + "/checks"
	ts.Do("GET", base+"/run", nil).Want(t, 404)
	ts.Do("PUT", base, `{"version": 1, "checks": [{"id": "a", "kind": "reach", "from": "PC1", "to": "PC2"}]}`).Want(t, 200)
	next, _ := ts.WSListen(t, "/v2/projects/"+pid+"/notifications/ws")
	run := ts.Do("POST", base+"/run", nil).Want(t, 201).JSON(t)
	if run["status"] != "running" || run["project_id"] != pid {
		t.Errorf("run %v", run)
	}
	var statuses []string
	var last map[string]any
	for len(statuses) == 0 || statuses[len(statuses)-1] != "finished" {
		e := next()
		if e.Action != "check.run.updated" {
			continue
		}
		if e.Event["run_id"] != run["run_id"] {
			t.Fatalf("event of run %v, want %v", e.Event["run_id"], run["run_id"])
		}
		statuses = append(statuses, e.Event["status"].(string))
		last = e.Event
	}
	if strings.Join(statuses, " ") != "running running finished" {
		t.Errorf("statuses %v, want the start, the verdict, the end", statuses)
	}
	res := last["results"].([]any)[0].(map[string]any)
	if res["verdict"] != "error" || res["message"] != "PC1 is stopped: start it, then run the checks again" || last["errors"] != 1.0 {
		t.Errorf("result %v", res)
	}
	if got := ts.Do("GET", base+"/run", nil).Want(t, 200).JSON(t); got["run_id"] != run["run_id"] || got["status"] != "finished" {
		t.Errorf("GET run %v", got)
	}
	if m := ts.Do("POST", base+"/run", map[string]any{"checks": []string{"zz"}}).Want(t, 400).JSON(t)["message"].(string); !strings.Contains(m, `no check "zz"`) {
		t.Errorf("unknown check: %q", m)
	}
	ts.Do("POST", "/v2/projects/"+pid+"/close", nil).Want(t, 204)
	if m := ts.Do("POST", base+"/run", nil).Want(t, 409).JSON(t)["message"].(string); !strings.Contains(m, "is closed") {
		t.Errorf("closed: %q", m)
	}
}
