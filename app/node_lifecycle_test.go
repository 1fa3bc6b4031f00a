package app_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"nodedesk/app"
)

// TestService_NodeAction_StatusOnly walks nodes through actions with no
// Runner: a process-run node's status follows GNS3's transitions, an
// always-running node (switch, hub, cloud ...) stays started.
func TestService_NodeAction_StatusOnly(t *testing.T) {
	ctx := context.Background()
	steps := []struct {
		action app.Action
		want   app.Status
	}{
		{app.Start, app.Started},
		{app.Suspend, app.Suspended},
		{app.Start, app.Started},
		{app.Reload, app.Started},
		{app.Stop, app.Stopped},
		{app.Suspend, app.Stopped},
		{app.Stop, app.Stopped},
		{app.Reload, app.Started},
		{app.Suspend, app.Suspended},
		{app.Suspend, app.Suspended},
		{app.Reload, app.Started},
	}
	svc, b := newService(t)
	p := mustCreateProject(t, svc, "lab")
	pc := mustCreateVPCS(t, svc, p.ID)
	events, stop := b.Subscribe(64)
	defer stop()
	for i, st := range steps {
		got, err := svc.NodeAction(ctx, ref(pc), st.action)
		if err != nil {
			t.Fatalf("step %d %s: %v", i, st.action, err)
		}
		if got.Status != st.want || mustFindNode(t, svc, pc).Status != st.want {
			t.Errorf("step %d %s: status %s (stored %s); want %s", i, st.action, got.Status, mustFindNode(t, svc, pc).Status, st.want)
		}
		changed := i == 0 || steps[i-1].want != st.want
		if evs := drain(events); changed != hasAction(evs, app.EventNodeUpdated) {
			t.Errorf("step %d %s: events %+v; want node.updated only when the status changes", i, st.action, evs)
		}
	}

	for _, typ := range []app.NodeType{app.EthernetSwitch, app.EthernetHub, app.FrameRelaySwitch, app.Cloud, app.NAT, app.ATMSwitch} {
		n := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: typ})
		for _, a := range app.Actions {
			got, err := svc.NodeAction(ctx, ref(n), a)
			if err != nil || got.Status != app.Started {
				t.Errorf("%s %s: %v, %v; want started", typ, a, got, err)
			}
		}
	}
}

// TestService_NodeAction_StoredTypes: nodes of the emulators nodedesk keeps
// but does not run refuse to start, saying so, and stay editable.
func TestService_NodeAction_StoredTypes(t *testing.T) {
	ctx := context.Background()
	for _, typ := range []app.NodeType{app.VirtualBox, app.VMware, app.TraceNG} {
		t.Run(string(typ), func(t *testing.T) {
			svc, _ := newService(t)
			n := mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, app.NodeCreate{Type: typ})
			if n.Status != app.Stopped {
				t.Fatalf("new %s is %s; want stopped", typ, n.Status)
			}
			for _, a := range []app.Action{app.Start, app.Reload} {
				_, err := svc.NodeAction(ctx, ref(n), a)
				wantCode(t, err, app.ECONFLICT)
				if want := "nodedesk does not run " + string(typ) + " nodes"; !strings.HasPrefix(app.ErrorMessage(err), want) {
					t.Errorf("%s: message %q; want it to start with %q", a, app.ErrorMessage(err), want)
				}
			}
			for _, a := range []app.Action{app.Stop, app.Suspend} {
				if got, err := svc.NodeAction(ctx, ref(n), a); err != nil || got.Status != app.Stopped {
					t.Errorf("%s: %v, %v; want stopped, no error", a, got, err)
				}
			}
			if _, err := svc.UpdateNode(ctx, ref(n), app.NodeUpdate{X: app.Some(10)}); err != nil {
				t.Errorf("editing a %s node: %v", typ, err)
			}
		})
	}
}

func TestService_NodeAction_Errors(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	p := mustCreateProject(t, svc, "lab")
	pc := mustCreateVPCS(t, svc, p.ID)
	tests := []struct {
		name     string
		ref      app.NodeRef
		wantCode string
	}{
		{"ErrNotFoundNode", app.NodeRef{ProjectID: p.ID, NodeID: uuid.NewString()}, app.ENOTFOUND},
		{"ErrNotFoundProject", app.NodeRef{ProjectID: uuid.NewString(), NodeID: pc.ID}, app.ENOTFOUND},
		{"ErrNotFoundOtherType", app.NodeRef{ProjectID: p.ID, NodeID: pc.ID, Type: app.EthernetHub}, app.ENOTFOUND},
		{"ErrInvalidNodeID", app.NodeRef{ProjectID: p.ID, NodeID: "nope"}, app.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := svc.NodeAction(ctx, tt.ref, app.Start)
			wantCode(t, err, tt.wantCode)
		})
	}
	if got := mustFindNode(t, svc, pc); got.Status != app.Stopped {
		t.Errorf("PC1 is %s after refused actions; want stopped", got.Status)
	}
}

// TestService_ProjectAction: a project-wide action reaches every node;
// nodes of the emulators nodedesk does not run are left out of anything
// but a stop, so a project holding one still starts.
func TestService_ProjectAction(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	p := mustCreateProject(t, svc, "lab")
	pc1, pc2 := mustCreateVPCS(t, svc, p.ID), mustCreateVPCS(t, svc, p.ID)
	sw := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.EthernetSwitch})
	q := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.TraceNG})
	other := mustCreateVPCS(t, svc, mustCreateProject(t, svc, "other").ID)
	for _, st := range []struct {
		action app.Action
		want   app.Status
	}{{app.Stop, app.Stopped}, {app.Start, app.Started}, {app.Suspend, app.Suspended}, {app.Reload, app.Started}, {app.Stop, app.Stopped}} {
		if err := svc.ProjectAction(ctx, p.ID, st.action); err != nil {
			t.Fatalf("project %s: %v", st.action, err)
		}
		for _, n := range []*app.Node{pc1, pc2} {
			if got := mustFindNode(t, svc, n).Status; got != st.want {
				t.Errorf("after project %s: %s is %s; want %s", st.action, n.Name, got, st.want)
			}
		}
		if got := mustFindNode(t, svc, sw).Status; got != app.Started {
			t.Errorf("after project %s: switch is %s; want started", st.action, got)
		}
		if got := mustFindNode(t, svc, q).Status; got != app.Stopped {
			t.Errorf("after project %s: the TraceNG node is %s; want stopped", st.action, got)
		}
		if got := mustFindNode(t, svc, other).Status; got != app.Stopped {
			t.Errorf("after project %s: another project's node is %s", st.action, got)
		}
	}
	wantCode(t, svc.ProjectAction(ctx, "None", app.Start), app.ENOTFOUND)
}
