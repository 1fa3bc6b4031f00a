package vpcs

import "testing"

// TestRelayOff: -R is given from VPCS 0.8 on; older versions (Debian's
// 0.5b2) refuse it with their usage and exit.
func TestRelayOff(t *testing.T) {
	for banner, want := range map[string]bool{
		"\nWelcome to Virtual PC Simulator, version 0.5b2\nDedicated to Daling.": false,
		"Welcome to Virtual PC Simulator, version 0.6.1\n":                       false,
		"Welcome to Virtual PC Simulator, version 0.8b\n":                        true,
		"Welcome to Virtual PC Simulator, version 0.8.3\n":                       true,
		"Welcome to Virtual PC Simulator, version 1.0\n":                         true,
		"no version here": false,
	} {
		if got := relayOff(banner); got != want {
			t.Errorf("relayOff(%q) = %v, want %v", banner, got, want)
		}
	}
}
