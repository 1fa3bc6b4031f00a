package dynamips

import (
	"slices"
	"testing"

	"nodedesk/app"
)

// TestReadSettings_NewNode: a new router's settings are the settings
// table's defaults for its platform, key for key: the runner restates
// none of them.
func TestReadSettings_NewNode(t *testing.T) {
	for _, tt := range []struct {
		given     map[string]any
		ram       int
		slots     []string
		npe, chas string
	}{
		{nil, 256, []string{"C7200-IO-FE", "", "", "", "", "", ""}, "npe-400", ""},
		{map[string]any{"platform": "c3725", "wic1": "WIC-1T"}, 128, []string{"GT96100-FE", "", ""}, "", ""},
		{map[string]any{"platform": "c3600", "chassis": "3660"}, 128, []string{"Leopard-2FE", "", "", "", "", "", ""}, "", "3660"},
	} {
		props, err := app.NewNodeProperties(app.Dynamips, "", tt.given)
		if err != nil {
			t.Fatal(err)
		}
		s, err := readSettings(props)
		if err != nil {
			t.Fatalf("%v: %v", tt.given, err)
		}
		for _, d := range app.SettingsDiff(props, s) {
			t.Errorf("%v: %s", tt.given, d)
		}
		if s.RAM != tt.ram || !slices.Equal(s.Slots, tt.slots) || s.NPE != tt.npe || s.Chassis != tt.chas || s.DynamipsID != 1 || !s.Ghost {
			t.Errorf("%v: RAM %d, slots %q, NPE %q, chassis %q, dynamips_id %d, ghost %v; want %d, %q, %q, %q, 1, true",
				tt.given, s.RAM, s.Slots, s.NPE, s.Chassis, s.DynamipsID, s.Ghost, tt.ram, tt.slots, tt.npe, tt.chas)
		}
	}
}
