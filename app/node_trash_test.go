package app_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"nodedesk/app"
	"nodedesk/app/kit"
)

// writeNodeFiles gives node n's folder files as a run leaves them: a
// disk, a config in a sub-folder, a hidden file and a link.
func writeNodeFiles(t *testing.T, svc *app.Service, n *app.Node) string {
	t.Helper()
	dir := *svc.NodeDirectory(n)
	for name, content := range map[string]string{"hda_disk.qcow2": strings.Repeat("disk\x00", 4096),
		"configs/i1_startup-config.cfg": "hostname " + n.Name + "\n", ".hidden": "the node's own"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("hda_disk.qcow2", filepath.Join(dir, "disk-link")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

// TestService_DeletedNodeFiles: a deleted node's folder waits in its
// project's trash, where no export or snapshot sees it; an undo of the
// delete brings it back byte for byte, a redo takes it away again; once
// no history entry names the node (here a new change empties the redo
// stack that held them) the trash goes.
func TestService_DeletedNodeFiles(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	p := mustCreateProject(t, svc, "lab")
	n := mustCreateVPCS(t, svc, p.ID)
	dir := writeNodeFiles(t, svc, n)
	before := kit.FolderHashes(t, dir)
	trash := filepath.Join(svc.ProjectDir(p.ID), ".trash")

	if err := svc.DeleteNode(ctx, ref(n)); err != nil {
		t.Fatal(err)
	}
	if exists(dir) || !exists(filepath.Join(trash, n.ID)) {
		t.Fatalf("after the delete: folder there %v, in the trash %v; want it in the trash only", exists(dir), exists(filepath.Join(trash, n.ID)))
	}
	exp, err := svc.ExportProject(ctx, p.ID, app.ExportContent{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range exp.Files {
		if strings.Contains(f.Path, ".trash") || strings.Contains(f.Path, n.ID) {
			t.Errorf("the export carries %s, a deleted node's file", f.Path)
		}
	}
	snap := mustCreateSnapshot(t, svc, p.ID, "after")
	if kept := kit.FolderHashes(t, filepath.Join(svc.ProjectDir(p.ID), "snapshots", snap.ID)); len(kept) != 0 {
		t.Errorf("the snapshot kept %v; want none of the deleted node's files", kept)
	}
	if err := svc.DeleteSnapshot(ctx, p.ID, snap.ID); err != nil {
		t.Fatal(err)
	}

	for range 2 { // the snapshot's delete, its take, then the node's delete
		if _, err := svc.Undo(ctx, p.ID); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.Undo(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	kit.WantFiles(t, "the folder after the undo of the delete", kit.FolderHashes(t, dir), before)
	if exists(trash) {
		t.Errorf("the trash outlives the undo: %v", kit.FolderHashes(t, trash))
	}
	if _, err := svc.Redo(ctx, p.ID); err != nil { // deleted again
		t.Fatal(err)
	}
	if exists(dir) || !exists(filepath.Join(trash, n.ID)) {
		t.Fatalf("after the redo of the delete: folder there %v, in the trash %v", exists(dir), exists(filepath.Join(trash, n.ID)))
	}
	// Undo the delete and the creation: the node is gone again, its
	// folder in the trash, both entries on the redo stack; a new change
	// empties that stack, and nothing can bring the node back.
	for range 2 {
		if _, err := svc.Undo(ctx, p.ID); err != nil {
			t.Fatal(err)
		}
	}
	if exists(dir) || !exists(filepath.Join(trash, n.ID)) {
		t.Fatalf("after the undo of its creation: folder there %v, in the trash %v", exists(dir), exists(filepath.Join(trash, n.ID)))
	}
	mustCreateVPCS(t, svc, p.ID)
	if exists(trash) {
		t.Errorf("the trash outlives the history entries that named its node: %v", kit.FolderHashes(t, trash))
	}
}

// TestService_DeletedNodeFiles_HistoryBound: once the entry of a node's
// delete is pushed out of the history by MaxHistory newer changes, its
// folder goes from the trash.
func TestService_DeletedNodeFiles_HistoryBound(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	p := mustCreateProject(t, svc, "lab")
	n := mustCreateVPCS(t, svc, p.ID)
	writeNodeFiles(t, svc, n)
	if err := svc.DeleteNode(ctx, ref(n)); err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(svc.ProjectDir(p.ID), ".trash", n.ID)
	const writers = 8
	var movers []*app.Node
	for range writers {
		movers = append(movers, mustCreateVPCS(t, svc, p.ID))
	}
	var wg sync.WaitGroup
	for w, m := range movers {
		wg.Go(func() {
			for i := range (app.MaxHistory - writers - 1) / writers {
				if _, err := svc.UpdateNode(ctx, ref(m), app.NodeUpdate{X: app.Some(1 + i*writers + w)}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if !exists(kept) {
		t.Fatalf("the folder left the trash while the delete is still in the history (%d entries)", len(mustFindHistory(t, svc, p.ID).Undo))
	}
	for i := 0; exists(kept) && i < writers+1; i++ { // the entries that push the delete out
		if _, err := svc.UpdateNode(ctx, ref(movers[0]), app.NodeUpdate{Y: app.Some(1000 + i)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range mustFindHistory(t, svc, p.ID).Undo {
		if strings.HasPrefix(e.Description, "Deleted") {
			t.Fatalf("the delete is still in the history: %q", e.Description)
		}
	}
	if exists(kept) {
		t.Error("the folder of a node whose delete left the history is still in the trash")
	}
}
