package api

import (
	"slices"
	"strings"
	"testing"
)

// TestLint asks GET /v2/projects/{id}/lint over a real listener, each
// answer checked against the contract: a lab where two PCs share an
// address gets one duplicate_address error naming both PCs and their
// links, whether the project is open or closed; a fixed lab gets an
// empty list; a project that does not exist is a 404.
func TestLint(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lint")
	sw := ts.MustCreateNode(pid, map[string]any{"node_type": "ethernet_switch", "name": "SW1"})["node_id"].(string)
	var pcs, links []string
	for i, script := range []string{"set pcname PC1\nip 10.0.0.1/24 10.0.0.254\n", "set pcname PC2\nip 10.0.0.1 255.255.255.0 10.0.0.254\n"} {
		pc := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": "PC" + string(rune('1'+i)),
			"properties": map[string]any{"startup_script": script}})["node_id"].(string)
		pcs = append(pcs, pc)
		l := ts.Do("POST", "/v2/projects/"+pid+"/links", map[string]any{"nodes": []map[string]any{
			{"node_id": pc, "adapter_number": 0, "port_number": 0}, {"node_id": sw, "adapter_number": 0, "port_number": i}}}).Want(t, 201).JSON(t)
		links = append(links, l["link_id"].(string))
	}
	lint := "/v2/projects/" + pid + "/lint"
	check := func(when string) {
		t.Helper()
		fs := ts.Do("GET", lint, nil).Want(t, 200).JSON(t)["findings"].([]any)
		if len(fs) != 1 {
			t.Fatalf("%s: findings %v, want one", when, fs)
		}
		f := fs[0].(map[string]any)
		if f["code"] != "duplicate_address" || f["severity"] != "error" || !strings.Contains(f["message"].(string), "10.0.0.1 is configured on PC1") {
			t.Errorf("%s: finding %v, want PC1 and PC2's duplicate address", when, f)
		}
		if got := strs(f["node_ids"]); !slices.Equal(got, pcs) {
			t.Errorf("%s: node_ids %v, want %v", when, got, pcs)
		}
		if got := strs(f["link_ids"]); !slices.Equal(got, links) {
			t.Errorf("%s: link_ids %v, want %v", when, got, links)
		}
	}
	check("open")
	ts.Do("POST", "/v2/projects/"+pid+"/close", nil).Want(t, 204)
	check("closed")

	ts.Do("PUT", "/v2/projects/"+pid+"/nodes/"+pcs[1], map[string]any{"properties": map[string]any{"startup_script": "ip 10.0.0.2/24 10.0.0.254"}}).Want(t, 200)
	if fs := ts.Do("GET", lint, nil).Want(t, 200).JSON(t)["findings"].([]any); len(fs) != 0 {
		t.Errorf("findings once fixed: %v, want none", fs)
	}
	ts.Do("GET", "/v2/projects/00000000-0000-4000-8000-000000000000/lint", nil).Want(t, 404)
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
