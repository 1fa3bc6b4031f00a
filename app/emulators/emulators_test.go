package emulators

import (
	"testing"

	"nodedesk/app"
)

// TestAll: each emulator's runner runs the node type it is listed under,
// and New makes only the runners of the types it is asked for.
func TestAll(t *testing.T) {
	env := app.RunnerEnv{ConsoleHost: "127.0.0.1"}
	for _, e := range All {
		if r := e.NewRunner(env); !r.Runs(e.Type) {
			t.Errorf("the runner listed under %s does not run it", e.Type)
		}
	}
	if rs := New(env, app.QEMU); len(rs) != 1 || !rs[0].Runs(app.QEMU) {
		t.Errorf("New(env, qemu) made %d runners", len(rs))
	}
	if rs := New(env); len(rs) != len(All) {
		t.Errorf("New(env) made %d runners for %d emulators", len(rs), len(All))
	}
}
