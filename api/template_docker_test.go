package api

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// dockerProperties are the properties of a new Docker node on the
// controller: what GNS3 2.2.59's compute shows of one.
var dockerProperties = []string{"adapters", "aux", "console_http_path", "console_http_port", "console_resolution", "container_id", "environment",
	"extra_hosts", "extra_volumes", "image", "mac_address", "start_command", "usage"}

// TestDockerTemplate_GUIWizard: the GNS3 2.2.59 GUI's "New Docker
// container template" wizard posts its defaults updated with the user's
// answers (image picked from the compute's list, name from the image);
// the template answers as gns3-server 2.2.59's does, and a node made from
// it is a Docker node with those settings, an aux console of its own and
// the image's latest tag.
func TestDockerTemplate_GUIWizard(t *testing.T) {
	ts := mustOpenServer(t)
	id := uuid.NewString()
	wizard := map[string]any{
		"template_id": id, "template_type": "docker", "default_name_format": "{name}-{0}", "usage": "",
		"symbol": ":/symbols/docker_guest.svg", "category": 2, "start_command": "", "name": "frrouting-frr",
		"image": "frrouting/frr", "adapters": 3, "mac_address": "", "custom_adapters": []any{}, "environment": "A=1\nB=2",
		"console_type": "telnet", "console_auto_start": false, "console_resolution": "1024x768", "console_http_port": 80,
		"console_http_path": "/", "extra_hosts": "", "extra_volumes": []any{}, "compute_id": "local",
	}
	got := ts.Do("POST", "/v2/templates", wizard).Want(t, 201).JSON(t)
	want := maps.Clone(wizard)
	want["category"], want["builtin"], want["adapters"], want["console_http_port"] = "guest", false, 3.0, 80.0
	if !reflect.DeepEqual(got, want) {
		t.Errorf("wizard's template answered\n %v\nwant\n %v", got, want)
	}
	pid := ts.MustCreateProject("lab")
	n := ts.Do("POST", "/v2/projects/"+pid+"/templates/"+id, map[string]any{"x": 10, "y": 20}).Want(t, 201).JSON(t)
	props := n["properties"].(map[string]any)
	nid := n["node_id"].(string)
	for k, v := range map[string]any{"image": "frrouting/frr:latest", "adapters": 3.0, "environment": "A=1\nB=2",
		"start_command": nil, "mac_address": "02:42:" + nid[2:4] + ":" + nid[4:6] + ":" + nid[6:8] + ":00"} {
		if props[k] != v {
			t.Errorf("node's %s = %v; want %v", k, props[k], v)
		}
	}
	if keys := sortedKeys(props); !slices.Equal(keys, dockerProperties) {
		t.Errorf("node's properties %v; want %v", keys, dockerProperties)
	}
	if aux, _ := props["aux"].(float64); aux == 0 || aux == n["console"] {
		t.Errorf("aux %v beside console %v; want a port of its own", props["aux"], n["console"])
	}
	if n["name"] != "frrouting-frr-1" || n["node_type"] != "docker" || len(n["ports"].([]any)) != 3 {
		t.Errorf("node from the wizard's template %v", n)
	}
	// GNS3's template schema requires the image.
	r := ts.Do("POST", "/v2/templates", map[string]any{"template_type": "docker", "name": "none", "compute_id": "local"}).Want(t, 400).JSON(t)
	if r["field"] != "image" {
		t.Errorf("template without an image: %v", r)
	}
}

// TestDockerImages_NoEngine: without a Docker Engine the image list (the
// GNS3 wizard's first page) is a 409 that says what to install, on both
// the compute and the controller paths.
func TestDockerImages_NoEngine(t *testing.T) {
	ts := mustOpenServer(t)
	for _, p := range []string{"/v2/compute/docker/images", "/v2/computes/local/docker/images"} {
		r := ts.Do("GET", p, nil).Want(t, 409).JSON(t)
		if msg, _ := r["message"].(string); !strings.Contains(msg, "docker.io") {
			t.Errorf("GET %s: %v; want a message naming what to install", p, r)
		}
	}
}
