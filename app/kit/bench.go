package kit

import (
	"os"
	"strconv"
	"testing"
)

// EnvInt reads a benchmark's positive integer setting from the
// environment, or def when it is unset.
func EnvInt(t testing.TB, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// SearchRate finds the highest offered rate that ok accepts (ok runs a
// trial at that rate and keeps what it measured): from start, the rate
// grows by half until ok refuses one or it passes limit, then four
// bisections close in between the last accepted and the first refused.
func SearchRate(start, limit float64, ok func(rate float64) bool) {
	lo, hi := 0.0, 0.0
	for r := start; r <= limit; r *= 1.5 {
		if !ok(r) {
			hi = r
			break
		}
		lo = r
	}
	if hi == 0 {
		return
	}
	for range 4 {
		if mid := (lo + hi) / 2; ok(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
}
