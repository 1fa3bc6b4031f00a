package api

import (
	"slices"
	"strings"
	"testing"

	"nodedesk/app/kit"
)

func TestLinks(t *testing.T) {
	ts := mustOpenServer(t)
	l := ts.mustCreateLab()
	links := "/v2/projects/" + l.pid + "/links"
	create := func(body any) kit.Response { return ts.Do("POST", links, body) }

	// gns3fy's shape: project_id in the body and text-only labels.
	a := create(map[string]any{"project_id": l.pid, "nodes": []any{
		map[string]any{"node_id": l.pc1, "adapter_number": 0, "port_number": 0, "label": map[string]any{"text": "e0"}},
		map[string]any{"node_id": l.sw, "adapter_number": 0, "port_number": 3, "label": map[string]any{"text": "e3", "x": 5, "y": 6, "rotation": 0, "style": "font-size: 10"}},
	}}).Want(t, 201).JSON(t)
	if a["link_type"] != "ethernet" || a["link_id"] == nil || a["project_id"] != l.pid {
		t.Errorf("link %v", a)
	}
	ends := a["nodes"].([]any)
	if ends[1].(map[string]any)["label"].(map[string]any)["x"] != float64(5) {
		t.Errorf("labels do not round-trip: %v", ends)
	}
	lid := a["link_id"].(string)
	// terraform's shape: no labels; the server gives default ones.
	b := create(map[string]any{"nodes": []any{kit.End(l.pc2, 0, 0), kit.End(l.sw, 0, 4)}}).Want(t, 201).JSON(t)
	if lbl := b["nodes"].([]any)[0].(map[string]any)["label"].(map[string]any); lbl["text"] != "0/0" {
		t.Errorf("default label %v", lbl)
	}

	tests := []struct {
		name    string
		body    any
		want    int
		wantMsg string
	}{
		{"port already used", map[string]any{"nodes": []any{kit.End(l.pc1, 0, 0), kit.End(l.sw, 0, 5)}}, 409, "already used"},
		{"port does not exist", map[string]any{"nodes": []any{kit.End(l.hub, 0, 0), kit.End(l.sw, 0, 99)}}, 400, "no port"},
		{"vpcs has one adapter", map[string]any{"nodes": []any{kit.End(l.hub, 0, 0), kit.End(l.pc2, 1, 0)}}, 400, "no port"},
		{"node to itself", map[string]any{"nodes": []any{kit.End(l.sw, 0, 6), kit.End(l.sw, 0, 7)}}, 409, "itself"},
		{"serial to ethernet", map[string]any{"nodes": []any{kit.End(l.frsw, 0, 1), kit.End(l.hub, 0, 1)}}, 409, "serial"},
		{"one end", map[string]any{"nodes": []any{kit.End(l.hub, 0, 0)}}, 400, "nodes"},
		{"no nodes", map[string]any{}, 400, "nodes"},
		{"unknown node", map[string]any{"nodes": []any{kit.End(l.hub, 0, 0), kit.End("00000000-0000-4000-8000-000000000000", 0, 0)}}, 404, "doesn't exist"},
		{"end without port_number", map[string]any{"nodes": []any{kit.End(l.hub, 0, 0), map[string]any{"node_id": l.sw, "adapter_number": 0}}}, 400, "port_number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := create(tt.body).Want(t, tt.want)
			if msg := r.JSON(t)["message"].(string); !strings.Contains(msg, tt.wantMsg) {
				t.Errorf("message %q lacks %q", msg, tt.wantMsg)
			}
		})
	}
	if got := ts.Do("GET", links, nil).Want(t, 200).List(t); len(got) != 2 {
		t.Fatalf("%d links after rejected creates, want 2", len(got))
	}
	ts.Do("GET", links+"/"+lid, nil).Want(t, 200)
	ts.Do("GET", links+"/None", nil).Want(t, 404)
	ts.Do("GET", links+"/00000000-0000-4000-8000-000000000000", nil).Want(t, 404)
	if got := ts.Do("GET", "/v2/projects/"+l.pid+"/nodes/"+l.sw+"/links", nil).Want(t, 200).List(t); len(got) != 2 {
		t.Errorf("switch has %d links, want 2", len(got))
	}

	// PUT relabels (the web UI sends the whole link back) and answers 200.
	a["nodes"].([]any)[0].(map[string]any)["label"] = map[string]any{"text": "uplink", "x": 1, "y": 2, "rotation": 90, "style": nil}
	a["suspend"] = true
	u := ts.Do("PUT", links+"/"+lid, a).Want(t, 200).JSON(t)
	if u["nodes"].([]any)[0].(map[string]any)["label"].(map[string]any)["text"] != "uplink" || u["suspend"] != true {
		t.Errorf("updated link %v", u)
	}
	ts.Do("PUT", links+"/"+lid, map[string]any{"nodes": []any{kit.End(l.hub, 0, 0)}}).Want(t, 400)

	// A switch port with a link cannot disappear; others can.
	sw := "/v2/projects/" + l.pid + "/nodes/" + l.sw
	ts.Do("PUT", sw, map[string]any{"properties": map[string]any{"ports_mapping": []any{
		map[string]any{"name": "e0", "port_number": 0, "type": "access"}}}}).Want(t, 409)
	ports := []any{}
	for i := range 5 {
		ports = append(ports, map[string]any{"name": "p" + string(rune('0'+i)), "port_number": i, "type": "access"})
	}
	ts.Do("PUT", sw, map[string]any{"properties": map[string]any{"ports_mapping": ports}}).Want(t, 200)

	stats := ts.Do("GET", "/v2/projects/"+l.pid+"/stats", nil).Want(t, 200).JSON(t)
	if stats["nodes"] != float64(5) || stats["links"] != float64(2) || stats["drawings"] != float64(0) || stats["snapshots"] != float64(0) {
		t.Errorf("stats %v", stats)
	}
	// Deleting a node deletes its links; the freed port can be linked again.
	ts.Do("DELETE", "/v2/projects/"+l.pid+"/nodes/"+l.pc1, nil).Want(t, 204)
	ts.Do("GET", links+"/"+lid, nil).Want(t, 404)
	create(map[string]any{"nodes": []any{kit.End(l.hub, 0, 0), kit.End(l.sw, 0, 3)}}).Want(t, 201)
	ts.Do("DELETE", links+"/"+b["link_id"].(string), nil).Want(t, 204)
	ts.Do("DELETE", links+"/"+b["link_id"].(string), nil).Want(t, 404)
	if got := ts.Do("GET", "/v2/projects/"+l.pid+"/stats", nil).JSON(t)["links"]; got != float64(1) {
		t.Errorf("%v links left, want 1", got)
	}
	ts.restart()
	if got := ts.Do("GET", links, nil).Want(t, 200).List(t); len(got) != 1 {
		t.Errorf("%d links after restart, want 1", len(got))
	}
}

// TestLinks_NAT: a NAT node has one port, nat0, that a lab node can use;
// NAT to cloud is refused, as GNS3 refuses it.
func TestLinks_NAT(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	nat := ts.MustCreateNode(pid, map[string]any{"node_type": "nat"})
	ports := nat["ports"].([]any)
	if len(ports) != 1 || ports[0].(map[string]any)["name"] != "nat0" {
		t.Fatalf("NAT ports %v", ports)
	}
	pc := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs"})
	cloud := ts.MustCreateNode(pid, map[string]any{"node_type": "cloud"})
	links := "/v2/projects/" + pid + "/links"
	ts.Do("POST", links, map[string]any{"nodes": []any{kit.End(nat["node_id"].(string), 0, 0), kit.End(cloud["node_id"].(string), 0, 0)}}).Want(t, 409)
	ts.Do("POST", links, map[string]any{"nodes": []any{kit.End(nat["node_id"].(string), 0, 0), kit.End(pc["node_id"].(string), 0, 0)}}).Want(t, 201)
}

// TestLinks_LabelPosition: the GNS3 desktop GUI moves a link end's label
// only when it gets x and y, and fails on a null; a new link's labels have
// text and style only, as GNS3's do.
func TestLinks_LabelPosition(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	a := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs"})["node_id"].(string)
	b := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs"})["node_id"].(string)
	l := ts.Link(t, pid, a, 0, b, 0)
	path := "/v2/projects/" + pid + "/links/" + l
	label := func(body map[string]any, i int) map[string]any {
		return body["nodes"].([]any)[i].(map[string]any)["label"].(map[string]any)
	}
	keys := func(m map[string]any) string {
		var k []string
		for key := range m {
			k = append(k, key)
		}
		slices.Sort(k)
		return strings.Join(k, ",")
	}
	got := ts.Do("GET", path, nil).Want(t, 200).JSON(t)
	if k := keys(label(got, 0)); k != "style,text" {
		t.Errorf("a new link's label has %s, want style,text", k)
	}
	end := func(node string, lbl map[string]any) map[string]any {
		return map[string]any{"node_id": node, "adapter_number": 0, "port_number": 0, "label": lbl}
	}
	got = ts.Do("PUT", path, map[string]any{"nodes": []any{
		end(a, map[string]any{"text": "e0", "x": 10, "y": nil, "rotation": 30}),
		end(b, map[string]any{"text": "e0", "x": 10, "y": -5, "rotation": nil}),
	}}).Want(t, 200).JSON(t)
	if l0, l1 := label(got, 0), label(got, 1); keys(l0) != "rotation,text" || keys(l1) != "text,x,y" || l1["y"] != float64(-5) || l0["rotation"] != float64(30) {
		t.Errorf("labels after a half position and a null rotation: %v, %v", l0, l1)
	}
}

// TestLinks_CaptureComputeID: while a link captures, GNS3 names the
// compute that captures it (capture_compute_id); nodedesk's data plane
// captures, so it is "local", and null again once the capture stops.
func TestLinks_CaptureComputeID(t *testing.T) {
	ts := mustOpenServer(t)
	l := ts.mustCreateLab()
	links := "/v2/projects/" + l.pid + "/links"
	lk := ts.Do("POST", links, map[string]any{"nodes": []any{kit.End(l.pc1, 0, 0), kit.End(l.sw, 0, 1)}}).Want(t, 201).JSON(t)
	if lk["capture_compute_id"] != nil {
		t.Errorf("capture_compute_id of a link that does not capture = %v, want null", lk["capture_compute_id"])
	}
	path := links + "/" + lk["link_id"].(string)
	next, _ := ts.WSListen(t, "/v2/projects/"+l.pid+"/notifications/ws")
	started := ts.Do("POST", path+"/start_capture", map[string]any{}).Want(t, 201).JSON(t)
	if started["capturing"] != true || started["capture_compute_id"] != "local" {
		t.Errorf("capturing link %v, want capture_compute_id local", started)
	}
	if e := next(); e.Action != "link.updated" || e.Event["capture_compute_id"] != "local" {
		t.Errorf("event %v, want link.updated with capture_compute_id local", e)
	}
	if got := ts.Do("GET", path, nil).Want(t, 200).JSON(t); got["capture_compute_id"] != "local" {
		t.Errorf("GET of a capturing link: capture_compute_id = %v", got["capture_compute_id"])
	}
	stopped := ts.Do("POST", path+"/stop_capture", nil).Want(t, 201).JSON(t)
	if stopped["capturing"] != false || stopped["capture_compute_id"] != nil {
		t.Errorf("stopped link %v, want capture_compute_id null", stopped)
	}
}
