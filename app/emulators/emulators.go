// Package emulators is the list of nodedesk's emulators: one runner
// constructor each. nodedesk (main.go) and the lab tests make their
// runners here, in one loop, so adding an emulator is one line of All.
package emulators

import (
	"path/filepath"

	"nodedesk/app"
	"nodedesk/app/docker"
	"nodedesk/app/dynamips"
	"nodedesk/app/qemu"
	"nodedesk/app/vpcs"
)

// All makes each emulator's runner from the environment they share.
var All = []func(env app.RunnerEnv) app.Runner{
	func(env app.RunnerEnv) app.Runner {
		return vpcs.New(vpcs.Config{ConsoleHost: env.ConsoleHost, Binary: env.Programs[app.VPCS], StopGrace: env.StopGrace, Logger: env.Logger})
	},
	func(env app.RunnerEnv) app.Runner {
		return qemu.New(qemu.Config{ConsoleHost: env.ConsoleHost, RunDir: runDir(env, app.QEMU), StopGrace: env.StopGrace, Logger: env.Logger})
	},
	func(env app.RunnerEnv) app.Runner {
		return docker.New(docker.Config{ConsoleHost: env.ConsoleHost, RunDir: runDir(env, app.Docker), Host: env.Programs[app.Docker], StopGrace: env.StopGrace, Logger: env.Logger})
	},
	func(env app.RunnerEnv) app.Runner {
		return dynamips.New(dynamips.Config{ConsoleHost: env.ConsoleHost, RunDir: runDir(env, app.Dynamips), Binary: env.Programs[app.Dynamips], StopGrace: env.StopGrace, Logger: env.Logger})
	},
}

// New makes every emulator's runner or, when only names some node types,
// the runners of those.
func New(env app.RunnerEnv, only ...app.NodeType) []app.Runner {
	var rs []app.Runner
	for _, make := range All {
		r := make(env)
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

// runDir is a runner's own folder of records under env.RunDir.
func runDir(env app.RunnerEnv, t app.NodeType) string {
	if env.RunDir == "" {
		return ""
	}
	return filepath.Join(env.RunDir, string(t))
}
