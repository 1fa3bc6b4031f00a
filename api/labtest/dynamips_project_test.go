package labtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"nodedesk/app/dynamips/dynamipstest"
	"nodedesk/app/kit"
)

// TestDynamips_RealProjects: the real projects with c7200 and c3725
// routers (app/dynamips/testdata/projects), imported with the stand-in
// image of each router's platform in GNS3's images folder under the file
// name the project gives, start with Start all: every router runs, and
// Stop all leaves no dynamips process.
func TestDynamips_RealProjects(t *testing.T) {
	for _, file := range []string{"dmvpn.gns3", "branch-wan.gns3"} {
		t.Run(file, func(t *testing.T) {
			l := Start(t, with(dynamipstest.Emulator))
			topo, err := os.ReadFile(filepath.Join("..", "..", "app", "dynamips", "testdata", "projects", file))
			if err != nil {
				t.Fatal(err)
			}
			routers := dynamipstest.PlaceStandInIOS(t, topo, filepath.Join(l.GNS3Images, "IOS"), dynamipstest.FakeIOS)
			var p struct {
				ID string `json:"project_id"`
			}
			if err := json.Unmarshal(topo, &p); err != nil {
				t.Fatal(err)
			}
			l.Do("POST", "/v2/projects/"+p.ID+"/import", kit.Zip(t, map[string][]byte{"project.gns3": topo})).Want(t, 201)
			l.Do("POST", "/v2/projects/"+p.ID+"/open", nil).Want(t, 201)
			l.Do("POST", "/v2/projects/"+p.ID+"/nodes/start", nil).Want(t, 204)
			byName := map[string]map[string]any{}
			for _, n := range l.Do("GET", "/v2/projects/"+p.ID+"/nodes", nil).Want(t, 200).List(t) {
				byName[n["name"].(string)] = n
			}
			for _, r := range routers {
				n := byName[r.Name]
				if n["status"] != "started" {
					t.Errorf("%s (%s, image %s) is %v after Start all", r.Name, r.Platform, r.Image, n["status"])
				}
				if pids := dynamipstest.PIDs(n["node_directory"].(string)); len(pids) != 1 {
					t.Errorf("%s: %d dynamips processes in its folder; want 1", r.Name, len(pids))
				}
			}
			l.Do("POST", "/v2/projects/"+p.ID+"/nodes/stop", nil).Want(t, 204)
			deadline := time.Now().Add(10 * time.Second)
			for _, r := range routers {
				dir := byName[r.Name]["node_directory"].(string)
				for len(dynamipstest.PIDs(dir)) > 0 && time.Now().Before(deadline) {
					time.Sleep(50 * time.Millisecond)
				}
				if pids := dynamipstest.PIDs(dir); len(pids) > 0 {
					t.Errorf("%s: dynamips %v still runs after Stop all", r.Name, pids)
				}
			}
		})
	}
}
