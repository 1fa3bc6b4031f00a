package app

import (
	"regexp"
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
