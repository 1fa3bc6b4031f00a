package app_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"nodedesk/app"
	"nodedesk/store/storetest"
)

// fakeRunner records what the Service asks of it, and can be told to fail.
type fakeRunner struct {
	mu    sync.Mutex
	calls []string
	fail  string // the call that fails, e.g. "start"
}

func (r *fakeRunner) record(call string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, call)
	if call == r.fail {
		return app.Errorf(app.ECONFLICT, "%s failed: console port taken", call)
	}
	return nil
}

func (r *fakeRunner) Runs(t app.NodeType) bool { return t == app.VPCS }
func (r *fakeRunner) Start(p app.Process) (string, error) {
	if len(p.Ports) != 1 || p.Ports[0].Local == 0 || p.Ports[0].Remote != p.Ports[0].Local+1 || p.Console == 0 {
		return "", errors.New("start without its resources")
	}
	return "vpcs " + p.Name, r.record("start")
}
func (r *fakeRunner) Stop(string) error    { return r.record("stop") }
func (r *fakeRunner) Suspend(string) error { return r.record("suspend") }
func (r *fakeRunner) Resume(string) error  { return r.record("resume") }

func (r *fakeRunner) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.calls
	r.calls = nil
	return c
}

// TestService_NodeAction_Runner checks the runner side of every action from
// every status: what the process is asked to do, the status recorded, and
// that a failed step records nothing.
func TestService_NodeAction_Runner(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		from      app.Status
		action    app.Action
		wantCalls []string
		want      app.Status
	}{
		{app.Stopped, app.Start, []string{"start"}, app.Started},
		{app.Stopped, app.Stop, nil, app.Stopped},
		{app.Stopped, app.Suspend, nil, app.Stopped},
		{app.Stopped, app.Reload, []string{"start"}, app.Started},
		{app.Started, app.Start, nil, app.Started},
		{app.Started, app.Stop, []string{"stop"}, app.Stopped},
		{app.Started, app.Suspend, []string{"suspend"}, app.Suspended},
		{app.Started, app.Reload, []string{"stop", "start"}, app.Started},
		{app.Suspended, app.Start, []string{"resume"}, app.Started},
		{app.Suspended, app.Stop, []string{"stop"}, app.Stopped},
		{app.Suspended, app.Suspend, nil, app.Suspended},
		{app.Suspended, app.Reload, []string{"stop", "start"}, app.Started},
	}
	// reach drives a stopped node to a status with the runner's own steps.
	reach := map[app.Status][]app.Action{app.Stopped: nil, app.Started: {app.Start}, app.Suspended: {app.Start, app.Suspend}}
	for _, tt := range tests {
		t.Run(string(tt.from)+"/"+string(tt.action), func(t *testing.T) {
			r := &fakeRunner{}
			svc := app.NewService(app.Config{Store: storetest.Open(t), DataDir: t.TempDir(), HostInterfaces: hostInterfaces, Runners: []app.Runner{r}})
			n := mustCreateVPCS(t, svc, mustCreateProject(t, svc, "lab").ID)
			for _, a := range reach[tt.from] {
				if _, err := svc.NodeAction(ctx, ref(n), a); err != nil {
					t.Fatal(err)
				}
			}
			r.take()

			got, err := svc.NodeAction(ctx, ref(n), tt.action)
			if err != nil {
				t.Fatal(err)
			}
			if calls := r.take(); !slices.Equal(calls, tt.wantCalls) {
				t.Errorf("runner calls %v, want %v", calls, tt.wantCalls)
			}
			if got.Status != tt.want || mustFindNode(t, svc, n).Status != tt.want {
				t.Errorf("status %s (stored %s), want %s", got.Status, mustFindNode(t, svc, n).Status, tt.want)
			}
			if tt.want == app.Started && (got.CommandLine == nil || !strings.HasPrefix(*got.CommandLine, "vpcs ")) {
				t.Errorf("command line %v, want the runner's", got.CommandLine)
			}

			if len(tt.wantCalls) == 0 {
				return
			}
			// The same action again, with its last step failing: the
			// error reaches the caller and the status stays as it was.
			r2 := &fakeRunner{}
			svc2 := app.NewService(app.Config{Store: storetest.Open(t), DataDir: t.TempDir(), HostInterfaces: hostInterfaces, Runners: []app.Runner{r2}})
			n2 := mustCreateVPCS(t, svc2, mustCreateProject(t, svc2, "lab").ID)
			for _, a := range reach[tt.from] {
				if _, err := svc2.NodeAction(ctx, ref(n2), a); err != nil {
					t.Fatal(err)
				}
			}
			r2.fail = tt.wantCalls[len(tt.wantCalls)-1]
			before := mustFindNode(t, svc2, n2).Status
			if _, err := svc2.NodeAction(ctx, ref(n2), tt.action); app.ErrorCode(err) != app.ECONFLICT {
				t.Fatalf("failing %s: error %v, want the runner's conflict", r2.fail, err)
			}
			after := mustFindNode(t, svc2, n2).Status
			if r2.fail != "start" && after != before || r2.fail == "start" && after != app.Stopped {
				t.Errorf("status after a failed %s: %s (was %s)", r2.fail, after, before)
			}
		})
	}
}
