package app

import (
	"net/netip"
	"regexp"
	"strconv"
	"strings"
)

// VPCS: its properties (the startup script it keeps as a property), the
// script file in its node folder, and its name in the script's prompt.

// VPCSScriptFile is the name of a VPCS node's startup script in its
// folder. Through the node files endpoints it is the node's
// startup_script, read from and written to the store: one value, two
// views (a file the type owns, node_files.go).
const VPCSScriptFile = "startup.vpc"

var vpcsProps = propertyKind{
	keys:      []string{"startup_script", "startup_script_path"},
	newUpdate: func() PropertiesUpdate { return &VPCSUpdate{} },
	init:      func(n *Node, _ newNodeEnv) { n.CommandLine = ptr("") },
	ports:     func(n *Node) []Port { return []Port{ethernetPort("Ethernet0", "e0", 0, 0)} },
	view: func(n *Node) map[string]any {
		return map[string]any{"startup_script": n.Properties.StartupScript, "startup_script_path": vpcsScript.pathIn(n)}
	},
	named: nameVPCSScript,
}

// pcnameLine is a VPCS script's line that names its prompt.
var pcnameLine = regexp.MustCompile(`(?m)^set pcname [^\r\n]+`)

// nameVPCSScript puts a VPCS node's name in its startup script, as GNS3's
// compute writes startup.vpc: each "%h" becomes the name, so "Edit
// config" shows "set pcname PC1"; a rename puts the new name for the old
// one everywhere in the script and in its "set pcname" line (a name's
// backslashes dropped there).
func nameVPCSScript(p *Properties, oldName, name string) {
	if p.StartupScript == nil {
		return
	}
	script := *p.StartupScript
	if oldName != "" && oldName != name {
		script = strings.ReplaceAll(script, oldName, name)
		script = pcnameLine.ReplaceAllLiteralString(script, "set pcname "+strings.ReplaceAll(name, `\`, ""))
	}
	script = strings.ReplaceAll(script, "%h", name)
	if script != *p.StartupScript {
		p.StartupScript = &script
	}
}

// VPCSUpdate is a change to a VPCS node's properties.
type VPCSUpdate struct {
	StartupScript Field[string] `json:"startup_script"`
}

// vpcsScript is a VPCS node's startup.vpc: its startup_script.
var vpcsScript = nodeFile{
	name: VPCSScriptFile, property: "startup_script", pathProperty: "startup_script_path",
	get:         func(p *Properties) *string { return p.StartupScript },
	baseSetting: "base_script_file",
	// GNS3's configs folder has one base script, which names the prompt
	// after the node (nameVPCSScript puts the name for %h). A file it does not
	// have gives no script, as a missing file does in GNS3.
	bases: map[string]string{"vpcs_base_config.txt": "set pcname %h\n"},
}

func (u *VPCSUpdate) apply(p *Properties) error {
	if u.StartupScript.Set {
		p.StartupScript = ptrOrNil(u.StartupScript)
	}
	return nil
}

// ---- Lint (decision 0070): the address a VPCS script gives its PC. ----

// vpcsConfig is where a VPCS node's address is named: its startup script.
var vpcsConfig = &configReader{file: func(*Node) string { return VPCSScriptFile }, read: vpcsPortConfigs}

// vpcsPortConfigs reads the IPv4 address a VPCS script leaves its PC
// with, as VPCS runs the script's lines: lines starting with # or ! are
// comments; a line of one digit switches to another of VPCS's nine PCs
// (GNS3's node is PC 1, the one read); each "ip" line replaces the
// address before it: "ip A/M G", "ip A G /M", "ip A M G" or "ip A G M"
// with M a prefix length (default 24; outside 1–30 it is 24) or a dotted
// mask; "ip dhcp" (or any abbreviation of dhcp) leaves no fixed address.
// VPCS refuses a gateway outside the address's subnet: the line is kept,
// with why (portConfig.refused), so that lint can say so.
func vpcsPortConfigs(_ []Port, script string) []portConfig {
	var cur *portConfig
	pc := 1
	for i, line := range strings.Split(strings.ReplaceAll(script, "\r", ""), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		if len(line) == 1 && line[0] >= '1' && line[0] <= '9' {
			pc = int(line[0] - '0')
			continue
		}
		f := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' || r == '/' })
		if pc != 1 || len(f) < 2 || f[0] != "ip" || strings.Contains(f[1], ":") {
			continue
		}
		arg := strings.ToLower(f[1])
		if strings.HasPrefix("dhcp", arg) {
			cur = nil
			continue
		}
		if strings.HasPrefix("auto", arg) || strings.HasPrefix("mtu", arg) || strings.HasPrefix("domain", arg) || strings.HasPrefix("dns", arg) {
			continue
		}
		if c, ok := vpcsIPLine(f[1:]); ok {
			c.line = i + 1
			cur = &c
		}
	}
	if cur == nil {
		return nil
	}
	cur.found = true // a VPCS has one port, 0/0
	return []portConfig{*cur}
}

// vpcsIPLine reads the arguments of a VPCS "ip" line that sets an IPv4
// address, as VPCS reads them; false: VPCS refuses the line and keeps
// the address it had.
func vpcsIPLine(args []string) (portConfig, bool) {
	addr, err := netip.ParseAddr(args[0])
	if err != nil || !addr.Is4() {
		return portConfig{}, false
	}
	bits := 24
	var gw netip.Addr
	for _, a := range args[1:] {
		switch {
		case len(a) < 3 && strings.Trim(a, "0123456789") == "":
			bits, _ = strconv.Atoi(a)
		case len(a) > 8 && strings.HasPrefix(a, "255."):
			if b, ok := maskBits(a); ok {
				bits = b
			}
		case len(a) > 6 && len(a) < 16:
			if gw, err = netip.ParseAddr(a); err != nil || !gw.Is4() {
				return portConfig{}, false
			}
		default:
			return portConfig{}, false
		}
	}
	if bits < 1 || bits > 30 {
		bits = 24
	}
	c := portConfig{addr: netip.PrefixFrom(addr, bits), gateway: gw}
	if gw.IsValid() && !c.addr.Masked().Contains(gw) {
		c.refused = "VPCS refuses an address whose gateway is outside its subnet (\"not same subnet\"), so the PC starts with no address"
	}
	return c, addr != gw
}

// macOffsetBase is the MAC of a node whose mac_offset is 0 (a VPCS); the
// offset is added to the last byte, as VPCS's -m does. The wire map knows
// a node's frames by it.
const macOffsetBase = "00:50:79:66:68:00"
