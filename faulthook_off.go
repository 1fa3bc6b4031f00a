package main

import (
	"context"
	"log/slog"

	"nodedesk/app"
	"nodedesk/app/dataplane"
)

// faultHook, set only in a build with -tags faulthook (faulthook.go),
// lets the browser tests break the data plane's ends of running nodes;
// nil in every other build.
var faultHook func(ctx context.Context, svc *app.Service, fabric *dataplane.Fabric, log *slog.Logger)
