// Package emulators is the list of nodedesk's emulators: one runner
// constructor each. nodedesk (main.go) and the lab tests make their
// runners here, in one loop, so adding an emulator is one line of All.
package emulators

import (
	"slices"

	"nodedesk/app"
	"nodedesk/app/docker"
	"nodedesk/app/dynamips"
	"nodedesk/app/iou"
	"nodedesk/app/qemu"
	"nodedesk/app/vpcs"
)

// Emulator is one emulator: the node type its runner runs, and how the
// runner is made.
type Emulator struct {
	Type      app.NodeType
	NewRunner func(env app.RunnerEnv) app.Runner
}

// All are nodedesk's emulators; each runner is made from the environment
// they share.
var All = []Emulator{
	{app.VPCS, vpcs.NewRunner},
	{app.QEMU, qemu.NewRunner},
	{app.Docker, docker.NewRunner},
	{app.Dynamips, dynamips.NewRunner},
	{app.IOU, iou.NewRunner},
}

// New makes every emulator's runner or, when only names some node types,
// the runners of those (the others are not made).
func New(env app.RunnerEnv, only ...app.NodeType) []app.Runner {
	var rs []app.Runner
	for _, e := range All {
		if len(only) == 0 || slices.Contains(only, e.Type) {
			rs = append(rs, e.NewRunner(env))
		}
	}
	return rs
}
