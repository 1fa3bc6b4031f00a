package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// A snapshot's files. As GNS3 does, a snapshot keeps the files of its
// project's folder that an export carries (walkCarried, by Exportable) in
// the project's folder, under snapshots/<snapshot_id>/, a folder that
// exports and other snapshots leave out. Every access goes through
// os.Root: no link is followed, none leads out of the project's folder.
//
// The folder outlives its record while the project's history can bring
// the record back (an undo of the delete, a redo of the take): a snapshot
// delete leaves it, and sweepSnapshotFiles removes the folders whose
// snapshot has no record and is named by no history entry, at a snapshot
// delete and when the project is opened or closed.

// snapshotsDir is the folder of a project's folder that holds its
// snapshots' files, as in GNS3.
const snapshotsDir = "snapshots"

// Temporary folders of a restore, in the snapshots folder: the snapshot's
// files staged, and the project's files set aside while the staged ones
// move in. A crash may leave them; a staged folder is only a copy (swept),
// an aside folder may hold the only copy of files (kept for the user).
const (
	restoreStagePrefix = ".restore-"
	restoreAsidePrefix = ".aside-"
)

// snapshotDir is the folder of a snapshot's files.
func (s *Service) snapshotDir(projectID, snapshotID string) string {
	return filepath.Join(s.ProjectDir(projectID), snapshotsDir, snapshotID)
}

// snapshotFilesError is the error of a snapshot's files: a fault of the
// disk, which the client can only report or retry.
func snapshotFilesError(what string, err error) error {
	return Errorf(EINTERNAL, "Cannot %s the snapshot's files: %v; check the project's folder (its permissions, the free space)", what, err)
}

// takeSnapshotFiles copies the project's carried files into the folder of
// snapshot snapshotID, made anew (an empty folder when the project has no
// file: a restore then removes the files added since). On failure nothing
// is left.
func (s *Service) takeSnapshotFiles(projectID, snapshotID string) error {
	dir := s.ProjectDir(projectID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return snapshotFilesError("take", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return snapshotFilesError("take", err)
	}
	defer root.Close()
	to := snapshotsDir + "/" + snapshotID
	if err := copyCarried(root, ".", to); err != nil {
		_ = root.RemoveAll(to)
		return snapshotFilesError("take", err)
	}
	return nil
}

// copyCarried copies the carried files of root's folder from into root's
// folder to, which it makes and which must not exist. Modes and times are
// kept.
func copyCarried(root *os.Root, from, to string) error {
	src, err := root.OpenRoot(from)
	if err != nil {
		return err
	}
	defer src.Close()
	if err := root.MkdirAll(path.Dir(to), 0o755); err != nil {
		return err
	}
	if err := root.Mkdir(to, 0o755); err != nil {
		return err
	}
	dst, err := root.OpenRoot(to)
	if err != nil {
		return err
	}
	defer dst.Close()
	return walkCarried(src, func(p string, d fs.DirEntry) error {
		return copyFile(src, dst, p)
	})
}

// copyFile copies the regular file p of src to p of dst, making its
// folders.
func copyFile(src, dst *os.Root, p string) error {
	in, err := src.Open(p)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() { // replaced by something else since the walk
		return nil
	}
	if d := path.Dir(p); d != "." {
		if err := dst.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	out, err := dst.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return dst.Chtimes(p, info.ModTime(), info.ModTime())
}

// stagedRestore is a restore of a snapshot's files, staged before the
// records' transaction and swapped in after it.
type stagedRestore struct {
	root  *os.Root // the project's folder
	tag   string   // names stage and aside, and the restore's intent record
	stage string   // the staged copy, relative to root
	aside string   // where the project's files go during the swap
}

// movedAside, in a restore's aside folder, says that every carried file of
// the project has moved aside: what the project's folder carries from then
// on came from the staged copy.
const movedAside = ".moved-aside"

// restoreFolders is the restore tagged tag of the project's folder root.
func restoreFolders(root *os.Root, tag string) *stagedRestore {
	return &stagedRestore{root: root, tag: tag, stage: snapshotsDir + "/" + restoreStagePrefix + tag, aside: snapshotsDir + "/" + restoreAsidePrefix + tag}
}

// stageSnapshotFiles copies a snapshot's files to a temporary folder of
// the project's snapshots folder. It returns nil, nil for a snapshot that
// has no files folder (taken before snapshots kept files): its restore
// leaves the project's files as they are.
func (s *Service) stageSnapshotFiles(projectID, snapshotID string) (*stagedRestore, error) {
	root, err := os.OpenRoot(s.ProjectDir(projectID))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, snapshotFilesError("read", err)
	}
	from := snapshotsDir + "/" + snapshotID
	if fi, err := root.Lstat(from); errors.Is(err, fs.ErrNotExist) {
		root.Close()
		return nil, nil
	} else if err != nil || !fi.IsDir() {
		root.Close()
		if err == nil {
			err = errors.New(from + " is not a folder")
		}
		return nil, snapshotFilesError("read", err)
	}
	r := restoreFolders(root, s.c.NewID())
	if err := copyCarried(root, from, r.stage); err != nil {
		r.discard()
		return nil, snapshotFilesError("stage", err)
	}
	return r, nil
}

// discard removes the staged copy and closes the root. Nil-safe.
func (r *stagedRestore) discard() {
	if r == nil {
		return
	}
	_ = r.root.RemoveAll(r.stage)
	r.root.Close()
}

// swap makes the project's carried files those staged: each carried file
// moves aside, each staged one moves in, then what is aside is removed.
// On failure what moved in is removed and what moved aside is put back.
// Files that no export carries (captures, tmp, logs, hidden names, the
// snapshots folder) are not touched.
func (r *stagedRestore) swap() error {
	defer r.discard()
	var current, staged []string
	if err := walkCarried(r.root, func(p string, d fs.DirEntry) error {
		current = append(current, p)
		return nil
	}); err != nil {
		return snapshotFilesError("restore", err)
	}
	stage, err := r.root.OpenRoot(r.stage)
	if err != nil {
		return snapshotFilesError("restore", err)
	}
	err = walkCarried(stage, func(p string, d fs.DirEntry) error {
		staged = append(staged, p)
		return nil
	})
	stage.Close()
	if err != nil {
		return snapshotFilesError("restore", err)
	}
	var aside, in []string
	undo := func() {
		for _, p := range slices.Backward(in) {
			_ = r.root.Remove(p)
		}
		r.pruneDirs(in)
		back := true
		for _, p := range slices.Backward(aside) {
			if r.root.Rename(r.aside+"/"+p, p) != nil {
				back = false
			}
		}
		if back { // else the aside folder keeps what could not go back
			_ = r.root.RemoveAll(r.aside)
		}
	}
	for _, p := range current {
		if err := r.move(p, r.aside+"/"+p); err != nil {
			undo()
			return snapshotFilesError("restore", err)
		}
		aside = append(aside, p)
	}
	if err := r.markMovedAside(); err != nil {
		undo()
		return snapshotFilesError("restore", err)
	}
	for _, p := range staged {
		if err := r.move(r.stage+"/"+p, p); err != nil {
			undo()
			return snapshotFilesError("restore", err)
		}
		in = append(in, p)
	}
	_ = r.root.RemoveAll(r.aside)
	// The folders the files set aside leave empty go too (a node's folder
	// of a node the snapshot does not have).
	r.pruneDirs(current)
	return nil
}

// move renames from to to, both relative to the project's folder, making
// to's folders.
func (r *stagedRestore) move(from, to string) error {
	if d := path.Dir(to); d != "." {
		if err := r.root.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	return r.root.Rename(from, to)
}

// markMovedAside writes the movedAside mark in the aside folder.
func (r *stagedRestore) markMovedAside() error {
	if err := r.root.MkdirAll(r.aside, 0o755); err != nil {
		return err
	}
	return r.root.WriteFile(r.aside+"/"+movedAside, nil, 0o644)
}

// finish completes a swap a crash cut short after the restore's records
// committed, so that the files follow the records: unless the movedAside
// mark says they all went, the carried files still in the project's folder
// are the old ones and move aside; then the staged files not yet moved in
// move in, and what is aside goes. Each step can be run again.
func (r *stagedRestore) finish() error {
	defer r.discard()
	if _, err := r.root.Lstat(r.aside + "/" + movedAside); errors.Is(err, fs.ErrNotExist) {
		var current []string
		if err := walkCarried(r.root, func(p string, d fs.DirEntry) error {
			current = append(current, p)
			return nil
		}); err != nil {
			return err
		}
		for _, p := range current {
			if err := r.move(p, r.aside+"/"+p); err != nil {
				return err
			}
		}
		if err := r.markMovedAside(); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	stage, err := r.root.OpenRoot(r.stage)
	if err != nil {
		return err
	}
	var staged []string
	err = walkCarried(stage, func(p string, d fs.DirEntry) error {
		staged = append(staged, p)
		return nil
	})
	stage.Close()
	if err != nil {
		return err
	}
	for _, p := range staged {
		if err := r.move(r.stage+"/"+p, p); err != nil {
			return err
		}
	}
	var old []string
	if aside, err := r.root.OpenRoot(r.aside); err == nil {
		_ = walkCarried(aside, func(p string, d fs.DirEntry) error {
			old = append(old, p)
			return nil
		})
		aside.Close()
	}
	if err := r.root.RemoveAll(r.aside); err != nil {
		return err
	}
	r.pruneDirs(old)
	return nil
}

// FinishRestores completes the file swaps of the snapshot restores whose
// records committed but whose files a crash kept from following (their
// intent records, written with the records), then ends each intent. A
// restore whose staged folder is gone had finished (or rolled back its
// files after failing). Run at start, before any restore. It returns the
// folders of the projects whose files it completed.
func (s *Service) FinishRestores(ctx context.Context) ([]string, error) {
	var intents map[string]string
	if err := s.view(func(tx Tx) (err error) {
		intents, err = tx.RestoreIntents()
		return err
	}); err != nil {
		return nil, err
	}
	var done []string
	var errs []error
	for pid, tag := range intents {
		finished, err := s.finishRestore(pid, tag)
		if err != nil {
			errs = append(errs, fmt.Errorf("finishing the restore of a snapshot of project %s: %w", pid, err))
			continue
		}
		if finished {
			done = append(done, s.ProjectDir(pid))
		}
		if err := s.endRestoreIntent(ctx, pid); err != nil {
			errs = append(errs, err)
		}
	}
	return done, errors.Join(errs...)
}

// finishRestore completes project pid's restore tagged tag if its staged
// folder is still there; finished says it was.
func (s *Service) finishRestore(pid, tag string) (finished bool, err error) {
	root, err := os.OpenRoot(s.ProjectDir(pid))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	r := restoreFolders(root, tag)
	if _, err := root.Lstat(r.stage); errors.Is(err, fs.ErrNotExist) {
		root.Close()
		return false, nil
	}
	return true, r.finish()
}

// endRestoreIntent removes project pid's restore intent record.
func (s *Service) endRestoreIntent(ctx context.Context, pid string) error {
	return s.updateUnrecorded(ctx, func(tx Tx, _ emitFunc) error { return tx.DeleteRestoreIntent(pid) })
}

// pruneDirs removes the folders of files that are now empty; a folder with
// anything left in it stays.
func (r *stagedRestore) pruneDirs(files []string) {
	for _, p := range slices.Backward(files) {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if r.root.Remove(d) != nil {
				break
			}
		}
	}
}

// sweepSnapshotFiles removes the files folders of the project's snapshots
// that have no record and that no entry of the project's history names
// (so that no undo or redo can bring the record back), and the staged
// copies a crashed restore left. A failure is left for the next sweep.
func (s *Service) sweepSnapshotFiles(projectID string) {
	root, err := os.OpenRoot(filepath.Join(s.ProjectDir(projectID), snapshotsDir))
	if err != nil {
		return
	}
	defer root.Close()
	entries, err := fs.ReadDir(root.FS(), ".")
	if err != nil {
		return
	}
	var candidates []string
	for _, e := range entries {
		name := e.Name()
		switch id, ok := canonicalID(name); {
		case strings.HasPrefix(name, restoreStagePrefix) && e.IsDir():
			_ = root.RemoveAll(name)
		case ok && id == name && e.IsDir():
			candidates = append(candidates, name)
		}
	}
	if len(candidates) == 0 {
		return
	}
	kept := map[string]bool{}
	err = s.view(func(tx Tx) error {
		snaps, err := tx.Snapshots(projectID)
		if err != nil {
			return err
		}
		for _, snap := range snaps {
			kept[snap.ID] = true
		}
		if !slices.ContainsFunc(candidates, func(id string) bool { return !kept[id] }) {
			return nil // every folder has its record: no need to read the history
		}
		for _, st := range []HistoryStack{UndoStack, RedoStack} {
			entries, err := tx.History(projectID, st)
			if err != nil {
				return err
			}
			for _, e := range entries {
				for _, c := range e.Snapshots {
					for _, snap := range []*Snapshot{c.Before, c.After} {
						if snap != nil {
							kept[snap.ID] = true
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		return
	}
	for _, id := range candidates {
		if !kept[id] {
			_ = root.RemoveAll(id)
		}
	}
}
