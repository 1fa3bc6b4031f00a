package app_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"nodedesk/app"
)

// Files a client reads and writes in a node's or a project's folder: a
// VPCS node's startup.vpc is its startup_script, and no path leaves the
// folder.

func TestService_WriteNodeFile_VPCSScript(t *testing.T) {
	ctx := context.Background()
	svc, b := newService(t)
	pc := mustCreateVPCS(t, svc, mustCreateProject(t, svc, "files").ID)

	// A VPCS without a script has no startup.vpc.
	_, err := svc.ReadNodeFile(ctx, ref(pc), app.VPCSScriptFile)
	wantCode(t, err, app.ENOTFOUND)

	events, stop := b.Subscribe(16)
	defer stop()
	script := "set pcname PC1\nip 10.0.0.1/24 10.0.0.254\n"
	if err := svc.WriteNodeFile(ctx, ref(pc), app.VPCSScriptFile, []byte(script)); err != nil {
		t.Fatal(err)
	}
	if got := mustFindNode(t, svc, pc).Properties.StartupScript; got == nil || *got != script {
		t.Errorf("startup_script after writing startup.vpc = %v; want %q", got, script)
	}
	if evs := drain(events); len(evs) == 0 || evs[0].Action != app.EventNodeUpdated {
		t.Errorf("events %+v; want node.updated", evs)
	}
	if got, err := svc.ReadNodeFile(ctx, ref(pc), app.VPCSScriptFile); err != nil || string(got) != script {
		t.Errorf("startup.vpc = %q, %v; want %q", got, err, script)
	}
	// And setting startup_script is writing startup.vpc.
	if _, err := svc.UpdateNode(ctx, ref(pc), app.NodeUpdate{Properties: &app.VPCSUpdate{StartupScript: app.Some("ip dhcp")}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := svc.ReadNodeFile(ctx, ref(pc), app.VPCSScriptFile); string(got) != "ip dhcp" {
		t.Errorf("startup.vpc after an update = %q; want ip dhcp", got)
	}
	// A script is text.
	wantCode(t, svc.WriteNodeFile(ctx, ref(pc), app.VPCSScriptFile, []byte("\xff\xfe not text")), app.EINVALID)
	if got, _ := svc.ReadNodeFile(ctx, ref(pc), app.VPCSScriptFile); string(got) != "ip dhcp" {
		t.Errorf("startup.vpc after a refused write = %q; want ip dhcp", got)
	}
}

func TestService_WriteNodeFile(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	p := mustCreateProject(t, svc, "files")
	pc := mustCreateVPCS(t, svc, p.ID)
	dir := *svc.NodeDirectory(pc)

	if err := svc.WriteNodeFile(ctx, ref(pc), "notes/readme.txt", []byte("hello\x00bytes")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "notes", "readme.txt")); err != nil || string(b) != "hello\x00bytes" {
		t.Errorf("file on disk %q, %v; want it in the node's folder", b, err)
	}
	if got, err := svc.ReadNodeFile(ctx, ref(pc), "notes/readme.txt"); err != nil || string(got) != "hello\x00bytes" {
		t.Errorf("read back %q, %v", got, err)
	}

	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}

	readTests := []struct {
		name     string
		path     string
		wantCode string
	}{
		{"ErrNotFoundFile", "notes/missing.txt", app.ENOTFOUND},
		{"ErrInvalidFolder", "notes", app.EINVALID},
		{"ErrForbiddenParent", `..\..\..\nodedesk.db`, app.EFORBIDDEN},
		{"ErrForbiddenParentSlash", "../../nodedesk.db", app.EFORBIDDEN},
		{"ErrForbiddenAbsolute", `\etc\passwd`, app.EFORBIDDEN},
		{"ErrForbiddenHidden", ".vpcs_history", app.EFORBIDDEN},
		{"ErrForbiddenThroughLink", "out/secret", app.EFORBIDDEN},
	}
	for _, tt := range readTests {
		t.Run("Read"+tt.name, func(t *testing.T) {
			_, err := svc.ReadNodeFile(ctx, ref(pc), tt.path)
			wantCode(t, err, tt.wantCode)
		})
	}
	writeTests := []struct {
		name     string
		path     string
		data     []byte
		wantCode string
	}{
		{"ErrForbiddenParent", `..\escaped`, []byte("x"), app.EFORBIDDEN},
		{"ErrForbiddenHidden", "notes/.hidden", []byte("x"), app.EFORBIDDEN},
		{"ErrForbiddenThroughLink", "out/planted", []byte("x"), app.EFORBIDDEN},
		{"ErrInvalidTooLarge", "big.txt", make([]byte, app.MaxNodeFileBytes+1), app.EINVALID},
		{"ErrInvalidScriptTooLarge", app.VPCSScriptFile, make([]byte, app.MaxNodeFileBytes+1), app.EINVALID},
	}
	for _, tt := range writeTests {
		t.Run("Write"+tt.name, func(t *testing.T) {
			wantCode(t, svc.WriteNodeFile(ctx, ref(pc), tt.path, tt.data), tt.wantCode)
		})
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret")); string(b) != "secret" {
		t.Errorf("the file outside was changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(outside, "planted")); err == nil {
		t.Error("a file was planted outside the node's folder")
	}
	if err := svc.WriteNodeFile(ctx, ref(pc), "fits.txt", make([]byte, app.MaxNodeFileBytes)); err != nil {
		t.Errorf("a file of the largest size: %v", err)
	}

	t.Run("NodeWithoutFolder", func(t *testing.T) {
		sw := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.EthernetSwitch})
		_, err := svc.ReadNodeFile(ctx, ref(sw), app.VPCSScriptFile)
		wantCode(t, err, app.ENOTFOUND)
		err = svc.WriteNodeFile(ctx, ref(sw), "config.txt", []byte("x"))
		wantCode(t, err, app.ECONFLICT)
		if !strings.Contains(app.ErrorMessage(err), "keeps no files") {
			t.Errorf("message %q; want it to say the node keeps no files", app.ErrorMessage(err))
		}
	})

	t.Run("ErrNotFoundNode", func(t *testing.T) {
		missing := app.NodeRef{ProjectID: p.ID, NodeID: uuid.NewString()}
		_, err := svc.ReadNodeFile(ctx, missing, app.VPCSScriptFile)
		wantCode(t, err, app.ENOTFOUND)
		wantCode(t, svc.WriteNodeFile(ctx, missing, app.VPCSScriptFile, []byte("x")), app.ENOTFOUND)
		_, err = svc.ReadNodeFile(ctx, app.NodeRef{ProjectID: uuid.NewString(), NodeID: pc.ID}, app.VPCSScriptFile)
		wantCode(t, err, app.ENOTFOUND)
		_, err = svc.ReadNodeFile(ctx, app.NodeRef{ProjectID: p.ID, NodeID: "nope"}, app.VPCSScriptFile)
		wantCode(t, err, app.EINVALID)
	})
}

func TestService_WriteProjectFile(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	p := mustCreateProject(t, svc, "files")
	pc := mustCreateVPCS(t, svc, p.ID)

	_, err := svc.ReadProjectFile(ctx, p.ID, "README.txt")
	wantCode(t, err, app.ENOTFOUND)
	if err := svc.WriteProjectFile(ctx, p.ID, "README.txt", []byte("hello\x00there")); err != nil {
		t.Fatal(err)
	}
	if got, err := svc.ReadProjectFile(ctx, p.ID, "README.txt"); err != nil || string(got) != "hello\x00there" {
		t.Errorf("README = %q, %v", got, err)
	}
	if b, err := os.ReadFile(filepath.Join(svc.ProjectDir(p.ID), "README.txt")); err != nil || string(b) != "hello\x00there" {
		t.Errorf("file on disk %q, %v; want it in the project's folder", b, err)
	}
	if err := svc.WriteProjectFile(ctx, p.ID, "notes/a/b.txt", []byte("deep")); err != nil {
		t.Fatal(err)
	}
	_, err = svc.ReadProjectFile(ctx, p.ID, "notes")
	wantCode(t, err, app.EINVALID)

	// A VPCS node's startup.vpc, named by its place in the project, is
	// its startup_script.
	script := "project-files/vpcs/" + pc.ID + "/startup.vpc"
	if err := svc.WriteProjectFile(ctx, p.ID, script, []byte("ip 10.1.1.1/24")); err != nil {
		t.Fatal(err)
	}
	if got := mustFindNode(t, svc, pc).Properties.StartupScript; got == nil || *got != "ip 10.1.1.1/24" {
		t.Errorf("startup_script = %v; want ip 10.1.1.1/24", got)
	}
	if got, err := svc.ReadProjectFile(ctx, p.ID, script); err != nil || string(got) != "ip 10.1.1.1/24" {
		t.Errorf("script = %q, %v", got, err)
	}

	for _, tt := range []struct {
		name, path string
		wantCode   string
	}{
		{"ParentBackslash", `..\x`, app.EFORBIDDEN},
		{"ParentInside", `a\..\..\nodedesk.db`, app.EFORBIDDEN},
		{"Absolute", `\abs`, app.EFORBIDDEN},
		{"Hidden", ".hidden", app.EFORBIDDEN},
		{"HiddenInFolder", "a/.hidden", app.EFORBIDDEN},
	} {
		t.Run("Err"+tt.name, func(t *testing.T) {
			_, err := svc.ReadProjectFile(ctx, p.ID, tt.path)
			wantCode(t, err, tt.wantCode)
			wantCode(t, svc.WriteProjectFile(ctx, p.ID, tt.path, []byte("x")), tt.wantCode)
		})
	}
	wantCode(t, svc.WriteProjectFile(ctx, p.ID, "big.bin", make([]byte, app.MaxNodeFileBytes+1)), app.EINVALID)
	_, err = svc.ReadProjectFile(ctx, uuid.NewString(), "README.txt")
	wantCode(t, err, app.ENOTFOUND)
	wantCode(t, svc.WriteProjectFile(ctx, uuid.NewString(), "README.txt", []byte("x")), app.ENOTFOUND)
}
