package api

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestStartupCalls(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs"})
	ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs", "console": 6001})
	ports := ts.Do("GET", "/v2/computes/local/ports", nil).Want(t, 200).JSON(t)
	if got, _ := json.Marshal(ports["console_ports"]); string(got) != "[5000,6001]" {
		t.Errorf("console_ports %s", got)
	}
	ts.Do("GET", "/v2/computes/vm/ports", nil).Want(t, 404)
	// The types a GNS3 controller may place on nodedesk: those with a compute view.
	if c := ts.Do("GET", "/v2/compute/capabilities", nil).Want(t, 200).JSON(t); fmt.Sprint(c["node_types"]) != "[cloud nat ethernet_hub ethernet_switch frame_relay_switch atm_switch docker dynamips vpcs iou qemu]" {
		t.Errorf("capabilities %v", c)
	}
	ts.Do("POST", "/v2/version", map[string]any{"version": "2.2.59"}).Want(t, 200)
	if r := ts.Do("POST", "/v2/version", map[string]any{"version": "2.2.61"}).Want(t, 409); !strings.Contains(string(r.Body), "2.2.59") {
		t.Errorf("version mismatch message %s", r.Body)
	}
	for _, p := range []string{"/v2/computes/local/qemu/images", "/v2/appliances", "/v2/projects/" + pid + "/drawings", "/v2/projects/" + pid + "/snapshots"} {
		if r := ts.Do("GET", p, nil).Want(t, 200); string(r.Body) != "[]" {
			t.Errorf("GET %s = %s", p, r.Body)
		}
	}
	for _, p := range []string{"/v2/settings", "/v2/statistics", "/v2/gns3vm"} {
		ts.Do("GET", p, nil).Want(t, 200)
	}
	syms := ts.Do("GET", "/v2/symbols", nil).Want(t, 200).List(t)
	if len(syms) < 8 {
		t.Fatalf("%d symbols", len(syms))
	}
	// The web UI asks for a symbol by its id, URL-encoded.
	r := ts.Do("GET", "/v2/symbols/%3A%2Fsymbols%2Fcomputer.svg/raw", nil).Want(t, 200)
	if !strings.HasPrefix(string(r.Body), "<svg") || !strings.Contains(string(r.Body), `width="65"`) {
		t.Errorf("symbol %s", r.Body)
	}
	ts.Do("GET", "/v2/symbols/%3A%2Fsymbols%2Fnope.svg/raw", nil).Want(t, 404)
}
