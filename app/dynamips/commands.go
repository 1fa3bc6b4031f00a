package dynamips

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"nodedesk/app"
)

// settings are a router's properties the runner reads, under GNS3's keys
// (its json tags). The domain has checked them and fills their defaults,
// its platform's first (app/node_properties_dynamips.go); a key of
// another platform is left out, so its field stays zero.
type settings struct {
	Platform     string `json:"platform"`
	Image        string `json:"image"`
	IdlePC       string `json:"idlepc"`
	MACAddr      string `json:"mac_addr"`
	SystemID     string `json:"system_id"`
	NPE          string `json:"npe,omitzero"`
	Midplane     string `json:"midplane,omitzero"`
	Chassis      string `json:"chassis,omitzero"`
	DynamipsID   int    `json:"dynamips_id"`
	RAM          int    `json:"ram"`
	NVRAM        int    `json:"nvram"`
	ClockDivisor int    `json:"clock_divisor"`
	IdleMax      int    `json:"idlemax"`
	IdleSleep    int    `json:"idlesleep"`
	ExecArea     int    `json:"exec_area"`
	Disk0        int    `json:"disk0"`
	Disk1        int    `json:"disk1"`
	IOMem        int    `json:"iomem,omitzero"`
	MMap         bool   `json:"mmap"`
	Sparsemem    bool   `json:"sparsemem"`
	Ghost        bool   `json:"ghost"`
	adapters
	// Slots has the adapter of each slot the router has ("" for none);
	// WICs those of slot 0's WIC slots.
	Slots []string  `json:"-"`
	WICs  [3]string `json:"-"`
	// StartupConfigContent is what a GNS3 controller gave as the
	// startup config, for a router whose folder has no startup config
	// yet; PrivateConfigContent likewise.
	StartupConfigContent string `json:"startup_config_content,omitzero"`
	PrivateConfigContent string `json:"private_config_content,omitzero"`
}

// adapters are a router's slot and WIC keys, which readSettings gathers
// into Slots and WICs.
type adapters struct {
	Slot0 slot   `json:"slot0,omitzero"`
	Slot1 slot   `json:"slot1,omitzero"`
	Slot2 slot   `json:"slot2,omitzero"`
	Slot3 slot   `json:"slot3,omitzero"`
	Slot4 slot   `json:"slot4,omitzero"`
	Slot5 slot   `json:"slot5,omitzero"`
	Slot6 slot   `json:"slot6,omitzero"`
	WIC0  string `json:"wic0,omitzero"`
	WIC1  string `json:"wic1,omitzero"`
	WIC2  string `json:"wic2,omitzero"`
}

// slot is one slot key: the router has the slot when the key is there,
// with an adapter or null for none.
type slot struct {
	has     bool
	adapter string
}

func (a *slot) UnmarshalJSON(b []byte) error {
	a.has = true
	return json.Unmarshal(b, &a.adapter)
}

func (a slot) MarshalJSON() ([]byte, error) {
	if a.adapter == "" {
		return []byte("null"), nil
	}
	return json.Marshal(a.adapter)
}

// defaults are the settings of a router whose properties are all the
// domain's defaults (app.DecodeSettings of none): what GNS3's compute
// gives a new router, as Dynamips has it before any command, so that the
// commands send only what differs, as gns3-server does. A platform's own
// are app.DynamipsDefaults' and app.DynamipsPlatforms'.
var defaults = sync.OnceValue(func() settings {
	var d settings
	if err := app.DecodeSettings(app.Dynamips, nil, &d); err != nil {
		panic("dynamips: the domain's defaults of a router cannot be read: " + err.Error())
	}
	return d
})

// readSettings decodes a router's properties, with the domain's defaults.
func readSettings(props map[string]json.RawMessage) (settings, error) {
	var s settings
	if err := app.DecodeSettings(app.Dynamips, props, &s); err != nil {
		return s, err
	}
	if _, ok := app.DynamipsPlatforms[s.Platform]; !ok {
		return s, app.Errorf(app.EINVALID, "%q is not a platform Dynamips runs here; choose one of c7200, c3745, c3725, c3600, c2691, c2600, c1700", s.Platform)
	}
	for _, a := range []slot{s.Slot0, s.Slot1, s.Slot2, s.Slot3, s.Slot4, s.Slot5, s.Slot6} {
		if !a.has {
			break
		}
		s.Slots = append(s.Slots, a.adapter)
	}
	s.WICs = [3]string{s.WIC0, s.WIC1, s.WIC2}
	if s.DynamipsID < 1 {
		return s, app.Errorf(app.EINTERNAL, "the router has no dynamips_id")
	}
	return s, nil
}

// instance is what the commands of one router need besides its settings.
type instance struct {
	name      string // the node's name, Dynamips' instance name
	image     string // the image's absolute path
	moduleDir string // project-files/dynamips, gns3-server's hypervisor folder
	nodeDir   string // the node's folder, its working folder
	console   int    // Dynamips' own console port (internal); 0: none
	aux       int    // Dynamips' own aux port (internal); 0: none
	// nios are the UDP NIOs of the router's ports, in port order.
	nios []nio
	// ghostFile is the ghost RAM image the router shares (absolute
	// path; "": none) and makeGhost whether this start makes it first.
	ghostFile string
	makeGhost bool
	// privateConfig says whether the folder holds a private config that
	// is not empty (gns3-server gives Dynamips none otherwise).
	privateConfig bool
}

// nio is one port's UDP tunnel: the router's slot and port, its name in
// Dynamips, and the UDP ports (Dynamips binds local, sends to remote).
type nio struct {
	slot, port    int
	name          string
	local, remote int
}

// createCommands are the commands gns3-server 2.2.59 sends to a new
// hypervisor for a router with these settings, up to its start (its
// manager's start_new_hypervisor, router.py's create, the platform's
// create, update_vm_settings for every setting that differs from the
// platform's default, then each linked port's NIO): a pure function, so
// that a test compares it with gns3-server's recordings.
func createCommands(s settings, in instance) []string {
	name := quote(in.name)
	cmds := []string{
		"hypervisor version",
		"hypervisor working_dir " + quote(in.moduleDir),
		"hypervisor working_dir " + quote(in.nodeDir),
		fmt.Sprintf("vm create %s %d %s", name, s.DynamipsID, s.Platform),
	}
	if in.console != 0 {
		cmds = append(cmds, fmt.Sprintf("vm set_con_tcp_port %s %d", name, in.console))
	}
	if in.aux != 0 {
		cmds = append(cmds, fmt.Sprintf("vm set_aux_tcp_port %s %d", name, in.aux))
	}
	cmds = append(cmds, fmt.Sprintf("%s get_mac_addr %s", s.Platform, name))
	def := app.DynamipsDefaults(s.Platform, "")
	current := map[int]string{} // the adapter in each slot
	switch {
	case s.Platform == "c7200": // its I/O controller is bound at creation (c7200.py)
		current[0] = "C7200-IO-FE"
		cmds = append(cmds, fmt.Sprintf("vm slot_add_binding %s 0 0 %s", name, current[0]))
	case s.Chassis != "" && s.Chassis != def["chassis"]:
		cmds = append(cmds, fmt.Sprintf("%s set_chassis %s %s", s.Platform, name, s.Chassis))
	}
	for k, v := range app.DynamipsDefaults(s.Platform, s.Chassis) {
		if a, ok := v.(string); ok && strings.HasPrefix(k, "slot") && s.Platform != "c7200" {
			i, _ := strconv.Atoi(k[4:])
			current[i] = a
		}
	}
	set := func(differs bool, format string, args ...any) {
		if differs {
			cmds = append(cmds, fmt.Sprintf(format, args...))
		}
	}
	bit := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	// The order of gns3-server's recordings (testdata): image, RAM,
	// NVRAM, idle PC, slots, WICs, sparse memory (the c2600's, off by
	// default), disks; the others where they fit.
	pf, base := app.DynamipsPlatforms[s.Platform], defaults()
	set(true, "vm set_ios %s %s", name, quote(in.image))
	set(s.RAM != pf.RAM, "vm set_ram %s %d", name, s.RAM)
	set(s.NVRAM != pf.NVRAM, "vm set_nvram %s %d", name, s.NVRAM)
	set(s.MMap != base.MMap, "vm set_ram_mmap %s %d", name, bit(s.MMap))
	set(s.ClockDivisor != pf.ClockDivisor, "vm set_clock_divisor %s %d", name, s.ClockDivisor)
	set(s.IdlePC != "", "vm set_idle_pc %s %s", name, hypervisorIdlePC(s.Platform, s.IdlePC))
	set(s.ExecArea != base.ExecArea, "vm set_exec_area %s %d", name, s.ExecArea)
	set(s.MACAddr != "", "%s set_mac_addr %s %s", s.Platform, name, s.MACAddr)
	set(s.SystemID != "" && s.SystemID != base.SystemID, "%s set_system_id %s %s", s.Platform, name, s.SystemID)
	if s.Platform == "c7200" {
		set(s.NPE != "" && s.NPE != def["npe"], "c7200 set_npe %s %s", name, s.NPE)
		set(s.Midplane != "" && s.Midplane != def["midplane"], "c7200 set_midplane %s %s", name, s.Midplane)
	} else {
		set(s.IOMem != pf.IOMem, "%s set_iomem %s %d", s.Platform, name, s.IOMem)
	}
	for i, a := range s.Slots {
		if a == current[i] {
			continue
		}
		if current[i] != "" {
			cmds = append(cmds, fmt.Sprintf("vm slot_remove_binding %s %d 0", name, i))
		}
		if a != "" {
			cmds = append(cmds, fmt.Sprintf("vm slot_add_binding %s %d 0 %s", name, i, a))
		}
	}
	for i, w := range s.WICs {
		set(w != "", "vm slot_add_binding %s 0 %d %s", name, 16*(i+1), w)
	}
	set(s.Sparsemem != pf.Sparsemem, "vm set_sparse_mem %s %d", name, bit(s.Sparsemem))
	set(s.Disk0 != pf.Disk0, "vm set_disk0 %s %d", name, s.Disk0)
	set(s.Disk1 != base.Disk1, "vm set_disk1 %s %d", name, s.Disk1)
	for _, n := range in.nios {
		cmds = append(cmds,
			fmt.Sprintf("nio create_udp %s %d 127.0.0.1 %d", n.name, n.local, n.remote),
			fmt.Sprintf("vm slot_add_nio_binding %s %d %d %s", name, n.slot, n.port, n.name))
	}
	return cmds
}

// ghostFile is the ghost RAM image of routers with these settings in a
// project's dynamips folder, as gns3-server names it
// (<image>-<RAM>.ghost); "" when the router shares none: ghost off, no
// mmap (GNS3 refuses ghost without it), or an NPE-G2 c7200 (unsupported).
func ghostFile(s settings, moduleDir, image string) string {
	if !s.Ghost || !s.MMap || s.Platform == "c7200" && s.NPE == "npe-g2" {
		return ""
	}
	return filepath.Join(moduleDir, filepath.Base(image)+"-"+strconv.Itoa(s.RAM)+".ghost")
}

// ghostCommands are, when this start makes the ghost RAM image, the
// commands that make it as gns3-server does (a "Ghost" instance, 0, of
// the image and RAM, started once with ghost status 1, then deleted with
// its files: make), and those that give it to the router once the file
// is there (ghost status 2: use).
func ghostCommands(s settings, in instance) (make, use []string) {
	if in.ghostFile == "" {
		return nil, nil
	}
	if in.makeGhost {
		g := quote("Ghost")
		make = append(make,
			fmt.Sprintf("vm create %s 0 %s", g, s.Platform),
			fmt.Sprintf("vm set_ios %s %s", g, quote(in.image)),
			fmt.Sprintf("vm set_ghost_status %s 1", g),
			fmt.Sprintf("vm set_ghost_file %s %s", g, quote(in.ghostFile)))
		if s.RAM != 128 { // the Ghost instance is a bare router of 128 MB
			make = append(make, fmt.Sprintf("vm set_ram %s %d", g, s.RAM))
		}
		make = append(make,
			fmt.Sprintf("vm set_config %s %s %s", g, quote(app.DynamipsStartupConfig(0)), quote("")),
			fmt.Sprintf("vm start %s", g),
			fmt.Sprintf("vm stop %s", g),
			fmt.Sprintf("vm extract_config %s", g),
			fmt.Sprintf("vm clean_delete %s", g))
	}
	use = []string{
		fmt.Sprintf("vm set_ghost_status %s 2", quote(in.name)),
		fmt.Sprintf("vm set_ghost_file %s %s", quote(in.name), quote(in.ghostFile)),
	}
	return make, use
}

// startCommands start a created router, as router.py's start does: its
// configs (paths in its working folder; no private config when the file
// is missing or empty), then the start.
func startCommands(s settings, in instance) []string {
	name := quote(in.name)
	private := ""
	if in.privateConfig {
		private = app.DynamipsPrivateConfig(s.DynamipsID)
	}
	return []string{
		fmt.Sprintf("vm get_status %s", name),
		fmt.Sprintf("vm set_config %s %s %s", name, quote(app.DynamipsStartupConfig(s.DynamipsID)), quote(private)),
		fmt.Sprintf("vm start %s", name),
	}
}

// runningCommands are the settings gns3-server sends only to a running
// router (idle max and sleep): nodedesk sends those that differ from
// the defaults (Dynamips' own) right after the start.
func runningCommands(s settings, in instance) []string {
	var cmds []string
	base := defaults()
	if s.IdleMax != base.IdleMax {
		cmds = append(cmds, fmt.Sprintf("vm set_idle_max %s 0 %d", quote(in.name), s.IdleMax))
	}
	if s.IdleSleep != base.IdleSleep {
		cmds = append(cmds, fmt.Sprintf("vm set_idle_sleep_time %s 0 %d", quote(in.name), s.IdleSleep))
	}
	return cmds
}

// portSlots are the slot and port numbers of a router's ports, in the
// order of its ports array (app's dynamipsPorts): Dynamips' slot is the
// port's adapter number, its port the port number (16× for WICs).
func portSlots(ports []app.Port) [][2]int {
	out := make([][2]int, len(ports))
	for i, p := range ports {
		out[i] = [2]int{p.AdapterNumber, p.PortNumber}
	}
	return out
}
