package app

import (
	"cmp"
	"context"
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
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
	template:  dynamipsTemplate,
	// ghost is nodedesk's own key: a project file and a GNS3 compute
	// get it only when it is off (GNS3's compute refuses keys it does
	// not know; its own ghost IOS is a server setting, on by default).
	ownDefaults: map[string]any{"ghost": true},
}

// DynamipsPlatform is what differs between the routers Dynamips emulates,
// as GNS3 2.2.59's compute sets them up for a new router.
type DynamipsPlatform struct {
	RAM, NVRAM, ClockDivisor int
	IOMem                    int  // percent; 0 for c7200, which has none
	Disk0                    int  // MB
	Sparsemem                bool // false where GNS3 never turns it on (c2600, c1700)
	Slots                    int  // slot<N> keys the router has
	// ChassisSlots are the slot counts of the chassis whose count is not
	// Slots (a 3620 has 2 slots, a 3660 7).
	ChassisSlots map[string]int
	Chassis      []string // the chassis it may have, its default first; nil: none
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
	"c3600": {RAM: 128, NVRAM: 128, ClockDivisor: 4, IOMem: 5, Sparsemem: true, Slots: 4, ChassisSlots: map[string]int{"3620": 2, "3660": 7},
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

// slotCount is how many slots a router of the platform and chassis has.
func (pf DynamipsPlatform) slotCount(chassis string) int {
	if n, ok := pf.ChassisSlots[chassis]; ok {
		return n
	}
	return pf.Slots
}

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
	for i := range max(pf.slotCount(chassis), len(builtin)) {
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
func claimDynamipsID(c claimEnv, n *Node) error {
	nodes, err := c.tx.Nodes(n.ProjectID)
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

// givenImages is the image the change names, if any.
func (u *DynamipsUpdate) givenImages(keys []string) map[string]string { return givenImages(*u, keys) }

// withImages is a copy of u with its image as a node keeps it and, when
// known, its checksum (image_md5sum), which GNS3's compute computes.
func (u *DynamipsUpdate) withImages(kept map[string]keptImage) PropertiesUpdate {
	c := DynamipsUpdate(withImages(*u, kept, func(k string) string { return k + "_md5sum" }))
	return &c
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

// dynamipsAdapter is what one Dynamips network module or port adapter
// gives: how many ports, of which class.
type dynamipsAdapter struct {
	ports int
	class portClass
}

// dynamipsPorts are a Dynamips router's ports, from its slot<N> and wic<N>
// properties and its platform's built-in adapters (dynamipsSlots): slot N's module gives ports N/0, N/1, ... (adapter N); WIC N
// gives ports on adapter 0 numbered from 16×(N+1), named on from
// <type>0/0 across the WICs. GNS3 numbers slots by their place among the
// slot keys, which is their number when every slot is listed, as GNS3
// writes them; nodedesk uses the number.
func (n *Node) dynamipsPorts() []Port {
	ports := []Port{}
	display := 0
	slots := n.dynamipsSlots()
	for _, key := range slices.Sorted(maps.Keys(slots)) {
		var kind string
		var num int
		for _, prefix := range []string{"slot", "wic"} {
			if d, ok := strings.CutPrefix(key, prefix); ok {
				if v, err := strconv.Atoi(d); err == nil && v >= 0 && v < 64 {
					kind, num = prefix, v
				}
			}
		}
		name := slots[key]
		switch kind {
		case "slot":
			m, ok := dynamipsAdapters[name]
			for p := 0; ok && p < m.ports; p++ {
				long := m.class.long + strconv.Itoa(num) + "/" + strconv.Itoa(p)
				ports = append(ports, m.class.port(long, m.class.short+strconv.Itoa(num)+"/"+strconv.Itoa(p), num, num, p))
			}
		case "wic":
			m, ok := dynamipsWICs[name]
			for p := 0; ok && p < m.ports; p++ {
				suffix := "0/" + strconv.Itoa(display)
				ports = append(ports, m.class.port(m.class.long+suffix, m.class.short+suffix, 0, 0, (num+1)*16+p))
				display++
			}
		}
	}
	return ports
}

// dynamipsAdapters are the adapters of Dynamips slots (GNS3's
// ADAPTER_MATRIX) and dynamipsWICs its WAN interface cards.
var (
	dynamipsAdapters = map[string]dynamipsAdapter{
		"C1700-MB-1FE": {1, fastEthernetClass}, "C1700-MB-WIC1": {0, ethernetClass},
		"C2600-MB-1E": {1, ethernetClass}, "C2600-MB-1FE": {1, fastEthernetClass},
		"C2600-MB-2E": {2, ethernetClass}, "C2600-MB-2FE": {2, fastEthernetClass},
		"C7200-IO-2FE": {2, fastEthernetClass}, "C7200-IO-FE": {1, fastEthernetClass},
		"C7200-IO-GE-E": {1, gigabitClass}, "GT96100-FE": {2, fastEthernetClass},
		"Leopard-2FE": {2, fastEthernetClass}, "NM-16ESW": {16, fastEthernetClass},
		"NM-1E": {1, ethernetClass}, "NM-1FE-TX": {1, fastEthernetClass},
		"NM-4E": {4, ethernetClass}, "NM-4T": {4, serialClass},
		"PA-2FE-TX": {2, fastEthernetClass}, "PA-4E": {4, ethernetClass},
		"PA-4T+": {4, serialClass}, "PA-8E": {8, ethernetClass},
		"PA-8T": {8, serialClass}, "PA-A1": {1, atmClass},
		"PA-FE-TX": {1, fastEthernetClass}, "PA-GE": {1, gigabitClass},
		"PA-POS-OC3": {1, posClass},
	}
	dynamipsWICs = map[string]dynamipsAdapter{
		"WIC-1ENET": {1, ethernetClass}, "WIC-1T": {1, serialClass}, "WIC-2T": {2, serialClass},
	}
)

// The Dynamips catalogue: which adapters fit which slot of each router
// platform and chassis, and which WAN interface cards its WIC slots take,
// as GNS3 2.2.59 offers them. The UI builds its slot choices from it
// (GET /v2/dynamips/platforms), so that no client repeats the matrix.

// DynamipsPlatformInfo is what a user may choose for routers of one
// platform.
type DynamipsPlatformInfo struct {
	Platform string `json:"platform"`
	// Chassis lists the platform's chassis, its default first; empty for
	// the platforms that have one.
	Chassis []DynamipsChassisInfo `json:"chassis"`
	// WICs lists the WAN interface cards its WIC slots take (empty: it
	// has none; how many slots is the chassis').
	WICs []string `json:"wics"`
	// NPEs and Midplanes are the c7200's choices (empty for the others).
	NPEs      []string `json:"npes"`
	Midplanes []string `json:"midplanes"`
}

// DynamipsChassisInfo is one chassis: its name ("" when the platform has
// one), its slots and how many WIC slots it has.
type DynamipsChassisInfo struct {
	Name     string             `json:"name"`
	Slots    []DynamipsSlotInfo `json:"slots"`
	WICSlots int                `json:"wic_slots"`
}

// DynamipsSlotInfo is one slot: the adapters that fit it, and whether it
// is built in (its one adapter is always there).
type DynamipsSlotInfo struct {
	Slot     int      `json:"slot"`
	Adapters []string `json:"adapters"`
	BuiltIn  bool     `json:"built_in"`
}

// The modules each family's slots take.
var (
	c2600Modules = []string{"NM-1FE-TX", "NM-1E", "NM-4E", "NM-16ESW"}
	c3600Modules = []string{"NM-1FE-TX", "NM-1E", "NM-4E", "NM-16ESW", "NM-4T"}
	c3700Modules = []string{"NM-1FE-TX", "NM-4T", "NM-16ESW"}
	c7200PAs     = []string{"PA-A1", "PA-FE-TX", "PA-2FE-TX", "PA-GE", "PA-4T+", "PA-8T", "PA-4E", "PA-8E", "PA-POS-OC3"}
	c7200IOs     = []string{"C7200-IO-FE", "C7200-IO-2FE", "C7200-IO-GE-E"}
	c1700WICs    = []string{"WIC-1T", "WIC-2T", "WIC-1ENET"}
	serialWICs   = []string{"WIC-1T", "WIC-2T"}
)

// dynamipsSlotChoices lists the adapters that fit slot i of a router of
// platform and chassis, and whether the slot is built in; nil: the router
// has no such slot.
func dynamipsSlotChoices(platform, chassis string, i int) (adapters []string, builtIn bool) {
	pf, ok := DynamipsPlatforms[platform]
	if !ok {
		return nil, false
	}
	if b, ok := pf.Builtin(chassis)[i]; ok && !(platform == "c7200" && i == 0) {
		return []string{b}, true
	}
	switch platform {
	case "c7200":
		if i == 0 {
			return c7200IOs, false
		}
		if i <= 6 {
			return c7200PAs, false
		}
	case "c3745", "c3725", "c2691":
		if i < pf.Slots {
			return c3700Modules, false
		}
	case "c3600":
		if i < pf.slotCount(chassis) {
			return c3600Modules, false
		}
	case "c2600":
		if i == 1 {
			return c2600Modules, false
		}
	}
	return nil, false
}

// dynamipsWICChoices are the WICs platform's WIC slots take and how many
// it has.
func dynamipsWICChoices(platform, chassis string) ([]string, int) {
	switch platform {
	case "c1700":
		if chassis == "1751" || chassis == "1760" {
			return c1700WICs, 2
		}
		return c1700WICs, 1
	case "c2600", "c2691", "c3725", "c3745":
		return serialWICs, 3
	}
	return nil, 0
}

// DynamipsCatalog describes every platform GNS3 2.2 runs, in GNS3's order.
func DynamipsCatalog() []DynamipsPlatformInfo {
	out := make([]DynamipsPlatformInfo, 0, len(dynamipsPlatformNames))
	for _, name := range dynamipsPlatformNames {
		pf := DynamipsPlatforms[name]
		info := DynamipsPlatformInfo{Platform: name, NPEs: []string{}, Midplanes: []string{}}
		if name == "c7200" {
			info.NPEs, info.Midplanes = slices.Clone(dynamipsNPEs), slices.Clone(dynamipsMidplanes)
		}
		chassis := pf.Chassis
		if len(chassis) == 0 {
			chassis = []string{""}
		}
		for _, c := range chassis {
			ci := DynamipsChassisInfo{Name: c, Slots: []DynamipsSlotInfo{}}
			info.WICs, ci.WICSlots = dynamipsWICChoices(name, c)
			for i := range 7 {
				if a, b := dynamipsSlotChoices(name, c, i); a != nil {
					ci.Slots = append(ci.Slots, DynamipsSlotInfo{Slot: i, Adapters: a, BuiltIn: b})
				}
			}
			info.Chassis = append(info.Chassis, ci)
		}
		if info.WICs == nil {
			info.WICs = []string{}
		}
		out = append(out, info)
	}
	return out
}

// dynamipsTemplate is what a user Dynamips (IOS router) template starts
// with, as GNS3 2.2.59's controller fills it (schemas/dynamips_template.py,
// one schema per platform): nodes named R1, R2, … in the router category,
// the settings every platform has, and those of the template's platform
// (dynamipsPlatformTemplates). A template needs its platform and image,
// and a c3600, c2600 or c1700 one its chassis too, as GNS3 refuses one
// without. Slots and WICs get no default in a template: a node made from
// it gets its platform's built-in adapters.
var dynamipsTemplate = templateKind{nameFormat: "R{0}", category: "router",
	settings: dynamipsSettings.defaults([]string{"mmap", "exec_area", "system_id", "idlepc", "idlemax", "idlesleep", "disk1", "auto_delete_disks"},
		map[string]any{"usage": "", "mac_addr": "", "startup_config": "ios_base_startup-config.txt", "private_config": "",
			"disk0": 0, "console_type": "telnet", "console_auto_start": false}),
	required: []string{"platform", "image"},
	// The names of GNS3's base config files stay with the template: a
	// router made from it starts with app.DynamipsFirstConfig, as GNS3's
	// starts with ios_base_startup-config.txt.
	templateOnly: []string{"startup_config", "private_config"},
	variant: func(given map[string]json.RawMessage) templateKind {
		var platform string
		if json.Unmarshal(given["platform"], &platform) != nil {
			return templateKind{}
		}
		return dynamipsPlatformTemplates[platform]
	},
}

// dynamipsPlatformTemplates are the template settings that differ per
// platform in GNS3 2.2.59 (they differ from a node's compute defaults:
// a c7200 template has 512 MB of RAM, a c7200 node 256), and the chassis
// GNS3 requires.
var dynamipsPlatformTemplates = map[string]templateKind{
	"c7200": {settings: map[string]any{"ram": 512, "nvram": 512, "npe": "npe-400", "midplane": "vxr", "sparsemem": true}},
	"c3745": {settings: map[string]any{"ram": 256, "nvram": 256, "iomem": 5, "sparsemem": true}},
	"c3725": {settings: map[string]any{"ram": 128, "nvram": 256, "iomem": 5, "sparsemem": true}},
	"c3600": {settings: map[string]any{"ram": 192, "nvram": 128, "iomem": 5, "sparsemem": true}, required: []string{"chassis"}},
	"c2691": {settings: map[string]any{"ram": 192, "nvram": 256, "iomem": 5, "sparsemem": true}},
	"c2600": {settings: map[string]any{"ram": 160, "nvram": 128, "iomem": 15, "sparsemem": true}, required: []string{"chassis"}},
	"c1700": {settings: map[string]any{"ram": 160, "nvram": 128, "iomem": 15, "sparsemem": false}, required: []string{"chassis"}},
}

// Idle-PC for an image: GNS3's IOS router wizard asks its server for an
// idle-PC value of an image before any router runs it. The server boots a
// router of that image in a project of its own, waits for IOS to settle,
// samples it (AutoIdlePC) and removes the project whatever happens.

// AutoIdlePCProject is the name of the project an image's idle PC is
// found in, as GNS3 names it; one left by an earlier search is removed.
const AutoIdlePCProject = "AUTOIDLEPC"

// DefaultIdlePCBoot is how long a router is given to boot before its idle
// PC is sampled, as GNS3 waits, when its console shows no prompt.
const DefaultIdlePCBoot = 20 * time.Second

// idlePCSettle is how long a router that has shown its prompt is left to
// settle into its idle loop before its idle PC is sampled.
const idlePCSettle = 2 * time.Second

// ImageIdlePC is an image's idle-PC search: the router to run.
type ImageIdlePC struct {
	Platform string `json:"platform"`
	Image    string `json:"image"`
	RAM      int    `json:"ram"`
}

// FindImageIdlePC finds an idle-PC value for an IOS image, as GNS3's
// controller does for its IOS router wizard. Codes: EINVALID (no such
// platform, no image, RAM not positive), ECONFLICT (the image is not in
// the images folders, Dynamips cannot run, or no value works), and those
// of AutoIdlePC.
func (s *Service) FindImageIdlePC(ctx context.Context, q ImageIdlePC) (string, error) {
	if _, ok := DynamipsPlatforms[q.Platform]; !ok {
		return "", Invalid("platform", "platform %q is not one Dynamips runs: choose one of %v", q.Platform, dynamipsPlatformNames)
	}
	if q.Image == "" {
		return "", Invalid("image", "name the IOS image to find an idle-PC value for")
	}
	if q.RAM <= 0 {
		return "", Invalid("ram", "ram must be the router's memory in MB, such as 256")
	}
	if _, err := s.ImagePath(IOSImages, q.Image); err != nil {
		return "", Errorf(ECONFLICT, "The image %s is missing: upload it or copy it into the IOS images folder, then try again", q.Image)
	}
	if err := s.removeAutoIdlePCProject(ctx); err != nil {
		return "", err
	}
	p, err := s.CreateProject(ctx, ProjectCreate{ProjectUpdate: ProjectUpdate{Name: Some(AutoIdlePCProject)}})
	if err != nil {
		return "", err
	}
	defer func() {
		if err := s.DeleteProject(context.WithoutCancel(ctx), p.ID); err != nil {
			s.c.Logger.Error("the idle-PC search's project could not be removed", "project", p.ID, "err", err)
		}
	}()
	props, _ := json.Marshal(map[string]any{"platform": q.Platform, "image": q.Image, "ram": q.RAM, "idlepc": ""})
	raw, err := DecodeProperties(Dynamips, props)
	if err != nil {
		return "", err
	}
	n, err := s.CreateNode(ctx, p.ID, NodeCreate{Type: Dynamips, NodeUpdate: NodeUpdate{Name: Some(AutoIdlePCProject), Properties: raw}})
	if err != nil {
		return "", err
	}
	ref := NodeRef{ProjectID: p.ID, NodeID: n.ID}
	if _, err := s.NodeAction(ctx, ref, Start); err != nil {
		return "", err
	}
	if err := s.awaitIdlePCBoot(ctx, n.ID); err != nil {
		return "", err
	}
	return s.AutoIdlePC(ctx, ref)
}

// removeAutoIdlePCProject removes the project an earlier search left.
func (s *Service) removeAutoIdlePCProject(ctx context.Context) error {
	projects, err := s.FindProjects(ctx)
	if err != nil {
		return err
	}
	for _, p := range projects {
		if p.Name == AutoIdlePCProject {
			if err := s.DeleteProject(ctx, p.ID); err != nil {
				return err
			}
		}
	}
	return nil
}

// awaitIdlePCBoot waits until the search's router has booted (its
// console showed its prompt, decision 0077) and then idlePCSettle, all
// within idlePCBoot: a router that shows no prompt is given that long.
func (s *Service) awaitIdlePCBoot(ctx context.Context, nodeID string) error {
	bound := time.NewTimer(s.idlePCBoot())
	defer bound.Stop()
	if ch := s.bootWait(nodeID); ch != nil {
		select {
		case <-ch:
		case <-bound.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	settle := time.NewTimer(idlePCSettle)
	defer settle.Stop()
	select {
	case <-settle.C:
	case <-bound.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

func (s *Service) idlePCBoot() time.Duration {
	if s.c.IdlePCBoot > 0 {
		return s.c.IdlePCBoot
	}
	return DefaultIdlePCBoot
}

// ---- Lint (decision 0070): the addresses a router's startup config names. ----

// dynamipsConfig is where a router's addresses are named: its startup
// config in its folder, an IOS config (iosPortConfigs).
var dynamipsConfig = &configReader{file: func(n *Node) string { return DynamipsStartupConfig(n.DynamipsID()) }, read: iosPortConfigs}
