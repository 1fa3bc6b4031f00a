package dynamips

import "testing"

// TestIdlePCValues: users keep 8-digit idle-PC values (GNS3's GUI takes
// no others); Dynamips' MIPS routers compare sign-extended 64-bit PCs.
func TestIdlePCValues(t *testing.T) {
	for _, c := range []struct{ platform, kept, sent string }{
		{"c7200", "0x80008040", "0xffffffff80008040"},
		{"c3725", "0x6025a4b8", "0x6025a4b8"},
		{"c7200", "0xffffffff80008040", "0xffffffff80008040"},
		{"c2600", "0x8027ec88", "0x8027ec88"}, // PowerPC: 32-bit
		{"c1700", "0x80358a60", "0x80358a60"},
		{"c7200", "", ""},
	} {
		if got := hypervisorIdlePC(c.platform, c.kept); got != c.sent {
			t.Errorf("%s %q is sent as %q, want %q", c.platform, c.kept, got, c.sent)
		}
	}
	for _, c := range []struct{ proposed, shown string }{
		{"0xffffffff80008040", "0x80008040"},
		{"0x6025a4b8", "0x6025a4b8"},
		{"0xffffffff6025a4b8", "0xffffffff6025a4b8"}, // not a sign extension: left as it is
	} {
		if got := shownIdlePC(c.proposed); got != c.shown {
			t.Errorf("proposal %q is shown as %q, want %q", c.proposed, got, c.shown)
		}
	}
}
