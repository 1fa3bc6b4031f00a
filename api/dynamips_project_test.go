package api

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"nodedesk/app/kit"
)

// dynamipsProjects are the real GNS3 projects with Dynamips routers in
// app/dynamips/testdata/projects (see its README): a public lab of four
// c7200s made on a GNS3 VM, and a c3725 and a c7200 with serial ports to a
// Frame Relay switch, written by gns3-server 2.2.59 itself. Ports are what
// GNS3 2.2.59 answered for each router.
var dynamipsProjects = []struct {
	file  string
	ports map[string][]string // router → its ports' names, as GNS3 lists them
}{
	{"dmvpn.gns3", map[string][]string{
		"R1": {"FastEthernet0/0", "FastEthernet1/0", "FastEthernet1/1", "FastEthernet2/0", "FastEthernet2/1", "FastEthernet3/0", "FastEthernet3/1"},
	}},
	{"branch-wan.gns3", map[string][]string{
		"R1": {"FastEthernet0/0", "FastEthernet0/1", "FastEthernet1/0", "Serial0/0", "Serial0/1", "Serial0/2"},
		"R2": {"FastEthernet0/0", "FastEthernet1/0", "Serial2/0", "Serial2/1", "Serial2/2", "Serial2/3"},
	}},
}

// dynamipsKeys are the router properties a project file gives that must
// come back as given.
var dynamipsKeys = []string{"platform", "image", "ram", "nvram", "npe", "midplane", "idlepc", "chassis", "iomem",
	"slot0", "slot1", "slot2", "slot3", "slot4", "slot5", "slot6", "wic0", "wic1", "wic2", "mac_addr", "system_id"}

// TestDynamipsProject_ImportKeepsRouters: each real project, imported over
// the API, has its routers with the properties the file gives (platform,
// image, RAM, slots, WICs, idle-PC, ...), GNS3's ports, and its links on
// those ports; its export gives the routers back the same.
func TestDynamipsProject_ImportKeepsRouters(t *testing.T) {
	for _, p := range dynamipsProjects {
		t.Run(p.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("..", "app", "dynamips", "testdata", "projects", p.file))
			if err != nil {
				t.Fatal(err)
			}
			var file struct {
				ProjectID string `json:"project_id"`
				Topology  struct {
					Nodes []struct {
						NodeID     string         `json:"node_id"`
						Name       string         `json:"name"`
						NodeType   string         `json:"node_type"`
						Properties map[string]any `json:"properties"`
					} `json:"nodes"`
					Links []struct {
						Nodes []struct {
							NodeID  string `json:"node_id"`
							Adapter int    `json:"adapter_number"`
							Port    int    `json:"port_number"`
						} `json:"nodes"`
					} `json:"links"`
				} `json:"topology"`
			}
			if err := json.Unmarshal(raw, &file); err != nil {
				t.Fatal(err)
			}
			ts := mustOpenServer(t)
			pid := file.ProjectID
			ts.Do("POST", "/v2/projects/"+pid+"/import", kit.Zip(t, map[string][]byte{"project.gns3": raw})).Want(t, 201)
			ts.Do("POST", "/v2/projects/"+pid+"/open", nil).Want(t, 201)
			// Nodes get new ids on import (as GNS3 gives them); names stay.
			nodes, ids := map[string]map[string]any{}, map[string]string{}
			for _, n := range ts.Do("GET", "/v2/projects/"+pid+"/nodes", nil).Want(t, 200).List(t) {
				nodes[n["name"].(string)] = n
			}
			for _, n := range file.Topology.Nodes {
				if nodes[n.Name] != nil {
					ids[n.NodeID] = nodes[n.Name]["node_id"].(string)
				}
			}
			routers := 0
			for _, want := range file.Topology.Nodes {
				got := nodes[want.Name]
				if got == nil {
					t.Errorf("%s is not in the imported project", want.Name)
					continue
				}
				if want.NodeType != "dynamips" {
					continue
				}
				routers++
				props := got["properties"].(map[string]any)
				for _, k := range dynamipsKeys {
					if v, ok := want.Properties[k]; ok && !reflect.DeepEqual(props[k], v) {
						t.Errorf("%s's %s = %v; the file gives %v", want.Name, k, props[k], v)
					}
				}
				if names, ok := p.ports[want.Name]; ok {
					var gotNames []string
					for _, port := range got["ports"].([]any) {
						gotNames = append(gotNames, port.(map[string]any)["name"].(string))
					}
					if !reflect.DeepEqual(gotNames, names) {
						t.Errorf("%s's ports %v; GNS3's are %v", want.Name, gotNames, names)
					}
				}
			}
			if routers == 0 {
				t.Fatal("the project has no router")
			}
			links := ts.Do("GET", "/v2/projects/"+pid+"/links", nil).Want(t, 200).List(t)
			if len(links) != len(file.Topology.Links) {
				t.Errorf("%d links imported; the file has %d", len(links), len(file.Topology.Links))
			}
			ends := map[[3]any]bool{}
			for _, l := range links {
				for _, e := range l["nodes"].([]any) {
					m := e.(map[string]any)
					ends[[3]any{m["node_id"], m["adapter_number"], m["port_number"]}] = true
				}
			}
			for _, l := range file.Topology.Links {
				for _, e := range l.Nodes {
					if !ends[[3]any{ids[e.NodeID], float64(e.Adapter), float64(e.Port)}] {
						t.Errorf("link end %s %d/%d is not in the imported links", e.NodeID, e.Adapter, e.Port)
					}
				}
			}

			zip := readZip(t, ts.Do("GET", "/v2/projects/"+pid+"/export", nil).Want(t, 200).Body)
			back := nodeProperties(t, zip["project.gns3"])
			for _, want := range file.Topology.Nodes {
				if want.NodeType != "dynamips" {
					continue
				}
				for _, k := range dynamipsKeys {
					if v, ok := want.Properties[k]; ok && !reflect.DeepEqual(back[want.Name][k], v) {
						t.Errorf("exported %s's %s = %v; the file gave %v", want.Name, k, back[want.Name][k], v)
					}
				}
			}
		})
	}
}
