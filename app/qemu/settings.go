package qemu

import (
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"sync"

	"nodedesk/app"
)

// settings are the properties of a QEMU node the runner reads, under
// GNS3's keys (its json tags). The domain has checked them and fills
// their defaults (app/node_properties_qemu.go).
type settings struct {
	Platform          string `json:"platform"`
	QEMUPath          string `json:"qemu_path"`
	RAM               int    `json:"ram"`
	CPUs              int    `json:"cpus"`
	Adapters          int    `json:"adapters"`
	AdapterType       string `json:"adapter_type"`
	MACAddress        string `json:"mac_address"`
	HDAInterface      string `json:"hda_disk_interface"`
	HDBInterface      string `json:"hdb_disk_interface"`
	HDCInterface      string `json:"hdc_disk_interface"`
	HDDInterface      string `json:"hdd_disk_interface"`
	KernelCommandLine string `json:"kernel_command_line"`
	BootPriority      string `json:"boot_priority"`
	Options           string `json:"options"`
	LinkedClone       bool   `json:"linked_clone"`
	OnClose           string `json:"on_close"`
	ProcessPriority   string `json:"process_priority"`
}

// The ways a node's stop ends its guest (on_close).
const (
	powerOff     = "power_off"       // the process ends at once
	shutdownACPI = "shutdown_signal" // an ACPI power button, then the end
	saveState    = "save_vm_state"   // the state saved in its disk, resumed at the next start
)

// savedState names the disk snapshot that holds a saved guest, as GNS3
// names it (projects move between the two).
const savedState = "GNS3_SAVED_STATE"

// readSettings decodes a node's properties, with the domain's defaults.
func readSettings(props map[string]json.RawMessage) (settings, error) {
	var s settings
	err := app.DecodeSettings(app.QEMU, props, &s)
	return s, err
}

// linkedClone reports whether the node's disks are copies-on-write of
// their images rather than the images themselves.
func (s settings) linkedClone() bool { return s.LinkedClone }

// defaultPlatform is the platform of a node that names neither a
// platform nor a qemu_path: the domain's (app.DecodeSettings of no
// properties).
var defaultPlatform = sync.OnceValue(func() string {
	var d settings
	if err := app.DecodeSettings(app.QEMU, nil, &d); err != nil || d.Platform == "" {
		panic(fmt.Sprintf("qemu: the domain gives no default platform (%v)", err))
	}
	return d.Platform
})

// binary is the qemu-system program the node runs: its qemu_path, else
// the one of its platform (the domain's default platform, x86_64, if it
// names none).
func (s settings) binary() string {
	if s.QEMUPath != "" {
		return s.QEMUPath
	}
	platform := s.Platform
	if platform == "" {
		platform = defaultPlatform()
	}
	return "qemu-system-" + platform
}

// macFor is the MAC address of adapter i: a custom one, else the node's
// base address plus i, as GNS3 numbers them.
func macFor(base string, i int, custom []app.CustomAdapter) (string, error) {
	for _, c := range custom {
		if c.AdapterNumber == i && c.MACAddress != "" {
			return c.MACAddress, nil
		}
	}
	hw, err := net.ParseMAC(base)
	if err != nil || len(hw) != 6 {
		return "", app.Errorf(app.EINVALID, "The node's mac_address %q is not a MAC address (like 0c:7e:2a:11:00:00); correct it in the node's properties", base)
	}
	var v uint64
	for _, b := range hw {
		v = v<<8 | uint64(b)
	}
	v += uint64(i)
	return fmt.Sprintf("%02x:%02x:%02x:%02x:%02x:%02x", byte(v>>40), byte(v>>32), byte(v>>24), byte(v>>16), byte(v>>8), byte(v)), nil
}

// adapterType is adapter i's device: a custom one, else the node's.
func adapterType(s settings, i int, custom []app.CustomAdapter) string {
	for _, c := range custom {
		if c.AdapterNumber == i && c.AdapterType != "" {
			return c.AdapterType
		}
	}
	return s.AdapterType
}

// forbiddenOptions are the options a node's own options may not hold:
// they would wire disks and networks past nodedesk (GNS3 refuses the same).
var forbiddenOptions = map[string]bool{"-blockdev": true, "-drive": true, "-hda": true, "-hdb": true, "-hdc": true,
	"-hdd": true, "-fsdev": true, "-virtfs": true, "-nic": true, "-netdev": true}

// splitOptions splits a node's options as a POSIX shell splits words
// (app.SplitWords), refusing those that would rewire the node's disks or
// network.
func splitOptions(s string) ([]string, error) {
	words, err := app.SplitWords(s)
	if err != nil {
		return nil, app.Errorf(app.EINVALID, "The node's options %q cannot be read (%v); correct them in the node's properties", s, err)
	}
	for _, w := range words {
		if forbiddenOptions["-"+strings.TrimLeft(w, "-")] {
			return nil, app.Errorf(app.EINVALID, "The node's options may not hold %s: nodedesk wires the node's disks and network itself. Use the disk image and adapter properties instead", w)
		}
	}
	return words, nil
}
