package kit

import (
	"testing"

	"nodedesk/app"
)

// Emulator is what a lab test needs to run one emulator's nodes for real:
// its node type, and what its runner needs of this machine (its program,
// a private engine), checked or started by Prepare, which may fail the
// test saying what is missing and record in env what the runner is to
// use. Each emulator's test package offers one (vpcstest.Emulator, …).
type Emulator struct {
	Type    app.NodeType
	Prepare func(tb testing.TB, env *app.RunnerEnv)
}
