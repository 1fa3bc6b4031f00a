package labtest

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"nodedesk/app/labtest/kit"
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
		if !c.Expect(kit.GuestReady, false, bootWait) {
			t.Fatalf("%s did not boot: %q", nodes[i]["name"], kit.Printable(c.Log.String()))
		}
	}
	return cs
}

// guestPings reports whether the guest on c gets an answer from ip.
func guestPings(c *kit.Console, ip string) bool {
	return c.Run("ping -c 1 -W 1 "+ip, " 0% packet loss", 20*time.Second)
}

// qemuPID is the pid of the qemu-system process of a node (its command
// line holds -uuid <node id>), or 0.
func qemuPID(nodeID string) int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil || !strings.Contains(string(b), "qemu-system") {
			continue
		}
		if strings.Contains(string(b), "-uuid\x00"+nodeID+"\x00") {
			var pid int
			fmt.Sscan(filepath.Base(d), &pid)
			if kit.ProcState(pid) != "Z" {
				return pid
			}
		}
	}
	return 0
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
	out, err := exec.Command("qemu-io", "-r", "-c", fmt.Sprintf("read -v %d 16", kit.GuestScratchOffset), disk).CombinedOutput()
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
	l := Start(t, Options{QEMU: true})
	g := kit.Guest(t)
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
		"kernel_command_line": kit.GuestKernelArgs + " nd.ip=10.0.0.2/24"})
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
		c.Send(fmt.Sprintf("echo -n %s | dd of=%s bs=1 seek=%d conv=notrunc && sync && echo wrote-$((6*7))", mark, "/dev/sda", kit.GuestScratchOffset))
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
	kpid := qemuPID(k["node_id"].(string))
	kc.Drain()
	l.Do("POST", path(k)+"/reload", nil).Want(t, 200)
	if !kc.Expect(kit.GuestReady, false, bootWait) {
		t.Errorf("no reboot after reload: %q", kit.Printable(kc.Log.String()))
	}
	if now := qemuPID(k["node_id"].(string)); now != kpid || now == 0 {
		t.Errorf("reload replaced the process (%d → %d); it should reset the guest in place", kpid, now)
	}

	// Stop leaves no process; the clones hold their own marks.
	l.Do("POST", "/v2/projects/"+pid+"/nodes/stop", nil).Want(t, 204)
	for _, n := range []map[string]any{k, d1, d2} {
		if p := qemuPID(n["node_id"].(string)); p != 0 {
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
	if p := qemuPID(d1["node_id"].(string)); p != 0 {
		t.Errorf("the deleted node's qemu %d still runs", p)
	}
	if _, err := os.Stat(dir1); !os.IsNotExist(err) {
		t.Errorf("the deleted node's folder (its disk) is still there: %v", err)
	}
}

// TestQEMU_MissingImage: starting a node whose image is nowhere answers a
// conflict that names the image, and nothing runs.
func TestQEMU_MissingImage(t *testing.T) {
	l := Start(t, Options{QEMU: true})
	pid := l.MustCreateProject("missing")
	n := guestNode(t, l, pid, "VM", map[string]any{"hda_disk_image": "no-such-disk.qcow2"})
	msg := l.Do("POST", "/v2/projects/"+pid+"/nodes/"+n["node_id"].(string)+"/start", nil).Want(t, 409).JSON(t)["message"].(string)
	if !strings.Contains(msg, "no-such-disk.qcow2") {
		t.Errorf("message %q does not name the image", msg)
	}
	if p := qemuPID(n["node_id"].(string)); p != 0 {
		t.Errorf("a qemu %d runs for a node that failed to start", p)
	}
}

// TestQEMU_OnClose: a stop honours the node's on_close: shutdown_signal
// presses the ACPI power button and the guest powers itself off;
// save_vm_state keeps the running guest in its disk, and the next start
// resumes it where it was instead of booting.
func TestQEMU_OnClose(t *testing.T) {
	l := Start(t, Options{QEMU: true})
	g := kit.Guest(t)
	uploadImage(t, l, "nd-vmlinuz", g.KernelELF)
	uploadImage(t, l, "nd-initrd.img", g.Initrd)
	uploadImage(t, l, "nd-disk.qcow2", g.Disk)
	pid := l.MustCreateProject("on-close")
	acpi := guestNode(t, l, pid, "A1", map[string]any{"kernel_image": "nd-vmlinuz", "initrd": "nd-initrd.img", "ram": 128,
		"kernel_command_line": kit.GuestKernelArgs, "on_close": "shutdown_signal"})
	saved := guestNode(t, l, pid, "S1", map[string]any{"hda_disk_image": "nd-disk.qcow2", "ram": 128, "on_close": "save_vm_state"})
	path := func(n map[string]any) string { return "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string) }
	l.Do("POST", "/v2/projects/"+pid+"/nodes/start", nil).Want(t, 204)
	cs := guestConsoles(t, acpi, saved)
	ca, cs1 := cs[0], cs[1]

	l.Do("POST", path(acpi)+"/stop", nil).Want(t, 200)
	if !strings.Contains(ca.Log.String()+readRest(ca), "Power down") {
		t.Errorf("A1 was not powered off by its own kernel: %q", kit.Printable(ca.Log.String()))
	}
	if p := qemuPID(acpi["node_id"].(string)); p != 0 {
		t.Errorf("A1's qemu %d still runs", p)
	}

	cs1.Send("echo kept-$((20+22)) > /tmp/mark")
	cs1.Drain()
	l.Do("POST", path(saved)+"/stop", nil).Want(t, 200)
	if p := qemuPID(saved["node_id"].(string)); p != 0 {
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
	if strings.Contains(c.Log.String(), kit.GuestReady) {
		t.Error("S1 booted again instead of resuming")
	}
}

// readRest reads what a console still sends until it closes or is quiet.
func readRest(c *kit.Console) string {
	c.Drain()
	return c.Log.String()
}
