package app

import "slices"

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
		n := map[string]int{"3620": 2, "3640": 4, "3660": 7}[chassis]
		if i < n {
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
