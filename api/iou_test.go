package api

import (
	"strings"
	"testing"
)

// TestIOUTemplate_NodeStartsWithGNS3BaseConfig: an IOU template has
// GNS3's defaults; a node made from an L2 one starts with the L2 base
// config under its own name, from an L3 one with the L3 base config, and
// neither keeps the template's file names.
func TestIOUTemplate_NodeStartsWithGNS3BaseConfig(t *testing.T) {
	ts := mustOpenServer(t)
	l3 := ts.Do("POST", "/v2/templates", map[string]any{"name": "L3", "template_type": "iou", "path": "i86bi-l3.bin", "compute_id": "local"}).Want(t, 201).JSON(t)
	for k, want := range map[string]any{"ethernet_adapters": 2.0, "serial_adapters": 2.0, "ram": 1024.0, "nvram": 256.0, "use_default_iou_values": false,
		"startup_config": "iou_l3_base_startup-config.txt", "private_config": "", "l1_keepalives": false, "default_name_format": "IOU{0}", "category": "router"} {
		if l3[k] != want {
			t.Errorf("IOU template's %s = %v; want GNS3's %v", k, l3[k], want)
		}
	}
	ts.Do("POST", "/v2/templates", map[string]any{"name": "nopath", "template_type": "iou"}).Want(t, 400)
	l2 := ts.Do("POST", "/v2/templates", map[string]any{"name": "L2", "template_type": "iou", "path": "i86bi-l2.bin", "compute_id": "local",
		"ethernet_adapters": 4, "serial_adapters": 0, "startup_config": "iou_l2_base_startup-config.txt"}).Want(t, 201).JSON(t)
	pid := ts.MustCreateProject("lab")
	for _, c := range []struct {
		tpl        map[string]any
		name, want string
	}{{l3, "IOU1", " shutdown\n"}, {l2, "IOU2", " no shutdown\n"}} {
		n := ts.Do("POST", "/v2/projects/"+pid+"/templates/"+c.tpl["template_id"].(string), map[string]any{"x": 0, "y": 0}).Want(t, 201).JSON(t)
		props := n["properties"].(map[string]any)
		for _, k := range []string{"startup_config", "private_config", "startup_config_content"} {
			if v, ok := props[k]; ok {
				t.Errorf("%s keeps %s (%v) among its properties; GNS3's IOU node has no such property", c.name, k, v)
			}
		}
		got := string(ts.Do("GET", "/v2/projects/"+pid+"/nodes/"+n["node_id"].(string)+"/files/startup-config.cfg", nil).Want(t, 200).Body)
		if !strings.Contains(got, "hostname "+c.name+"\n") || !strings.Contains(got, "interface Ethernet0/0\n no ip address\n"+c.want) {
			t.Errorf("%s starts with\n%s\nwant its name and%q", c.name, got, c.want)
		}
	}
}

// TestIOUNode_ConfigFollowsTheNode: an IOU node's startup config is its
// file: a rename rewrites its hostname line, as GNS3's compute does; a
// duplicate keeps it under its own name and gets an application id of
// its own; an export carries it where GNS3 keeps it, and an import gives
// it back.
func TestIOUNode_ConfigFollowsTheNode(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	n := ts.MustCreateNode(pid, map[string]any{"node_type": "iou", "name": "R1", "properties": map[string]any{"path": "i86bi-l3.bin",
		"startup_config_content": "!\nhostname %h\n!\ninterface Ethernet0/0\n ip address 10.0.0.1 255.255.255.0\n!\nend\n"}})
	id := n["node_id"].(string)
	if got := n["port_name_format"]; got != "Ethernet{segment0}/{port0}" {
		t.Errorf("port_name_format %v; GNS3 gives IOU nodes Ethernet{segment0}/{port0}", got)
	}
	file := "/v2/projects/" + pid + "/nodes/" + id + "/files/startup-config.cfg"
	if got := string(ts.Do("GET", file, nil).Want(t, 200).Body); !strings.Contains(got, "hostname R1\n") {
		t.Errorf("a new node's config has %%h for its name:\n%s", got)
	}
	ts.Do("PUT", "/v2/projects/"+pid+"/nodes/"+id, map[string]any{"name": "Core"}).Want(t, 200)
	got := string(ts.Do("GET", file, nil).Want(t, 200).Body)
	if !strings.Contains(got, "hostname Core\n") || strings.Contains(got, "hostname R1") || !strings.Contains(got, "ip address 10.0.0.1") {
		t.Errorf("after the rename to Core the config is\n%s", got)
	}
	dup := ts.Do("POST", "/v2/projects/"+pid+"/nodes/"+id+"/duplicate", map[string]any{"x": 10, "y": 10}).Want(t, 201).JSON(t)
	if a, b := n["properties"].(map[string]any)["application_id"], dup["properties"].(map[string]any)["application_id"]; a == b {
		t.Errorf("the duplicate shares application id %v with its original", a)
	}
	dupFile := "/v2/projects/" + pid + "/nodes/" + dup["node_id"].(string) + "/files/startup-config.cfg"
	if got := string(ts.Do("GET", dupFile, nil).Want(t, 200).Body); !strings.Contains(got, "hostname "+dup["name"].(string)+"\n") {
		t.Errorf("the duplicate %s starts with\n%s", dup["name"], got)
	}

	files := readZip(t, ts.Do("GET", "/v2/projects/"+pid+"/export", nil).Want(t, 200).Body)
	cfg, ok := files["project-files/iou/"+id+"/startup-config.cfg"]
	if !ok || !strings.Contains(string(cfg), "hostname Core\n") {
		t.Fatalf("the export holds no project-files/iou/%s/startup-config.cfg with the config (%d files)", id, len(files))
	}
	imported := "1a1a1a1a-0000-4000-8000-000000000036"
	ts.importArchive(imported, ts.Do("GET", "/v2/projects/"+pid+"/export", nil).Want(t, 200).Body, "").Want(t, 201)
	for _, m := range ts.Do("GET", "/v2/projects/"+imported+"/nodes", nil).List(t) {
		if m["name"] != "Core" {
			continue
		}
		got := string(ts.Do("GET", "/v2/projects/"+imported+"/nodes/"+m["node_id"].(string)+"/files/startup-config.cfg", nil).Want(t, 200).Body)
		if !strings.Contains(got, "hostname Core\n") {
			t.Errorf("the imported Core has the config\n%s", got)
		}
		return
	}
	t.Error("the import holds no node Core")
}
