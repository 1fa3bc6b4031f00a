package dynamipstest

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// Router is a Dynamips router of a GNS3 project file: its name, its
// platform and the IOS image its properties name.
type Router struct {
	Name, Platform, Image string
}

// Routers lists the Dynamips routers of a GNS3 project file (.gns3), in
// the file's order: the nodes whose properties name a platform and an
// image (a QEMU node's platform comes without one, a Docker node's image
// without a platform).
func Routers(t testing.TB, topo []byte) []Router {
	t.Helper()
	var f struct {
		Topology struct {
			Nodes []struct {
				Name       string `json:"name"`
				Properties struct {
					Platform string `json:"platform"`
					Image    string `json:"image"`
				} `json:"properties"`
			} `json:"nodes"`
		} `json:"topology"`
	}
	if err := json.Unmarshal(topo, &f); err != nil {
		t.Fatalf("not a GNS3 project file: %v", err)
	}
	var out []Router
	for _, n := range f.Topology.Nodes {
		if n.Properties.Platform != "" && n.Properties.Image != "" {
			out = append(out, Router{n.Name, n.Properties.Platform, n.Properties.Image})
		}
	}
	return out
}

// PlaceStandInIOS puts, for each router of the project file topo, the
// free stand-in image of its platform (standIn gives its path) into dir
// (an images/IOS folder) under the file name the router's image names,
// so that the project starts as it is, without Cisco's images: a router
// names its image by file name or by a path of the machine it was made on
// (Windows too), and GNS3, as nodedesk, looks a missing path up by its
// file name. It returns the routers. A router without an image fails the
// test.
func PlaceStandInIOS(t testing.TB, topo []byte, dir string, standIn func(t testing.TB, platform string) string) []Router {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	routers := Routers(t, topo)
	for _, r := range routers {
		name := path.Base(strings.ReplaceAll(r.Image, `\`, "/"))
		if r.Image == "" || name == "." || name == "/" {
			t.Fatalf("router %s names no IOS image", r.Name)
		}
		b, err := os.ReadFile(standIn(t, r.Platform))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return routers
}
