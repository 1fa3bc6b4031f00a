// Package emulators is the list of nodedesk's emulators: one runner
// constructor each. nodedesk (main.go) and the lab tests make their
// runners here, in one loop, so adding an emulator is one line of All.
package emulators

import (
	"nodedesk/app"
	"nodedesk/app/docker"
	"nodedesk/app/dynamips"
	"nodedesk/app/qemu"
	"nodedesk/app/vpcs"
)

// All makes each emulator's runner from the environment they share.
var All = []func(env app.RunnerEnv) app.Runner{vpcs.NewRunner, qemu.NewRunner, docker.NewRunner, dynamips.NewRunner}

// New makes every emulator's runner or, when only names some node types,
// the runners of those.
func New(env app.RunnerEnv, only ...app.NodeType) []app.Runner {
	var rs []app.Runner
	for _, newRunner := range All {
		r := newRunner(env)
		if len(only) == 0 || runsAny(r, only) {
			rs = append(rs, r)
		}
	}
	return rs
}

func runsAny(r app.Runner, ts []app.NodeType) bool {
	for _, t := range ts {
		if r.Runs(t) {
			return true
		}
	}
	return false
}
