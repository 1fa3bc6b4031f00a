package app

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// IOU nodes' properties: the keys, defaults and rules of GNS3 2.2.59's
// IOU node (its compute's schemas/iou.py and compute/iou/iou_vm.py), kept
// in Properties.Extra under GNS3's keys. application_id is the number the
// IOU process and its sockets are known by: unique among the IOU nodes of
// every open project, and on the machine while the node runs
// (claimIOUApplicationID). Package app/iou runs the nodes; the data plane
// carries their frames over IOU's own unix sockets (NetIO).

// MaxIOUApplicationID bounds application_id, as GNS3 does: ids 1–511, the
// bridge of id n being n+512.
const MaxIOUApplicationID = 511

// NetIOBridgeOffset is what is added to an IOU node's application id to
// give the id of the bridge its frames are exchanged with.
const NetIOBridgeOffset = 512

// NetIODir is the folder of the unix datagram sockets IOU processes and
// their bridges exchange frames over, one per id: /tmp/netio<uid>, as IOU
// itself names it (whatever TMPDIR says), shared by every program of the
// user on the machine.
func NetIODir() string { return "/tmp/netio" + strconv.Itoa(os.Getuid()) }

// ApplicationID is n's application_id; 0: none yet.
func (n *Node) ApplicationID() int {
	var id int
	if json.Unmarshal(n.Properties.Extra["application_id"], &id) != nil || id < 1 || id > MaxIOUApplicationID {
		return 0
	}
	return id
}

// NetIO reports whether n's frames travel over IOU's unix sockets now (it
// is a running node of a type that uses them), and its application id:
// the data plane then binds the bridge id+NetIOBridgeOffset in NetIODir and
// exchanges each port's frames with the process's socket id, port
// (adapter a, port p) being IOU's bay a, unit p.
func (n *Node) NetIO() (id int, ok bool) {
	if !n.Type.kind().netio || !n.Active() {
		return 0, false
	}
	id = n.ApplicationID()
	return id, id > 0
}

// iouProps are the properties of an IOU node.
var iouProps = propertyKind{
	newUpdate: func() PropertiesUpdate { return &IOUUpdate{} },
	init:      initIOU,
	ports:     func(n *Node) []Port { return n.standardPorts(4) },
	view:      iouView,
	upgrade:   configsInFolder,
	claim:     claimIOUApplicationID,
	template:  iouTemplate,
	named:     nameIOUConfig,
}

// initIOU gives a new IOU node GNS3's port names: Ethernet0/0 … Ethernet0/3,
// then Ethernet1/0, each adapter (bay) a segment of 4.
func initIOU(n *Node, _ newNodeEnv) {
	n.PortNameFormat, n.PortSegmentSize = "Ethernet{segment0}/{port0}", 4
}

// IOUStartupConfigFile and IOUPrivateConfigFile are an IOU node's configs
// in its folder, as GNS3 2.2 keeps them: through the node files
// endpoints, an export and an import they are its startup_config_content
// and private_config_content, kept in the store (files the type owns,
// node_files.go). The runner pushes them into the router's NVRAM at each
// start and reads them back when the router saves its configuration.
const (
	IOUStartupConfigFile = "startup-config.cfg"
	IOUPrivateConfigFile = "private-config.cfg"
)

// iouConfigFiles are an IOU node's two config files; a node made from a
// template starts with the base config its startup_config names.
var iouConfigFiles = []nodeFile{
	{name: IOUStartupConfigFile, property: "startup_config_content", get: extraText("startup_config_content"),
		baseSetting: "startup_config", bases: map[string]string{
			"iou_l3_base_startup-config.txt": IOUL3BaseConfig,
			"iou_l2_base_startup-config.txt": IOUL2BaseConfig,
		}},
	{name: IOUPrivateConfigFile, property: "private_config_content", get: extraText("private_config_content"),
		baseSetting: "private_config", bases: map[string]string{}},
}

// extraText reads a string property of Properties.Extra; nil when absent
// or not a string.
func extraText(key string) func(p *Properties) *string {
	return func(p *Properties) *string {
		var s string
		if json.Unmarshal(p.Extra[key], &s) != nil {
			return nil
		}
		return &s
	}
}

// iouSettings are the properties GNS3 2.2.59's compute keeps for an IOU
// node, with its defaults (a template's differ: iouTemplate). The configs
// are files of the node (iouConfigFiles), not shown among them.
var iouSettings = newSettingTable([]setting{
	{key: "usage", def: "", check: isString},
	{key: "path", def: "", check: isString},
	{key: "md5sum", check: isString},
	{key: "application_id", check: isWholeNumber(1, MaxIOUApplicationID, "")},
	{key: "ethernet_adapters", def: 2, check: isWholeNumber(0, MaxIOUAdapters, "")},
	{key: "serial_adapters", def: 2, check: isWholeNumber(0, MaxIOUAdapters, "")},
	{key: "ram", def: 256, check: isWholeNumber(1, 0, "MB")},
	{key: "nvram", def: 128, check: isWholeNumber(1, 0, "KB")},
	{key: "l1_keepalives", def: false, check: isBool},
	{key: "use_default_iou_values", def: true, check: isBool},
	{key: "startup_config_content", check: isString},
	{key: "private_config_content", check: isString},
})

// MaxIOUAdapters bounds an IOU node's Ethernet and serial adapters
// together: IOU has 16 bays of 4 interfaces.
const MaxIOUAdapters = 16

// iouHidden are the settings the properties view leaves out: the configs,
// which are the node's files.
var iouHidden = []string{"startup_config_content", "private_config_content"}

// iouView is an IOU node's properties: what it keeps, and GNS3's default
// for each it lacks.
func iouView(n *Node) map[string]any {
	v := iouSettings.view(n.Properties.Extra, nil)
	for _, k := range iouHidden {
		delete(v, k)
	}
	return v
}

// iouComputeView is what GNS3 2.2.59's compute shows of an IOU node
// besides name, node_id, project_id and status.
var iouComputeView = append([]string{"command_line", "console", "console_type", "node_directory"}, iouSettings.keys(iouHidden...)...)

// IOUUpdate is a change to an IOU node's properties, under GNS3's keys.
type IOUUpdate map[string]json.RawMessage

// UnmarshalJSON reads the properties of an IOU node from a controller's
// "properties" object or from a compute request's body.
func (u *IOUUpdate) UnmarshalJSON(b []byte) error {
	m, err := propertiesIn(b)
	if err != nil {
		return err
	}
	*u = m
	return nil
}

func (u *IOUUpdate) apply(p *Properties) error {
	if len(*u) == 0 {
		return nil
	}
	extra, err := iouSettings.apply(p.Extra, *u)
	if err != nil {
		return err
	}
	n := Node{Type: IOU, Properties: Properties{Extra: extra}}
	if e, s := n.adapterCount("ethernet_adapters", 2), n.adapterCount("serial_adapters", 2); e+s > MaxIOUAdapters {
		return Invalid("properties.serial_adapters", "An IOU node has at most %d adapters, Ethernet and serial together, not %d + %d; remove some", MaxIOUAdapters, e, s)
	}
	p.Extra = extra
	return nil
}

// iouTemplate is what a user IOU template starts with, as GNS3 2.2.59's
// controller fills it (schemas/iou_template.py): nodes named IOU1, IOU2, …
// in the router category, 2 Ethernet and 2 serial adapters, 1024 MB of
// RAM, 256 KB of NVRAM and the L3 base config. A template needs its image.
var iouTemplate = templateKind{nameFormat: "IOU{0}", category: "router",
	settings: map[string]any{"path": "", "usage": "", "ethernet_adapters": 2, "serial_adapters": 2, "ram": 1024, "nvram": 256,
		"use_default_iou_values": false, "startup_config": "iou_l3_base_startup-config.txt", "private_config": "",
		"l1_keepalives": false, "console_type": "telnet", "console_auto_start": false},
	required: []string{"path"},
}

// hostnameLine is a config's line that names the router.
var hostnameLine = regexp.MustCompile(`(?m)^hostname [^\r\n]+`)

// nameIOUConfig puts an IOU node's name in its startup config, as GNS3's
// compute does: each "%h" becomes the name, and a rename rewrites the
// "hostname" line.
func nameIOUConfig(p *Properties, oldName, name string) {
	cfg := extraText("startup_config_content")(p)
	if cfg == nil {
		return
	}
	c := strings.ReplaceAll(*cfg, "%h", name)
	if oldName != "" && oldName != name {
		c = hostnameLine.ReplaceAllLiteralString(c, "hostname "+name)
	}
	if c != *cfg {
		p.Extra = maps.Clone(p.Extra)
		p.Extra["startup_config_content"], _ = json.Marshal(c)
	}
}

// IOUNameLimit is how long a hostname IOU accepts: a longer machine name
// breaks the licence of older images.
const IOUNameLimit = 15

// claimIOUApplicationID gives n, inside tx, an application_id no IOU node
// of an open project has and no other program of the machine holds (held:
// GNS3 or another nodedesk running IOU): the one it keeps if so, else the
// lowest such id, as GNS3 gives ids.
func claimIOUApplicationID(c claimEnv, n *Node) error {
	used := map[int]bool{}
	projects, err := c.tx.Projects()
	if err != nil {
		return err
	}
	for _, p := range projects {
		if p.Status == ProjectClosed && p.ID != n.ProjectID {
			continue
		}
		nodes, err := c.tx.Nodes(p.ID)
		if err != nil {
			return err
		}
		for _, o := range nodes {
			if o.ID != n.ID && o.Type == n.Type {
				used[o.ApplicationID()] = true
			}
		}
	}
	free := func(id int) bool { return !used[id] && (c.held == nil || !c.held(id)) }
	if id := n.ApplicationID(); id > 0 && free(id) {
		return nil
	}
	for id := 1; id <= MaxIOUApplicationID; id++ {
		if free(id) {
			n.Properties.Extra = maps.Clone(n.Properties.Extra)
			if n.Properties.Extra == nil {
				n.Properties.Extra = map[string]json.RawMessage{}
			}
			n.Properties.Extra["application_id"] = json.RawMessage(strconv.Itoa(id))
			return nil
		}
	}
	return Errorf(ECONFLICT, "All %d IOU application ids are in use by the open projects and the other programs of this machine; close a project or delete IOU nodes you no longer need", MaxIOUApplicationID)
}

// IOUL3BaseConfig is the config a router made from an IOU L3 template
// starts with (GNS3's iou_l3_base_startup-config.txt, in nodedesk's
// words): named after its node (%h), no DNS lookup of mistyped commands,
// every interface present and shut as on a new router, the console at
// privilege 15 with no timeout.
var IOUL3BaseConfig = iouBaseConfig(false)

// IOUL2BaseConfig is the config of a switch made from an IOU L2 template
// (GNS3's iou_l2_base_startup-config.txt): as IOUL3BaseConfig, with every
// Ethernet interface up, as on a new switch.
var IOUL2BaseConfig = iouBaseConfig(true)

func iouBaseConfig(l2 bool) string {
	var b strings.Builder
	b.WriteString("!\nservice timestamps debug datetime msec\nservice timestamps log datetime msec\nno service password-encryption\n!\nhostname %h\n!\nno ip icmp rate-limit unreachable\nip cef\nno ip domain lookup\nip tcp synwait-time 5\n!\n")
	state := " shutdown\n"
	if l2 {
		state = " no shutdown\n duplex auto\n"
	}
	for bay := range 2 {
		for unit := range 4 {
			fmt.Fprintf(&b, "interface Ethernet%d/%d\n no ip address\n%s!\n", bay, unit, state)
		}
	}
	if !l2 {
		for bay := 2; bay < 4; bay++ {
			for unit := range 4 {
				fmt.Fprintf(&b, "interface Serial%d/%d\n no ip address\n shutdown\n serial restart-delay 0\n!\n", bay, unit)
			}
		}
	}
	b.WriteString("line con 0\n exec-timeout 0 0\n privilege level 15\n logging synchronous\nline aux 0\n exec-timeout 0 0\n privilege level 15\n logging synchronous\n!\nend\n")
	return b.String()
}

// givenImages are the non-empty image names u gives among keys (path).
func (u *IOUUpdate) givenImages(keys []string) map[string]string { return givenImages(*u, keys) }

// withImages is a copy of u with its image as a node keeps it and, when
// known, its checksum (md5sum), which GNS3's compute computes itself.
func (u *IOUUpdate) withImages(kept map[string]keptImage) PropertiesUpdate {
	c := IOUUpdate(withImages(*u, kept, func(string) string { return "md5sum" }))
	return &c
}

// imageForDefaults is the image whose RAM and NVRAM a new IOU node takes
// (GNS3's use_default_iou_values, on unless given off), when the change
// names an image and gives neither size.
func (u *IOUUpdate) imageForDefaults() (string, bool) {
	var use bool = true
	if raw, ok := (*u)["use_default_iou_values"]; ok && !isNull(raw) && json.Unmarshal(raw, &use) != nil {
		return "", false
	}
	_, ram := (*u)["ram"]
	_, nvram := (*u)["nvram"]
	path := rawString((*u)["path"])
	return path, use && !ram && !nvram && path != ""
}

// withDefaults is a copy of u with the image's RAM and NVRAM.
func (u *IOUUpdate) withDefaults(d map[string]json.RawMessage) PropertiesUpdate {
	c := maps.Clone(*u)
	for _, k := range []string{"ram", "nvram"} {
		if v, ok := d[k]; ok {
			c[k] = v
		}
	}
	return &c
}

// iouLicence is the IOU licence, as GNS3's controller keeps it (and
// sends it with every start): the content of an iourc file, and whether a
// start checks it first. The store keeps it as GNS3 2.2's
// /v2/iou_license shows it.
var iouLicence = emulatorSettings{name: "iou_license", inStart: true, table: newSettingTable([]setting{
	{key: "iourc_content", def: "", check: isString},
	{key: "license_check", def: true, check: isBool},
})}

// ---- Lint (decision 0070): the addresses an IOU node's startup config names. ----

// iouConfig is where an IOU node's addresses are named: its startup
// config, an IOS config (iosPortConfigs).
var iouConfig = &configReader{file: func(*Node) string { return IOUStartupConfigFile }, read: iosPortConfigs}

// applicationMACs are the MACs of a node's ports that its application id
// gives them, as IOU makes them (aa:bb:cc:00:id:bay|unit<<4), for ids
// below 256 (those above share them); none for a node without one. The
// wire map knows a node's frames by them.
func applicationMACs(n *Node) []string {
	id := n.ApplicationID()
	if id <= 0 || id >= 256 {
		return nil
	}
	var macs []string
	for _, p := range n.Ports() {
		macs = append(macs, fmt.Sprintf("aa:bb:cc:00:%02x:%02x", id, byte(p.AdapterNumber|p.PortNumber<<4)))
	}
	return macs
}
