package app

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// QEMU nodes' properties: the keys, defaults and rules of GNS3 2.2.59's
// QEMU VM (its compute's schemas/qemu.py and qemu_vm.py), kept in
// Properties.Extra under GNS3's keys, and the ports one Ethernet adapter
// each gives the node (node_ports.go). Package app/qemu runs the nodes
// from them.
//
// The properties are open: a key nodedesk does not know (another GNS3
// version's) is kept as given, so a project goes back to GNS3 whole.
// That is why qemuProps lists no keys: a project file's keys are all
// read.

// qemuProps are the properties of a QEMU node.
var qemuProps = propertyKind{
	newUpdate: func() PropertiesUpdate { return &QEMUUpdate{} },
	init:      initQEMU,
	ports:     func(n *Node) []Port { return n.standardPorts(1) },
	view:      qemuView,
	upgrade:   onClose,
	unique:    []string{"mac_address"},
	template:  qemuTemplate,
}

// qemuTemplate is what a user QEMU template starts with, as GNS3
// 2.2.59's schemas/qemu_template.py fills it: nodes named after the
// template, in the guest category, and these settings. Its defaults are
// the template's, not the node's: no platform, binary or MAC address
// (a node derives them) and process priority normal.
var qemuTemplate = templateKind{nameFormat: "{name}-{0}", category: "guest", settings: map[string]any{
	"qemu_path": "", "usage": "", "platform": "", "linked_clone": true, "ram": 256, "cpus": 1, "adapters": 1,
	"adapter_type": "e1000", "mac_address": "", "first_port_name": "", "port_name_format": "Ethernet{0}",
	"port_segment_size": 0, "console_type": "telnet", "console_auto_start": false, "boot_priority": "c",
	"hda_disk_image": "", "hda_disk_interface": "none", "hdb_disk_image": "", "hdb_disk_interface": "none",
	"hdc_disk_image": "", "hdc_disk_interface": "none", "hdd_disk_image": "", "hdd_disk_interface": "none",
	"cdrom_image": "", "initrd": "", "kernel_image": "", "bios_image": "", "kernel_command_line": "",
	"legacy_networking": false, "replicate_network_connection_state": true, "tpm": false, "uefi": false,
	"create_config_disk": false, "on_close": "power_off", "cpu_throttling": 0, "process_priority": "normal",
	"options": "", "custom_adapters": []any{},
}}

// The enumerations of GNS3 2.2.59's QEMU schemas. Adapter types and disk
// interfaces are its template schema's lists (its compute takes any
// string, which QEMU then refuses at start).
var (
	qemuPlatforms = []string{"aarch64", "alpha", "arm", "cris", "i386", "lm32", "m68k", "microblaze", "microblazeel",
		"mips", "mips64", "mips64el", "mipsel", "moxie", "or32", "ppc", "ppc64", "ppcemb", "s390x", "sh4", "sh4eb",
		"sparc", "sparc64", "tricore", "unicore32", "x86_64", "xtensa", "xtensaeb"}
	qemuAdapterTypes = []string{"e1000", "e1000-82544gc", "e1000-82545em", "e1000e", "i82550", "i82551", "i82557a",
		"i82557b", "i82557c", "i82558a", "i82558b", "i82559a", "i82559b", "i82559c", "i82559er", "i82562", "i82801",
		"igb", "ne2k_pci", "pcnet", "rocker", "rtl8139", "virtio", "virtio-net-pci", "vmxnet3"}
	qemuDiskInterfaces   = []string{"ide", "sata", "nvme", "scsi", "sd", "mtd", "floppy", "pflash", "virtio", "none"}
	qemuBootPriorities   = []string{"c", "d", "n", "cn", "cd", "dn", "dc", "nc", "nd"}
	qemuOnClose          = []string{"power_off", "shutdown_signal", "save_vm_state"}
	qemuProcessPriorites = []string{"realtime", "very high", "high", "normal", "low", "very low"}
)

// defaultQEMUPlatform is the platform of a node that names neither a
// platform nor a QEMU binary (GNS3 refuses such a node; nodedesk runs
// the host's usual emulator).
const defaultQEMUPlatform = "x86_64"

// qemuImages are the properties that name an image file, in GNS3's
// order; each has a checksum property, <key>_md5sum.
var qemuImages = []string{"hda_disk_image", "hdb_disk_image", "hdc_disk_image", "hdd_disk_image",
	"cdrom_image", "bios_image", "kernel_image", "initrd"}

// qemuSettings are the properties GNS3 2.2.59's compute keeps for a QEMU
// node, with its defaults for a new one, and linked_clone, which its
// controller keeps. platform, qemu_path and mac_address have defaults
// that depend on the node (qemuView).
var qemuSettings = newSettingTable(func() []setting {
	disk := func(d string) []setting {
		return []setting{
			{key: "hd" + d + "_disk_image", def: "", check: isString},
			{key: "hd" + d + "_disk_interface", def: "none", check: isOneOf(qemuDiskInterfaces)},
			{key: "hd" + d + "_disk_image_md5sum", check: isString},
		}
	}
	s := []setting{
		{key: "usage", def: "", check: isString},
		{key: "qemu_path", check: isString, unset: []string{""}},
		{key: "platform", check: isOneOf(qemuPlatforms), unset: []string{"", "null"}},
		{key: "linked_clone", def: true, check: isBool},
	}
	for _, d := range []string{"a", "b", "c", "d"} {
		s = append(s, disk(d)...)
	}
	return append(s,
		setting{key: "cdrom_image", def: "", check: isString},
		setting{key: "cdrom_image_md5sum", check: isString},
		setting{key: "bios_image", def: "", check: isString},
		setting{key: "bios_image_md5sum", check: isString},
		setting{key: "boot_priority", def: "c", check: isOneOf(qemuBootPriorities)},
		setting{key: "ram", def: 256, check: isWholeNumber(1, 0, "MB")},
		setting{key: "cpus", def: 1, check: isWholeNumber(1, 255, "")},
		setting{key: "adapters", def: 1, check: isWholeNumber(0, 275, "")},
		setting{key: "adapter_type", def: "e1000", check: isOneOf(qemuAdapterTypes)},
		setting{key: "mac_address", check: isMAC, unset: []string{""}},
		setting{key: "initrd", def: "", check: isString},
		setting{key: "initrd_md5sum", check: isString},
		setting{key: "kernel_image", def: "", check: isString},
		setting{key: "kernel_image_md5sum", check: isString},
		setting{key: "kernel_command_line", def: "", check: isString},
		setting{key: "legacy_networking", def: false, check: isBool},
		setting{key: "replicate_network_connection_state", def: true, check: isBool},
		setting{key: "tpm", def: false, check: isBool},
		setting{key: "uefi", def: false, check: isBool},
		setting{key: "create_config_disk", def: false, check: isBool},
		setting{key: "on_close", def: "power_off", check: isOneOf(qemuOnClose)},
		setting{key: "cpu_throttling", def: 0, check: isWholeNumber(0, 800, "%")},
		setting{key: "process_priority", def: "low", check: isOneOf(qemuProcessPriorites), unset: []string{"null"}},
		setting{key: "options", def: "", check: isString},
	)
}())

// qemuComputeView is what GNS3 2.2.59's compute shows of a QEMU node
// besides name, node_id, project_id and status: every property but
// linked_clone, and the node's console, command line and folder.
var qemuComputeView = func() []string {
	v := append([]string{"command_line", "console", "console_type", "node_directory"}, qemuSettings.keys("linked_clone")...)
	slices.Sort(v)
	return v
}()

// idMAC is a MAC address derived from a node's id, as GNS3 derives them:
// head, three bytes of the id, then tail (adapter i adds i). QEMU's is
// 0c:xx:xx:xx:00:00, Docker's 02:42:xx:xx:xx:00.
func idMAC(head, id, tail string) string {
	hex := strings.ReplaceAll(id, "-", "")
	for len(hex) < 8 {
		hex += "0"
	}
	return head + ":" + hex[2:4] + ":" + hex[4:6] + ":" + hex[6:8] + ":" + tail
}

// qemuOldBinaries are the QEMU binaries not named after their platform.
var qemuOldBinaries = map[string]string{"qemu-kvm": "x86_64", "qemu": "i386"}

// qemuPlatformOf is the platform a QEMU binary's path names, as GNS3
// reads it: qemu-system-<platform> (Windows' w and .exe dropped),
// qemu-kvm is x86_64 and an old plain qemu is i386.
func qemuPlatformOf(path string) (string, bool) {
	name := path[strings.LastIndexAny(path, `/\`)+1:]
	if ext := len(name) - 4; ext > 0 && strings.EqualFold(name[ext:], ".exe") {
		name = strings.TrimSuffix(name[:ext], "w")
	}
	if p, ok := qemuOldBinaries[name]; ok {
		return p, true
	}
	if len(name) < len("qemu-system-") || !strings.EqualFold(name[:len("qemu-system-")], "qemu-system-") {
		return "", false
	}
	p := name[len("qemu-system-"):]
	if end := strings.IndexFunc(p, func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}); end >= 0 {
		p = p[:end]
	}
	return p, slices.Contains(qemuPlatforms, p)
}

// qemuBinary completes a node's binary and platform from each other, as
// GNS3 does: a platform left empty is the one the path names; a path left
// empty is qemu-system-<platform>; neither given is x86_64.
func qemuBinary(path, platform string) (string, string) {
	if platform == "" {
		if p, ok := qemuPlatformOf(path); ok {
			platform = p
		} else if path == "" {
			platform = defaultQEMUPlatform
		}
	}
	if path == "" {
		path = "qemu-system-" + platform
	}
	return path, platform
}

// initQEMU gives a new QEMU node every property GNS3's compute gives one,
// with its defaults (the MAC address from the node's id).
func initQEMU(n *Node, _ newNodeEnv) {
	n.Properties.Extra = toExtra(qemuView(n))
}

// qemuView is a QEMU node's properties: what it keeps, and GNS3's
// default for each property it lacks (a node stored before nodedesk knew
// them) or keeps as null.
func qemuView(n *Node) map[string]any {
	extra := n.Properties.Extra
	path, platform := qemuBinary(rawString(extra["qemu_path"]), rawString(extra["platform"]))
	return qemuSettings.view(extra, map[string]any{"qemu_path": path, "platform": platform, "mac_address": idMAC("0c", n.ID, "00:00")})
}

// QEMUUpdate is a change to a QEMU node's properties, under GNS3's keys.
// A known key set to null (or to a value that stands for its default,
// such as an empty mac_address) goes back to GNS3's default; a key
// nodedesk does not know is kept as given.
type QEMUUpdate map[string]json.RawMessage

// notProperties are the keys of a compute request's body that are
// not properties: the node's own fields (NodeUpdate) and the read-only
// ones of its compute view.
var notProperties = func() map[string]bool {
	m := map[string]bool{"node_id": true, "project_id": true, "node_type": true, "status": true, "node_directory": true,
		"command_line": true, "console_host": true, "compute_id": true, "template_id": true, "ports": true,
		"width": true, "height": true, "properties": true}
	t := reflect.TypeOf(NodeUpdate{})
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); tag != "" && tag != "-" {
			m[tag] = true
		}
	}
	return m
}()

// UnmarshalJSON reads the properties of a QEMU node from a controller's
// "properties" object or from a compute request's body, whose node fields
// (name, console, ...) it leaves out.
func (u *QEMUUpdate) UnmarshalJSON(b []byte) error {
	m, err := propertiesIn(b)
	*u = m
	return err
}

// propertiesIn reads an emulator's properties from a controller's
// "properties" object or from a compute request's body: every key but
// the node's own fields and the read-only ones of its compute view.
func propertiesIn(b []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k := range m {
		if notProperties[k] {
			delete(m, k)
		}
	}
	return m, nil
}

func (u *QEMUUpdate) apply(p *Properties) error {
	if len(*u) == 0 {
		return nil
	}
	extra, err := qemuSettings.apply(p.Extra, *u)
	if err != nil {
		return err
	}
	for _, img := range qemuImages {
		// A checksum is of the image it was given with.
		sum := img + "_md5sum"
		if raw, ok := (*u)[img]; ok && rawString(raw) != rawString(p.Extra[img]) {
			if _, given := (*u)[sum]; !given {
				delete(extra, sum)
			}
		}
	}
	if err := settleQEMUBinary(extra, *u); err != nil {
		return err
	}
	p.Extra = extra
	return nil
}

// givenImages are the non-empty image names u gives among keys.
func (u *QEMUUpdate) givenImages(keys []string) map[string]string { return givenImages(*u, keys) }

// givenImages are the non-empty image names a GNS3-keyed change u gives
// among keys.
func givenImages(u map[string]json.RawMessage, keys []string) map[string]string {
	out := map[string]string{}
	for _, k := range keys {
		if raw, ok := u[k]; ok && isJSONString(raw) && rawString(raw) != "" {
			out[k] = rawString(raw)
		}
	}
	return out
}

// withImages is a copy of u with the images of kept as a node keeps them,
// each with its checksum (<key>_md5sum) when known: GNS3's compute sums
// the file itself, whatever sum a client sent. A sum unknown here (the
// image is missing) leaves the one given, if any.
func (u *QEMUUpdate) withImages(kept map[string]keptImage) PropertiesUpdate {
	c := QEMUUpdate(withImages(*u, kept, func(k string) string { return k + "_md5sum" }))
	return &c
}

// withImages is a copy of GNS3-keyed change u with the images of kept as
// a node keeps them, each with its checksum under sumKey(its key) when
// known.
func withImages(u map[string]json.RawMessage, kept map[string]keptImage, sumKey func(string) string) map[string]json.RawMessage {
	c := maps.Clone(u)
	for k, img := range kept {
		c[k], _ = json.Marshal(img.name)
		if img.sum != "" {
			c[sumKey(k)], _ = json.Marshal(img.sum)
		}
	}
	return c
}

// settleQEMUBinary keeps a node's qemu_path and platform in step, as
// GNS3's compute does: a path given sets the platform it names; a
// platform given alone sets the path to its qemu-system binary. A path
// that names no platform needs one given with it.
func settleQEMUBinary(extra map[string]json.RawMessage, u QEMUUpdate) error {
	path, platform := rawString(extra["qemu_path"]), rawString(extra["platform"])
	_, pathGiven := u["qemu_path"]
	_, platformGiven := u["platform"]
	pathGiven, platformGiven = pathGiven && path != "", platformGiven && platform != ""
	switch {
	case pathGiven:
		if p, ok := qemuPlatformOf(path); ok {
			platform = p
		} else if !platformGiven {
			return Invalid("properties.qemu_path", "qemu_path %q names no QEMU emulator nodedesk knows the platform of (qemu-system-<platform>, such as qemu-system-x86_64); name one, or give platform with it", path)
		}
	case platformGiven:
		path = ""
	}
	path, platform = qemuBinary(path, platform)
	extra["qemu_path"], _ = json.Marshal(path)
	extra["platform"], _ = json.Marshal(platform)
	return nil
}

// The rules of the settings' values.

func isString(key string, raw json.RawMessage) error {
	if !isJSONString(raw) {
		return Invalid("properties."+key, "%s must be a string, not %s", key, describeRaw(raw))
	}
	return nil
}

func isBool(key string, raw json.RawMessage) error {
	var b bool
	if json.Unmarshal(raw, &b) != nil {
		return Invalid("properties."+key, "%s must be true or false, not %s", key, describeRaw(raw))
	}
	return nil
}

func isOneOf(values []string) func(string, json.RawMessage) error {
	return func(key string, raw json.RawMessage) error {
		if !isJSONString(raw) || !slices.Contains(values, rawString(raw)) {
			return Invalid("properties."+key, "%s must be one of %s; %s is not one", key, strings.Join(values, ", "), describeRaw(raw))
		}
		return nil
	}
}

// isWholeNumber accepts whole numbers from lo to hi (hi 0: no bound) of
// unit.
func isWholeNumber(lo, hi int, unit string) func(string, json.RawMessage) error {
	return func(key string, raw json.RawMessage) error {
		var v int
		err := json.Unmarshal(raw, &v)
		if err == nil && v >= lo && (hi == 0 || v <= hi) {
			return nil
		}
		what := "a whole number of at least " + strconv.Itoa(lo)
		if hi != 0 {
			what = "a whole number from " + strconv.Itoa(lo) + " to " + strconv.Itoa(hi)
		}
		if unit != "" {
			what += " (" + unit + ")"
		}
		return Invalid("properties."+key, "%s must be %s, not %s", key, what, describeRaw(raw))
	}
}

// isMAC accepts a MAC address as GNS3 writes them: six pairs of hex
// digits joined by colons.
func isMAC(key string, raw json.RawMessage) error {
	s := rawString(raw)
	ok := isJSONString(raw) && len(s) == 17
	for i := 0; ok && i < len(s); i++ {
		if i%3 == 2 {
			ok = s[i] == ':'
		} else {
			ok = strings.IndexByte("0123456789abcdefABCDEF", s[i]) >= 0
		}
	}
	if !ok {
		return Invalid("properties."+key, "%s must be six pairs of hex digits joined by colons (like 0c:7e:2a:11:00:00), or empty for the one nodedesk derives from the node's id; %s is not one", key, describeRaw(raw))
	}
	return nil
}

func isNull(raw json.RawMessage) bool { return string(raw) == "null" }

func isJSONString(raw json.RawMessage) bool {
	var s string
	return json.Unmarshal(raw, &s) == nil
}

// rawString is a JSON string's value; "" for anything else.
func rawString(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// describeRaw names a JSON value in an error message.
func describeRaw(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	s := []rune(describeJSON(v))
	if len(s) > 60 {
		return string(s[:57]) + "..."
	}
	return string(s)
}

// qemuAppliance turns the QEMU settings of a GNS3 appliance file into
// template properties as GNS3 keys them: kvm, arch and path become
// qemu_path, platform and options; the rest is kept as the file gives it.
func qemuAppliance(props map[string]json.RawMessage, ts TemplateSettings) error {
	set := func(k string, v any) { ts[k], _ = json.Marshal(v) }
	var kvm, arch, path, options string
	for k, raw := range props {
		switch k {
		case "kvm", "arch", "platform", "path", "options":
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return notAppliance("its QEMU setting %s is not a string", k)
			}
			switch k {
			case "kvm":
				kvm = s
			case "arch", "platform":
				arch = cmp.Or(arch, s)
			case "path":
				path = s
			case "options":
				options = s
			}
		default:
			ts[k] = raw
		}
	}
	if kvm == "disable" && !strings.Contains(options, "accel=tcg") {
		options += " -machine accel=tcg" // as GNS3 writes a guest that must not run under KVM
	}
	if options = strings.TrimSpace(options); options != "" {
		set("options", options)
	}
	if arch != "" {
		set("platform", arch)
		set("qemu_path", "qemu-system-"+arch)
	}
	if path != "" {
		set("qemu_path", path)
	}
	return nil
}

// QEMUTools is what nodedesk asks of the QEMU programs installed on this
// machine: which there are, whether KVM works, and qemu-img's disk work.
// QEMU's runner (package app/qemu) has it; without it QEMU is not
// available.
type QEMUTools interface {
	// Binaries lists the qemu-system-* programs found, with their
	// versions; with archs, only those whose name ends with one of them
	// (qemu-system-x86_64 for x86_64), as GNS3 filters them.
	Binaries(ctx context.Context, archs []string) ([]QEMUBinary, error)
	// ImgBinaries lists the qemu-img programs found, with their versions.
	ImgBinaries(ctx context.Context) ([]QEMUBinary, error)
	// Capabilities says which guest architectures KVM accelerates here:
	// only those for which a probe guest ran under KVM in time, never
	// because /dev/kvm exists.
	Capabilities(ctx context.Context) QEMUCapabilities
	// CreateImage makes a disk image with qemu-img create; spec.Path is
	// absolute and names no existing file.
	CreateImage(ctx context.Context, spec QEMUImageSpec) error
	// ResizeImage grows an existing disk image with qemu-img resize;
	// spec.Path is absolute.
	ResizeImage(ctx context.Context, spec QEMUImageResize) error
}

// QEMUBinary is one QEMU program: its path and its version ("7.2.22"; ""
// when it would not tell), as GNS3 lists them.
type QEMUBinary struct {
	Path    string `json:"path"`
	Version string `json:"version"`
}

// The accelerations a QEMU node runs under.
const (
	AccelKVM  = "kvm"  // hardware virtualisation
	AccelTCG  = "tcg"  // QEMU's translator: no hardware help, slower
	AccelNone = "none" // QEMU is not available: nothing runs
)

// QEMUCapabilities are what GNS3 answers at GET /v2/compute/qemu/capabilities
// (kvm: the architectures KVM accelerates), with nodedesk's word on the
// acceleration its nodes get and why.
type QEMUCapabilities struct {
	KVM []string `json:"kvm"`
	// Acceleration is AccelKVM, AccelTCG or AccelNone.
	Acceleration string `json:"acceleration"`
	// AccelerationNote says what the acceleration means for the user,
	// such as "running without hardware acceleration: slower (…)".
	AccelerationNote string `json:"acceleration_note,omitempty"`
}

// QEMUImageSpec is a disk image to make, as GNS3's POST
// /v2/compute/qemu/img takes it: the qemu-img program, the path (relative:
// in the QEMU images folder), the format, the size in MiB, and the
// format's options qemu-img takes with -o (those not given are left out).
type QEMUImageSpec struct {
	QEMUImg       string `json:"qemu_img"`
	Path          string `json:"path"`
	Format        string `json:"format"`
	Size          int64  `json:"size"`
	Preallocation string `json:"preallocation,omitempty"`
	ClusterSize   int64  `json:"cluster_size,omitempty"`
	RefcountBits  int64  `json:"refcount_bits,omitempty"`
	LazyRefcounts string `json:"lazy_refcounts,omitempty"`
	Subformat     string `json:"subformat,omitempty"`
	Static        string `json:"static,omitempty"`
	ZeroedGrain   string `json:"zeroed_grain,omitempty"`
	AdapterType   string `json:"adapter_type,omitempty"`
}

// Options are the spec's -o options of qemu-img create, as name=value,
// sorted by name.
func (sp QEMUImageSpec) Options() []string {
	var o []string
	add := func(k, v string) {
		if v != "" && v != "0" {
			o = append(o, k+"="+v)
		}
	}
	add("adapter_type", sp.AdapterType)
	add("cluster_size", fmt.Sprint(sp.ClusterSize))
	add("lazy_refcounts", sp.LazyRefcounts)
	add("preallocation", sp.Preallocation)
	add("refcount_bits", fmt.Sprint(sp.RefcountBits))
	add("static", sp.Static)
	add("subformat", sp.Subformat)
	add("zeroed_grain", sp.ZeroedGrain)
	return o
}

// QEMUImageResize grows a disk image, as GNS3's PUT /v2/compute/qemu/img
// takes it: the qemu-img program, the image's path, and how many MiB to
// add (0: nothing is done).
type QEMUImageResize struct {
	QEMUImg string `json:"qemu_img"`
	Path    string `json:"path"`
	Extend  int64  `json:"extend,omitempty"`
}

// The values GNS3 takes for a disk image's format and options.
var (
	qemuImageFormats = []string{"qcow2", "qcow", "vpc", "vdi", "vmdk", "raw"}
	qemuImageEnums   = map[string][]string{
		"preallocation":  {"off", "metadata", "falloc", "full"},
		"lazy_refcounts": {"on", "off"},
		"subformat": {"dynamic", "fixed", "streamOptimized", "twoGbMaxExtentSparse", "twoGbMaxExtentFlat",
			"monolithicSparse", "monolithicFlat"},
		"static":       {"on", "off"},
		"zeroed_grain": {"on", "off"},
		"adapter_type": {"ide", "lsilogic", "buslogic", "legacyESX"},
	}
)

// maxQEMUImageMiB bounds the size of a disk image made (1 PiB, qemu-img's
// own limit for qcow2 is higher; a larger number is a typo).
const maxQEMUImageMiB = 1 << 30

// check tells what is wrong with a spec, field by field.
func (sp QEMUImageSpec) check() error {
	if !slices.Contains(qemuImageFormats, sp.Format) {
		return Invalid("format", "A disk image's format is one of %s", strings.Join(qemuImageFormats, ", "))
	}
	if sp.Size <= 0 || sp.Size > maxQEMUImageMiB {
		return Invalid("size", "A disk image's size is in MiB, from 1 to %d", maxQEMUImageMiB)
	}
	if sp.ClusterSize < 0 || sp.RefcountBits < 0 {
		return Invalid("cluster_size", "cluster_size and refcount_bits are positive numbers")
	}
	for k, v := range map[string]string{"preallocation": sp.Preallocation, "lazy_refcounts": sp.LazyRefcounts,
		"subformat": sp.Subformat, "static": sp.Static, "zeroed_grain": sp.ZeroedGrain, "adapter_type": sp.AdapterType} {
		if v != "" && !slices.Contains(qemuImageEnums[k], v) {
			return Invalid(k, "A disk image's %s is one of %s", k, strings.Join(qemuImageEnums[k], ", "))
		}
	}
	return nil
}

// errNoQEMU is the refusal of QEMU work on a machine without QEMU.
func errNoQEMU() error {
	return Errorf(ECONFLICT, "QEMU is not available to nodedesk on this machine; install it (on Debian or Ubuntu: apt install qemu-system-x86 qemu-utils) and restart nodedesk")
}

// QEMUBinaries lists this machine's qemu-system-* programs, only those of
// archs when it is not empty (GNS3's GET /v2/compute/qemu/binaries); none
// when QEMU is not available.
func (s *Service) QEMUBinaries(ctx context.Context, archs []string) ([]QEMUBinary, error) {
	tools, ok := capability[QEMUTools](s)
	if !ok {
		return []QEMUBinary{}, nil
	}
	return tools.Binaries(ctx, archs)
}

// QEMUImgBinaries lists this machine's qemu-img programs; none when QEMU
// is not available.
func (s *Service) QEMUImgBinaries(ctx context.Context) ([]QEMUBinary, error) {
	tools, ok := capability[QEMUTools](s)
	if !ok {
		return []QEMUBinary{}, nil
	}
	return tools.ImgBinaries(ctx)
}

// QEMUCapabilities says which architectures KVM accelerates here, and
// the acceleration QEMU nodes get.
func (s *Service) QEMUCapabilities(ctx context.Context) QEMUCapabilities {
	tools, ok := capability[QEMUTools](s)
	if !ok {
		return QEMUCapabilities{KVM: []string{}, Acceleration: AccelNone,
			AccelerationNote: "QEMU is not available on this machine: QEMU nodes cannot run"}
	}
	c := tools.Capabilities(ctx)
	if c.KVM == nil {
		c.KVM = []string{}
	}
	return c
}

// qemuImg checks the qemu-img program a request names: one that
// ImgBinaries lists (nodedesk runs no other program a request names), or
// the first of them when none is named.
func (s *Service) qemuImg(ctx context.Context, name string) (string, error) {
	tools, ok := capability[QEMUTools](s)
	if !ok {
		return "", errNoQEMU()
	}
	bins, err := tools.ImgBinaries(ctx)
	if err != nil {
		return "", err
	}
	if len(bins) == 0 {
		return "", Errorf(ECONFLICT, "qemu-img is not installed on this machine; install it (on Debian or Ubuntu: apt install qemu-utils)")
	}
	if name == "" {
		return bins[0].Path, nil
	}
	for _, b := range bins {
		if b.Path == name || filepath.Base(b.Path) == name {
			return b.Path, nil
		}
	}
	paths := make([]string, len(bins))
	for i, b := range bins {
		paths[i] = b.Path
	}
	return "", Invalid("qemu_img", "qemu_img %s is not one of this machine's qemu-img programs (%s); GET /v2/compute/qemu/img-binaries lists them", name, strings.Join(paths, ", "))
}

// qemuDiskPath resolves the path of a disk image a client names for
// qemu-img: a relative one is in nodedesk's QEMU images folder (checked
// by the images' path rule); an absolute one must be inside one of the
// QEMU images folders.
func (s *Service) qemuDiskPath(name string) (string, error) {
	folders, err := s.imageFolders(QEMUImages, true)
	if err != nil {
		return "", err
	}
	if filepath.IsAbs(name) {
		p := filepath.Clean(name)
		for _, dir := range folders {
			if r, err := filepath.Rel(dir, p); err == nil && r != "." && !strings.HasPrefix(r, "..") {
				if _, err := imageName(filepath.ToSlash(r)); err != nil {
					return "", &Error{Code: EINVALID, Message: ErrorMessage(err), Field: "path"}
				}
				return p, nil
			}
		}
		return "", Invalid("path", "Disk image %s is outside the QEMU images folders (%s); give a file name, which goes into %s",
			name, strings.Join(folders, ", "), folders[0])
	}
	rel, err := imageName(name)
	if err != nil {
		return "", &Error{Code: EINVALID, Message: ErrorMessage(err), Field: "path"}
	}
	return filepath.Join(folders[0], filepath.FromSlash(rel)), nil
}

// CreateQEMUImage makes a disk image with qemu-img (GNS3's POST
// /v2/compute/qemu/img): a relative path goes into nodedesk's QEMU images
// folder; an absolute one must be inside a QEMU images folder. An
// existing file is never overwritten. Codes: EINVALID (the spec, a
// qemu-img that is not this machine's, a path outside the folders),
// ECONFLICT (the file exists, QEMU is not available, qemu-img failed).
func (s *Service) CreateQEMUImage(ctx context.Context, sp QEMUImageSpec) error {
	if err := sp.check(); err != nil {
		return err
	}
	p, err := s.qemuDiskPath(sp.Path)
	if err != nil {
		return err
	}
	if sp.QEMUImg, err = s.qemuImg(ctx, sp.QEMUImg); err != nil {
		return err
	}
	if _, err := os.Lstat(p); err == nil {
		return Conflict("path", "Disk image %s exists already; choose another name", p)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("creating the folder of %s: %w", p, err)
	}
	sp.Path = p
	tools, _ := capability[QEMUTools](s) // qemuImg found it
	return tools.CreateImage(ctx, sp)
}

// ResizeQEMUImage grows a disk image by spec.Extend MiB with qemu-img
// (GNS3's PUT /v2/compute/qemu/img); a relative path is looked for as a
// node's image is, an absolute one must be inside a QEMU images folder.
// Extend 0 does nothing. Codes: EINVALID, ENOTFOUND (no such image),
// ECONFLICT (QEMU is not available, qemu-img failed).
func (s *Service) ResizeQEMUImage(ctx context.Context, r QEMUImageResize) error {
	if r.Extend < 0 || r.Extend > maxQEMUImageMiB {
		return Invalid("extend", "extend is the MiB to add to the disk image, from 0 to %d", maxQEMUImageMiB)
	}
	p, err := s.qemuDiskPath(r.Path)
	if err != nil {
		return err
	}
	if !filepath.IsAbs(r.Path) {
		folders, _ := s.imageFolders(QEMUImages, false)
		rel, _ := imageName(r.Path)
		if p = findImage(folders, rel); p == "" {
			return &Error{Code: ENOTFOUND, Field: "path", Message: fmt.Sprintf("Disk image %s doesn't exist in %s", r.Path, strings.Join(folders, " nor in "))}
		}
	} else if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return &Error{Code: ENOTFOUND, Field: "path", Message: fmt.Sprintf("Disk image %s doesn't exist", p)}
	}
	if r.QEMUImg, err = s.qemuImg(ctx, r.QEMUImg); err != nil {
		return err
	}
	if r.Extend == 0 {
		return nil
	}
	r.Path = p
	tools, _ := capability[QEMUTools](s) // qemuImg found it
	return tools.ResizeImage(ctx, r)
}
