package qemu

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"nodedesk/app"
)

func props(t *testing.T, kv map[string]any) map[string]json.RawMessage {
	t.Helper()
	m := map[string]json.RawMessage{}
	for k, v := range kv {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		m[k] = b
	}
	return m
}

// TestArgs_KernelGuest: a guest booted from a kernel, with two adapters
// wired to nodedesk's ports, its serial line on its terminal, and TCG with
// a bounded cache when KVM does not work.
func TestArgs_KernelGuest(t *testing.T) {
	s, err := readSettings(props(t, map[string]any{"ram": 96, "adapters": 2, "mac_address": "0c:aa:bb:cc:00:fe",
		"kernel_command_line": "console=ttyS0 nd.ip=10.0.0.1/24", "options": "-rtc base=utc"}))
	if err != nil {
		t.Fatal(err)
	}
	l := launch{s: s, tbSizeMB: 64, qmpFD: 3, p: app.Process{NodeID: "n1", Name: "R1", ConsoleType: app.ConsoleTelnet, Console: 5001,
		Ports:          []app.PortPair{{Local: 20000, Remote: 20001}, {Local: 20002, Remote: 20003}},
		Images:         map[string]string{"kernel_image": "/img/vmlinuz", "initrd": "/img/initrd,1.img"},
		CustomAdapters: []app.CustomAdapter{{AdapterNumber: 1, AdapterType: "virtio-net-pci"}}}}
	l.options, _ = splitOptions(s.Options)
	args, err := l.args()
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Join(args, " ")
	for _, want := range []string{
		"-m 96M", "-accel tcg,tb-size=64", "-kernel /img/vmlinuz", "-initrd /img/initrd,,1.img",
		"-append console=ttyS0 nd.ip=10.0.0.1/24", "-uuid n1",
		"-chardev stdio,id=serial0,signal=off -serial chardev:serial0",
		"-chardev socket,id=qmp,fd=3 -mon chardev=qmp,mode=control",
		"-device e1000,mac=0c:aa:bb:cc:00:fe,netdev=gns3-0 -netdev socket,id=gns3-0,udp=127.0.0.1:20001,localaddr=127.0.0.1:20000",
		"-device virtio-net-pci,mac=0c:aa:bb:cc:00:ff,speed=10000,duplex=full,netdev=gns3-1 -netdev socket,id=gns3-1,udp=127.0.0.1:20003,localaddr=127.0.0.1:20002",
		"-display none", "-rtc base=utc",
	} {
		if !strings.Contains(line, want) {
			t.Errorf("command line lacks %q:\n%s", want, line)
		}
	}
	if slices.Contains(args, "-enable-kvm") {
		t.Errorf("KVM asked for although it does not work: %s", line)
	}
}

// TestArgs_Disks: each interface GNS3 offers attaches the drive as GNS3
// does; a VNC console is a display at port-5900.
func TestArgs_Disks(t *testing.T) {
	s, _ := readSettings(props(t, map[string]any{"hda_disk_interface": "virtio", "hdb_disk_interface": "sata", "mac_address": "0c:00:00:00:00:00"}))
	l := launch{s: s, kvm: true, vncHost: "127.0.0.1", p: app.Process{NodeID: "n", Name: "VM", ConsoleType: app.ConsoleVNC, Console: 5905}}
	l.disks = [4]string{"/n/hda_disk.qcow2", "/n/hdb_disk.qcow2", "", ""}
	args, err := l.args()
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Join(args, " ")
	for _, want := range []string{"-enable-kvm", "-drive file=/n/hda_disk.qcow2,if=virtio,index=0,media=disk,id=drive0",
		"-device ahci,id=ahci1 -drive file=/n/hdb_disk.qcow2,if=none,id=drive1,index=1,media=disk -device ide-hd,drive=drive1,bus=ahci1.0,id=drive1",
		"-vnc 127.0.0.1:5", "-device usb-tablet"} {
		if !strings.Contains(line, want) {
			t.Errorf("command line lacks %q:\n%s", want, line)
		}
	}
	if strings.Contains(line, "-display none") || strings.Contains(line, "netdev") {
		t.Errorf("a VNC guest without adapters got %s", line)
	}
	l.p.Console = 5001
	if _, err := l.args(); app.ErrorCode(err) != app.EINVALID || !strings.Contains(err.Error(), "5900") {
		t.Errorf("VNC on 5001: %v, want an EINVALID naming 5900", err)
	}
}

// TestSplitOptions: options split as a shell would, and those that would
// wire disks or networks past nodedesk are refused by name.
func TestSplitOptions(t *testing.T) {
	for in, want := range map[string][]string{
		`-cpu host -smbios type=1,product="My VM"`: {"-cpu", "host", "-smbios", "type=1,product=My VM"},
		`-name 'a b' -x\ y`:                        {"-name", "a b", "-x y"},
		"":                                         nil,
	} {
		if got, err := splitOptions(in); err != nil || !slices.Equal(got, want) {
			t.Errorf("splitOptions(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{`-netdev user,id=x`, `--drive file=x`, `-name "open`} {
		if _, err := splitOptions(bad); app.ErrorCode(err) != app.EINVALID {
			t.Errorf("splitOptions(%q): %v, want EINVALID", bad, err)
		}
	}
}

// TestMACFor: adapters count up from the node's address; a custom one wins.
func TestMACFor(t *testing.T) {
	custom := []app.CustomAdapter{{AdapterNumber: 2, MACAddress: "02:00:00:00:00:09"}}
	for i, want := range []string{"0c:12:34:56:ff:ff", "0c:12:34:57:00:00", "02:00:00:00:00:09"} {
		if got, err := macFor("0c:12:34:56:ff:ff", i, custom); err != nil || got != want {
			t.Errorf("macFor(adapter %d) = %q, %v; want %q", i, got, err, want)
		}
	}
	if _, err := macFor("zz", 0, nil); app.ErrorCode(err) != app.EINVALID {
		t.Errorf("a bad base MAC: %v, want EINVALID", err)
	}
}

// TestArgs_OwnAccel: a node whose options choose its accelerator (as
// GNS3 appliances marked "kvm: disable" do) gets none from nodedesk,
// KVM or not: QEMU would refuse -accel beside -machine accel=, and would
// run a second -accel only as a fallback of nodedesk's.
func TestArgs_OwnAccel(t *testing.T) {
	for _, opts := range []string{"-machine accel=tcg", "-accel tcg", "-enable-kvm"} {
		for _, kvm := range []bool{false, true} {
			s, _ := readSettings(props(t, map[string]any{"mac_address": "0c:00:00:00:00:00", "options": opts}))
			l := launch{s: s, kvm: kvm, tbSizeMB: 64, qmpFD: 3, p: app.Process{NodeID: "n", Name: "VM"}}
			l.options, _ = splitOptions(s.Options)
			args, err := l.args()
			if err != nil {
				t.Fatal(err)
			}
			line := strings.Join(args, " ")
			if strings.Contains(line, "tb-size") || strings.Count(line, "-enable-kvm")+strings.Count(line, "-accel ")+strings.Count(line, "accel=") != 1 {
				t.Errorf("options %q, kvm %v: nodedesk added an accelerator:\n%s", opts, kvm, line)
			}
		}
	}
}

// TestChoosesAccel: a node whose options choose an accelerator gets no
// second one from nodedesk.
func TestChoosesAccel(t *testing.T) {
	for opts, want := range map[string]bool{
		"-machine accel=tcg":        true,
		"-M pc,accel=kvm":           true,
		"-accel tcg,thread=single":  true,
		"-enable-kvm":               true,
		"-machine q35 -cpu max":     false,
		"-append accel=not-an-flag": false,
	} {
		words, err := splitOptions(opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := choosesAccel(words); got != want {
			t.Errorf("choosesAccel(%q) = %v, want %v", opts, got, want)
		}
	}
}
