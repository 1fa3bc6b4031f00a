package app_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"nodedesk/app"
)

// The builtin templates under GNS3's fixed ids, which scripts name.
var builtinTemplates = map[string]struct {
	name     string
	typ      app.NodeType
	category string
}{
	"19021f99-e36f-394d-b4a1-8aaa902ab9cc": {"VPCS", app.VPCS, "guest"},
	"1966b864-93e7-32d5-965f-001384eec461": {"Ethernet switch", app.EthernetSwitch, "switch"},
	"b4503ea9-d6b6-3695-9fe4-1db3b39290b0": {"Ethernet hub", app.EthernetHub, "switch"},
	"dd0f6f3a-ba58-3249-81cb-a1dd88407a47": {"Frame Relay switch", app.FrameRelaySwitch, "switch"},
	"39e257dc-8412-3174-b6b3-0ee3ed6a43e9": {"Cloud", app.Cloud, "guest"},
	"df8f4ea9-33b7-3e96-86a2-c39bc9bb649c": {"NAT", app.NAT, "guest"},
	"aaa764e2-b383-300f-8a0e-3493bbfdb7d2": {"ATM switch", app.ATMSwitch, "switch"},
}

const vpcsTemplateID = "19021f99-e36f-394d-b4a1-8aaa902ab9cc"

// settings is a template as a client sends it.
func templateSettings(tb testing.TB, kv map[string]any) app.TemplateSettings {
	tb.Helper()
	ts := app.TemplateSettings{}
	for k, v := range kv {
		raw, err := json.Marshal(v)
		if err != nil {
			tb.Fatal(err)
		}
		ts[k] = raw
	}
	return ts
}

func mustCreateTemplate(tb testing.TB, svc *app.Service, kv map[string]any) *app.Template {
	tb.Helper()
	t, err := svc.CreateTemplate(context.Background(), templateSettings(tb, kv))
	if err != nil {
		tb.Fatalf("CreateTemplate(%v): %v", kv, err)
	}
	return t
}

func TestService_FindTemplates(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	mine := mustCreateTemplate(t, svc, map[string]any{"template_type": "vpcs", "name": "Mine"})
	ts, err := svc.FindTemplates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != len(builtinTemplates)+1 {
		t.Fatalf("%d templates; want the %d builtins and one of the user's", len(ts), len(builtinTemplates))
	}
	for _, tmpl := range ts[:len(builtinTemplates)] {
		want, ok := builtinTemplates[tmpl.ID]
		if !ok || tmpl.Name != want.name || tmpl.Type != want.typ || tmpl.Category != want.category || !tmpl.Builtin {
			t.Errorf("builtin template %+v; want %+v under GNS3's id", tmpl, want)
		}
	}
	if last := ts[len(ts)-1]; last.ID != mine.ID || last.Builtin {
		t.Errorf("last template %+v; want the user's %s after the builtins", last, mine.ID)
	}

	vpcs, err := svc.FindTemplateByID(ctx, vpcsTemplateID)
	if err != nil {
		t.Fatal(err)
	}
	if vpcs.DefaultNameFormat != "PC{0}" || string(vpcs.Settings["base_script_file"]) != `"vpcs_base_config.txt"` {
		t.Errorf("VPCS template %+v; want GNS3's name format and base script file", vpcs)
	}
	for _, id := range []string{uuid.NewString(), "not-a-uuid"} {
		_, err := svc.FindTemplateByID(ctx, id)
		wantCode(t, err, app.ENOTFOUND)
	}
}

func TestService_CreateTemplate(t *testing.T) {
	ctx := context.Background()

	t.Run("OK", func(t *testing.T) {
		svc, _ := newService(t)
		tmpl := mustCreateTemplate(t, svc, map[string]any{"template_type": "vpcs", "name": "My PC", "compute_id": "local",
			"default_name_format": "{name}-{0}", "category": 2, "console_type": "none", "console_auto_start": true,
			"symbol": ":/symbols/computer.svg"})
		if tmpl.Name != "My PC" || tmpl.Type != app.VPCS || tmpl.Category != "guest" || tmpl.Builtin ||
			tmpl.ComputeID == nil || *tmpl.ComputeID != "local" || tmpl.DefaultNameFormat != "{name}-{0}" {
			t.Errorf("template %+v", tmpl)
		}
		for k, want := range map[string]string{"console_type": `"none"`, "console_auto_start": "true"} {
			if got := string(tmpl.Settings[k]); got != want {
				t.Errorf("setting %s = %s; want %s", k, got, want)
			}
		}
		if _, ok := tmpl.Settings["name"]; ok {
			t.Errorf("settings %v hold a common key", tmpl.Settings)
		}
		if got, err := svc.FindTemplateByID(ctx, tmpl.ID); err != nil || got.Name != "My PC" {
			t.Errorf("stored template = %+v, %v", got, err)
		}
	})

	t.Run("TypeDefaults", func(t *testing.T) {
		svc, _ := newService(t)
		sw := mustCreateTemplate(t, svc, map[string]any{"template_type": "ethernet_switch", "name": "Core", "compute_id": nil})
		if sw.DefaultNameFormat != "Switch{0}" || sw.Category != "switch" || sw.Symbol != ":/symbols/ethernet_switch.svg" || sw.ComputeID != nil {
			t.Errorf("switch template %+v; want the type's name format, category and symbol, no compute", sw)
		}
	})

	t.Run("CategoryByName", func(t *testing.T) {
		svc, _ := newService(t)
		tmpl := mustCreateTemplate(t, svc, map[string]any{"template_type": "vpcs", "name": "fw", "category": "firewall"})
		if tmpl.Category != "firewall" {
			t.Errorf("category %q; want firewall", tmpl.Category)
		}
	})

	tests := []struct {
		name      string
		give      map[string]any
		wantCode  string
		wantField string
	}{
		{"ErrInvalidNoName", map[string]any{"template_type": "vpcs"}, app.EINVALID, "name"},
		{"ErrInvalidEmptyName", map[string]any{"template_type": "vpcs", "name": ""}, app.EINVALID, "name"},
		{"ErrInvalidNoType", map[string]any{"name": "x"}, app.EINVALID, "template_type"},
		{"ErrInvalidUnknownType", map[string]any{"name": "x", "template_type": "router"}, app.EINVALID, "template_type"},
		{"ErrInvalidCategory", map[string]any{"name": "x", "template_type": "vpcs", "category": "toaster"}, app.EINVALID, "category"},
		{"ErrInvalidCategoryIndex", map[string]any{"name": "x", "template_type": "vpcs", "category": 4}, app.EINVALID, "category"},
		{"ErrInvalidEmptySymbol", map[string]any{"name": "x", "template_type": "vpcs", "symbol": ""}, app.EINVALID, "symbol"},
		{"ErrInvalidTemplateID", map[string]any{"name": "x", "template_type": "vpcs", "template_id": "t1"}, app.EINVALID, "template_id"},
		{"ErrInvalidNameNotAString", map[string]any{"name": 3, "template_type": "vpcs"}, app.EINVALID, "name"},
		{"ErrConflictBuiltinID", map[string]any{"name": "x", "template_type": "vpcs", "template_id": vpcsTemplateID}, app.ECONFLICT, "template_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := newService(t)
			_, err := svc.CreateTemplate(ctx, templateSettings(t, tt.give))
			wantCode(t, err, tt.wantCode)
			if got := app.ErrorField(err); got != tt.wantField {
				t.Errorf("error field = %q; want %q (%v)", got, tt.wantField, err)
			}
			if ts, _ := svc.FindTemplates(ctx); len(ts) != len(builtinTemplates) {
				t.Errorf("a refused create stored a template: %d templates", len(ts))
			}
		})
	}

	t.Run("ErrConflictIDTaken", func(t *testing.T) {
		svc, _ := newService(t)
		tmpl := mustCreateTemplate(t, svc, map[string]any{"template_type": "vpcs", "name": "a"})
		_, err := svc.CreateTemplate(ctx, templateSettings(t, map[string]any{"template_type": "vpcs", "name": "b", "template_id": tmpl.ID}))
		wantCode(t, err, app.ECONFLICT)
		if got, _ := svc.FindTemplateByID(ctx, tmpl.ID); got == nil || got.Name != "a" {
			t.Errorf("template after a refused create = %+v; want name a", got)
		}
	})
}

func TestService_UpdateTemplate(t *testing.T) {
	ctx := context.Background()

	t.Run("OKKeysGivenReplace", func(t *testing.T) {
		svc, _ := newService(t)
		tmpl := mustCreateTemplate(t, svc, map[string]any{"template_type": "vpcs", "name": "PC", "console_type": "none", "console_auto_start": true})
		got, err := svc.UpdateTemplate(ctx, tmpl.ID, templateSettings(t, map[string]any{"name": "Host", "console_type": "telnet", "template_type": "qemu"}))
		if err != nil {
			t.Fatal(err)
		}
		if got.Name != "Host" || got.Type != app.VPCS || string(got.Settings["console_type"]) != `"telnet"` ||
			string(got.Settings["console_auto_start"]) != "true" {
			t.Errorf("updated %+v; want the name and console type changed, the rest kept, the type ignored", got)
		}
		if stored, _ := svc.FindTemplateByID(ctx, tmpl.ID); stored == nil || stored.Name != "Host" {
			t.Errorf("stored %+v", stored)
		}
	})

	t.Run("ErrInvalidLeavesTemplate", func(t *testing.T) {
		svc, _ := newService(t)
		tmpl := mustCreateTemplate(t, svc, map[string]any{"template_type": "vpcs", "name": "PC"})
		_, err := svc.UpdateTemplate(ctx, tmpl.ID, templateSettings(t, map[string]any{"name": "", "console_type": "telnet"}))
		wantCode(t, err, app.EINVALID)
		if stored, _ := svc.FindTemplateByID(ctx, tmpl.ID); stored == nil || stored.Name != "PC" || stored.Settings["console_type"] != nil {
			t.Errorf("stored after a refused update: %+v", stored)
		}
	})

	t.Run("ErrConflictBuiltin", func(t *testing.T) {
		svc, _ := newService(t)
		_, err := svc.UpdateTemplate(ctx, vpcsTemplateID, templateSettings(t, map[string]any{"name": "mine"}))
		wantCode(t, err, app.ECONFLICT)
		if !strings.Contains(app.ErrorMessage(err), "builtin") {
			t.Errorf("message %q does not say it is a builtin", app.ErrorMessage(err))
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		svc, _ := newService(t)
		_, err := svc.UpdateTemplate(ctx, uuid.NewString(), templateSettings(t, map[string]any{"name": "x"}))
		wantCode(t, err, app.ENOTFOUND)
	})
}

func TestService_DeleteTemplate(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	tmpl := mustCreateTemplate(t, svc, map[string]any{"template_type": "vpcs", "name": "PC"})
	if err := svc.DeleteTemplate(ctx, tmpl.ID); err != nil {
		t.Fatal(err)
	}
	_, err := svc.FindTemplateByID(ctx, tmpl.ID)
	wantCode(t, err, app.ENOTFOUND)
	wantCode(t, svc.DeleteTemplate(ctx, tmpl.ID), app.ENOTFOUND)
	wantCode(t, svc.DeleteTemplate(ctx, vpcsTemplateID), app.ECONFLICT)
	if _, err := svc.FindTemplateByID(ctx, vpcsTemplateID); err != nil {
		t.Errorf("builtin gone after a refused delete: %v", err)
	}
}

func TestService_DuplicateTemplate(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	tmpl := mustCreateTemplate(t, svc, map[string]any{"template_type": "vpcs", "name": "Host", "console_auto_start": true})
	dup, err := svc.DuplicateTemplate(ctx, tmpl.ID)
	if err != nil {
		t.Fatal(err)
	}
	if dup.ID == tmpl.ID || dup.Name != "Host" || dup.Builtin || string(dup.Settings["console_auto_start"]) != "true" {
		t.Errorf("duplicate %+v of %+v; want a new id, the same name and settings", dup, tmpl)
	}
	ts, _ := svc.FindTemplates(ctx)
	if len(ts) != len(builtinTemplates)+2 || ts[len(ts)-1].ID != dup.ID {
		t.Errorf("templates after duplicate: %d, last %s; want the copy last", len(ts), ts[len(ts)-1].ID)
	}
	_, err = svc.DuplicateTemplate(ctx, vpcsTemplateID)
	wantCode(t, err, app.ECONFLICT)
	_, err = svc.DuplicateTemplate(ctx, uuid.NewString())
	wantCode(t, err, app.ENOTFOUND)
}

func TestService_CreateNodeFromTemplate(t *testing.T) {
	ctx := context.Background()

	t.Run("Builtins", func(t *testing.T) {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		for id, want := range builtinTemplates {
			n, err := svc.CreateNodeFromTemplate(ctx, p.ID, id, app.TemplateUse{X: 10, Y: 20})
			if err != nil {
				t.Fatalf("%s: %v", want.name, err)
			}
			if n.Type != want.typ || n.TemplateID == nil || *n.TemplateID != id || n.X != 10 || n.Y != 20 {
				t.Errorf("%s: node %+v", want.name, n)
			}
		}
	})

	t.Run("VPCSBaseScript", func(t *testing.T) {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		first, err := svc.CreateNodeFromTemplate(ctx, p.ID, vpcsTemplateID, app.TemplateUse{})
		if err != nil {
			t.Fatal(err)
		}
		if first.Name != "PC1" || first.Properties.StartupScript == nil || *first.Properties.StartupScript != "set pcname PC1\n" {
			t.Errorf("first VPCS %q with script %v; want PC1 with GNS3's base script naming it", first.Name, first.Properties.StartupScript)
		}
		named, err := svc.CreateNodeFromTemplate(ctx, p.ID, vpcsTemplateID, app.TemplateUse{Name: app.Some("client")})
		if err != nil || named.Name != "client" {
			t.Errorf("named node = %v, %v; want client", named, err)
		}
		second, err := svc.CreateNodeFromTemplate(ctx, p.ID, vpcsTemplateID, app.TemplateUse{})
		if err != nil || second.Name != "PC2" {
			t.Errorf("second node = %v, %v; want PC2", second, err)
		}
	})

	t.Run("UserTemplateSettings", func(t *testing.T) {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		tmpl := mustCreateTemplate(t, svc, map[string]any{"template_type": "vpcs", "name": "Host",
			"default_name_format": "{name}-{0}", "console_type": "telnet", "console_auto_start": true,
			"base_script_file": "vpcs_base_config.txt", "symbol": ":/symbols/computer.svg"})
		n, err := svc.CreateNodeFromTemplate(ctx, p.ID, tmpl.ID, app.TemplateUse{X: 10, Y: 20})
		if err != nil {
			t.Fatal(err)
		}
		if n.Name != "Host-1" || n.ConsoleType != app.ConsoleTelnet || !n.ConsoleAutoStart || n.Symbol == nil ||
			*n.Symbol != ":/symbols/computer.svg" || n.X != 10 {
			t.Errorf("node from the user template %+v", n)
		}
		if n.Properties.StartupScript == nil || *n.Properties.StartupScript != "set pcname Host-1\n" {
			t.Errorf("script %v; want the base script file's, naming the node", n.Properties.StartupScript)
		}

		sw := mustCreateTemplate(t, svc, map[string]any{"template_type": "ethernet_switch", "name": "Core",
			"ports_mapping": []any{map[string]any{"name": "Ethernet0", "port_number": 0, "type": "access", "vlan": 10},
				map[string]any{"name": "Ethernet1", "port_number": 1, "type": "dot1q", "vlan": 1}}})
		s, err := svc.CreateNodeFromTemplate(ctx, p.ID, sw.ID, app.TemplateUse{})
		if err != nil {
			t.Fatal(err)
		}
		ports := s.Properties.SwitchPorts
		if s.Name != "Switch1" || len(ports) != 2 || ports[0].VLAN != 10 || ports[1].Type != "dot1q" {
			t.Errorf("switch from the user template: %q %+v", s.Name, ports)
		}
	})

	t.Run("ErrInvalidSettingsShape", func(t *testing.T) {
		svc, _ := newService(t)
		_, err := svc.CreateTemplate(ctx, templateSettings(t, map[string]any{"template_type": "ethernet_switch", "name": "Bad",
			"ports_mapping": "all of them"}))
		wantCode(t, err, app.EINVALID)
	})

	t.Run("ErrInvalidNodeFromSettings", func(t *testing.T) {
		// The type's rules hold for a node made from a template: a VLAN
		// out of range is refused, and no node is made.
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		tmpl, err := svc.CreateTemplate(ctx, templateSettings(t, map[string]any{"template_type": "ethernet_switch", "name": "Bad",
			"ports_mapping": []any{map[string]any{"name": "e0", "port_number": 0, "type": "access", "vlan": 5000}}}))
		if err != nil {
			wantCode(t, err, app.EINVALID) // refused up front is as good
			return
		}
		_, err = svc.CreateNodeFromTemplate(ctx, p.ID, tmpl.ID, app.TemplateUse{})
		wantCode(t, err, app.EINVALID)
		if ns, _ := svc.FindNodes(ctx, p.ID); len(ns) != 0 {
			t.Errorf("a refused create left %d nodes", len(ns))
		}
	})

	tests := []struct {
		name       string
		templateID string
		projectID  func(p *app.Project) string
		use        app.TemplateUse
		wantCode   string
	}{
		{"ErrNotFoundTemplate", uuid.NewString(), func(p *app.Project) string { return p.ID }, app.TemplateUse{}, app.ENOTFOUND},
		{"ErrNotFoundProject", vpcsTemplateID, func(*app.Project) string { return uuid.NewString() }, app.TemplateUse{}, app.ENOTFOUND},
		{"ErrNotFoundProjectNone", vpcsTemplateID, func(*app.Project) string { return "None" }, app.TemplateUse{}, app.ENOTFOUND},
		{"ErrNotFoundCompute", vpcsTemplateID, func(p *app.Project) string { return p.ID }, app.TemplateUse{ComputeID: app.Some("vm")}, app.ENOTFOUND},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := newService(t)
			p := mustCreateProject(t, svc, "lab")
			_, err := svc.CreateNodeFromTemplate(ctx, tt.projectID(p), tt.templateID, tt.use)
			wantCode(t, err, tt.wantCode)
			if ns, _ := svc.FindNodes(ctx, p.ID); len(ns) != 0 {
				t.Errorf("a refused create left %d nodes", len(ns))
			}
		})
	}

	t.Run("DeletedTemplate", func(t *testing.T) {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		tmpl := mustCreateTemplate(t, svc, map[string]any{"template_type": "vpcs", "name": "gone"})
		if err := svc.DeleteTemplate(ctx, tmpl.ID); err != nil {
			t.Fatal(err)
		}
		_, err := svc.CreateNodeFromTemplate(ctx, p.ID, tmpl.ID, app.TemplateUse{})
		wantCode(t, err, app.ENOTFOUND)
	})
}

// qemuWizardTemplate is the body the GNS3 2.2.59 GUI's "New QEMU VM
// template" wizard posts: its QEMU defaults updated with the wizard's
// answers (name, RAM, binary, disk, console).
func qemuWizardTemplate(id string) map[string]any {
	return map[string]any{
		"template_id": id, "template_type": "qemu", "name": "Alpine", "default_name_format": "{name}-{0}", "usage": "",
		"symbol": ":/symbols/qemu_guest.svg", "category": 2, "port_name_format": "Ethernet{0}", "port_segment_size": 0,
		"first_port_name": "", "custom_adapters": []any{}, "qemu_path": "/usr/bin/qemu-system-x86_64",
		"hda_disk_image": "alpine.qcow2", "hdb_disk_image": "", "hdc_disk_image": "", "hdd_disk_image": "",
		"hda_disk_interface": "ide", "hdb_disk_interface": "none", "hdc_disk_interface": "none", "hdd_disk_interface": "none",
		"cdrom_image": "", "bios_image": "", "boot_priority": "c", "console_type": "telnet", "console_auto_start": false,
		"ram": 512, "cpus": 1, "adapters": 1, "adapter_type": "e1000", "mac_address": "", "legacy_networking": false,
		"replicate_network_connection_state": true, "tpm": false, "uefi": false, "create_config_disk": false,
		"on_close": "power_off", "platform": "", "cpu_throttling": 0, "process_priority": "normal", "options": "",
		"kernel_image": "", "initrd": "", "kernel_command_line": "", "linked_clone": true, "compute_id": "local",
	}
}

// qemuTemplateDefaults are GNS3 2.2.59's defaults of a QEMU template's
// own settings (schemas/qemu_template.py).
var qemuTemplateDefaults = map[string]string{
	"qemu_path": `""`, "usage": `""`, "platform": `""`, "linked_clone": "true", "ram": "256", "cpus": "1", "adapters": "1",
	"adapter_type": `"e1000"`, "mac_address": `""`, "first_port_name": `""`, "port_name_format": `"Ethernet{0}"`,
	"port_segment_size": "0", "console_type": `"telnet"`, "console_auto_start": "false", "boot_priority": `"c"`,
	"hda_disk_image": `""`, "hda_disk_interface": `"none"`, "hdb_disk_image": `""`, "hdb_disk_interface": `"none"`,
	"hdc_disk_image": `""`, "hdc_disk_interface": `"none"`, "hdd_disk_image": `""`, "hdd_disk_interface": `"none"`,
	"cdrom_image": `""`, "initrd": `""`, "kernel_image": `""`, "bios_image": `""`, "kernel_command_line": `""`,
	"legacy_networking": "false", "replicate_network_connection_state": "true", "tpm": "false", "uefi": "false",
	"create_config_disk": "false", "on_close": `"power_off"`, "cpu_throttling": "0", "process_priority": `"normal"`,
	"options": `""`, "custom_adapters": "[]",
}

func TestService_CreateTemplate_QEMU(t *testing.T) {
	ctx := context.Background()

	t.Run("Defaults", func(t *testing.T) {
		svc, _ := newService(t)
		tmpl := mustCreateTemplate(t, svc, map[string]any{"template_type": "qemu", "name": "VM", "compute_id": "local"})
		if tmpl.Category != "guest" || tmpl.DefaultNameFormat != "{name}-{0}" || tmpl.Symbol != ":/symbols/qemu_guest.svg" {
			t.Errorf("template %+v; want GNS3's QEMU category, name format and symbol", tmpl)
		}
		if got := keysOf(tmpl.Settings); !slices.Equal(got, keysOf(qemuTemplateDefaults)) {
			t.Errorf("settings %v; want GNS3's %v", got, keysOf(qemuTemplateDefaults))
		}
		for k, want := range qemuTemplateDefaults {
			if got := string(tmpl.Settings[k]); got != want {
				t.Errorf("setting %s = %s; want %s", k, got, want)
			}
		}
		if stored, err := svc.FindTemplateByID(ctx, tmpl.ID); err != nil || !reflect.DeepEqual(stored.Settings, tmpl.Settings) {
			t.Errorf("stored template %+v, %v; want %+v", stored, err, tmpl)
		}
	})

	t.Run("Wizard", func(t *testing.T) {
		svc, _ := newService(t)
		id := uuid.NewString()
		tmpl := mustCreateTemplate(t, svc, qemuWizardTemplate(id))
		if tmpl.ID != id || tmpl.Name != "Alpine" || tmpl.Category != "guest" || string(tmpl.Settings["ram"]) != "512" ||
			string(tmpl.Settings["qemu_path"]) != `"/usr/bin/qemu-system-x86_64"` || string(tmpl.Settings["hda_disk_interface"]) != `"ide"` {
			t.Errorf("wizard's template %+v", tmpl)
		}

		p := mustCreateProject(t, svc, "lab")
		n, err := svc.CreateNodeFromTemplate(ctx, p.ID, id, app.TemplateUse{X: 5, Y: 6})
		if err != nil {
			t.Fatal(err)
		}
		v, hex := qemuView(t, n), strings.ReplaceAll(n.ID, "-", "")
		want := map[string]any{"ram": 512.0, "hda_disk_image": "alpine.qcow2", "hda_disk_interface": "ide",
			"qemu_path": "/usr/bin/qemu-system-x86_64", "platform": "x86_64", "process_priority": "normal",
			"mac_address": "0c:" + hex[2:4] + ":" + hex[4:6] + ":" + hex[6:8] + ":00:00", "linked_clone": true, "adapters": 1.0}
		for k, w := range want {
			if v[k] != w {
				t.Errorf("node's %s = %v; want %v", k, v[k], w)
			}
		}
		if n.Name != "Alpine-1" || n.Type != app.QEMU || n.ConsoleType != app.ConsoleTelnet || n.TemplateID == nil ||
			*n.TemplateID != id || len(n.Ports()) != 1 || n.Ports()[0].Name != "Ethernet0" || n.X != 5 {
			t.Errorf("node from the wizard's template %+v", n)
		}
		if keys := keysOf(v); !slices.Equal(keys, qemuKeys) {
			t.Errorf("node's properties %v; want %v (the template's own keys, such as port_name_format, are the node's fields)", keys, qemuKeys)
		}
	})

	tests := []struct {
		name      string
		give      map[string]any
		wantField string
	}{
		{"ErrInvalidRAM", map[string]any{"ram": 0}, "ram"},
		{"ErrInvalidAdapterType", map[string]any{"adapter_type": "3c905"}, "adapter_type"},
		{"ErrInvalidDiskInterface", map[string]any{"hda_disk_interface": "usb"}, "hda_disk_interface"},
		{"ErrInvalidMAC", map[string]any{"mac_address": "nope"}, "mac_address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := newService(t)
			body := map[string]any{"template_type": "qemu", "name": "VM", "compute_id": "local"}
			for k, v := range tt.give {
				body[k] = v
			}
			_, err := svc.CreateTemplate(ctx, templateSettings(t, body))
			wantCode(t, err, app.EINVALID)
			if got := app.ErrorField(err); got != tt.wantField {
				t.Errorf("error field %q; want %q (%v)", got, tt.wantField, err)
			}
			if ts, _ := svc.FindTemplates(ctx); len(ts) != len(builtinTemplates) {
				t.Errorf("a refused template was stored: %d templates", len(ts))
			}
		})
	}
}

// TestService_TemplateEvents: each committed change of a user template is
// announced once, with the template as it is shown (before, for a
// delete), as GNS3's controller announces it; a refused or empty change
// announces nothing.
func TestService_TemplateEvents(t *testing.T) {
	ctx := context.Background()
	svc, b := newService(t)
	events, stop := b.Subscribe(64)
	defer stop()
	type want struct {
		action app.EventAction
		tmpl   *app.Template
	}
	check := func(step string, wants ...want) {
		t.Helper()
		evs := drain(events)
		if len(evs) != len(wants) {
			t.Fatalf("%s: events %+v; want %d", step, evs, len(wants))
		}
		for i, w := range wants {
			got, ok := evs[i].Payload.(*app.Template)
			if evs[i].Action != w.action || !ok || evs[i].ProjectID != "" || !sameTemplate(*got, *w.tmpl) {
				t.Errorf("%s: event %d %s %+v; want %s %+v", step, i, evs[i].Action, evs[i].Payload, w.action, *w.tmpl)
			}
		}
	}
	shown := func(id string) *app.Template {
		t.Helper()
		tp, err := svc.FindTemplateByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return tp
	}

	tmpl := mustCreateTemplate(t, svc, map[string]any{"template_type": "vpcs", "name": "PC"})
	check("create", want{app.EventTemplateCreated, shown(tmpl.ID)})

	_, err := svc.CreateTemplate(ctx, templateSettings(t, map[string]any{"template_type": "vpcs", "name": "PC", "template_id": tmpl.ID}))
	wantCode(t, err, app.ECONFLICT)
	_, err = svc.UpdateTemplate(ctx, tmpl.ID, templateSettings(t, map[string]any{"name": ""}))
	wantCode(t, err, app.EINVALID)
	if _, err := svc.UpdateTemplate(ctx, tmpl.ID, templateSettings(t, map[string]any{"name": "PC"})); err != nil {
		t.Fatal(err)
	}
	check("refused and empty changes")

	if _, err := svc.UpdateTemplate(ctx, tmpl.ID, templateSettings(t, map[string]any{"name": "Host"})); err != nil {
		t.Fatal(err)
	}
	host := shown(tmpl.ID)
	check("update", want{app.EventTemplateUpdated, host})

	dup, err := svc.DuplicateTemplate(ctx, tmpl.ID)
	if err != nil {
		t.Fatal(err)
	}
	check("duplicate", want{app.EventTemplateCreated, shown(dup.ID)})

	wantCode(t, svc.DeleteTemplate(ctx, vpcsTemplateID), app.ECONFLICT)
	if err := svc.DeleteTemplate(ctx, tmpl.ID); err != nil {
		t.Fatal(err)
	}
	check("delete", want{app.EventTemplateDeleted, host})
}

// sameTemplate reports whether a and b are the same template, no settings
// and an empty map of them alike.
func sameTemplate(a, b app.Template) bool {
	if len(a.Settings) == 0 && len(b.Settings) == 0 {
		a.Settings, b.Settings = nil, nil
	}
	return reflect.DeepEqual(a, b)
}
