// Package storetest opens the stores of tests: a fresh bbolt file in the
// test's temporary folder, closed when the test ends. It is imported by
// tests only (app's, api's, the lab's), so that the tests' shared kit
// (app/kit) need not import store.
package storetest

import (
	"path/filepath"
	"testing"

	"nodedesk/store"
)

// Open opens a fresh bbolt store in a temporary folder and closes it
// when the test ends.
func Open(tb testing.TB) *store.Store {
	tb.Helper()
	s, err := store.Open(filepath.Join(tb.TempDir(), "nodedesk.db"))
	if err != nil {
		tb.Fatalf("store.Open: %v", err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s
}
