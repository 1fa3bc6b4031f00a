package api

import (
	"bytes"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"nodedesk/app/kit"
)

// qemuProperties are the properties of a new QEMU node on the controller:
// what GNS3 2.2.59's compute shows of one, and linked_clone.
var qemuProperties = []string{"adapter_type", "adapters", "bios_image", "bios_image_md5sum", "boot_priority", "cdrom_image",
	"cdrom_image_md5sum", "cpu_throttling", "cpus", "create_config_disk", "hda_disk_image", "hda_disk_image_md5sum",
	"hda_disk_interface", "hdb_disk_image", "hdb_disk_image_md5sum", "hdb_disk_interface", "hdc_disk_image",
	"hdc_disk_image_md5sum", "hdc_disk_interface", "hdd_disk_image", "hdd_disk_image_md5sum", "hdd_disk_interface",
	"initrd", "initrd_md5sum", "kernel_command_line", "kernel_image", "kernel_image_md5sum", "legacy_networking",
	"linked_clone", "mac_address", "on_close", "options", "platform", "process_priority", "qemu_path", "ram",
	"replicate_network_connection_state", "tpm", "uefi", "usage"}

// qemuComputeKeys are the keys of GNS3 2.2.59's compute view of a QEMU
// node (its QEMU_OBJECT_SCHEMA's required keys).
var qemuComputeKeys = func() []string {
	keys := slices.DeleteFunc(slices.Clone(qemuProperties), func(k string) bool { return k == "linked_clone" })
	keys = append(keys, "command_line", "console", "console_type", "name", "node_directory", "node_id", "project_id", "status")
	slices.Sort(keys)
	return keys
}()

// macOf is the MAC address GNS3 derives from a QEMU node's id.
func macOf(id string) string { return "0c:" + id[2:4] + ":" + id[4:6] + ":" + id[6:8] + ":00:00" }

func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

// TestQEMUTemplate_GUIWizard: the GNS3 2.2.59 GUI's "New QEMU VM template"
// wizard posts its defaults updated with the user's answers; the template
// answers as gns3-server 2.2.59's does, and a node made from it has its
// settings.
func TestQEMUTemplate_GUIWizard(t *testing.T) {
	ts := mustOpenServer(t)
	id := uuid.NewString()
	wizard := map[string]any{
		"template_id": id, "template_type": "qemu", "name": "Alpine", "default_name_format": "{name}-{0}", "usage": "",
		"symbol": ":/symbols/qemu_guest.svg", "category": 2, "port_name_format": "Ethernet{0}", "port_segment_size": 0,
		"first_port_name": "", "custom_adapters": []any{}, "qemu_path": "/usr/bin/qemu-system-x86_64",
		"hda_disk_image": "alpine.qcow2", "hdb_disk_image": "", "hdc_disk_image": "", "hdd_disk_image": "",
		"hda_disk_interface": "ide", "hdb_disk_interface": "none", "hdc_disk_interface": "none", "hdd_disk_interface": "none",
		"cdrom_image": "", "bios_image": "", "boot_priority": "c", "console_type": "telnet", "console_auto_start": false,
		"ram": 512, "cpus": 1, "adapters": 2, "adapter_type": "e1000", "mac_address": "", "legacy_networking": false,
		"replicate_network_connection_state": true, "tpm": false, "uefi": false, "create_config_disk": false,
		"on_close": "power_off", "platform": "", "cpu_throttling": 0, "process_priority": "normal", "options": "",
		"kernel_image": "", "initrd": "", "kernel_command_line": "", "linked_clone": true, "compute_id": "local",
	}
	got := ts.Do("POST", "/v2/templates", wizard).Want(t, 201).JSON(t)
	want := maps.Clone(wizard)
	want["category"], want["builtin"], want["ram"], want["adapters"] = "guest", false, 512.0, 2.0
	for _, k := range []string{"port_segment_size", "cpus", "cpu_throttling"} {
		want[k] = float64(want[k].(int))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("wizard's template answered\n %v\nwant\n %v", got, want)
	}
	if l := ts.Do("GET", "/v2/templates", nil).Want(t, 200).List(t); l[len(l)-1]["template_id"] != id {
		t.Errorf("the template is not listed last: %v", l[len(l)-1])
	}

	pid := ts.MustCreateProject("lab")
	n := ts.Do("POST", "/v2/projects/"+pid+"/templates/"+id, map[string]any{"x": 10, "y": 20}).Want(t, 201).JSON(t)
	props := n["properties"].(map[string]any)
	for k, v := range map[string]any{"ram": 512.0, "adapters": 2.0, "hda_disk_image": "alpine.qcow2", "hda_disk_interface": "ide",
		"qemu_path": "/usr/bin/qemu-system-x86_64", "platform": "x86_64", "process_priority": "normal", "linked_clone": true,
		"mac_address": macOf(n["node_id"].(string)), "hda_disk_image_md5sum": nil} {
		if props[k] != v {
			t.Errorf("node's %s = %v; want %v", k, props[k], v)
		}
	}
	if keys := sortedKeys(props); !slices.Equal(keys, qemuProperties) {
		t.Errorf("node's properties %v; want %v", keys, qemuProperties)
	}
	if n["name"] != "Alpine-1" || n["console_type"] != "telnet" || n["template_id"] != id || n["symbol"] != ":/symbols/qemu_guest.svg" ||
		len(n["ports"].([]any)) != 2 || n["first_port_name"] != "" || n["port_name_format"] != "Ethernet{0}" {
		t.Errorf("node from the wizard's template %v", n)
	}
}

// TestQEMUTemplate_Defaults: a QEMU template given only its name gets
// every setting of gns3-server 2.2.59's QEMU template schema, with its
// defaults; settings a node could not take are refused, naming the key.
func TestQEMUTemplate_Defaults(t *testing.T) {
	ts := mustOpenServer(t)
	got := ts.Do("POST", "/v2/templates", map[string]any{"template_type": "qemu", "name": "VM", "compute_id": nil}).Want(t, 201).JSON(t)
	want := map[string]any{
		"template_type": "qemu", "name": "VM", "compute_id": nil, "builtin": false, "category": "guest",
		"default_name_format": "{name}-{0}", "symbol": ":/symbols/qemu_guest.svg", "template_id": got["template_id"],
		"qemu_path": "", "usage": "", "platform": "", "linked_clone": true, "ram": 256.0, "cpus": 1.0, "adapters": 1.0,
		"adapter_type": "e1000", "mac_address": "", "first_port_name": "", "port_name_format": "Ethernet{0}",
		"port_segment_size": 0.0, "console_type": "telnet", "console_auto_start": false, "boot_priority": "c",
		"hda_disk_image": "", "hda_disk_interface": "none", "hdb_disk_image": "", "hdb_disk_interface": "none",
		"hdc_disk_image": "", "hdc_disk_interface": "none", "hdd_disk_image": "", "hdd_disk_interface": "none",
		"cdrom_image": "", "initrd": "", "kernel_image": "", "bios_image": "", "kernel_command_line": "",
		"legacy_networking": false, "replicate_network_connection_state": true, "tpm": false, "uefi": false,
		"create_config_disk": false, "on_close": "power_off", "cpu_throttling": 0.0, "process_priority": "normal",
		"options": "", "custom_adapters": []any{},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("template answered\n %v\nwant GNS3's\n %v", got, want)
	}
	// A node made from it: GNS3's node defaults where the template says
	// nothing (a platform, a binary, a MAC address of its own).
	pid := ts.MustCreateProject("lab")
	n := ts.Do("POST", "/v2/projects/"+pid+"/templates/"+got["template_id"].(string), map[string]any{"x": 0, "y": 0, "compute_id": "local"}).Want(t, 201).JSON(t)
	if p := n["properties"].(map[string]any); p["platform"] != "x86_64" || p["qemu_path"] != "qemu-system-x86_64" ||
		p["mac_address"] != macOf(n["node_id"].(string)) || n["name"] != "VM-1" {
		t.Errorf("node from the template %v", n)
	}

	for _, c := range []struct {
		key   string
		value any
	}{{"ram", 0}, {"adapters", 276}, {"adapter_type", "3c905"}, {"hda_disk_interface", "usb"}, {"on_close", "reboot"},
		{"mac_address", "nope"}, {"console_type", "spice"}, {"platform", "z80"}} {
		t.Run(c.key, func(t *testing.T) {
			r := ts.Do("POST", "/v2/templates", map[string]any{"template_type": "qemu", "name": "Bad", "compute_id": nil, c.key: c.value}).Want(t, 400).JSON(t)
			if r["field"] != c.key || !strings.Contains(r["message"].(string), c.key) {
				t.Errorf("%s %v: %v; want a 400 naming the key", c.key, c.value, r)
			}
		})
	}
	if l := ts.Do("GET", "/v2/templates", nil).Want(t, 200).List(t); l[len(l)-1]["template_id"] != got["template_id"] {
		t.Errorf("a refused template was stored: %v", l[len(l)-1])
	}
}

// TestQEMUCompute: a GNS3 2.2.59 controller places a QEMU node on
// nodedesk as its compute, with the body it sends for a node made from a
// template, and reads back the keys its compute schema has.
func TestQEMUCompute(t *testing.T) {
	ts := mustOpenServer(t)
	c := &kit.Controller{API: ts.API, T: t, PID: uuid.NewString()}
	ts.Do("POST", "/v2/compute/projects", map[string]any{"name": "lab", "project_id": c.PID}).Want(t, 201)
	// GNS3's controller drops the template's empty values and its own keys
	// (port names, symbol, ...), and sends custom_adapters beside.
	n := c.Node("qemu", "Alpine-1", map[string]any{"console_type": "telnet", "linked_clone": true, "ram": 512, "cpus": 1,
		"adapters": 2, "adapter_type": "virtio-net-pci", "qemu_path": "/usr/bin/qemu-system-x86_64", "hda_disk_image": "alpine.qcow2",
		"hda_disk_interface": "virtio", "hdb_disk_interface": "none", "hdc_disk_interface": "none", "hdd_disk_interface": "none",
		"boot_priority": "c", "legacy_networking": false, "replicate_network_connection_state": true, "tpm": false, "uefi": false,
		"create_config_disk": false, "on_close": "power_off", "cpu_throttling": 0, "process_priority": "normal",
		"custom_adapters": []any{map[string]any{"adapter_number": 1, "mac_address": "0c:00:00:00:aa:01"}}})
	id := n["node_id"].(string)
	if keys := sortedKeys(n); !slices.Equal(keys, qemuComputeKeys) {
		t.Errorf("compute view keys %v; want GNS3's %v", keys, qemuComputeKeys)
	}
	for k, v := range map[string]any{"name": "Alpine-1", "status": "stopped", "console_type": "telnet", "platform": "x86_64",
		"qemu_path": "/usr/bin/qemu-system-x86_64", "ram": 512.0, "adapters": 2.0, "adapter_type": "virtio-net-pci",
		"mac_address": macOf(id), "process_priority": "normal", "hda_disk_image_md5sum": nil, "usage": "", "command_line": "",
		"project_id": c.PID} {
		if n[k] != v {
			t.Errorf("compute view %s = %v; want %v", k, n[k], v)
		}
	}
	if dir, _ := n["node_directory"].(string); !strings.HasSuffix(dir, "project-files/qemu/"+id) || n["console"] == nil {
		t.Errorf("node_directory %v, console %v; want the node's folder under project-files/qemu and a console port", n["node_directory"], n["console"])
	}
	path := "/v2/compute/projects/" + c.PID + "/qemu/nodes/" + id
	ctrl := ts.Do("GET", "/v2/projects/"+c.PID+"/nodes/"+id, nil).Want(t, 200).JSON(t)
	if ca := ctrl["custom_adapters"].([]any); len(ca) != 1 || len(ctrl["ports"].([]any)) != 2 {
		t.Errorf("controller view: custom adapters %v, %d ports; want the one given and a port per adapter", ca, len(ctrl["ports"].([]any)))
	}

	// A change, then the controller's PUT of what it read changes nothing.
	if u := ts.Do("PUT", path, map[string]any{"ram": 1024, "adapters": 3, "platform": "aarch64"}).Want(t, 200).JSON(t); u["ram"] != 1024.0 ||
		u["adapters"] != 3.0 || u["platform"] != "aarch64" || u["qemu_path"] != "qemu-system-aarch64" {
		t.Errorf("after a change %v", u)
	}
	before := ts.Do("GET", path, nil).Want(t, 200)
	ts.Do("PUT", path, before.JSON(t)).Want(t, 200)
	if after := ts.Do("GET", path, nil).Want(t, 200); !bytes.Equal(before.Body, after.Body) {
		t.Errorf("a PUT of the node's own view changed it:\nbefore %s\nafter  %s", before.Body, after.Body)
	}

	// GNS3's compute takes only its own keys; a refused change names the
	// key and changes nothing.
	for _, bad := range []struct {
		key   string
		value any
	}{{"adapters", 276}, {"adapter_type", "e1001"}, {"on_close", "reboot"}, {"ram", 0}, {"mac_address", "0c:00"},
		{"qemu_path", "/opt/run-guest"}, {"future_setting", 1}, {"console_type", "spice"}} {
		r := ts.Do("PUT", path, map[string]any{bad.key: bad.value}).Want(t, 400).JSON(t)
		if r["field"] != bad.key || !strings.Contains(r["message"].(string), bad.key) {
			t.Errorf("PUT %s=%v: %v; want a 400 naming the key", bad.key, bad.value, r)
		}
	}
	if after := ts.Do("GET", path, nil).Want(t, 200); !bytes.Equal(before.Body, after.Body) {
		t.Errorf("a refused change changed the node: %s", after.Body)
	}
	ts.Do("DELETE", path, nil).Want(t, 204)
	ts.Do("GET", path, nil).Want(t, 404)
}

// TestQEMUNode_Controller: the controller's properties of a QEMU node are
// checked against GNS3's schema, naming the key; keys nodedesk does not
// know are kept (a project from another GNS3 version goes back whole).
func TestQEMUNode_Controller(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	n := ts.MustCreateNode(pid, map[string]any{"node_type": "qemu", "properties": map[string]any{"ram": 2048, "future_setting": []any{1}}})
	props := n["properties"].(map[string]any)
	if props["ram"] != 2048.0 || !reflect.DeepEqual(props["future_setting"], []any{1.0}) || props["mac_address"] != macOf(n["node_id"].(string)) {
		t.Errorf("properties %v", props)
	}
	path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
	for _, bad := range []struct {
		key   string
		value any
	}{{"ram", -1}, {"cpus", 0}, {"boot_priority", "z"}, {"hdd_disk_interface", "usb"}, {"process_priority", "urgent"},
		{"linked_clone", "yes"}, {"qemu_path", "/opt/run-guest"}} {
		r := ts.Do("PUT", path, map[string]any{"properties": map[string]any{bad.key: bad.value}}).Want(t, 400).JSON(t)
		if r["field"] != "properties."+bad.key || !strings.Contains(r["message"].(string), bad.key) {
			t.Errorf("properties %s=%v: %v; want a 400 naming the key", bad.key, bad.value, r)
		}
	}
	// null puts a key back to GNS3's default.
	u := ts.Do("PUT", path, map[string]any{"properties": map[string]any{"ram": nil, "future_setting": nil}}).Want(t, 200).JSON(t)
	if p := u["properties"].(map[string]any); p["ram"] != 256.0 || p["future_setting"] != nil {
		t.Errorf("after null: %v", p)
	}
	ts.Do("PUT", path, map[string]any{"console_type": "vnc"}).Want(t, 200)
	ts.Do("PUT", path, map[string]any{"console_type": "http"}).Want(t, 400)
}
