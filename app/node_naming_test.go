package app_test

import (
	"context"
	"strings"
	"testing"

	"nodedesk/app"
)

func namedNode(typ app.NodeType, name string) app.NodeCreate {
	return app.NodeCreate{Type: typ, NodeUpdate: app.NodeUpdate{Name: app.Some(name)}}
}

// TestService_CreateNode_NameAllocation covers the GNS3 naming rules that
// TestService_CreateNode_Naming leaves out.
func TestService_CreateNode_NameAllocation(t *testing.T) {
	tests := []struct {
		name     string
		existing []app.NodeCreate
		give     app.NodeCreate
		want     string
	}{
		{"IDPlaceholder", nil, namedNode(app.VPCS, "R{id}"), "R1"},
		{"TakenTrailingDigitsFirstFree", []app.NodeCreate{namedNode(app.VPCS, "R2")}, namedNode(app.VPCS, "R2"), "R1"},
		{"TakenTrailingDigitsAfterRun", []app.NodeCreate{namedNode(app.VPCS, "R1"), namedNode(app.VPCS, "R2")}, namedNode(app.VPCS, "R2"), "R3"},
		{"TypesShareNames", []app.NodeCreate{namedNode(app.EthernetSwitch, "PC1")}, app.NodeCreate{Type: app.VPCS}, "PC2"},
		{"DefaultPerType", []app.NodeCreate{{Type: app.VPCS}}, app.NodeCreate{Type: app.EthernetHub}, "Hub1"},
		{"SpacesRemovedThenNumbered", []app.NodeCreate{namedNode(app.VPCS, "core")}, namedNode(app.VPCS, " co re "), "core1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := newService(t)
			p := mustCreateProject(t, svc, "lab")
			for _, c := range tt.existing {
				mustCreateNode(t, svc, p.ID, c)
			}
			n := mustCreateNode(t, svc, p.ID, tt.give)
			if n.Name != tt.want || n.Label.Text != tt.want {
				t.Errorf("name, label = %q, %q; want %q", n.Name, n.Label.Text, tt.want)
			}
		})
	}
}

// TestService_CreateNode_FreedNameFirst: a name freed by a delete or a
// rename is given again, before any higher number.
func TestService_CreateNode_FreedNameFirst(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	p := mustCreateProject(t, svc, "lab")
	byName := map[string]*app.Node{}
	for range 5 {
		n := mustCreateVPCS(t, svc, p.ID)
		byName[n.Name] = n
	}
	if err := svc.DeleteNode(ctx, ref(byName["PC2"])); err != nil {
		t.Fatal(err)
	}
	if got := mustCreateVPCS(t, svc, p.ID).Name; got != "PC2" {
		t.Errorf("name after PC2 was deleted: %s; want PC2", got)
	}
	if _, err := svc.UpdateNode(ctx, ref(byName["PC1"]), app.NodeUpdate{Name: app.Some("gateway")}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"PC1", "PC6"} {
		if got := mustCreateVPCS(t, svc, p.ID).Name; got != want {
			t.Errorf("next name %s; want %s", got, want)
		}
	}
}

func TestService_NodeName_Invalid(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		give string
	}{
		{"TooLong", strings.Repeat("n", 256)},
		{"NUL", "a\x00b"},
		{"LineBreak", "a\nb"},
		{"Tab", "a\tb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := newService(t)
			p := mustCreateProject(t, svc, "lab")
			_, err := svc.CreateNode(ctx, p.ID, namedNode(app.VPCS, tt.give))
			wantCode(t, err, app.EINVALID)
			if app.ErrorField(err) != "name" {
				t.Errorf("error field %q; want name", app.ErrorField(err))
			}
			if ns, _ := svc.FindNodes(ctx, p.ID); len(ns) != 0 {
				t.Errorf("a refused create left %d nodes", len(ns))
			}
			n := mustCreateVPCS(t, svc, p.ID)
			_, err = svc.UpdateNode(ctx, ref(n), app.NodeUpdate{Name: app.Some(tt.give)})
			wantCode(t, err, app.EINVALID)
			if got := mustFindNode(t, svc, n); got.Name != n.Name {
				t.Errorf("name after a refused rename %q; want %q", got.Name, n.Name)
			}
		})
	}

	t.Run("OK255", func(t *testing.T) {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		long := strings.Repeat("é", 255)
		if n := mustCreateNode(t, svc, p.ID, namedNode(app.VPCS, long)); n.Name != long {
			t.Errorf("name of 255 characters became %q", n.Name)
		}
	})
}

// TestService_UpdateNode_NameKept: a rename keeps the name exactly as
// given, spaces included, and a null name keeps the node's.
func TestService_UpdateNode_NameKept(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	n := mustCreateVPCS(t, svc, mustCreateProject(t, svc, "lab").ID)
	got, err := svc.UpdateNode(ctx, ref(n), app.NodeUpdate{Name: app.Some("my pc {0}")})
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "my pc {0}" {
		t.Errorf("renamed to %q; want the name as given", got.Name)
	}
	if got, err = svc.UpdateNode(ctx, ref(n), app.NodeUpdate{Name: app.Null[string](), X: app.Some(4)}); err != nil || got.Name != "my pc {0}" {
		t.Errorf("after a null name: %v, %v; want the name kept", got, err)
	}
}
