package app_test

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"nodedesk/app"
)

// qemuKeys are the properties of a new QEMU node: those GNS3 2.2.59's
// compute shows for one, and linked_clone, which its controller keeps.
var qemuKeys = []string{"adapter_type", "adapters", "bios_image", "bios_image_md5sum", "boot_priority", "cdrom_image",
	"cdrom_image_md5sum", "cpu_throttling", "cpus", "create_config_disk", "hda_disk_image", "hda_disk_image_md5sum",
	"hda_disk_interface", "hdb_disk_image", "hdb_disk_image_md5sum", "hdb_disk_interface", "hdc_disk_image",
	"hdc_disk_image_md5sum", "hdc_disk_interface", "hdd_disk_image", "hdd_disk_image_md5sum", "hdd_disk_interface",
	"initrd", "initrd_md5sum", "kernel_command_line", "kernel_image", "kernel_image_md5sum", "legacy_networking",
	"linked_clone", "mac_address", "on_close", "options", "platform", "process_priority", "qemu_path", "ram",
	"replicate_network_connection_state", "tpm", "uefi", "usage"}

// qemuProps is a change of a QEMU node's properties.
func qemuProps(tb testing.TB, kv map[string]any) *app.QEMUUpdate {
	tb.Helper()
	u := app.QEMUUpdate{}
	for k, v := range kv {
		raw, err := json.Marshal(v)
		if err != nil {
			tb.Fatal(err)
		}
		u[k] = raw
	}
	return &u
}

// qemuView is a node's properties as a client reads them (JSON).
func qemuView(tb testing.TB, n *app.Node) map[string]any {
	tb.Helper()
	raw, err := json.Marshal(n.PropertiesView())
	if err != nil {
		tb.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		tb.Fatal(err)
	}
	return v
}

const qemuNodeID = "5e3a9c71-0b2d-4f6e-8a1b-2c3d4e5f6a7b"

// TestService_CreateNode_QEMUDefaults: a new QEMU node has every property
// GNS3's compute gives one, with its defaults, stored with the node; its
// MAC address is derived from its id as GNS3 derives it.
func TestService_CreateNode_QEMUDefaults(t *testing.T) {
	svc, _ := newService(t)
	n := mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, app.NodeCreate{Type: app.QEMU, ID: qemuNodeID})
	want := map[string]any{
		"usage": "", "qemu_path": "qemu-system-x86_64", "platform": "x86_64", "linked_clone": true,
		"hda_disk_image": "", "hdb_disk_image": "", "hdc_disk_image": "", "hdd_disk_image": "",
		"hda_disk_interface": "none", "hdb_disk_interface": "none", "hdc_disk_interface": "none", "hdd_disk_interface": "none",
		"hda_disk_image_md5sum": nil, "hdb_disk_image_md5sum": nil, "hdc_disk_image_md5sum": nil, "hdd_disk_image_md5sum": nil,
		"cdrom_image": "", "cdrom_image_md5sum": nil, "bios_image": "", "bios_image_md5sum": nil, "boot_priority": "c",
		"ram": 256.0, "cpus": 1.0, "adapters": 1.0, "adapter_type": "e1000", "mac_address": "0c:3a:9c:71:00:00",
		"initrd": "", "initrd_md5sum": nil, "kernel_image": "", "kernel_image_md5sum": nil, "kernel_command_line": "",
		"legacy_networking": false, "replicate_network_connection_state": true, "tpm": false, "uefi": false,
		"create_config_disk": false, "on_close": "power_off", "cpu_throttling": 0.0, "process_priority": "low", "options": "",
	}
	if got := keysOf(want); !slices.Equal(got, qemuKeys) {
		t.Fatalf("the test's defaults have keys %v; want %v", got, qemuKeys)
	}
	stored := mustFindNode(t, svc, n)
	if got := qemuView(t, stored); !reflect.DeepEqual(got, want) {
		t.Errorf("a new QEMU node's properties:\n got %v\nwant %v", got, want)
	}
	if got := keysOf(stored.Properties.Extra); !slices.Equal(got, qemuKeys) {
		t.Errorf("stored keys %v; want every default kept with the node", got)
	}
	if n.ConsoleType != app.ConsoleTelnet || n.Console == 0 || len(n.Ports()) != 1 || n.Ports()[0].Name != "Ethernet0" {
		t.Errorf("console %s:%d, ports %+v; want a telnet console and one port Ethernet0", n.ConsoleType, n.Console, n.Ports())
	}

	// A node stored before nodedesk knew QEMU's properties (free-form
	// keys) shows GNS3's defaults for those it lacks.
	old := &app.Node{ID: qemuNodeID, Type: app.QEMU, Properties: app.Properties{Extra: map[string]json.RawMessage{
		"ram": json.RawMessage("1024"), "qemu_path": json.RawMessage(`"/usr/bin/qemu-system-aarch64"`), "mac_address": json.RawMessage("null")}}}
	v := qemuView(t, old)
	if v["ram"] != 1024.0 || v["platform"] != "aarch64" || v["mac_address"] != "0c:3a:9c:71:00:00" || v["on_close"] != "power_off" || len(v) != len(qemuKeys) {
		t.Errorf("an older node's properties %v; want its own, the platform its binary names and GNS3's defaults for the rest", v)
	}
}

// TestService_UpdateNode_QEMUProperties: a change is checked key by key
// against GNS3's schema; a refused change names the key and changes
// nothing; null puts a key back to its default; keys nodedesk does not
// know are kept as given.
func TestService_UpdateNode_QEMUProperties(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		give      map[string]any
		wantField string                      // "" for a change that is accepted
		want      map[string]any              // properties the node then shows
		check     func(*testing.T, *app.Node) // more to check, if any
	}{
		{"OK", map[string]any{"ram": 1024, "cpus": 2, "adapters": 3, "adapter_type": "virtio-net-pci", "on_close": "shutdown_signal",
			"boot_priority": "cd", "hda_disk_image": "alpine.qcow2", "hda_disk_interface": "virtio", "kernel_command_line": "console=ttyS0",
			"options": "-nographic", "linked_clone": false, "tpm": true, "cpu_throttling": 800, "process_priority": "very high",
			"mac_address": "0C:00:00:AA:bb:01", "usage": "root, no password"}, "",
			map[string]any{"ram": 1024.0, "cpus": 2.0, "adapters": 3.0, "adapter_type": "virtio-net-pci", "on_close": "shutdown_signal",
				"boot_priority": "cd", "hda_disk_image": "alpine.qcow2", "hda_disk_interface": "virtio", "linked_clone": false,
				"tpm": true, "mac_address": "0C:00:00:AA:bb:01", "process_priority": "very high"},
			func(t *testing.T, n *app.Node) {
				var names []string
				for _, p := range n.Ports() {
					names = append(names, p.Name)
				}
				if want := []string{"Ethernet0", "Ethernet1", "Ethernet2"}; !slices.Equal(names, want) {
					t.Errorf("ports %v; want one per adapter, %v", names, want)
				}
			}},
		{"NullIsTheDefault", map[string]any{"ram": nil, "mac_address": "", "process_priority": "null", "hda_disk_image_md5sum": nil}, "",
			map[string]any{"ram": 256.0, "mac_address": "0c:3a:9c:71:00:00", "process_priority": "low", "hda_disk_image_md5sum": nil}, nil},
		{"UnknownKeysKept", map[string]any{"future_setting": map[string]any{"a": 1}, "old_setting": nil}, "",
			map[string]any{"future_setting": map[string]any{"a": 1.0}, "old_setting": nil}, nil},
		{"NoAdapters", map[string]any{"adapters": 0}, "", map[string]any{"adapters": 0.0},
			func(t *testing.T, n *app.Node) {
				if len(n.Ports()) != 0 {
					t.Errorf("ports %+v; want none", n.Ports())
				}
			}},
		{"PlatformSetsBinary", map[string]any{"platform": "aarch64"}, "",
			map[string]any{"platform": "aarch64", "qemu_path": "qemu-system-aarch64"}, nil},
		{"BinarySetsPlatform", map[string]any{"qemu_path": "/usr/bin/qemu-system-i386"}, "",
			map[string]any{"platform": "i386", "qemu_path": "/usr/bin/qemu-system-i386"}, nil},
		{"WindowsBinary", map[string]any{"qemu_path": `C:\Program Files\GNS3\qemu-2.4.0\qemu-system-x86_64w.exe`}, "",
			map[string]any{"platform": "x86_64"}, nil},
		{"KVMBinary", map[string]any{"qemu_path": "/usr/libexec/qemu-kvm", "platform": "arm"}, "",
			map[string]any{"platform": "x86_64", "qemu_path": "/usr/libexec/qemu-kvm"}, nil},
		{"OwnBinaryWithPlatform", map[string]any{"qemu_path": "/opt/lab/run-guest", "platform": "ppc"}, "",
			map[string]any{"platform": "ppc", "qemu_path": "/opt/lab/run-guest"}, nil},
		{"EmptyBinaryIsThePlatforms", map[string]any{"qemu_path": "", "platform": ""}, "",
			map[string]any{"platform": "x86_64", "qemu_path": "qemu-system-x86_64"}, nil},
		{"ErrInvalidOwnBinaryAlone", map[string]any{"qemu_path": "/opt/lab/run-guest"}, "properties.qemu_path", nil, nil},
		{"ErrInvalidAdapters", map[string]any{"adapters": 276}, "properties.adapters", nil, nil},
		{"ErrInvalidAdaptersNegative", map[string]any{"adapters": -1}, "properties.adapters", nil, nil},
		{"ErrInvalidAdapterType", map[string]any{"adapter_type": "e1001"}, "properties.adapter_type", nil, nil},
		{"ErrInvalidOnClose", map[string]any{"on_close": "reboot"}, "properties.on_close", nil, nil},
		{"ErrInvalidBootPriority", map[string]any{"boot_priority": "x"}, "properties.boot_priority", nil, nil},
		{"ErrInvalidDiskInterface", map[string]any{"hdb_disk_interface": "usb"}, "properties.hdb_disk_interface", nil, nil},
		{"ErrInvalidPlatform", map[string]any{"platform": "z80"}, "properties.platform", nil, nil},
		{"ErrInvalidMAC", map[string]any{"mac_address": "0c:00:00:00:00"}, "properties.mac_address", nil, nil},
		{"ErrInvalidRAM", map[string]any{"ram": 0}, "properties.ram", nil, nil},
		{"ErrInvalidRAMString", map[string]any{"ram": "512"}, "properties.ram", nil, nil},
		{"ErrInvalidCPUs", map[string]any{"cpus": 256}, "properties.cpus", nil, nil},
		{"ErrInvalidCPUThrottling", map[string]any{"cpu_throttling": 801}, "properties.cpu_throttling", nil, nil},
		{"ErrInvalidProcessPriority", map[string]any{"process_priority": "urgent"}, "properties.process_priority", nil, nil},
		{"ErrInvalidLinkedClone", map[string]any{"linked_clone": "yes"}, "properties.linked_clone", nil, nil},
		{"ErrInvalidOptions", map[string]any{"options": 3}, "properties.options", nil, nil},
		{"ErrInvalidFirstWrongKeyNamed", map[string]any{"ram": 1024, "cpus": 0}, "properties.cpus", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := newService(t)
			n := mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, app.NodeCreate{Type: app.QEMU, ID: qemuNodeID})
			got, err := svc.UpdateNode(ctx, ref(n), app.NodeUpdate{Properties: qemuProps(t, tt.give)})
			if tt.wantField != "" {
				wantCode(t, err, app.EINVALID)
				if f := app.ErrorField(err); f != tt.wantField {
					t.Errorf("error field %q; want %q (%v)", f, tt.wantField, err)
				}
				if key := strings.TrimPrefix(tt.wantField, "properties."); !strings.HasPrefix(app.ErrorMessage(err), key) {
					t.Errorf("message %q does not start with the key %s", app.ErrorMessage(err), key)
				}
				if after := mustFindNode(t, svc, n); !reflect.DeepEqual(after, n) {
					t.Errorf("a refused change changed the node:\n got %+v\nwant %+v", after, n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			stored := mustFindNode(t, svc, n)
			for _, node := range []*app.Node{got, stored} {
				v := qemuView(t, node)
				for k, want := range tt.want {
					if !reflect.DeepEqual(v[k], want) {
						t.Errorf("%s = %v; want %v", k, v[k], want)
					}
				}
				if tt.check != nil {
					tt.check(t, node)
				}
			}
		})
	}
}

// TestService_UpdateNode_QEMUImageChecksum: a checksum is of the image
// it came with; a new image without one has none.
func TestService_UpdateNode_QEMUImageChecksum(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	n := mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, app.NodeCreate{Type: app.QEMU})
	sum := "0123456789abcdef0123456789abcdef"
	n, err := svc.UpdateNode(ctx, ref(n), app.NodeUpdate{Properties: qemuProps(t, map[string]any{
		"hda_disk_image": "a.qcow2", "hda_disk_image_md5sum": sum, "initrd": "initrd.img", "initrd_md5sum": sum})})
	if err != nil {
		t.Fatal(err)
	}
	if v := qemuView(t, n); v["hda_disk_image_md5sum"] != sum || v["initrd_md5sum"] != sum {
		t.Fatalf("checksums %v, %v; want both kept as given", v["hda_disk_image_md5sum"], v["initrd_md5sum"])
	}
	n, err = svc.UpdateNode(ctx, ref(n), app.NodeUpdate{Properties: qemuProps(t, map[string]any{"hda_disk_image": "b.qcow2", "initrd": "initrd.img"})})
	if err != nil {
		t.Fatal(err)
	}
	if v := qemuView(t, n); v["hda_disk_image_md5sum"] != nil || v["initrd_md5sum"] != sum {
		t.Errorf("checksums %v, %v; want the changed image's dropped, the same image's kept", v["hda_disk_image_md5sum"], v["initrd_md5sum"])
	}
}

// TestService_UpdateNode_QEMUConsole: a QEMU node's console is telnet,
// VNC or none; SPICE, which GNS3 also has, is refused (nodedesk serves
// VNC instead), and so is HTTP.
func TestService_UpdateNode_QEMUConsole(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	n := mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, app.NodeCreate{Type: app.QEMU})
	for _, ct := range []app.ConsoleType{app.ConsoleVNC, app.ConsoleNone, app.ConsoleTelnet} {
		got, err := svc.UpdateNode(ctx, ref(n), app.NodeUpdate{ConsoleType: app.Some(ct)})
		if err != nil || got.ConsoleType != ct {
			t.Errorf("console type %q: %v, %v", ct, got, err)
		}
	}
	for _, ct := range []app.ConsoleType{"spice", "spice+agent", app.ConsoleHTTP} {
		_, err := svc.UpdateNode(ctx, ref(n), app.NodeUpdate{ConsoleType: app.Some(ct)})
		wantCode(t, err, app.EINVALID)
		if !strings.Contains(app.ErrorMessage(err), "telnet, vnc, null") {
			t.Errorf("console type %s: message %q does not list the allowed ones", ct, app.ErrorMessage(err))
		}
	}
}

// TestService_DuplicateNode_QEMUMAC: a copy of a QEMU node has its own
// MAC address, derived from its own id, as GNS3 drops the MAC address
// when it duplicates a node; its other properties are the original's.
func TestService_DuplicateNode_QEMUMAC(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	n := mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, app.NodeCreate{Type: app.QEMU})
	for _, mac := range []string{"", "0c:11:22:33:00:00"} {
		if mac != "" {
			var err error
			if n, err = svc.UpdateNode(ctx, ref(n), app.NodeUpdate{Properties: qemuProps(t, map[string]any{"mac_address": mac, "ram": 512})}); err != nil {
				t.Fatal(err)
			}
		}
		dup, err := svc.DuplicateNode(ctx, ref(n), 10, 10, app.Field[int]{})
		if err != nil {
			t.Fatal(err)
		}
		stored := mustFindNode(t, svc, dup)
		orig, cp := qemuView(t, n), qemuView(t, stored)
		if cp["mac_address"] == orig["mac_address"] || !strings.HasPrefix(cp["mac_address"].(string), "0c:"+strings.ReplaceAll(dup.ID, "-", "")[2:4]) ||
			string(stored.Properties.Extra["mac_address"]) != `"`+cp["mac_address"].(string)+`"` {
			t.Errorf("copy of a node with MAC %s has MAC %s (stored %s); want its own, from its id %s",
				orig["mac_address"], cp["mac_address"], stored.Properties.Extra["mac_address"], dup.ID)
		}
		if cp["ram"] != orig["ram"] || cp["adapter_type"] != orig["adapter_type"] {
			t.Errorf("copy %v; want the original's other properties %v", cp, orig)
		}
	}
}

// TestService_DuplicateProject_QEMUMAC: a copy of a project keeps its
// QEMU nodes' MAC addresses, unless asked to reset them (GNS3's
// reset_mac_addresses): then each has the one of its new id, stored.
func TestService_DuplicateProject_QEMUMAC(t *testing.T) {
	ctx := context.Background()
	for _, reset := range []bool{false, true} {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		n := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.QEMU, ID: qemuNodeID})
		dup, err := svc.DuplicateProject(ctx, p.ID, app.ProjectDuplicate{Name: app.Some("copy"), ResetMACAddresses: reset})
		if err != nil {
			t.Fatal(err)
		}
		ns, err := svc.FindNodes(ctx, dup.ID)
		if err != nil || len(ns) != 1 {
			t.Fatalf("copy's nodes %v, %v", ns, err)
		}
		orig, cp := qemuView(t, n)["mac_address"], qemuView(t, ns[0])["mac_address"]
		var stored string
		_ = json.Unmarshal(ns[0].Properties.Extra["mac_address"], &stored)
		hex := strings.ReplaceAll(ns[0].ID, "-", "")
		want := orig
		if reset {
			want = "0c:" + hex[2:4] + ":" + hex[4:6] + ":" + hex[6:8] + ":00:00"
		}
		if cp != want || stored != want || ns[0].ID == n.ID {
			t.Errorf("reset %v: copy %s has MAC %v (stored %q); want %v", reset, ns[0].ID, cp, stored, want)
		}
	}
}

// TestNodeType_QEMU: the table row of QEMU: the image properties a start
// resolves, and a compute view with every key GNS3 2.2.59's compute shows.
func TestNodeType_QEMU(t *testing.T) {
	if got, want := app.QEMU.ImageProperties(), []string{"hda_disk_image", "hdb_disk_image", "hdc_disk_image", "hdd_disk_image",
		"cdrom_image", "bios_image", "kernel_image", "initrd"}; !slices.Equal(got, want) {
		t.Errorf("image properties %v; want %v", got, want)
	}
	if app.VPCS.ImageProperties() != nil {
		t.Errorf("VPCS image properties %v; want none", app.VPCS.ImageProperties())
	}
	want := slices.DeleteFunc(slices.Clone(qemuKeys), func(k string) bool { return k == "linked_clone" })
	want = append(want, "command_line", "console", "console_type", "node_directory")
	slices.Sort(want)
	if got := app.QEMU.ComputeView(); !slices.Equal(got, want) {
		t.Errorf("compute view %v; want %v", got, want)
	}
	if !app.QEMU.ComputeStartShowsNode() || !app.QEMU.UpdatesNIO() || !slices.Contains(app.ComputeTypes, app.QEMU) {
		t.Errorf("a GNS3 compute's QEMU start shows the node, and its NIOs take changes")
	}
}

// TestService_QEMUImagePaths: the images a local QEMU node names are kept
// as GNS3 2.2.59's compute keeps them (get_relative_image_path): an
// absolute path to a file inside an images folder, nodedesk's or GNS3's,
// becomes its path relative to that folder; and each image's *_md5sum is
// the sum of the file found (GNS3's md5sum, cached beside the image), at
// creation and at each change, whatever sum a client sent. A name found
// nowhere is kept as given, with the sum given, if any.
func TestService_QEMUImagePaths(t *testing.T) {
	ctx := context.Background()
	f := newImageFolders(t)
	p := mustCreateProject(t, f.svc, "lab")
	own := mustWriteFile(t, f.own, "alpine.qcow2", "alpine disk")
	sub := mustWriteFile(t, f.gns3, "vyos/vyos.qcow2", "vyos disk")
	kernel := mustWriteFile(t, f.gns3, "vmlinuz", "a kernel")
	shadowed := mustWriteFile(t, f.gns3, "alpine.qcow2", "GNS3's own alpine") // "alpine.qcow2" finds nodedesk's first
	outside := mustWriteFile(t, t.TempDir(), "elsewhere.img", "a BIOS")

	n := mustCreateNode(t, f.svc, p.ID, app.NodeCreate{Type: app.QEMU, NodeUpdate: app.NodeUpdate{Properties: qemuProps(t, map[string]any{
		"hda_disk_image": own, "hda_disk_image_md5sum": "0123456789abcdef0123456789abcdef", // a stale sum: the file's wins
		"hdb_disk_image": sub, "kernel_image": kernel, "initrd": "initrd.img", "initrd_md5sum": "fedcba9876543210fedcba9876543210",
		"cdrom_image": shadowed, "bios_image": outside,
	})}})
	want := map[string]any{
		"hda_disk_image": "alpine.qcow2", "hda_disk_image_md5sum": md5Of("alpine disk"),
		"hdb_disk_image": "vyos/vyos.qcow2", "hdb_disk_image_md5sum": md5Of("vyos disk"),
		"kernel_image": "vmlinuz", "kernel_image_md5sum": md5Of("a kernel"),
		"initrd": "initrd.img", "initrd_md5sum": "fedcba9876543210fedcba9876543210", // missing here: as given
		"cdrom_image": shadowed, "cdrom_image_md5sum": md5Of("GNS3's own alpine"),
		"bios_image": outside, "bios_image_md5sum": md5Of("a BIOS"),
		"hdc_disk_image": "", "hdc_disk_image_md5sum": nil,
	}
	stored := mustFindNode(t, f.svc, n)
	v := qemuView(t, stored)
	for k, w := range want {
		if v[k] != w {
			t.Errorf("created: %s = %v, want %v", k, v[k], w)
		}
	}
	if b, err := os.ReadFile(own + ".md5sum"); err != nil || strings.TrimSpace(string(b)) != md5Of("alpine disk") {
		t.Errorf("sum kept beside the image: %q, %v", b, err)
	}
	if _, err := os.Stat(outside + ".md5sum"); err == nil {
		t.Errorf("a sum was written beside %s, outside the images folders", outside)
	}
	// The node starts with the images it names.
	got, err := f.svc.ImagePath(app.QEMUImages, v["hdb_disk_image"].(string))
	if err != nil || got != sub {
		t.Errorf("kept name %v finds %q, %v; want %s", v["hdb_disk_image"], got, err, sub)
	}

	// A change: the same, whatever sum the client sends; an image
	// changed to a missing one loses the old image's sum.
	other := mustWriteFile(t, f.own, "deb/debian.qcow2", "debian disk")
	n, err = f.svc.UpdateNode(ctx, ref(n), app.NodeUpdate{Properties: qemuProps(t, map[string]any{
		"hda_disk_image": other, "hda_disk_image_md5sum": md5Of("alpine disk"), "kernel_image": "gone-vmlinuz",
	})})
	if err != nil {
		t.Fatal(err)
	}
	v = qemuView(t, mustFindNode(t, f.svc, n))
	for k, w := range map[string]any{"hda_disk_image": "deb/debian.qcow2", "hda_disk_image_md5sum": md5Of("debian disk"),
		"kernel_image": "gone-vmlinuz", "kernel_image_md5sum": nil, "hdb_disk_image": "vyos/vyos.qcow2"} {
		if v[k] != w {
			t.Errorf("updated: %s = %v, want %v", k, v[k], w)
		}
	}
}
