package app_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"nodedesk/app"
)

// The appliance files below are written for these tests, in the shapes of
// the GNS3 registry's versions 6 and 8.

// routerAppliance is a registry-6 file of a router with three versions:
// 1.3 (its disk present under its own name), 1.2 (a kernel and an initrd,
// the kernel present under another name) and 1.4 (its disk missing).
func routerAppliance(kvm string) string {
	return `{
	"name": "TestRouter", "category": "router", "description": "A router for tests.",
	"vendor_name": "nodedesk", "vendor_url": "http://localhost/", "product_name": "TestRouter",
	"registry_version": 6, "status": "stable", "maintainer": "nodedesk", "maintainer_email": "nobody@localhost",
	"usage": "Log in as admin.", "symbol": "testrouter.svg",
	"first_port_name": "mgmt0", "port_name_format": "eth{0}", "linked_clone": true,
	"qemu": {"adapter_type": "virtio-net-pci", "adapters": 4, "ram": 512, "cpus": 2, "hda_disk_interface": "virtio",
		"arch": "x86_64", "console_type": "telnet", "boot_priority": "c", "kvm": "` + kvm + `", "options": "-nographic"},
	"images": [
		{"filename": "router-1.3.qcow2", "version": "1.3", "md5sum": "` + md5Of("router 1.3") + `", "filesize": 10},
		{"filename": "router-1.4.qcow2", "version": "1.4", "md5sum": "` + md5Of("router 1.4") + `", "filesize": 10,
		 "download_url": "http://localhost/router", "direct_download_url": "http://localhost/router-1.4.qcow2"},
		{"filename": "vmlinuz-1.2", "version": "1.2", "md5sum": "` + md5Of("kernel 1.2") + `", "filesize": 10},
		{"filename": "initrd-1.2.img", "version": "1.2", "md5sum": "` + md5Of("initrd 1.2") + `", "filesize": 10}
	],
	"versions": [
		{"name": "1.4", "images": {"hda_disk_image": "router-1.4.qcow2"}},
		{"name": "1.3", "images": {"hda_disk_image": "router-1.3.qcow2"}},
		{"name": "1.2", "images": {"kernel_image": "vmlinuz-1.2", "initrd": "initrd-1.2.img"}}
	]
}`
}

// switchAppliance is a registry-8 file: a default settings set and a
// named one that inherits it, a version of each, sums as checksum.
const switchAppliance = `{
	"appliance_id": "6a7b8c9d-0000-4000-8000-000000000001",
	"name": "TestSwitch", "category": "multilayer_switch", "description": "A switch for tests.",
	"vendor_name": "nodedesk", "vendor_url": "http://localhost/", "product_name": "TestSwitch",
	"registry_version": 8, "status": "stable", "maintainer": "nodedesk", "maintainer_email": "nobody@localhost",
	"settings": [
		{"default": true, "template_type": "qemu",
		 "template_properties": {"platform": "x86_64", "ram": 1024, "adapters": 8, "adapter_type": "e1000", "console_type": "telnet", "linked_clone": true}},
		{"name": "big", "template_type": "qemu", "template_properties": {"ram": 4096, "cpus": 4}}
	],
	"images": [
		{"filename": "switch.qcow2", "version": "2.0", "checksum": "CHECKSUM", "checksum_type": "md5", "filesize": 9}
	],
	"versions": [
		{"name": "2.0", "images": {"hda_disk_image": "switch.qcow2"}},
		{"name": "2.0 big", "settings": "big", "symbol": ":/symbols/router.svg", "images": {"hda_disk_image": "switch.qcow2"}}
	]
}`

// settingsOf decodes a template's settings.
func settingsOf(tb testing.TB, t *app.Template) map[string]any {
	tb.Helper()
	out := map[string]any{}
	for k, raw := range t.Settings {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			tb.Fatal(err)
		}
		out[k] = v
	}
	return out
}

// userTemplates counts the templates that are not builtins.
func userTemplates(tb testing.TB, svc *app.Service) int {
	tb.Helper()
	ts, err := svc.FindTemplates(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	for _, t := range ts {
		if !t.Builtin {
			n++
		}
	}
	return n
}

func TestService_ImportAppliance(t *testing.T) {
	ctx := context.Background()

	t.Run("Registry6", func(t *testing.T) {
		f := newImageFolders(t)
		mustWriteFile(t, f.own, "router-1.3.qcow2", "router 1.3")
		mustWriteFile(t, f.gns3, "kernels/renamed-kernel", "kernel 1.2")
		mustWriteFile(t, f.gns3, "initrd-1.2.img", "initrd 1.2")
		mustWriteFile(t, f.own, "router-1.4.qcow2", "not the 1.4 the file describes")

		got, err := f.svc.ImportAppliance(ctx, []byte(routerAppliance("require")))
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Templates) != 2 {
			t.Fatalf("%d templates made, want 2 (versions 1.3 and 1.2)", len(got.Templates))
		}
		t13, t12 := got.Templates[0], got.Templates[1]
		if t13.Name != "TestRouter 1.3" || t12.Name != "TestRouter 1.2" || t13.Type != app.QEMU || t13.Category != "router" ||
			t13.Symbol != ":/symbols/router.svg" || t13.ComputeID == nil || *t13.ComputeID != "local" {
			t.Fatalf("templates %+v and %+v", *t13, *t12)
		}
		want13 := map[string]any{
			"adapter_type": "virtio-net-pci", "adapters": 4.0, "ram": 512.0, "cpus": 2.0, "hda_disk_interface": "virtio",
			"console_type": "telnet", "boot_priority": "c", "options": "-nographic",
			"platform": "x86_64", "qemu_path": "qemu-system-x86_64", "hda_disk_image": "router-1.3.qcow2",
			"usage": "Log in as admin.", "first_port_name": "mgmt0", "port_name_format": "eth{0}", "linked_clone": true,
		}
		s13 := settingsOf(t, t13)
		for k, v := range want13 {
			if s13[k] != v {
				t.Errorf("1.3 %s = %v, want %v", k, s13[k], v)
			}
		}
		for _, k := range []string{"kvm", "arch", "path"} {
			if _, ok := s13[k]; ok {
				t.Errorf("1.3 has %s, which is no template setting", k)
			}
		}
		s12 := settingsOf(t, t12)
		if s12["kernel_image"] != "kernels/renamed-kernel" || s12["initrd"] != "initrd-1.2.img" {
			t.Errorf("1.2's images: kernel_image %v, initrd %v; want them matched by MD5 sum", s12["kernel_image"], s12["initrd"])
		}
		wantMissing := []app.MissingImage{{Version: "1.4", Filename: "router-1.4.qcow2", MD5Sum: md5Of("router 1.4"), FileSize: 10,
			DownloadURL: "http://localhost/router", DirectDownloadURL: "http://localhost/router-1.4.qcow2"}}
		if len(got.Missing) != 1 || got.Missing[0] != wantMissing[0] {
			t.Fatalf("missing %+v, want %+v", got.Missing, wantMissing)
		}
		if n := userTemplates(t, f.svc); n != 2 {
			t.Fatalf("%d user templates stored, want 2", n)
		}
		// A node can be made from the template.
		p := mustCreateProject(t, f.svc, "lab")
		n, err := f.svc.CreateNodeFromTemplate(ctx, p.ID, t13.ID, app.TemplateUse{})
		if err != nil {
			t.Fatal(err)
		}
		if n.Type != app.QEMU {
			t.Fatalf("node %s of type %s", n.Name, n.Type)
		}
	})

	t.Run("KVMDisabled", func(t *testing.T) {
		f := newImageFolders(t)
		mustWriteFile(t, f.own, "router-1.3.qcow2", "router 1.3")
		got, err := f.svc.ImportAppliance(ctx, []byte(routerAppliance("disable")))
		if err != nil {
			t.Fatal(err)
		}
		if s := settingsOf(t, got.Templates[0]); s["options"] != "-nographic -machine accel=tcg" {
			t.Fatalf("options %q; want the guest kept off KVM as GNS3 keeps it", s["options"])
		}
	})

	t.Run("Registry8", func(t *testing.T) {
		f := newImageFolders(t)
		mustWriteFile(t, f.gns3, "switch.qcow2", "switch 2")
		raw := strings.ReplaceAll(switchAppliance, "CHECKSUM", strings.ToUpper(md5Of("switch 2")))
		got, err := f.svc.ImportAppliance(ctx, []byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Templates) != 2 || len(got.Missing) != 0 {
			t.Fatalf("templates %d, missing %+v; want 2 and none", len(got.Templates), got.Missing)
		}
		def, big := got.Templates[0], got.Templates[1]
		sd, sb := settingsOf(t, def), settingsOf(t, big)
		if def.Name != "TestSwitch 2.0" || def.Category != "switch" || def.Symbol != ":/symbols/multilayer_switch.svg" || sd["ram"] != 1024.0 || sd["cpus"] != 1.0 { // cpus: the QEMU template default
			t.Errorf("default version: %+v %v", *def, sd)
		}
		if big.Symbol != ":/symbols/router.svg" || sb["ram"] != 4096.0 || sb["cpus"] != 4.0 || sb["adapters"] != 8.0 || sb["hda_disk_image"] != "switch.qcow2" || sb["qemu_path"] != "qemu-system-x86_64" {
			t.Errorf("named settings (inheriting the default): %+v %v", *big, sb)
		}
	})

	t.Run("NothingPresent", func(t *testing.T) {
		f := newImageFolders(t)
		got, err := f.svc.ImportAppliance(ctx, []byte(routerAppliance("allow")))
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Templates) != 0 || len(got.Missing) != 4 {
			t.Fatalf("templates %d, missing %+v; want none made and the 4 images named", len(got.Templates), got.Missing)
		}
	})

	bad := []struct {
		name, give, wantIn string
	}{
		{"ErrNotJSON", "PK\x03\x04", "not an appliance"},
		{"ErrNoRegistryVersion", `{"name": "x"}`, "registry_version"},
		{"ErrOldRegistry", strings.Replace(routerAppliance("allow"), `"registry_version": 6`, `"registry_version": 2`, 1), "older than 3"},
		{"ErrNewRegistry", strings.Replace(routerAppliance("allow"), `"registry_version": 6`, `"registry_version": 9`, 1), "newer than 8"},
		{"ErrDocker", `{"name": "d", "category": "guest", "registry_version": 5, "docker": {"image": "alpine"}}`, "QEMU appliances only"},
		{"ErrNoVersions", `{"name": "q", "category": "guest", "registry_version": 5, "qemu": {"arch": "x86_64"}, "images": []}`, "no versions"},
		{"ErrBroken", strings.Replace(routerAppliance("allow"), `"hda_disk_image": "router-1.3.qcow2"`, `"hda_disk_image": "unlisted.qcow2"`, 1), "unlisted.qcow2"},
		{"ErrImageKey", strings.Replace(routerAppliance("allow"), `"hda_disk_image": "router-1.3.qcow2"`, `"image": "router-1.3.qcow2"`, 1), "does not take"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			f := newImageFolders(t)
			mustWriteFile(t, f.own, "router-1.3.qcow2", "router 1.3")
			_, err := f.svc.ImportAppliance(ctx, []byte(tt.give))
			wantCode(t, err, app.EINVALID)
			if !strings.Contains(app.ErrorMessage(err), tt.wantIn) {
				t.Errorf("message %q does not say %q", app.ErrorMessage(err), tt.wantIn)
			}
			if n := userTemplates(t, f.svc); n != 0 {
				t.Fatalf("%d templates stored by a refused import", n)
			}
		})
	}

	t.Run("AllOrNone", func(t *testing.T) {
		f := newImageFolders(t)
		events, stop := f.events.Subscribe(16)
		defer stop()
		mustWriteFile(t, f.gns3, "switch.qcow2", "switch 2")
		raw := strings.ReplaceAll(switchAppliance, "CHECKSUM", md5Of("switch 2"))
		raw = strings.Replace(raw, `"ram": 4096, "cpus": 4`, `"ram": 4096, "console_type": 12`, 1)
		_, err := f.svc.ImportAppliance(ctx, []byte(raw))
		wantCode(t, err, app.EINVALID)
		if n := userTemplates(t, f.svc); n != 0 {
			t.Fatalf("%d templates left by an import whose second template was refused", n)
		}
		if evs := drain(events); len(evs) != 0 {
			t.Fatalf("a refused import announced %+v; want nothing (no template came and went)", evs)
		}
	})

	// Each template made is announced once, as any new template is, so a
	// GNS3 GUI or nodedesk's palette shows it at once.
	t.Run("Announced", func(t *testing.T) {
		f := newImageFolders(t)
		events, stop := f.events.Subscribe(16)
		defer stop()
		mustWriteFile(t, f.gns3, "switch.qcow2", "switch 2")
		got, err := f.svc.ImportAppliance(ctx, []byte(strings.ReplaceAll(switchAppliance, "CHECKSUM", md5Of("switch 2"))))
		if err != nil {
			t.Fatal(err)
		}
		evs := drain(events)
		if len(evs) != len(got.Templates) || len(evs) != 2 {
			t.Fatalf("events %+v; want a template.created for each of the 2 templates", evs)
		}
		for i, e := range evs {
			if tp, ok := e.Payload.(*app.Template); e.Action != app.EventTemplateCreated || !ok || tp.ID != got.Templates[i].ID {
				t.Errorf("event %d: %s %+v; want template.created of %s", i, e.Action, e.Payload, got.Templates[i].ID)
			}
		}
	})
}
