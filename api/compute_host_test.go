package api

import (
	"strconv"
	"testing"
)

// The host's CPU and memory use carry one decimal, as GNS3's psutil gives
// them: the GNS3 GUI prints them as they come in its servers summary.
func TestHostUsage_OneDecimal(t *testing.T) {
	cpu, mem := hostUsage()
	for _, v := range []float64{cpu, mem} {
		if s := strconv.FormatFloat(v, 'f', -1, 64); len(s) > len(strconv.FormatFloat(v, 'f', 1, 64)) {
			t.Errorf("hostUsage gave %s; want one decimal at most", s)
		}
	}
	if mem <= 0 || mem > 100 {
		t.Errorf("memory use %v%%", mem)
	}
}
