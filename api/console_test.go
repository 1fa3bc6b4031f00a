package api

import (
	"testing"
)

// TestConsoleTypeNone: "none", as the GNS3 desktop GUI sends it, is no
// console. (Consoles that answer are app/labtest's.)
func TestConsoleTypeNone(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.mustCreateProject("lab")
	q := ts.mustCreateNode(pid, map[string]any{"node_type": "qemu"})
	if q["console_type"] != "telnet" {
		t.Fatalf("qemu console_type %v", q["console_type"])
	}
	got := ts.do("PUT", "/v2/projects/"+pid+"/nodes/"+q["node_id"].(string), map[string]any{"console_type": "none"}).want(t, 200).json(t)
	if got["console_type"] != nil || got["console"] != nil {
		t.Fatalf(`after console_type "none": console %v %v, want null null`, got["console"], got["console_type"])
	}
}
