package kit

import (
	"path/filepath"
	"testing"
	"time"

	"nodedesk/store"
)

// WaitFor polls cond every 10 ms until it holds or limit passes, and
// reports whether it held. Waits in tests are bounds, not speeds.
func WaitFor(limit time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// MustOpenStore opens a fresh bbolt store in a temporary folder and
// closes it when the test ends.
func MustOpenStore(tb testing.TB) *store.Store {
	tb.Helper()
	s, err := store.Open(filepath.Join(tb.TempDir(), "nodedesk.db"))
	if err != nil {
		tb.Fatalf("store.Open: %v", err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s
}
