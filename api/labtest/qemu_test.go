package labtest

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"nodedesk/app/kit"
	"nodedesk/app/qemu/qemutest"
)

// These tests boot real guests under QEMU (TCG on machines without a
// working KVM): the test guest make builds from Debian packages
// (scripts/build-guest.sh): a kernel and a busybox initramfs that takes
// its address from the kernel command line, and a bootable disk.

// bootWait bounds a guest's boot under TCG on a loaded machine.
const bootWait = 90 * time.Second

// uploadImage puts a file in nodedesk's QEMU images folder through the
// API, as the GNS3 GUI uploads one.
func uploadImage(t *testing.T, l *Lab, name, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l.Do("POST", "/v2/compute/qemu/images/"+name, b).Want(t, 204)
}

// guestNode creates a QEMU node.
func guestNode(t *testing.T, l *Lab, pid, name string, props map[string]any) map[string]any {
	t.Helper()
	return l.MustCreateNode(pid, map[string]any{"node_type": "qemu", "name": name, "console_type": "telnet", "properties": props})
}

// guestConsoles open the guests' consoles, all at once (a console shows
// only what a guest prints while it is connected), and wait for their
// shells.
func guestConsoles(t *testing.T, nodes ...map[string]any) []*kit.Console {
	t.Helper()
	cs := make([]*kit.Console, len(nodes))
	for i, n := range nodes {
		cs[i] = kit.DialConsole(t, "127.0.0.1", int(n["console"].(float64)))
	}
	for i, c := range cs {
		if !c.Expect(qemutest.GuestReady, false, bootWait) {
			t.Fatalf("%s did not boot: %q", nodes[i]["name"], kit.Printable(c.Log.String()))
		}
	}
	return cs
}

// guestPings reports whether the guest on c gets an answer from ip.
func guestPings(c *kit.Console, ip string) bool {
	return c.Run("ping -c 1 -W 1 "+ip, " 0% packet loss", 20*time.Second)
}

func md5File(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := md5.Sum(b)
	return hex.EncodeToString(sum[:])
}

// scratch reads the test guest's scratch region of a disk file.
func scratch(t *testing.T, disk string) string {
	t.Helper()
	out, err := exec.Command("qemu-io", "-r", "-c", fmt.Sprintf("read -v %d 16", qemutest.GuestScratchOffset), disk).CombinedOutput()
	if err != nil {
		t.Fatalf("qemu-io %s: %v %s", disk, err, out)
	}
	return string(out)
}

// TestQEMU_Lab: a VPCS, a guest booted from a kernel and two guests
// booted from linked clones of one disk, on one switch: they ping each
// other, over the VPCS's console and the guests' serial consoles; the
// clones do not share their writes and the image is unchanged; suspend,
// resume, reload, stop and delete act on the real processes.
func TestQEMU_Lab(t *testing.T) {
	l := Start(t, with(qemutest.Emulator))
	g := qemutest.Guest(t)
	for name, path := range map[string]string{"nd-vmlinuz": g.KernelELF, "nd-initrd.img": g.Initrd, "nd-disk.qcow2": g.Disk} {
		uploadImage(t, l, name, path)
	}
	listed := l.Do("GET", "/v2/compute/qemu/images", nil).Want(t, 200).Body
	for _, name := range []string{"nd-vmlinuz", "nd-initrd.img", "nd-disk.qcow2"} {
		if !strings.Contains(string(listed), `"`+name+`"`) {
			t.Errorf("uploaded %s is not listed: %s", name, listed)
		}
	}
	base := filepath.Join(filepath.Dir(l.Store.Path()), "images", "QEMU", "nd-disk.qcow2")
	baseSum := md5File(t, base)

	pid := l.MustCreateProject("qemu-lab")
	sw := l.MustCreateSwitch(t, pid, nil)
	k := guestNode(t, l, pid, "K1", map[string]any{"kernel_image": "nd-vmlinuz", "initrd": "nd-initrd.img", "ram": 128,
		"kernel_command_line": qemutest.GuestKernelArgs + " nd.ip=10.0.0.2/24"})
	d1 := guestNode(t, l, pid, "D1", map[string]any{"hda_disk_image": "nd-disk.qcow2", "ram": 128})
	d2 := guestNode(t, l, pid, "D2", map[string]any{"hda_disk_image": "nd-disk.qcow2", "ram": 128})
	for i, n := range []map[string]any{k, d1, d2} {
		l.Link(t, pid, n["node_id"].(string), 0, sw, i+1)
	}
	pc := l.StartHost(t, pid, "PC1", "10.0.0.1")
	l.Link(t, pid, pc.ID, 0, sw, 0)

	l.Do("POST", "/v2/projects/"+pid+"/nodes/start", nil).Want(t, 204)
	cs := guestConsoles(t, k, d1, d2)
	kc, c1, c2 := cs[0], cs[1], cs[2]
	for c, ip := range map[*kit.Console]string{c1: "10.0.0.3", c2: "10.0.0.4"} {
		c.Send("ip addr add " + ip + "/24 dev eth0 && ip link set eth0 up")
	}
	if !pc.Pings("10.0.0.2", 30*time.Second) {
		t.Errorf("PC1 cannot ping the kernel guest: %q", kit.Printable(pc.Con.Log.String()))
	}
	if !pc.Pings("10.0.0.3", 30*time.Second) {
		t.Errorf("PC1 cannot ping the disk guest D1: %q", kit.Printable(c1.Log.String()))
	}
	if !guestPings(kc, "10.0.0.4") {
		t.Errorf("K1 cannot ping D2 over its serial console: %q", kit.Printable(kc.Log.String()))
	}

	// Each clone writes its own mark; the image stays as it was.
	for c, mark := range map[*kit.Console]string{c1: "cloneONEmark0001", c2: "cloneTWOmark0002"} {
		c.Send(fmt.Sprintf("echo -n %s | dd of=%s bs=1 seek=%d conv=notrunc && sync && echo wrote-$((6*7))", mark, "/dev/sda", qemutest.GuestScratchOffset))
		if !c.Expect("wrote-42", false, 20*time.Second) {
			t.Errorf("the mark was not written: %q", kit.Printable(c.Log.String()))
		}
	}

	path := func(n map[string]any) string { return "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string) }
	// Suspend stops the guest's answers; resume brings them back.
	if got := l.Do("POST", path(k)+"/suspend", nil).Want(t, 200).JSON(t)["status"]; got != "suspended" {
		t.Errorf("suspend: %v", got)
	}
	if !pc.Silent("10.0.0.2") {
		t.Error("a suspended guest answered a ping")
	}
	if got := l.Do("POST", path(k)+"/start", nil).Want(t, 200).JSON(t)["status"]; got != "started" {
		t.Errorf("resume: %v", got)
	}
	if !pc.Pings("10.0.0.2", 30*time.Second) {
		t.Error("the resumed guest does not answer")
	}
	// Reload reboots the guest in its process.
	kpid := qemutest.PID(k["node_id"].(string))
	kc.Drain()
	l.Do("POST", path(k)+"/reload", nil).Want(t, 200)
	if !kc.Expect(qemutest.GuestReady, false, bootWait) {
		t.Errorf("no reboot after reload: %q", kit.Printable(kc.Log.String()))
	}
	if now := qemutest.PID(k["node_id"].(string)); now != kpid || now == 0 {
		t.Errorf("reload replaced the process (%d → %d); it should reset the guest in place", kpid, now)
	}

	// Stop leaves no process; the clones hold their own marks.
	l.Do("POST", "/v2/projects/"+pid+"/nodes/stop", nil).Want(t, 204)
	for _, n := range []map[string]any{k, d1, d2} {
		if p := qemutest.PID(n["node_id"].(string)); p != 0 {
			t.Errorf("%s's qemu %d still runs after stop", n["name"], p)
		}
	}
	dir1 := l.Do("GET", path(d1), nil).JSON(t)["node_directory"].(string)
	dir2 := l.Do("GET", path(d2), nil).JSON(t)["node_directory"].(string)
	if s := scratch(t, filepath.Join(dir1, "hda_disk.qcow2")); !strings.Contains(s, "cloneONEmark0001") || strings.Contains(s, "cloneTWO") {
		t.Errorf("D1's disk holds %q", s)
	}
	if s := scratch(t, filepath.Join(dir2, "hda_disk.qcow2")); !strings.Contains(s, "cloneTWOmark0002") {
		t.Errorf("D2's disk holds %q", s)
	}
	if got := md5File(t, base); got != baseSum {
		t.Errorf("the base image changed (md5 %s → %s)", baseSum, got)
	}

	// Delete removes the process and the disk.
	l.Do("POST", path(d1)+"/start", nil).Want(t, 200)
	l.Do("DELETE", path(d1), nil).Want(t, 204)
	if p := qemutest.PID(d1["node_id"].(string)); p != 0 {
		t.Errorf("the deleted node's qemu %d still runs", p)
	}
	if _, err := os.Stat(dir1); !os.IsNotExist(err) {
		t.Errorf("the deleted node's folder (its disk) is still there: %v", err)
	}
}

// TestQEMU_MissingImage: starting a node whose image is nowhere answers a
// conflict that names the image, and nothing runs.
func TestQEMU_MissingImage(t *testing.T) {
	l := Start(t, with(qemutest.Emulator))
	pid := l.MustCreateProject("missing")
	n := guestNode(t, l, pid, "VM", map[string]any{"hda_disk_image": "no-such-disk.qcow2"})
	msg := l.Do("POST", "/v2/projects/"+pid+"/nodes/"+n["node_id"].(string)+"/start", nil).Want(t, 409).JSON(t)["message"].(string)
	if !strings.Contains(msg, "no-such-disk.qcow2") {
		t.Errorf("message %q does not name the image", msg)
	}
	if p := qemutest.PID(n["node_id"].(string)); p != 0 {
		t.Errorf("a qemu %d runs for a node that failed to start", p)
	}
}

// TestQEMU_OnClose: a stop honours the node's on_close: shutdown_signal
// presses the ACPI power button and the guest powers itself off;
// save_vm_state keeps the running guest in its disk, and the next start
// resumes it where it was instead of booting.
func TestQEMU_OnClose(t *testing.T) {
	l := Start(t, with(qemutest.Emulator))
	g := qemutest.Guest(t)
	uploadImage(t, l, "nd-vmlinuz", g.KernelELF)
	uploadImage(t, l, "nd-initrd.img", g.Initrd)
	uploadImage(t, l, "nd-disk.qcow2", g.Disk)
	pid := l.MustCreateProject("on-close")
	acpi := guestNode(t, l, pid, "A1", map[string]any{"kernel_image": "nd-vmlinuz", "initrd": "nd-initrd.img", "ram": 128,
		"kernel_command_line": qemutest.GuestKernelArgs, "on_close": "shutdown_signal"})
	saved := guestNode(t, l, pid, "S1", map[string]any{"hda_disk_image": "nd-disk.qcow2", "ram": 128, "on_close": "save_vm_state"})
	path := func(n map[string]any) string { return "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string) }
	l.Do("POST", "/v2/projects/"+pid+"/nodes/start", nil).Want(t, 204)
	cs := guestConsoles(t, acpi, saved)
	ca, cs1 := cs[0], cs[1]

	l.Do("POST", path(acpi)+"/stop", nil).Want(t, 200)
	if !strings.Contains(ca.Log.String()+readRest(ca), "Power down") {
		t.Errorf("A1 was not powered off by its own kernel: %q", kit.Printable(ca.Log.String()))
	}
	if p := qemutest.PID(acpi["node_id"].(string)); p != 0 {
		t.Errorf("A1's qemu %d still runs", p)
	}

	cs1.Send("echo kept-$((20+22)) > /tmp/mark")
	cs1.Drain()
	l.Do("POST", path(saved)+"/stop", nil).Want(t, 200)
	if p := qemutest.PID(saved["node_id"].(string)); p != 0 {
		t.Errorf("S1's qemu %d still runs after its state was saved", p)
	}
	again := l.Do("POST", path(saved)+"/start", nil).Want(t, 200).JSON(t)
	if !strings.Contains(again["command_line"].(string), "-loadvm GNS3_SAVED_STATE") {
		t.Errorf("S1 restarted without its saved state: %s", again["command_line"])
	}
	c := kit.DialConsole(t, "127.0.0.1", int(saved["console"].(float64)))
	if !c.Run("cat /tmp/mark", "kept-42", 30*time.Second) {
		t.Errorf("S1 did not resume where it was: %q", kit.Printable(c.Log.String()))
	}
	if strings.Contains(c.Log.String(), qemutest.GuestReady) {
		t.Error("S1 booted again instead of resuming")
	}
}

// readRest reads what a console still sends until it closes or is quiet.
func readRest(c *kit.Console) string {
	c.Drain()
	return c.Log.String()
}

// realProject is a GNS3 2.2 project as GNS3 writes it (the shape of the
// public labs nodedesk was tried on): two routers from an OpenWrt-like
// appliance template (virtio adapters and disk, their image named by file
// name and md5 sum as GNS3 keeps it), a switch, links, on the "local"
// compute. Its images are the test guest's disk under the appliance's
// file name, in GNS3's own images folder.
const realProject = `{
    "auto_close": true, "auto_open": false, "auto_start": false, "drawing_grid_size": 25, "grid_size": 75,
    "name": "openwrt-lab", "project_id": "4c5a29fd-3f1e-4d7e-a3a1-2f0d5c8b9e10", "revision": 9,
    "scene_height": 1000, "scene_width": 2000, "show_grid": false, "show_interface_labels": false,
    "show_layers": false, "snap_to_grid": false, "supplier": null, "variables": null, "zoom": 100,
    "topology": {
        "computes": [],
        "drawings": [],
        "links": [
            {"filters": {}, "link_id": "6f6c3a8e-1d3b-4b8e-9d47-1b5c0f3a2e01", "link_style": {}, "suspend": false,
             "nodes": [{"adapter_number": 0, "label": {"rotation": 0, "style": "font-size: 10; font-style: Verdana", "text": "eth0", "x": 60, "y": 10}, "node_id": "a1f7e0c2-5b6d-4e8f-9a0b-1c2d3e4f5a61", "port_number": 0},
                       {"adapter_number": 0, "label": {"rotation": 0, "style": "font-size: 10; font-style: Verdana", "text": "e0", "x": -10, "y": 20}, "node_id": "c3d4e5f6-0718-4a29-8b3c-4d5e6f708192", "port_number": 0}]},
            {"filters": {}, "link_id": "6f6c3a8e-1d3b-4b8e-9d47-1b5c0f3a2e02", "link_style": {}, "suspend": false,
             "nodes": [{"adapter_number": 0, "node_id": "b2e8f1d3-6c7e-4f90-8b1c-2d3e4f5a6b72", "port_number": 0},
                       {"adapter_number": 0, "node_id": "c3d4e5f6-0718-4a29-8b3c-4d5e6f708192", "port_number": 1}]}
        ],
        "nodes": [
            {"compute_id": "local", "console": 5020, "console_auto_start": false, "console_type": "telnet",
             "custom_adapters": [], "first_port_name": "", "height": 59, "label": {"rotation": 0, "style": "font-family: TypeWriter;font-size: 10.0;font-weight: bold;fill: #000000;fill-opacity: 1.0;", "text": "OpenWrt-1", "x": -2, "y": -25},
             "locked": false, "name": "OpenWrt-1", "node_id": "a1f7e0c2-5b6d-4e8f-9a0b-1c2d3e4f5a61", "node_type": "qemu",
             "port_name_format": "eth{0}", "port_segment_size": 0,
             "properties": {"adapter_type": "virtio-net-pci", "adapters": 2, "bios_image": "", "bios_image_md5sum": null, "boot_priority": "c",
                            "cdrom_image": "", "cdrom_image_md5sum": null, "cpu_throttling": 0, "cpus": 1, "create_config_disk": false,
                            "hda_disk_image": "openwrt-22.03.5-x86-64-generic-ext4-combined.img", "hda_disk_image_md5sum": "MD5SUM",
                            "hda_disk_interface": "virtio", "hdb_disk_image": "", "hdb_disk_image_md5sum": null, "hdb_disk_interface": "none",
                            "hdc_disk_image": "", "hdc_disk_image_md5sum": null, "hdc_disk_interface": "none", "hdd_disk_image": "",
                            "hdd_disk_image_md5sum": null, "hdd_disk_interface": "none", "initrd": "", "initrd_md5sum": null,
                            "kernel_command_line": "", "kernel_image": "", "kernel_image_md5sum": null, "legacy_networking": false,
                            "linked_clone": true, "mac_address": "0c:71:4c:60:00:00", "on_close": "power_off", "options": "-nographic",
                            "platform": "x86_64", "process_priority": "normal", "qemu_path": "/usr/bin/qemu-system-x86_64", "ram": 128,
                            "replicate_network_connection_state": true, "tpm": false, "uefi": false, "usage": "Username: root"},
             "symbol": ":/symbols/classic/router.svg", "template_id": "30e2c1b8-7e2d-4f52-a7d8-2c5e3c0b1a11", "width": 66, "x": -250, "y": -60, "z": 1},
            {"compute_id": "local", "console": 5021, "console_auto_start": false, "console_type": "telnet",
             "custom_adapters": [], "first_port_name": "", "height": 59, "label": {"rotation": 0, "style": "font-family: TypeWriter;font-size: 10.0;font-weight: bold;fill: #000000;fill-opacity: 1.0;", "text": "OpenWrt-2", "x": -2, "y": -25},
             "locked": false, "name": "OpenWrt-2", "node_id": "b2e8f1d3-6c7e-4f90-8b1c-2d3e4f5a6b72", "node_type": "qemu",
             "port_name_format": "eth{0}", "port_segment_size": 0,
             "properties": {"adapter_type": "virtio-net-pci", "adapters": 2, "boot_priority": "c", "cpus": 1,
                            "hda_disk_image": "openwrt-22.03.5-x86-64-generic-ext4-combined.img", "hda_disk_image_md5sum": "MD5SUM",
                            "hda_disk_interface": "virtio", "linked_clone": true, "mac_address": "0c:71:4c:61:00:00", "on_close": "power_off",
                            "options": "-nographic", "platform": "x86_64", "qemu_path": "/usr/bin/qemu-system-x86_64", "ram": 128},
             "symbol": ":/symbols/classic/router.svg", "template_id": "30e2c1b8-7e2d-4f52-a7d8-2c5e3c0b1a11", "width": 66, "x": 150, "y": -60, "z": 1},
            {"compute_id": "local", "console": 5022, "console_auto_start": false, "console_type": "none", "custom_adapters": [],
             "first_port_name": null, "height": 32, "label": {"rotation": 0, "style": "font-family: TypeWriter;font-size: 10.0;font-weight: bold;fill: #000000;fill-opacity: 1.0;", "text": "Switch1", "x": 5, "y": -25},
             "locked": false, "name": "Switch1", "node_id": "c3d4e5f6-0718-4a29-8b3c-4d5e6f708192", "node_type": "ethernet_switch",
             "port_name_format": "Ethernet{0}", "port_segment_size": 0,
             "properties": {"ports_mapping": [{"name": "Ethernet0", "port_number": 0, "type": "access", "vlan": 1},
                                              {"name": "Ethernet1", "port_number": 1, "type": "access", "vlan": 1}]},
             "symbol": ":/symbols/ethernet_switch.svg", "template_id": "1966b864-93e7-32d5-965f-001384eec461", "width": 72, "x": -50, "y": 80, "z": 1}
        ]
    },
    "type": "topology", "version": "2.2.59"
}`

// TestQEMU_RealProject: a GNS3 project with QEMU routers, imported, whose
// image is in GNS3's images folder under the name the project gives,
// starts with Start all and its routers talk to each other.
func TestQEMU_RealProject(t *testing.T) {
	l := Start(t, with(qemutest.Emulator))
	g := qemutest.Guest(t)
	image := filepath.Join(l.GNS3Images, "QEMU", "openwrt-22.03.5-x86-64-generic-ext4-combined.img")
	if err := os.MkdirAll(filepath.Dir(image), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(g.Disk)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(image, b, 0o644); err != nil {
		t.Fatal(err)
	}
	topo := strings.ReplaceAll(realProject, "MD5SUM", md5File(t, image))
	pid := "4c5a29fd-3f1e-4d7e-a3a1-2f0d5c8b9e10"
	l.Do("POST", "/v2/projects/"+pid+"/import", kit.Zip(t, map[string][]byte{"project.gns3": []byte(topo)})).Want(t, 201)
	l.Do("POST", "/v2/projects/"+pid+"/open", nil).Want(t, 201)
	nodes := l.Do("GET", "/v2/projects/"+pid+"/nodes", nil).Want(t, 200).List(t)
	byName := map[string]map[string]any{}
	for _, n := range nodes {
		byName[n["name"].(string)] = n
	}
	l.Do("POST", "/v2/projects/"+pid+"/nodes/start", nil).Want(t, 204)
	cs := guestConsoles(t, byName["OpenWrt-1"], byName["OpenWrt-2"])
	cs[0].Send("ip addr add 192.168.50.1/24 dev eth0 && ip link set eth0 up")
	cs[1].Send("ip addr add 192.168.50.2/24 dev eth0 && ip link set eth0 up")
	if !guestPings(cs[0], "192.168.50.2") {
		t.Errorf("OpenWrt-1 cannot ping OpenWrt-2: %q", kit.Printable(cs[0].Log.String()))
	}
	cl, _ := l.Do("GET", "/v2/projects/"+pid+"/nodes/"+byName["OpenWrt-1"]["node_id"].(string), nil).JSON(t)["command_line"].(string)
	if !strings.Contains(cl, "-device virtio-net-pci,mac=0c:71:4c:60:00:00") || !strings.Contains(cl, "if=virtio") {
		t.Errorf("OpenWrt-1 does not run as the project says (virtio adapters and disk, its MAC): %s", cl)
	}
}

// TestQEMU_ResizeDisk: GNS3's Resize grows a stopped node's linked clone
// (made for it if the node never ran), never the image; a running node
// or a drive without an image is refused, saying why.
func TestQEMU_ResizeDisk(t *testing.T) {
	l := Start(t, with(qemutest.Emulator))
	uploadImage(t, l, "nd-disk.qcow2", qemutest.Guest(t).Disk)
	base := filepath.Join(filepath.Dir(l.Store.Path()), "images", "QEMU", "nd-disk.qcow2")
	baseSum := md5File(t, base)
	pid := l.MustCreateProject("resize")
	n := guestNode(t, l, pid, "VM", map[string]any{"hda_disk_image": "nd-disk.qcow2", "ram": 96})
	path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)

	l.Do("POST", path+"/resize_disk", map[string]any{"drive_name": "hda", "extend": 16}).Want(t, 201)
	clone := filepath.Join(n["node_directory"].(string), "hda_disk.qcow2")
	out, err := exec.Command("qemu-img", "info", "--output=json", clone).Output()
	if err != nil {
		t.Fatalf("no linked clone after the resize: %v", err)
	}
	if want := fmt.Sprintf(`"virtual-size": %d`, (32+16)<<20); !strings.Contains(string(out), want) {
		t.Errorf("the clone is not 48 MiB: %s", out)
	}
	if md5File(t, base) != baseSum {
		t.Error("the resize wrote the image")
	}
	msg := l.Do("POST", path+"/resize_disk", map[string]any{"drive_name": "hdb", "extend": 16}).Want(t, 400).JSON(t)["message"].(string)
	if !strings.Contains(msg, "hdb") {
		t.Errorf("resize of an empty drive: %q", msg)
	}
	l.Do("POST", path+"/start", nil).Want(t, 200)
	msg = l.Do("POST", path+"/resize_disk", map[string]any{"drive_name": "hda", "extend": 16}).Want(t, 409).JSON(t)["message"].(string)
	if !strings.Contains(msg, "stopped") {
		t.Errorf("resize of a running node: %q", msg)
	}
}

// TestQEMU_DiesByItself: a guest whose process dies shows stopped, and
// the project's stream says why, with QEMU's last words.
func TestQEMU_DiesByItself(t *testing.T) {
	l := Start(t, with(qemutest.Emulator))
	pid := l.MustCreateProject("dies")
	n := guestNode(t, l, pid, "VM", map[string]any{"ram": 32}) // no disk: the firmware waits, which is enough
	path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
	next, _ := l.WSListen(t, "/v2/projects/"+pid+"/notifications/ws")
	l.Do("POST", path+"/start", nil).Want(t, 200)
	for e := next(); e.Event["status"] != "started"; e = next() {
	}
	qpid := qemutest.PID(n["node_id"].(string))
	if qpid == 0 {
		t.Fatal("no qemu process")
	}
	if err := syscall.Kill(qpid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// A guest still booting first hears its boot end (booting false, as
	// its console is gone), then stops.
	e := next()
	for e.Action == "node.updated" && e.Event["status"] == "started" && e.Event["booting"] == false {
		e = next()
	}
	if e.Action != "node.updated" || e.Event["status"] != "stopped" {
		t.Fatalf("after the process was killed: %s %v", e.Action, e.Event["status"])
	}
	e = next()
	if msg, _ := e.Event["message"].(string); e.Action != "log.error" || !strings.Contains(msg, "VM has stopped by itself") || !strings.Contains(msg, "QEMU was ended by signal killed") {
		t.Errorf("the project was told %s %v", e.Action, e.Event)
	}
}
