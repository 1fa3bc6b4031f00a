package app

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"time"
)

// ProjectExport is a project as a project file holds it: its records, as
// the store has them, and the files of its folder. Package app/gns3file
// writes it as a .gns3project archive.
type ProjectExport struct {
	Project  *Project
	Nodes    []*Node
	Links    []*Link
	Drawings []*Drawing
	// Snapshots are the project's snapshots, when asked for, each as a
	// project of its own (under the project's id and name).
	Snapshots []SnapshotExport
	// Files are the regular files of the project's folder that an export
	// carries (walkCarried: no links, no hidden names, nothing Exportable
	// leaves out), with the files each node's type owns (a VPCS node's
	// startup.vpc, which is its startup_script: the store's, not a copy a
	// start left on disk). A snapshot's are the files it kept
	// (project_snapshot_files.go).
	Files []ExportFile
}

// SnapshotExport is one snapshot of an exported project.
type SnapshotExport struct {
	Name string
	// CreatedAt is seconds since the Unix epoch (UTC).
	CreatedAt int64
	Export    *ProjectExport
}

// ExportFile is one file of a project's folder, by its path relative to
// the folder (with /).
type ExportFile struct {
	Path     string
	Modified time.Time
	Open     func() (io.ReadCloser, error)
}

// ExportProject reads what a project file of the project holds, in one
// read transaction, and lists the files of its folder. As GNS3, it is
// refused while a node of the project runs a process (the files could be
// half written). Codes: ENOTFOUND, ECONFLICT (a node runs).
func (s *Service) ExportProject(ctx context.Context, projectID string, withSnapshots bool) (*ProjectExport, error) {
	e := &ProjectExport{}
	var snaps []*Snapshot
	err := s.view(func(tx Tx) (err error) {
		if e.Project, err = findProject(tx, projectID); err != nil {
			return err
		}
		if e.Nodes, e.Links, e.Drawings, err = projectRecords(tx, e.Project.ID); err != nil {
			return err
		}
		if withSnapshots {
			snaps, err = tx.Snapshots(e.Project.ID)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	var running []string
	for _, n := range e.Nodes {
		if n.Active() {
			running = append(running, n.Name)
		}
	}
	if len(running) > 0 {
		return nil, Errorf(ECONFLICT, "Project must be stopped in order to export it: %s is running; stop the project's nodes first",
			strings.Join(running, ", "))
	}
	if e.Files, err = folderFiles(s.ProjectDir(e.Project.ID), e.Nodes, time.Now()); err != nil {
		return nil, err
	}
	for _, snap := range snaps {
		p := *snap.Project
		p.ID, p.Name = e.Project.ID, e.Project.Name
		// The files the snapshot kept (none for one taken before snapshots
		// kept files), then its nodes' own files (VPCS scripts).
		files, err := folderFiles(s.snapshotDir(e.Project.ID, snap.ID), snap.Nodes, time.Unix(snap.CreatedAt, 0))
		if err != nil {
			return nil, err
		}
		e.Snapshots = append(e.Snapshots, SnapshotExport{Name: snap.Name, CreatedAt: snap.CreatedAt, Export: &ProjectExport{
			Project: &p, Nodes: snap.Nodes, Links: snap.Links, Drawings: snap.Drawings, Files: files,
		}})
	}
	return e, nil
}

// folderFiles lists the files of a project's folder (or of a snapshot's
// copy of it, dir) that an export carries (walkCarried), then the files
// each node's type owns, from the store (a copy a start wrote on disk,
// such as a VPCS's startup.vpc, is left out), dated ownTime.
func folderFiles(dir string, nodes []*Node, ownTime time.Time) ([]ExportFile, error) {
	owned := map[string]bool{}
	for _, n := range nodes {
		for _, f := range n.Type.kind().files {
			owned[nodeFilePath(n, f)] = true
		}
	}
	var files []ExportFile
	root, err := os.OpenRoot(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist): // nothing was ever written
	case err != nil:
		return nil, Errorf(EINTERNAL, "Cannot read the folder %s: %v", dir, err)
	default:
		defer root.Close()
		err = walkCarried(root, func(p string, d fs.DirEntry) error {
			if owned[p] {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			files = append(files, ExportFile{Path: p, Modified: info.ModTime(), Open: func() (io.ReadCloser, error) {
				return openInFolder(dir, p)
			}})
			return nil
		})
		if err != nil {
			return nil, Errorf(EINTERNAL, "Cannot list the files of %s: %v", dir, err)
		}
	}
	return append(files, ownedFiles(nodes, ownTime)...), nil
}

// Exportable is GNS3's rule of what a project's archive leaves out:
// snapshots unless asked for, the project-files folders tmp and captures,
// log files, and macOS's .DS_Store. p is a path relative to the project's
// folder, with /. It is the one rule: an export, a snapshot's copy of the
// project's files, its restore, and a .gns3 read from disk all use it.
func Exportable(p string, withSnapshots bool) bool {
	parts := strings.Split(p, "/")
	if !withSnapshots && slices.Contains(parts[:len(parts)-1], snapshotsDir) {
		return false
	}
	if i := slices.Index(parts, projectFilesDir); i >= 0 && i+1 < len(parts) && (parts[i+1] == "tmp" || parts[i+1] == "captures") {
		return false
	}
	base := path.Base(p)
	return !strings.HasSuffix(base, "_log.txt") && !strings.HasSuffix(base, ".log") && base != ".DS_Store"
}

// walkCarried calls fn for each file of root that an export carries: a
// regular file (links are not followed, special files are skipped), with
// no hidden name, that Exportable keeps (so no snapshots folder, at any
// depth). Folders nothing of which is carried are not entered.
func walkCarried(root *os.Root, fn func(p string, d fs.DirEntry) error) error {
	return fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case p == ".":
			return nil
		case hidden(p):
		case d.IsDir():
			if Exportable(p+"/_", false) { // a file inside may be carried
				return nil
			}
		case d.Type().IsRegular() && Exportable(p, false):
			return fn(p, d)
		default:
			return nil
		}
		if d.IsDir() {
			return fs.SkipDir
		}
		return nil
	})
}

// ownedFiles are the files the nodes' types own that the nodes have (a
// VPCS node's startup.vpc, when it has a startup script): the property,
// as the store keeps it.
func ownedFiles(nodes []*Node, modified time.Time) []ExportFile {
	var files []ExportFile
	for _, n := range nodes {
		n.eachOwnFile(func(f nodeFile, content string) {
			files = append(files, ExportFile{Path: nodeFilePath(n, f), Modified: modified, Open: func() (io.ReadCloser, error) {
				return io.NopCloser(strings.NewReader(content)), nil
			}})
		})
	}
	return files
}

// openInFolder opens a file of a folder through os.Root (no link leads
// out); closing the file closes the root.
func openInFolder(dir, p string) (io.ReadCloser, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	f, err := root.Open(p)
	if err != nil {
		root.Close()
		return nil, err
	}
	return rootedFile{f, root}, nil
}

type rootedFile struct {
	*os.File
	root *os.Root
}

func (f rootedFile) Close() error {
	err := f.File.Close()
	f.root.Close()
	return err
}
