package labtest

import (
	"testing"

	"nodedesk/app/kit"
	"nodedesk/app/vpcs/vpcstest"
)

// with is Options that run VPCS and the given emulators' nodes, as most
// lab tests need: their labs' hosts are VPCS.
func with(es ...kit.Emulator) Options {
	return Options{Run: append([]kit.Emulator{vpcstest.Emulator}, es...)}
}

// StartVPCS is Start with real VPCS processes and the data plane.
func StartVPCS(tb testing.TB) *Lab {
	tb.Helper()
	return Start(tb, with())
}
