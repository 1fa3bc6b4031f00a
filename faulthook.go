//go:build faulthook

package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"nodedesk/app"
	"nodedesk/app/dataplane"
)

// The fault hook of the browser tests, built only with -tags faulthook:
// SIGUSR2 breaks the data plane's ends of every running node of every
// open project (dataplane.Fabric.BreakEnds), as a socket that fails under
// nodedesk would, so that a test sees what a user then sees.
func init() {
	faultHook = func(ctx context.Context, svc *app.Service, fabric *dataplane.Fabric, log *slog.Logger) {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGUSR2)
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case <-sig:
				}
				projects, _ := svc.FindProjects(ctx)
				for _, p := range projects {
					nodes, _ := svc.FindNodes(ctx, p.ID)
					for _, n := range nodes {
						if n.Status == app.Started {
							ports, err := fabric.BreakEnds(n.ID)
							log.Warn("faulthook: broke a node's data plane ends", "node", n.Name, "ports", ports, "err", err)
						}
					}
				}
			}
		}()
	}
}
