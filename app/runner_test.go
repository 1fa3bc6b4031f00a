package app_test

import (
	"context"
	"slices"
	"testing"

	"nodedesk/app"
	"nodedesk/app/labtest/kit"
)

// otherRunner is a runner of some other emulator: it runs no VPCS.
type otherRunner struct{ fakeRunner }

func (r *otherRunner) Runs(app.NodeType) bool { return false }

// TestService_NodeAction_RunnerByType: with one runner per emulator, a
// node's lifecycle goes to the runner of its type, and to no other.
func TestService_NodeAction_RunnerByType(t *testing.T) {
	ctx := context.Background()
	other, vpcs := &otherRunner{}, &fakeRunner{}
	svc := app.NewService(app.Config{Store: kit.MustOpenStore(t), DataDir: t.TempDir(), HostInterfaces: hostInterfaces,
		Runners: []app.Runner{other, vpcs}})
	n := mustCreateVPCS(t, svc, mustCreateProject(t, svc, "lab").ID)
	for _, a := range []app.Action{app.Start, app.Suspend, app.Start, app.Stop} {
		if _, err := svc.NodeAction(ctx, ref(n), a); err != nil {
			t.Fatalf("%s: %v", a, err)
		}
	}
	if got, want := vpcs.take(), []string{"start", "suspend", "resume", "stop"}; !slices.Equal(got, want) {
		t.Errorf("the VPCS runner was asked %v; want %v", got, want)
	}
	if got := other.take(); len(got) != 0 {
		t.Errorf("the other emulator's runner was asked %v; want nothing", got)
	}
}
