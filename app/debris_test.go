package app_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestSweepDebris_ProjectDelete: a project delete a crash cut short is
// finished at start: the folder set aside comes back when the project's
// records are still there (the delete never committed) and goes when
// they are not.
func TestSweepDebris_ProjectDelete(t *testing.T) {
	svc, _ := newService(t)
	ctx := context.Background()
	live := mustCreateProject(t, svc, "live")
	gone := "5f1d7a3e-8c2b-4e6f-9a0d-1b2c3d4e5f60"
	projects := svc.ProjectsDir()
	for _, p := range []string{
		filepath.Join(projects, ".delete-"+live.ID, "notes.txt"),
		filepath.Join(projects, ".delete-"+gone, "snapshots", "s", "notes.txt"),
		filepath.Join(projects, ".delete-mine", "notes.txt"), // not a name nodedesk makes
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := svc.SweepDebris(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || removed[0] != filepath.Join(projects, ".delete-"+gone) {
		t.Errorf("removed %q, want only the deleted project's folder", removed)
	}
	if b, err := os.ReadFile(filepath.Join(svc.ProjectDir(live.ID), "notes.txt")); err != nil || string(b) != "x" {
		t.Errorf("the live project's folder is not back: %q, %v", b, err)
	}
	for _, p := range []string{".delete-" + live.ID, ".delete-" + gone} {
		if _, err := os.Lstat(filepath.Join(projects, p)); err == nil {
			t.Errorf("%s is still in the projects folder", p)
		}
	}
	if _, err := os.Stat(filepath.Join(projects, ".delete-mine", "notes.txt")); err != nil {
		t.Errorf("a folder nodedesk did not name was touched: %v", err)
	}
}
