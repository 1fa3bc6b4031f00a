package api

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestStartupCalls(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.mustCreateProject("lab")
	ts.mustCreateNode(pid, map[string]any{"node_type": "vpcs"})
	ts.mustCreateNode(pid, map[string]any{"node_type": "vpcs", "console": 6001})
	ports := ts.do("GET", "/v2/computes/local/ports", nil).want(t, 200).json(t)
	if got, _ := json.Marshal(ports["console_ports"]); string(got) != "[5000,6001]" {
		t.Errorf("console_ports %s", got)
	}
	ts.do("GET", "/v2/computes/vm/ports", nil).want(t, 404)
	// The types a GNS3 controller may place on nodedesk: those with a compute view.
	if c := ts.do("GET", "/v2/compute/capabilities", nil).want(t, 200).json(t); fmt.Sprint(c["node_types"]) != "[cloud nat ethernet_hub ethernet_switch frame_relay_switch vpcs]" {
		t.Errorf("capabilities %v", c)
	}
	ts.do("POST", "/v2/version", map[string]any{"version": "2.2.59"}).want(t, 200)
	if r := ts.do("POST", "/v2/version", map[string]any{"version": "2.2.61"}).want(t, 409); !strings.Contains(string(r.body), "2.2.59") {
		t.Errorf("version mismatch message %s", r.body)
	}
	for _, p := range []string{"/v2/computes/local/qemu/images", "/v2/appliances", "/v2/projects/" + pid + "/drawings", "/v2/projects/" + pid + "/snapshots"} {
		if r := ts.do("GET", p, nil).want(t, 200); string(r.body) != "[]" {
			t.Errorf("GET %s = %s", p, r.body)
		}
	}
	for _, p := range []string{"/v2/settings", "/v2/statistics", "/v2/gns3vm"} {
		ts.do("GET", p, nil).want(t, 200)
	}
	syms := ts.do("GET", "/v2/symbols", nil).want(t, 200).list(t)
	if len(syms) < 8 {
		t.Fatalf("%d symbols", len(syms))
	}
	// The web UI asks for a symbol by its id, URL-encoded.
	r := ts.do("GET", "/v2/symbols/%3A%2Fsymbols%2Fcomputer.svg/raw", nil).want(t, 200)
	if !strings.HasPrefix(string(r.body), "<svg") || !strings.Contains(string(r.body), `width="65"`) {
		t.Errorf("symbol %s", r.body)
	}
	ts.do("GET", "/v2/symbols/%3A%2Fsymbols%2Fnope.svg/raw", nil).want(t, 404)
}
