package api

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// gns3DynamipsTemplates are gns3-server 2.2.59's answers to POST
// /v2/templates with Dynamips templates: the GNS3 2.2.59 GUI's IOS router
// wizard's bodies for four platforms, minimal ones, and three it refuses
// (recorded against the real server; see the file's "source").
type gns3DynamipsTemplates struct {
	Cases []struct {
		Case    string         `json:"case"`
		Request map[string]any `json:"request"`
		Status  int            `json:"status"`
		Answer  map[string]any `json:"answer"`
	} `json:"cases"`
}

// TestDynamipsTemplate_AsGNS3: each template body answers as GNS3 2.2.59
// answered it, the platform's defaults filled in (a c7200's 512 MB and
// npe-400, a c3725's 128 MB and iomem, ...), and the bodies it refused are
// refused naming the key missing. A node made from the wizard's c7200
// template gets the template's RAM, NPE and slots.
func TestDynamipsTemplate_AsGNS3(t *testing.T) {
	raw, err := os.ReadFile("testdata/gns3-2.2.59-dynamips-templates.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec gns3DynamipsTemplates
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	ts := mustOpenServer(t)
	ids := map[string]string{}
	for _, c := range rec.Cases {
		r := ts.Do("POST", "/v2/templates", c.Request).Want(t, c.Status)
		if c.Status != 201 {
			msg := r.JSON(t)["message"].(string)
			key := strings.Split(c.Answer["message"].(string), "'")[1] // 'chassis' is a required property
			if !strings.Contains(msg, key) {
				t.Errorf("%s: refused with %q; want it to name %s", c.Case, msg, key)
			}
			continue
		}
		got := r.JSON(t)
		ids[c.Case] = got["template_id"].(string)
		delete(got, "template_id")
		if !reflect.DeepEqual(got, c.Answer) {
			t.Errorf("%s: answered\n %v\nwant (GNS3 2.2.59)\n %v", c.Case, got, c.Answer)
		}
		again := ts.Do("GET", "/v2/templates/"+ids[c.Case], nil).Want(t, 200).JSON(t)
		delete(again, "template_id")
		if !reflect.DeepEqual(again, got) {
			t.Errorf("%s: GET answers\n %v\nnot what POST answered\n %v", c.Case, again, got)
		}
	}

	pid := ts.MustCreateProject("lab")
	n := ts.Do("POST", "/v2/projects/"+pid+"/templates/"+ids["gui-c7200"], map[string]any{"x": 0, "y": 0}).Want(t, 201).JSON(t)
	if n["name"] != "R1" || n["node_type"] != "dynamips" {
		t.Errorf("node from the c7200 template: name %v, type %v; want R1, dynamips", n["name"], n["node_type"])
	}
	props := n["properties"].(map[string]any)
	for k, v := range map[string]any{"platform": "c7200", "ram": 512.0, "nvram": 512.0, "npe": "npe-400", "midplane": "vxr",
		"slot0": "C7200-IO-FE", "slot1": "PA-FE-TX", "image": "c7200-adventerprisek9-mz.124-24.T5.image"} {
		if props[k] != v {
			t.Errorf("node's %s = %v; want %v", k, props[k], v)
		}
	}
	var names []string
	for _, p := range n["ports"].([]any) {
		names = append(names, p.(map[string]any)["name"].(string))
	}
	if want := []string{"FastEthernet0/0", "FastEthernet1/0"}; !reflect.DeepEqual(names, want) {
		t.Errorf("node's ports %v; want %v", names, want)
	}
}

// TestDynamipsTemplate_NodeStartsWithGNS3BaseConfig: a router made from an
// IOS router template does not keep the template's base config file
// names, as GNS3's node does not, and "Edit config" shows the config it
// will start with before its first start — GNS3's base config with its
// name — as gns3-server wrote it at creation (controller/node.py sends
// the file's content, configs/ios_base_startup-config.txt). What the user
// saves there is what it then holds.
func TestDynamipsTemplate_NodeStartsWithGNS3BaseConfig(t *testing.T) {
	ts := mustOpenServer(t)
	tpl := ts.Do("POST", "/v2/templates", map[string]any{"name": "c7200", "template_type": "dynamips", "platform": "c7200",
		"image": "c7200.image", "compute_id": "local"}).Want(t, 201).JSON(t)
	if tpl["startup_config"] != "ios_base_startup-config.txt" {
		t.Errorf("template's startup_config = %v; want GNS3's ios_base_startup-config.txt", tpl["startup_config"])
	}
	pid := ts.MustCreateProject("lab")
	n := ts.Do("POST", "/v2/projects/"+pid+"/templates/"+tpl["template_id"].(string), map[string]any{"x": 0, "y": 0}).Want(t, 201).JSON(t)
	props := n["properties"].(map[string]any)
	for _, k := range []string{"startup_config", "private_config"} {
		if v, ok := props[k]; ok {
			t.Errorf("the node keeps the template's %s (%v); GNS3's node has no such property", k, v)
		}
	}
	file := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string) + "/files/configs/i1_startup-config.cfg"
	got := string(ts.Do("GET", file, nil).Want(t, 200).Body)
	for _, line := range []string{"hostname R1\n", "no ip domain-lookup\n", "line con 0\n privilege level 15\n no login\n exec-timeout 0 0\n", "line aux 0\n"} {
		if !strings.Contains(got, line) {
			t.Errorf("Edit config of a new router shows\n%s\nwithout %q", got, line)
		}
	}
	ts.Do("POST", file, "!\nhostname Edge\nend\n").Want(t, 201)
	if got := string(ts.Do("GET", file, nil).Want(t, 200).Body); got != "!\nhostname Edge\nend\n" {
		t.Errorf("after saving, Edit config shows %q; want what was saved", got)
	}
	ts.Do("GET", "/v2/projects/"+pid+"/nodes/"+n["node_id"].(string)+"/files/configs/i1_private-config.cfg", nil).Want(t, 404)
}
