package app_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"nodedesk/app"
)

// With no ComputeDialer, remote computes are recorded and never connect:
// these tests see the records' rules alone.

func mustCreateCompute(tb testing.TB, svc *app.Service, in app.ComputeCreate) *app.ComputeView {
	tb.Helper()
	c, err := svc.CreateCompute(context.Background(), in)
	if err != nil {
		tb.Fatalf("CreateCompute(%+v): %v", in, err)
	}
	return c
}

func TestService_CreateCompute(t *testing.T) {
	ctx := context.Background()
	user := func(s string) *string { return &s }

	t.Run("DefaultName", func(t *testing.T) {
		svc, _ := newService(t)
		tests := []struct {
			give app.ComputeCreate
			want string
		}{
			{app.ComputeCreate{Protocol: "http", Host: "192.0.2.1", Port: 3080}, "http://192.0.2.1:3080"},
			{app.ComputeCreate{Protocol: "https", Host: "::1", Port: 443, User: user("admin")}, "https://admin@[::1]:443"},
		}
		for _, tt := range tests {
			c := mustCreateCompute(t, svc, tt.give)
			if c.Name != tt.want || c.ID == "" || c.Connected {
				t.Errorf("compute %+v; want name %s, an id, not connected", c, tt.want)
			}
		}
	})

	t.Run("OKGivenIDAndName", func(t *testing.T) {
		svc, _ := newService(t)
		c := mustCreateCompute(t, svc, app.ComputeCreate{ComputeID: "lab", Name: "Lab server", Protocol: "http", Host: "192.0.2.1", Port: 3080})
		if c.ID != "lab" || c.Name != "Lab server" {
			t.Errorf("compute %+v", c)
		}
		got, err := svc.FindCompute(ctx, "lab")
		if err != nil || got.Name != "Lab server" || got.Host != "192.0.2.1" {
			t.Errorf("FindCompute = %+v, %v", got, err)
		}
	})

	tests := []struct {
		name      string
		give      app.ComputeCreate
		wantCode  string
		wantField string
		wantMsg   string
	}{
		{"ErrInvalidProtocol", app.ComputeCreate{Protocol: "gopher", Host: "192.0.2.1", Port: 3080}, app.EINVALID, "protocol", ""},
		{"ErrInvalidNoHost", app.ComputeCreate{Protocol: "http", Port: 3080}, app.EINVALID, "host", ""},
		{"ErrInvalidPort0", app.ComputeCreate{Protocol: "http", Host: "192.0.2.1"}, app.EINVALID, "port", ""},
		{"ErrInvalidPort65536", app.ComputeCreate{Protocol: "http", Host: "192.0.2.1", Port: 65536}, app.EINVALID, "port", ""},
		{"ErrConflictIDLocal", app.ComputeCreate{ComputeID: "local", Protocol: "http", Host: "192.0.2.1", Port: 3080}, app.ECONFLICT, "compute_id", ""},
		{"ErrConflictIDVM", app.ComputeCreate{ComputeID: "vm", Protocol: "http", Host: "192.0.2.1", Port: 3080}, app.ECONFLICT, "compute_id", ""},
		{"ErrConflictIDTaken", app.ComputeCreate{ComputeID: "first", Protocol: "http", Host: "192.0.2.2", Port: 3080}, app.ECONFLICT, "compute_id", ""},
		{"ErrConflictNameTaken", app.ComputeCreate{Protocol: "http", Host: "192.0.2.1", Port: 3080}, app.ECONFLICT, "name", "already exists"},
		{"ErrConflictLocalName", app.ComputeCreate{Name: app.LocalComputeName(), Protocol: "http", Host: "192.0.2.3", Port: 3080},
			app.ECONFLICT, "name", "this machine's own compute"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := newService(t)
			mustCreateCompute(t, svc, app.ComputeCreate{ComputeID: "first", Protocol: "http", Host: "192.0.2.1", Port: 3080})
			_, err := svc.CreateCompute(ctx, tt.give)
			wantCode(t, err, tt.wantCode)
			if f := app.ErrorField(err); f != tt.wantField {
				t.Errorf("error field %q; want %q", f, tt.wantField)
			}
			if !strings.Contains(app.ErrorMessage(err), tt.wantMsg) {
				t.Errorf("message %q lacks %q", app.ErrorMessage(err), tt.wantMsg)
			}
			if cs, _ := svc.FindComputes(ctx); len(cs) != 1 {
				t.Errorf("%d computes after a refused create; want 1", len(cs))
			}
		})
	}
}

func TestService_UpdateCompute(t *testing.T) {
	ctx := context.Background()

	t.Run("OK", func(t *testing.T) {
		svc, _ := newService(t)
		c := mustCreateCompute(t, svc, app.ComputeCreate{Protocol: "http", Host: "192.0.2.1", Port: 3080})
		got, err := svc.UpdateCompute(ctx, c.ID, app.ComputeUpdate{Name: app.Some("lab2")})
		if err != nil || got.Name != "lab2" || got.Host != "192.0.2.1" {
			t.Fatalf("renamed compute %+v, %v", got, err)
		}
		if found, _ := svc.FindCompute(ctx, c.ID); found.Name != "lab2" {
			t.Errorf("stored name %q; want lab2", found.Name)
		}
		// An empty name is the default one again.
		if got, err = svc.UpdateCompute(ctx, c.ID, app.ComputeUpdate{Name: app.Some(""), Port: app.Some(3081)}); err != nil || got.Name != "http://192.0.2.1:3081" {
			t.Errorf("compute after an empty name = %+v, %v; want the default name", got, err)
		}
	})

	t.Run("NoUserNoPassword", func(t *testing.T) {
		svc, _ := newService(t)
		u, pw := "admin", "secret"
		c := mustCreateCompute(t, svc, app.ComputeCreate{Protocol: "http", Host: "192.0.2.1", Port: 3080, User: &u, Password: &pw})
		got, err := svc.UpdateCompute(ctx, c.ID, app.ComputeUpdate{User: app.Null[string]()})
		if err != nil {
			t.Fatal(err)
		}
		if got.User != nil || got.Password != nil {
			t.Errorf("user, password = %v, %v; want neither: a password needs a user", got.User, got.Password)
		}
	})

	tests := []struct {
		name     string
		id       func(c *app.ComputeView) string
		give     app.ComputeUpdate
		wantCode string
	}{
		{"ErrConflictLocal", func(*app.ComputeView) string { return app.LocalCompute }, app.ComputeUpdate{Name: app.Some("x")}, app.ECONFLICT},
		{"ErrConflictNameTaken", func(c *app.ComputeView) string { return c.ID }, app.ComputeUpdate{Name: app.Some("other")}, app.ECONFLICT},
		{"ErrInvalidProtocol", func(c *app.ComputeView) string { return c.ID }, app.ComputeUpdate{Protocol: app.Some("ftp")}, app.EINVALID},
		{"ErrNotFound", func(*app.ComputeView) string { return uuid.NewString() }, app.ComputeUpdate{Name: app.Some("x")}, app.ENOTFOUND},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := newService(t)
			c := mustCreateCompute(t, svc, app.ComputeCreate{Protocol: "http", Host: "192.0.2.1", Port: 3080})
			mustCreateCompute(t, svc, app.ComputeCreate{Name: "other", Protocol: "http", Host: "192.0.2.2", Port: 3080})
			_, err := svc.UpdateCompute(ctx, tt.id(c), tt.give)
			wantCode(t, err, tt.wantCode)
			if found, _ := svc.FindCompute(ctx, c.ID); found.Name != c.Name || found.Protocol != "http" {
				t.Errorf("a refused change changed the compute: %+v", found)
			}
		})
	}
}

func TestService_DeleteCompute(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	a := mustCreateCompute(t, svc, app.ComputeCreate{Protocol: "http", Host: "192.0.2.1", Port: 3080})
	b := mustCreateCompute(t, svc, app.ComputeCreate{Protocol: "http", Host: "192.0.2.2", Port: 3080})
	if cs, err := svc.FindComputes(ctx); err != nil || len(cs) != 2 || cs[0].ID != a.ID || cs[1].ID != b.ID {
		t.Fatalf("FindComputes = %v, %v; want a, b in the order added", cs, err)
	}
	if err := svc.DeleteCompute(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	_, err := svc.FindCompute(ctx, a.ID)
	wantCode(t, err, app.ENOTFOUND)
	wantCode(t, svc.DeleteCompute(ctx, a.ID), app.ENOTFOUND)
	wantCode(t, svc.DeleteCompute(ctx, app.LocalCompute), app.ECONFLICT)
	// Its name may be used again.
	mustCreateCompute(t, svc, app.ComputeCreate{Protocol: "http", Host: "192.0.2.1", Port: 3080})
}
