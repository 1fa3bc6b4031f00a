package app

import "encoding/json"

// dynamipsTemplate is what a user Dynamips (IOS router) template starts
// with, as GNS3 2.2.59's controller fills it (schemas/dynamips_template.py,
// one schema per platform): nodes named R1, R2, … in the router category,
// the settings every platform has, and those of the template's platform
// (dynamipsPlatformTemplates). A template needs its platform and image,
// and a c3600, c2600 or c1700 one its chassis too, as GNS3 refuses one
// without. Slots and WICs get no default in a template: a node made from
// it gets its platform's built-in adapters.
var dynamipsTemplate = templateKind{nameFormat: "R{0}", category: "router",
	settings: map[string]any{
		"usage": "", "mmap": true, "exec_area": 64, "mac_addr": "", "system_id": "FTX0945W0MY",
		"startup_config": "ios_base_startup-config.txt", "private_config": "", "idlepc": "", "idlemax": 500,
		"idlesleep": 30, "disk0": 0, "disk1": 0, "auto_delete_disks": false, "console_type": "telnet",
		"console_auto_start": false,
	},
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
