package kit

import "time"

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
