package app

import (
	"cmp"
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Dynamips nodes' properties: the keys, defaults and rules of GNS3
// 2.2.59's Dynamips router (its compute's schemas/dynamips_vm.py,
// nodes/router.py and one file per platform), kept in Properties.Extra
// under GNS3's keys. A node keeps what it was given; its view fills in
// the defaults of its platform (GNS3's compute defaults, which differ per
// platform: RAM, NVRAM, clock divisor, I/O memory, chassis, built-in
// adapters), so that a change of platform never leaves another
// platform's defaults behind. Its ports come from its slots and WICs
// (node_ports.go); dynamips_id is a small number unique in its project
// (claimDynamipsID); aux is the node's own (Node.Aux). Package
// app/dynamips runs the nodes from them.

// dynamipsProps are the properties of a Dynamips node.
var dynamipsProps = propertyKind{
	newUpdate: func() PropertiesUpdate { return &DynamipsUpdate{} },
	init:      func(*Node, newNodeEnv) {},
	ports:     (*Node).dynamipsPorts,
	view:      dynamipsView,
	upgrade:   configsInFolder,
	unique:    []string{"mac_addr"},
	claim:     claimDynamipsID,
	template:  dynamipsTemplate, // dynamips_template.go
	// ghost is nodedesk's own key: a project file and a GNS3 compute
	// get it only when it is off (GNS3's compute refuses keys it does
	// not know; its own ghost IOS is a server setting, on by default).
	ownDefaults: map[string]any{"ghost": true},
}

// DynamipsPlatform is what differs between the routers Dynamips emulates,
// as GNS3 2.2.59's compute sets them up for a new router.
type DynamipsPlatform struct {
	RAM, NVRAM, ClockDivisor int
	IOMem                    int      // percent; 0 for c7200, which has none
	Disk0                    int      // MB
	Sparsemem                bool     // false where GNS3 never turns it on (c2600, c1700)
	Slots                    int      // slot<N> keys the router has
	Chassis                  []string // the chassis it may have, its default first; nil: none
	// Builtin is the adapter GNS3 puts in a slot of a new router of the
	// chassis (slot → adapter name).
	Builtin func(chassis string) map[int]string
}

// DynamipsPlatforms are the platforms GNS3 2.2 runs, by name.
var DynamipsPlatforms = map[string]DynamipsPlatform{
	"c7200": {RAM: 256, NVRAM: 128, ClockDivisor: 4, Disk0: 64, Sparsemem: true, Slots: 7,
		Builtin: func(string) map[int]string { return map[int]string{0: "C7200-IO-FE"} }},
	"c3745": {RAM: 128, NVRAM: 304, ClockDivisor: 8, IOMem: 5, Disk0: 16, Sparsemem: true, Slots: 5, Builtin: gt96100},
	"c3725": {RAM: 128, NVRAM: 112, ClockDivisor: 8, IOMem: 5, Disk0: 16, Sparsemem: true, Slots: 3, Builtin: gt96100},
	"c2691": {RAM: 128, NVRAM: 112, ClockDivisor: 8, IOMem: 5, Disk0: 16, Sparsemem: true, Slots: 2, Builtin: gt96100},
	"c3600": {RAM: 128, NVRAM: 128, ClockDivisor: 4, IOMem: 5, Sparsemem: true, Slots: 4,
		Chassis: []string{"3640", "3620", "3660"},
		Builtin: func(c string) map[int]string {
			if c == "3660" {
				return map[int]string{0: "Leopard-2FE"}
			}
			return nil
		}},
	"c2600": {RAM: 64, NVRAM: 128, ClockDivisor: 8, IOMem: 15, Slots: 2,
		Chassis: []string{"2610", "2611", "2620", "2621", "2610XM", "2611XM", "2620XM", "2621XM", "2650XM", "2651XM"},
		Builtin: func(c string) map[int]string {
			return map[int]string{0: map[string]string{"2610": "C2600-MB-1E", "2611": "C2600-MB-2E", "2620": "C2600-MB-1FE",
				"2621": "C2600-MB-2FE", "2610XM": "C2600-MB-1FE", "2611XM": "C2600-MB-2FE", "2620XM": "C2600-MB-1FE",
				"2621XM": "C2600-MB-2FE", "2650XM": "C2600-MB-1FE", "2651XM": "C2600-MB-2FE"}[c]}
		}},
	"c1700": {RAM: 64, NVRAM: 32, ClockDivisor: 8, IOMem: 15, Slots: 1,
		Chassis: []string{"1720", "1721", "1750", "1751", "1760"},
		Builtin: func(c string) map[int]string {
			if c == "1751" || c == "1760" {
				return map[int]string{0: "C1700-MB-1FE", 1: "C1700-MB-WIC1"}
			}
			return map[int]string{0: "C1700-MB-1FE"}
		}},
}

func gt96100(string) map[int]string { return map[int]string{0: "GT96100-FE"} }

// dynamipsPlatformNames are the platforms, in GNS3's order.
var dynamipsPlatformNames = []string{"c7200", "c3745", "c3725", "c3600", "c2691", "c2600", "c1700"}

// DefaultDynamipsPlatform is the platform of a router that names none.
const DefaultDynamipsPlatform = "c7200"

// The c7200's own choices.
var (
	dynamipsNPEs      = []string{"npe-100", "npe-150", "npe-175", "npe-200", "npe-225", "npe-300", "npe-400", "npe-g2"}
	dynamipsMidplanes = []string{"std", "vxr"}
)

// MaxDynamipsID bounds dynamips_id, as GNS3 does (4096 routers a project).
const MaxDynamipsID = 4096

// DynamipsStartupConfig and DynamipsPrivateConfig are where a router's
// configs are in its folder, as GNS3 2.2 keeps them (router.py): files of
// the node's folder, which the node files API reads and writes and
// a project's export carries; the runner gives them to Dynamips at start
// and writes what the router saved back at stop.
func DynamipsStartupConfig(dynamipsID int) string {
	return "configs/i" + strconv.Itoa(dynamipsID) + "_startup-config.cfg"
}

// DynamipsPrivateConfig: see DynamipsStartupConfig.
func DynamipsPrivateConfig(dynamipsID int) string {
	return "configs/i" + strconv.Itoa(dynamipsID) + "_private-config.cfg"
}

// IOSBaseConfig is the config a new router starts with: what GNS3 2.2's
// IOS router templates give one (their startup_config,
// ios_base_startup-config.txt), in nodedesk's words. The router is named
// after its node; its console and aux lines open at privilege 15 with no
// login and never time out; a mistyped command is not looked up in DNS;
// traceroutes are not rate-limited; logs carry milliseconds. %h is the
// router's name.
const IOSBaseConfig = `!
hostname %h
!
no ip domain-lookup
ip cef
no ip icmp rate-limit unreachable
ip tcp synwait 5
no cdp log mismatch duplex
no service password-encryption
service timestamps log datetime msec
service timestamps debug datetime msec
!
line con 0
 privilege level 15
 no login
 exec-timeout 0 0
 logging synchronous
line aux 0
 privilege level 15
 no login
 exec-timeout 0 0
 logging synchronous
!
end
`

// DynamipsConfigText is a config of router name as gns3-server writes one
// it was given: a first "!" line, no CR, %h replaced by the name.
func DynamipsConfigText(content, name string) string {
	return "!\n" + strings.ReplaceAll(strings.ReplaceAll(content, "\r", ""), "%h", name)
}

// DynamipsFirstConfig is the startup config of router name while its
// folder has none: what it starts with, and what "Edit config" shows
// until then. It is the startup_config_content a GNS3 controller gave
// (given), else the base config GNS3's IOS router templates give
// (IOSBaseConfig).
func DynamipsFirstConfig(name, given string) string {
	return DynamipsConfigText(cmp.Or(given, IOSBaseConfig), name)
}

// dynamipsFirstFile is the startup config of router n while its folder
// has none (nodeKind.firstFile).
func dynamipsFirstFile(n *Node, name string) (string, bool) {
	if name != DynamipsStartupConfig(n.DynamipsID()) {
		return "", false
	}
	return DynamipsFirstConfig(n.Name, n.extraString("startup_config_content")), true
}

// dynamipsSettings are the properties GNS3 2.2.59's compute keeps for a
// Dynamips router with the defaults every platform shares; those of the
// platform are filled by dynamipsView.
var dynamipsSettings = newSettingTable(func() []setting {
	s := []setting{
		{key: "usage", def: "", check: isString},
		{key: "platform", def: DefaultDynamipsPlatform, check: isOneOf(dynamipsPlatformNames)},
		{key: "image", def: "", check: isString},
		{key: "image_md5sum", check: isString},
		{key: "dynamips_id", check: isWholeNumber(1, MaxDynamipsID, "")},
		{key: "ram", check: isWholeNumber(1, 0, "MB")},
		{key: "nvram", check: isWholeNumber(1, 0, "KB")},
		{key: "mmap", def: true, check: isBool},
		{key: "sparsemem", check: isBool},
		{key: "clock_divisor", check: isWholeNumber(1, 0, "")},
		{key: "idlepc", def: "", check: isIdlePC},
		{key: "idlemax", def: 500, check: isWholeNumber(0, 0, "")},
		{key: "idlesleep", def: 30, check: isWholeNumber(0, 0, "ms")},
		{key: "exec_area", def: 64, check: isWholeNumber(1, 0, "MB")},
		{key: "disk0", check: isWholeNumber(0, 0, "MB")},
		{key: "disk1", def: 0, check: isWholeNumber(0, 0, "MB")},
		{key: "auto_delete_disks", def: false, check: isBool},
		{key: "mac_addr", check: isDynamipsMAC, unset: []string{""}},
		{key: "system_id", def: "FTX0945W0MY", check: isString},
		{key: "npe", check: isOneOf(dynamipsNPEs)},
		{key: "midplane", check: isOneOf(dynamipsMidplanes)},
		{key: "chassis", check: isChassis},
		{key: "iomem", check: isWholeNumber(0, 100, "%")},
		{key: "sensors", check: isAny},
		{key: "power_supplies", check: isAny},
		// ghost is nodedesk's own: share the IOS image's RAM between the
		// routers of a project that run it (GNS3's ghost IOS, which its
		// server turns on for every router by default).
		{key: "ghost", def: true, check: isBool},
	}
	for i := range 7 {
		s = append(s, setting{key: "slot" + strconv.Itoa(i), check: isDynamipsAdapter(dynamipsAdapters), unset: []string{""}})
	}
	for i := range 3 {
		s = append(s, setting{key: "wic" + strconv.Itoa(i), check: isDynamipsAdapter(dynamipsWICs), unset: []string{""}})
	}
	return s
}())

// dynamipsPlatformKeys are the keys only some platforms have.
var dynamipsPlatformKeys = []string{"npe", "midplane", "sensors", "power_supplies", "chassis", "iomem"}

// DynamipsDefaults are the properties GNS3 2.2.59's compute gives a new
// router of platform (and chassis, "" for the platform's default) before
// any setting is applied: what app/dynamips compares a node's settings
// with, as GNS3 sends only the settings that differ.
func DynamipsDefaults(platform, chassis string) map[string]any {
	pf, ok := DynamipsPlatforms[platform]
	if !ok {
		platform, pf = DefaultDynamipsPlatform, DynamipsPlatforms[DefaultDynamipsPlatform]
	}
	d := map[string]any{"platform": platform, "ram": pf.RAM, "nvram": pf.NVRAM, "clock_divisor": pf.ClockDivisor,
		"sparsemem": pf.Sparsemem, "disk0": pf.Disk0}
	if platform == "c7200" {
		d["npe"], d["midplane"] = "npe-400", "vxr"
		d["sensors"], d["power_supplies"] = []any{22, 22, 22, 22}, []any{1, 1}
	} else {
		d["iomem"] = pf.IOMem
	}
	if len(pf.Chassis) > 0 {
		if !slices.Contains(pf.Chassis, chassis) {
			chassis = pf.Chassis[0]
		}
		d["chassis"] = chassis
	}
	builtin := pf.Builtin(chassis)
	for i := range max(pf.Slots, len(builtin)) {
		d["slot"+strconv.Itoa(i)] = nil
		if a, ok := builtin[i]; ok {
			d["slot"+strconv.Itoa(i)] = a
		}
	}
	return d
}

// dynamipsView is a Dynamips node's properties: what it keeps, and
// GNS3's default for each it lacks, its platform's first; the keys of
// other platforms and slots its router does not have are left out. aux
// is its auxiliary console's port (null: none).
func dynamipsView(n *Node) map[string]any {
	platform := n.dynamipsPlatform()
	defaults := DynamipsDefaults(platform, n.extraString("chassis"))
	v := dynamipsSettings.view(n.Properties.Extra, defaults)
	for _, k := range dynamipsPlatformKeys {
		if _, ok := defaults[k]; !ok {
			delete(v, k)
		}
	}
	for i := range 7 {
		_, has := defaults["slot"+strconv.Itoa(i)]
		if raw, ok := n.Properties.Extra["slot"+strconv.Itoa(i)]; !has && (!ok || isNull(raw)) {
			delete(v, "slot"+strconv.Itoa(i))
		}
	}
	for i := range 3 {
		if raw, ok := n.Properties.Extra["wic"+strconv.Itoa(i)]; !ok || isNull(raw) {
			delete(v, "wic"+strconv.Itoa(i))
		}
	}
	v["aux"] = nil
	if n.Aux != 0 {
		v["aux"] = n.Aux
	}
	return v
}

// dynamipsPlatform is n's platform, the default one if it names none
// or one GNS3 does not run.
func (n *Node) dynamipsPlatform() string {
	if p := n.extraString("platform"); DynamipsPlatforms[p].Slots > 0 {
		return p
	}
	return DefaultDynamipsPlatform
}

// dynamipsSlots are n's slot and WIC keys with their adapters: those it
// keeps over its platform's built-in ones.
func (n *Node) dynamipsSlots() map[string]string {
	m := map[string]string{}
	for k, v := range DynamipsDefaults(n.dynamipsPlatform(), n.extraString("chassis")) {
		if s, ok := v.(string); ok && strings.HasPrefix(k, "slot") {
			m[k] = s
		}
	}
	for k, raw := range n.Properties.Extra {
		if strings.HasPrefix(k, "wic") || strings.HasPrefix(k, "slot") {
			var s string
			if json.Unmarshal(raw, &s) == nil {
				m[k] = s
			} else if isNull(raw) {
				delete(m, k)
			}
		}
	}
	return m
}

// claimDynamipsID gives n, inside tx, a dynamips_id no other node of its
// project has: the one it keeps if free, else the lowest free one, as
// GNS3's compute allocates them (1–4096). Its configs' file names follow
// it (DynamipsStartupConfig).
func claimDynamipsID(tx Tx, n *Node) error {
	nodes, err := tx.Nodes(n.ProjectID)
	if err != nil {
		return err
	}
	used := map[int]bool{}
	for _, o := range nodes {
		if o.ID != n.ID && o.Type == n.Type {
			used[o.DynamipsID()] = true
		}
	}
	if id := n.DynamipsID(); id > 0 && !used[id] {
		return nil
	}
	for id := 1; id <= MaxDynamipsID; id++ {
		if !used[id] {
			n.Properties.Extra = maps.Clone(n.Properties.Extra)
			if n.Properties.Extra == nil {
				n.Properties.Extra = map[string]json.RawMessage{}
			}
			n.Properties.Extra["dynamips_id"] = json.RawMessage(strconv.Itoa(id))
			return nil
		}
	}
	return Errorf(ECONFLICT, "All %d Dynamips router numbers of this project are in use; delete routers you no longer need", MaxDynamipsID)
}

// DynamipsID is n's dynamips_id; 0: none yet.
func (n *Node) DynamipsID() int {
	var id int
	if json.Unmarshal(n.Properties.Extra["dynamips_id"], &id) != nil || id < 1 || id > MaxDynamipsID {
		return 0
	}
	return id
}

// DynamipsUpdate is a change to a Dynamips node's properties, under
// GNS3's keys, as QEMUUpdate is to a QEMU node's. aux and mac_addr as
// GNS3's compute shows them (read from Dynamips) are kept as given.
type DynamipsUpdate map[string]json.RawMessage

// UnmarshalJSON reads the properties of a Dynamips node from a
// controller's "properties" object or from a compute request's body.
func (u *DynamipsUpdate) UnmarshalJSON(b []byte) error {
	m, err := propertiesIn(b)
	if err != nil {
		return err
	}
	delete(m, "aux")
	*u = m
	return nil
}

func (u *DynamipsUpdate) apply(p *Properties) error {
	if len(*u) == 0 {
		return nil
	}
	extra, err := dynamipsSettings.apply(p.Extra, *u)
	if err != nil {
		return err
	}
	p.Extra = extra
	return nil
}

var idlePCPattern = regexp.MustCompile(`^(0x[0-9a-fA-F]+)?$`)

// isIdlePC accepts an idle-PC value as GNS3 does: empty or 0x<hex>.
func isIdlePC(key string, raw json.RawMessage) error {
	if !isJSONString(raw) || !idlePCPattern.MatchString(rawString(raw)) {
		return Invalid("properties."+key, "%s must be an address such as 0x6025a4b8 (or empty for none), not %s", key, describeRaw(raw))
	}
	return nil
}

var dynamipsMACPattern = regexp.MustCompile(`^([0-9a-fA-F]{4}\.){2}[0-9a-fA-F]{4}$`)

// isDynamipsMAC accepts a router's base MAC address as Cisco writes it.
func isDynamipsMAC(key string, raw json.RawMessage) error {
	if !isJSONString(raw) || !dynamipsMACPattern.MatchString(rawString(raw)) {
		return Invalid("properties."+key, "%s must be a MAC address such as ca01.0a0b.0000, not %s", key, describeRaw(raw))
	}
	return nil
}

var chassisPattern = regexp.MustCompile(`^[0-9]{4}(XM)?$`)

// isChassis accepts a chassis as GNS3's schema does (3640, 2651XM).
func isChassis(key string, raw json.RawMessage) error {
	if !isJSONString(raw) || !chassisPattern.MatchString(rawString(raw)) {
		return Invalid("properties."+key, "%s must be a chassis such as 3640 or 2651XM, not %s", key, describeRaw(raw))
	}
	return nil
}

// isDynamipsAdapter accepts an adapter of known (a network module or a
// WIC nodedesk knows the ports of).
func isDynamipsAdapter(known map[string]dynamipsAdapter) func(string, json.RawMessage) error {
	return func(key string, raw json.RawMessage) error {
		if _, ok := known[rawString(raw)]; !isJSONString(raw) || !ok {
			return Invalid("properties."+key, "%s must name an adapter such as %s, or be null for none, not %s",
				key, slices.Min(slices.Collect(maps.Keys(known))), describeRaw(raw))
		}
		return nil
	}
}

func isAny(string, json.RawMessage) error { return nil }

// dynamipsComputeView is what GNS3 2.2.59's compute shows of a router
// besides name, node_id, project_id and status.
var dynamipsComputeView = func() []string {
	v := append([]string{"aux", "console", "console_type", "node_directory"}, dynamipsSettings.keys("ghost")...)
	slices.Sort(v)
	return v
}()
