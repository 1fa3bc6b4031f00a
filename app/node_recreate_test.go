package app_test

import (
	"context"
	"encoding/json"
	"testing"

	"nodedesk/app"
	"nodedesk/store/storetest"
)

// TestService_UpdateRunningDocker: a started Docker node whose console
// type, start command or environment change is stopped and started again
// with them, as GNS3 makes its container again (no "must be stopped"
// refusal); a move restarts nothing, and a stopped node just stores the
// change.
func TestService_UpdateRunningDocker(t *testing.T) {
	ctx := context.Background()
	d := &dockerRecorder{}
	svc := app.NewService(app.Config{Store: storetest.Open(t), DataDir: t.TempDir(), HostInterfaces: hostInterfaces,
		Runners: []app.Runner{d}, PortFree: everyPortFree})
	pid := mustCreateProject(t, svc, "lab").ID
	n := mustCreateNode(t, svc, pid, app.NodeCreate{Type: app.Docker, NodeUpdate: app.NodeUpdate{
		Properties: dockerProps(t, `{"image": "alpine"}`)}})
	if _, err := svc.NodeAction(ctx, ref(n), app.Start); err != nil {
		t.Fatal(err)
	}
	d.take()

	got, err := svc.UpdateNode(ctx, ref(n), app.NodeUpdate{X: app.Some(40), Y: app.Some(-20)})
	if err != nil {
		t.Fatal(err)
	}
	if calls := d.take(); len(calls) != 0 || len(d.got) != 1 || got.Status != app.Started {
		t.Fatalf("a move of a running Docker node: runner asked %v, %d starts, status %s; want nothing, still started", calls, len(d.got), got.Status)
	}

	got, err = svc.UpdateNode(ctx, ref(n), app.NodeUpdate{ConsoleType: app.Some(app.ConsoleHTTP),
		Properties: dockerProps(t, `{"start_command": "httpd -f", "environment": "A=1"}`)})
	if err != nil {
		t.Fatalf("console type and start command of a running Docker node: %v; want it restarted with them", err)
	}
	if calls := d.take(); len(calls) != 1 || calls[0] != "stop" || len(d.got) != 2 {
		t.Fatalf("runner asked %v with %d starts; want a stop then a second start", calls, len(d.got))
	}
	p := d.got[1]
	var cmd string
	_ = json.Unmarshal(p.Properties["start_command"], &cmd)
	if p.ConsoleType != app.ConsoleHTTP || cmd != "httpd -f" {
		t.Errorf("restarted with console type %s, start command %q; want http, \"httpd -f\"", p.ConsoleType, cmd)
	}
	if got.Status != app.Started || got.ConsoleType != app.ConsoleHTTP || mustFindNode(t, svc, n).Status != app.Started {
		t.Errorf("after the change: status %s console type %s; want started, http", got.Status, got.ConsoleType)
	}

	if _, err := svc.NodeAction(ctx, ref(n), app.Stop); err != nil {
		t.Fatal(err)
	}
	d.take()
	if _, err := svc.UpdateNode(ctx, ref(n), app.NodeUpdate{Properties: dockerProps(t, `{"environment": "B=2"}`)}); err != nil {
		t.Fatal(err)
	}
	if calls := d.take(); len(calls) != 0 || len(d.got) != 2 || mustFindNode(t, svc, n).Status != app.Stopped {
		t.Errorf("a change of a stopped Docker node: runner asked %v, %d starts; want nothing, still stopped", calls, len(d.got))
	}
}
