package qemu

import (
	"fmt"
	"strconv"
	"strings"

	"nodedesk/app"
)

// launch is everything one start of a node decides: its command line is
// a function of it alone (args), so that tests can read it.
type launch struct {
	s     settings
	p     app.Process
	disks [4]string // the drives hda…hdd: the file each one opens, "" for none
	// kvm: the guest runs with KVM; else under TCG with a translation
	// cache of tbSizeMB MiB.
	kvm      bool
	tbSizeMB int
	vncHost  string // where a VNC console listens
	loadVM   bool   // resume the state saved at the last stop
	options  []string
	qmpFD    int // the file descriptor of the QMP socket in the child
}

// drives are GNS3's names of the four disks.
var drives = [4]string{"hda", "hdb", "hdc", "hdd"}

// diskInterface is drive i's interface setting.
func (s settings) diskInterface(i int) string {
	v := [4]string{s.HDAInterface, s.HDBInterface, s.HDCInterface, s.HDDInterface}[i]
	if v == "" || v == "none" {
		return "ide" // GNS3's "none" lets QEMU choose: IDE on a PC
	}
	return v
}

// qemuEscape doubles the commas of a value inside a QEMU option list.
func qemuEscape(s string) string { return strings.ReplaceAll(s, ",", ",,") }

// args is the command line, without the program, in GNS3's order.
func (l launch) args() ([]string, error) {
	s, p := l.s, l.p
	a := []string{"-name", p.Name, "-m", strconv.Itoa(s.RAM) + "M",
		"-smp", fmt.Sprintf("cpus=%d,sockets=1", s.CPUs)}
	switch {
	case choosesAccel(l.options):
		// The node's own options choose; QEMU refuses -accel beside
		// -machine accel=, and takes a second -accel for a fallback.
	case l.kvm:
		a = append(a, "-enable-kvm", "-machine", "smm=off")
	default:
		a = append(a, "-accel", fmt.Sprintf("tcg,tb-size=%d", l.tbSizeMB))
	}
	a = append(a, "-boot", "order="+s.BootPriority)
	if f := p.Images["bios_image"]; f != "" {
		a = append(a, "-bios", qemuEscape(f))
	}
	if f := p.Images["cdrom_image"]; f != "" {
		if l.disks[2] != "" {
			return nil, app.Errorf(app.EINVALID, "%s has both a disk on hdc and a CD-ROM image; QEMU cannot use both. Remove one of them", p.Name)
		}
		a = append(a, "-cdrom", qemuEscape(f))
	}
	for i, d := range l.disks {
		if d != "" {
			a = append(a, diskOptions(d, i, s.diskInterface(i))...)
		}
	}
	if f := p.Images["initrd"]; f != "" {
		a = append(a, "-initrd", qemuEscape(f))
	}
	if f := p.Images["kernel_image"]; f != "" {
		a = append(a, "-kernel", qemuEscape(f))
	}
	if s.KernelCommandLine != "" {
		a = append(a, "-append", s.KernelCommandLine)
	}
	if !hasOption(l.options, "-uuid") {
		a = append(a, "-uuid", p.NodeID)
	}
	switch p.ConsoleType {
	case app.ConsoleTelnet:
		// The serial line is the process's terminal, which nodedesk
		// serves on the console port (package termproc).
		a = append(a, "-chardev", "stdio,id=serial0,signal=off", "-serial", "chardev:serial0")
	case app.ConsoleVNC:
		if p.Console < app.VNCPortMin {
			return nil, app.Errorf(app.EINVALID, "%s's VNC console port %d is below %d, where VNC displays start; give it a console port of %d or more", p.Name, p.Console, app.VNCPortMin, app.VNCPortMin)
		}
		a = append(a, "-vnc", fmt.Sprintf("%s:%d", l.vncHost, p.Console-app.VNCPortMin))
	}
	a = append(a, "-chardev", fmt.Sprintf("socket,id=qmp,fd=%d", l.qmpFD), "-mon", "chardev=qmp,mode=control")
	a = append(a, "-net", "none") // no user networking for an adapter nodedesk did not wire
	for i, pair := range p.Ports {
		mac, err := macFor(s.MACAddress, i, p.CustomAdapters)
		if err != nil {
			return nil, err
		}
		dev := adapterType(s, i, p.CustomAdapters) + ",mac=" + mac
		if strings.HasPrefix(dev, "virtio-net-pci,") {
			dev += ",speed=10000,duplex=full"
		}
		a = append(a, "-device", fmt.Sprintf("%s,netdev=gns3-%d", dev, i),
			"-netdev", fmt.Sprintf("socket,id=gns3-%d,udp=127.0.0.1:%d,localaddr=127.0.0.1:%d", i, pair.Remote, pair.Local))
	}
	if l.loadVM {
		a = append(a, "-loadvm", savedState)
	}
	if p.ConsoleType != app.ConsoleVNC && !hasOption(l.options, "-display", "-nographic", "-curses", "-sdl", "-spice", "-vnc") {
		a = append(a, "-display", "none")
	}
	a = append(a, l.options...)
	if p.ConsoleType == app.ConsoleVNC {
		a = append(a, "-machine", "usb=on", "-device", "usb-tablet") // the pointer where the viewer's is
	}
	return a, nil
}

// diskOptions attach disk file d as drive i on interface iface, as GNS3
// attaches each interface it offers.
func diskOptions(d string, i int, iface string) []string {
	f := qemuEscape(d)
	id := strconv.Itoa(i)
	switch iface {
	case "sata":
		return []string{"-device", "ahci,id=ahci" + id,
			"-drive", fmt.Sprintf("file=%s,if=none,id=drive%d,index=%d,media=disk", f, i, i),
			"-device", fmt.Sprintf("ide-hd,drive=drive%d,bus=ahci%d.0,id=drive%d", i, i, i)}
	case "nvme":
		return []string{"-drive", fmt.Sprintf("file=%s,if=none,id=drive%d,index=%d,media=disk", f, i, i),
			"-device", fmt.Sprintf("nvme,drive=drive%d,serial=%d", i, i)}
	case "scsi":
		return []string{"-device", "virtio-scsi-pci,id=scsi" + id,
			"-drive", fmt.Sprintf("file=%s,if=none,id=drive%d,index=%d,media=disk", f, i, i),
			"-device", fmt.Sprintf("scsi-hd,drive=drive%d", i)}
	}
	return []string{"-drive", fmt.Sprintf("file=%s,if=%s,index=%d,media=disk,id=drive%d", f, iface, i, i)}
}

// hasOption reports whether opts holds any of names.
func hasOption(opts []string, names ...string) bool {
	for _, o := range opts {
		for _, n := range names {
			if o == n {
				return true
			}
		}
	}
	return false
}

// commandLine is a command as a user would type it, each word quoted
// where a shell needs it.
func commandLine(bin string, args []string) string {
	words := make([]string, 0, len(args)+1)
	for _, w := range append([]string{bin}, args...) {
		if w == "" || strings.ContainsAny(w, " \t\n'\"\\$`*?[]{}()<>|&;#~") {
			w = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
		words = append(words, w)
	}
	return strings.Join(words, " ")
}
