package api

import (
	"testing"
)

// TestConsoleTypeNone: "none", as the GNS3 desktop GUI sends it, is no
// console. (Consoles that answer are api/labtest's.)
func TestConsoleTypeNone(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	q := ts.MustCreateNode(pid, map[string]any{"node_type": "qemu"})
	if q["console_type"] != "telnet" {
		t.Fatalf("qemu console_type %v", q["console_type"])
	}
	got := ts.Do("PUT", "/v2/projects/"+pid+"/nodes/"+q["node_id"].(string), map[string]any{"console_type": "none"}).Want(t, 200).JSON(t)
	if got["console_type"] != nil || got["console"] != nil {
		t.Fatalf(`after console_type "none": console %v %v, want null null`, got["console"], got["console_type"])
	}
}
