package api

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"testing"
)

// benchLab is a generated lab of 200 nodes and 300 links: 40 Ethernet
// switches of 16 ports and 160 VPCS hosts with startup scripts, four hosts
// on each switch, and the switches meshed in four rounds.
func benchLab(tb testing.TB) *gns3Project {
	const switches, hosts, rounds = 40, 160, 4
	g := newGNS3Project("bench", 9)
	sw := func(i int) string { return uuidN("000000a1", i) }
	for i := range switches {
		var ports []any
		for p := range 16 {
			ports = append(ports, map[string]any{"name": fmt.Sprintf("Ethernet%d", p), "port_number": p, "type": "access", "vlan": 1 + i%4})
		}
		g.node(sw(i), "ethernet_switch", fmt.Sprintf("SW%d", i+1), i*100, 0, map[string]any{"ports_mapping": ports}, nil)
	}
	for i := range hosts {
		id := uuidN("000000a2", i)
		g.node(id, "vpcs", fmt.Sprintf("PC%d", i+1), (i%switches)*100, 200+(i/switches)*80, map[string]any{}, map[string]any{"console_type": "telnet", "console": 5000 + i})
		g.files["project-files/vpcs/"+id+"/startup.vpc"] = fmt.Sprintf("set pcname PC%d\nip 10.%d.%d.%d/16\n", i+1, i%4, i/250, 1+i%250)
		g.link(uuidN("000000a3", i), []any{id, 0, 0}, []any{sw(i % switches), 0, i / switches}, nil)
	}
	for k := range switches * rounds {
		a, r := k%switches, k/switches
		if k >= 300-hosts {
			break
		}
		g.link(uuidN("000000a4", k), []any{sw(a), 0, 4 + 2*r}, []any{sw((a + 1 + r) % switches), 0, 5 + 2*r}, nil)
	}
	if len(g.nodes) != 200 || len(g.links) != 300 {
		tb.Fatalf("bench lab: %d nodes, %d links", len(g.nodes), len(g.links))
	}
	return g
}

// raw sends a request without the contract check do makes, which would
// dominate what a benchmark measures, and wants a status.
func (ts *testServer) raw(tb testing.TB, method, path string, body []byte, want int) []byte {
	req, err := http.NewRequest(method, ts.URL+path, bytes.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	res, err := ts.Client.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != want {
		tb.Fatalf("%s %s: %d %v %.300s", method, path, res.StatusCode, err, b)
	}
	return b
}

// BenchmarkProjectImport: POST /import of a 200-node, 300-link
// .gns3project over the real listener and store (one transaction, 160
// startup scripts), then GET its nodes and links: one op is all three.
// The project is deleted between ops, untimed. Run with make bench-gns3.
func BenchmarkProjectImport(b *testing.B) {
	ts := mustOpenServer(b)
	body := benchLab(b).archive(b)
	b.SetBytes(int64(len(body)))
	i := 0
	for b.Loop() {
		pid := uuidN("000000b1", i)
		ts.raw(b, "POST", "/v2/projects/"+pid+"/import", body, 201)
		ts.raw(b, "GET", "/v2/projects/"+pid+"/nodes", nil, 200)
		ts.raw(b, "GET", "/v2/projects/"+pid+"/links", nil, 200)
		b.StopTimer()
		ts.raw(b, "DELETE", "/v2/projects/"+pid, nil, 204)
		i++
		b.StartTimer()
	}
}

// BenchmarkProjectLoad: POST /load of the same project as a .gns3 with its
// project-files folder on disk, then GET its nodes and links.
func BenchmarkProjectLoad(b *testing.B) {
	ts := mustOpenServer(b)
	g := benchLab(b)
	path := g.writeDir(b, b.TempDir())
	load := []byte(fmt.Sprintf(`{"path": %q}`, path))
	pid := g.top["project_id"].(string)
	for b.Loop() {
		ts.raw(b, "POST", "/v2/projects/load", load, 201)
		ts.raw(b, "GET", "/v2/projects/"+pid+"/nodes", nil, 200)
		ts.raw(b, "GET", "/v2/projects/"+pid+"/links", nil, 200)
		b.StopTimer()
		ts.raw(b, "DELETE", "/v2/projects/"+pid, nil, 204)
		b.StartTimer()
	}
}

// BenchmarkProjectExport: GET /export of the imported 200-node project.
func BenchmarkProjectExport(b *testing.B) {
	ts := mustOpenServer(b)
	pid := uuidN("000000b2", 1)
	ts.raw(b, "POST", "/v2/projects/"+pid+"/import", benchLab(b).archive(b), 201)
	for b.Loop() {
		ts.raw(b, "GET", "/v2/projects/"+pid+"/export", nil, 200)
	}
}
