package api

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"nodedesk/app/kit"
)

// TestConcurrentMix: 64 clients mix creates, PUTs, deletes and links on one
// project; every answer is a 2xx or a JSON 4xx, and the store ends
// consistent.
func TestConcurrentMix(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	nodes := "/v2/projects/" + pid + "/nodes"
	var mu sync.Mutex
	ids := []string{}
	pick := func(r *rand.Rand) string {
		mu.Lock()
		defer mu.Unlock()
		if len(ids) == 0 {
			return "00000000-0000-4000-8000-000000000000"
		}
		return ids[r.IntN(len(ids))]
	}
	var ops, statuses sync.Map
	var wg sync.WaitGroup
	for g := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 7))
			for range 25 {
				var res kit.Response
				op := ""
				switch k := r.IntN(10); {
				case k < 3:
					op = "create"
					types := []string{"vpcs", "ethernet_switch", "ethernet_hub", "qemu"}
					res = ts.Do("POST", nodes, map[string]any{"node_type": types[r.IntN(len(types))], "name": fmt.Sprintf("n%d", r.IntN(20))})
					if res.Status == 201 {
						mu.Lock()
						ids = append(ids, res.JSON(t)["node_id"].(string))
						mu.Unlock()
					}
				case k < 6:
					op = "put"
					bodies := []map[string]any{{"x": r.IntN(100), "y": r.IntN(100)}, {"name": fmt.Sprintf("n%d", r.IntN(20))}, {"console": 5000 + r.IntN(30)}}
					res = ts.Do("PUT", nodes+"/"+pick(r), bodies[r.IntN(len(bodies))])
				case k < 8:
					op = "link"
					res = ts.Do("POST", "/v2/projects/"+pid+"/links", map[string]any{"nodes": []any{kit.End(pick(r), 0, r.IntN(3)), kit.End(pick(r), 0, r.IntN(3))}})
				default:
					op = "delete"
					id := pick(r)
					if res = ts.Do("DELETE", nodes+"/"+id, nil); res.Status == 204 {
						mu.Lock()
						for i := range ids {
							if ids[i] == id {
								ids = append(ids[:i], ids[i+1:]...)
								break
							}
						}
						mu.Unlock()
					}
				}
				if res.Status >= 500 || (res.Status >= 400 && !strings.Contains(string(res.Body), `"message"`)) {
					t.Errorf("%s answered %d %s", op, res.Status, res.Body)
				}
				n, _ := ops.LoadOrStore(op, new(atomic.Int64))
				n.(*atomic.Int64).Add(1)
				s, _ := statuses.LoadOrStore(res.Status, new(atomic.Int64))
				s.(*atomic.Int64).Add(1)
			}
		}()
	}
	wg.Wait()
	summary := []string{}
	ops.Range(func(k, v any) bool {
		summary = append(summary, fmt.Sprintf("%s=%d", k, v.(*atomic.Int64).Load()))
		return true
	})
	statuses.Range(func(k, v any) bool {
		summary = append(summary, fmt.Sprintf("%d:%d", k, v.(*atomic.Int64).Load()))
		return true
	})
	t.Logf("1600 operations: %s", strings.Join(summary, " "))
	ts.restart()
	checkInvariants(t, ts, pid)
}

// checkInvariants: unique console ports across the store, unique names per
// project, and no link to a missing node or port.
func checkInvariants(t *testing.T, ts *testServer, pid string) {
	t.Helper()
	nodes := ts.Do("GET", "/v2/projects/"+pid+"/nodes", nil).Want(t, 200).List(t)
	consoles, names := map[float64]string{}, map[string]bool{}
	ports := map[string]bool{}
	for _, n := range nodes {
		if c, ok := n["console"].(float64); ok {
			if other, dup := consoles[c]; dup {
				t.Errorf("console %v owned by %s and %s", c, other, n["name"])
			}
			consoles[c] = n["name"].(string)
		}
		if names[n["name"].(string)] {
			t.Errorf("name %v used twice", n["name"])
		}
		names[n["name"].(string)] = true
		for _, p := range n["ports"].([]any) {
			pm := p.(map[string]any)
			ports[fmt.Sprintf("%s/%v/%v", n["node_id"], pm["adapter_number"], pm["port_number"])] = true
		}
	}
	used := map[string]bool{}
	for _, l := range ts.Do("GET", "/v2/projects/"+pid+"/links", nil).Want(t, 200).List(t) {
		for _, e := range l["nodes"].([]any) {
			em := e.(map[string]any)
			key := fmt.Sprintf("%s/%v/%v", em["node_id"], em["adapter_number"], em["port_number"])
			if !ports[key] {
				t.Errorf("link %v ends on a missing node or port %s", l["link_id"], key)
			}
			if used[key] {
				t.Errorf("port %s carries two links", key)
			}
			used[key] = true
		}
	}
	t.Logf("invariants hold over %d nodes, %d console ports, %d linked ports", len(nodes), len(consoles), len(used))
}

// TestReadYourWrites: with readers hammering the same nodes (and so the
// answer cache), a GET after a PUT's answer always shows that PUT, in both
// views and in the list.
func TestReadYourWrites(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	n := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs"})
	path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
	cpath := "/v2/compute/projects/" + pid + "/vpcs/nodes/" + n["node_id"].(string)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				ts.Do("GET", path, nil)
				ts.Do("GET", cpath, nil)
				ts.Do("GET", "/v2/projects/"+pid+"/nodes", nil)
			}
		}()
	}
	for i := range 100 {
		name := fmt.Sprintf("pc-%d", i)
		ts.Do("PUT", path, map[string]any{"name": name, "x": i}).Want(t, 200)
		if got := ts.Do("GET", path, nil).JSON(t); got["name"] != name || got["x"] != float64(i) {
			t.Fatalf("after PUT %d the node reads %v/%v", i, got["name"], got["x"])
		}
		if got := ts.Do("GET", cpath, nil).JSON(t)["name"]; got != name {
			t.Fatalf("after PUT %d the compute view reads %v", i, got)
		}
		if got := ts.Do("GET", "/v2/projects/"+pid+"/nodes", nil).List(t)[0]["name"]; got != name {
			t.Fatalf("after PUT %d the list reads %v", i, got)
		}
	}
	ts.Do("DELETE", path, nil).Want(t, 204)
	ts.Do("GET", path, nil).Want(t, 404)
	ts.Do("GET", cpath, nil).Want(t, 404)
	close(stop)
	wg.Wait()
	// Deleting a project forgets its nodes too.
	m := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs"})
	mpath := "/v2/projects/" + pid + "/nodes/" + m["node_id"].(string)
	ts.Do("GET", mpath, nil).Want(t, 200)
	ts.Do("DELETE", "/v2/projects/"+pid, nil).Want(t, 204)
	ts.Do("GET", mpath, nil).Want(t, 404)
}
