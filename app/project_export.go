package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
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
	// Images are the image files the nodes name, when asked for, each by
	// its path in the archive, images/<kind>/<file name>, as GNS3 puts
	// them (ExportContent.Images).
	Images []ExportFile
}

// ExportContent says what an export carries besides the project's
// records and files.
type ExportContent struct {
	// Snapshots adds the project's snapshots.
	Snapshots bool
	// Images adds the image files the nodes name (GNS3's include_images).
	Images bool
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
// read transaction, and lists the files of its folder (and, when asked,
// its images). Its nodes name their images by file name only
// (portableImages), so that the file works on another machine. As GNS3, it
// is refused while a node of the project runs a process (the files could
// be half written). Codes: ENOTFOUND, ECONFLICT (a node runs).
func (s *Service) ExportProject(ctx context.Context, projectID string, what ExportContent) (*ProjectExport, error) {
	withSnapshots := what.Snapshots
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
	var renamed exportRenames
	if what.Images {
		all := slices.Clone(e.Nodes)
		for _, snap := range snaps { // a snapshot's nodes need their images too
			all = append(all, snap.Nodes...)
		}
		e.Images, renamed = s.exportImages(ctx, e.Project.ID, all)
	}
	e.Nodes = portableImages(e.Nodes, renamed)
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
			Project: &p, Nodes: portableImages(snap.Nodes, renamed), Links: snap.Links, Drawings: snap.Drawings, Files: files,
		}})
	}
	return e, nil
}

// imageFileName is the file name an image is named by in a project file
// that travels: the last part of the name this machine gives it, be it a
// path relative to an images folder, an absolute path, or a Windows path
// (C:\GNS3\images\IOS\c7200.image), as GNS3's export names it.
func imageFileName(name string) string {
	return path.Base(strings.ReplaceAll(name, `\`, "/"))
}

// nodeImageNames calls fn with each image property of n that names an
// image (its key and the name).
func nodeImageNames(n *Node, fn func(key, name string)) {
	for _, k := range n.Type.ImageProperties() {
		var name string
		if raw, ok := n.Properties.Extra[k]; ok && json.Unmarshal(raw, &name) == nil && strings.TrimSpace(name) != "" {
			fn(k, name)
		}
	}
}

// exportRenames are the file names an export gives images whose file
// name another image of the export took (exportImages): by node, by
// image property.
type exportRenames map[*Node]map[string]string

// portableImages are copies of nodes whose image properties name their
// images by file name only (imageFileName), or by the name renamed gives
// the image; a node that names none is kept as it is.
func portableImages(nodes []*Node, renamed exportRenames) []*Node {
	out := make([]*Node, len(nodes))
	for i, n := range nodes {
		out[i] = n
		nodeImageNames(n, func(k, name string) {
			file := imageFileName(name)
			if other, ok := renamed[n][k]; ok {
				file = other
			}
			if file == name {
				return
			}
			if out[i] == n {
				c := *n
				c.Properties.Extra = maps.Clone(n.Properties.Extra)
				out[i] = &c
			}
			b, _ := json.Marshal(file)
			out[i].Properties.Extra[k] = b
		})
	}
	return out
}

// exportImages lists the image files the nodes name, found as a start
// finds them (findImageFile), each once, at images/<kind>/<file name>. A
// second image of one file name (vyos/disk.qcow2 and debian/disk.qcow2)
// goes under the name an import gives a different image of a taken name
// (differentImageName), and its nodes are renamed to it (the renames). An
// image that is not on this machine, or that a user named by a path
// outside the images folders (decision 0064), is left out, as GNS3
// leaves a missing one out, and the project's notification stream says
// so.
func (s *Service) exportImages(ctx context.Context, projectID string, nodes []*Node) ([]ExportFile, exportRenames) {
	var files []ExportFile
	renamed := exportRenames{}
	seen := map[string]string{} // archive path → the file there
	var missing []string
	for _, n := range nodes {
		kind := n.Type.kind().imageKind
		nodeImageNames(n, func(k, name string) {
			f, err := s.findImageFile(kind, name, true)
			var fi fs.FileInfo
			if err == nil && !f.outside {
				fi, err = os.Stat(f.path)
			}
			if err != nil || f.outside {
				missing = append(missing, n.Name+"'s "+name)
				return
			}
			file := imageFileName(name)
			arc := "images/" + string(kind) + "/" + file
			if had, ok := seen[arc]; ok && !samePath(had, f.path) {
				sum, err := imageMD5(ctx, f.path, fi)
				if err != nil {
					missing = append(missing, n.Name+"'s "+name)
					return
				}
				file = differentImageName(file, sum)
				arc = "images/" + string(kind) + "/" + file
				if renamed[n] == nil {
					renamed[n] = map[string]string{}
				}
				renamed[n][k] = file
			}
			if _, ok := seen[arc]; ok {
				return
			}
			seen[arc] = f.path
			p := f.path
			files = append(files, ExportFile{Path: arc, Modified: fi.ModTime(), Open: func() (io.ReadCloser, error) {
				return os.Open(p)
			}})
		})
	}
	if len(missing) > 0 {
		s.tell(EventLogWarning, projectID, fmt.Sprintf("The export carries no copy of these images, which are not on this machine: %s", strings.Join(missing, ", ")))
	}
	return files, renamed
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
// log files, and macOS's .DS_Store; and nodedesk's: the scratch files an
// emulator makes again at its next start (a router's ghost RAM, which is
// hundreds of MiB: scratchFile). p is a path relative to the project's
// folder, with /. It is the one rule: an export, an import, a snapshot's
// copy of the project's files, its restore, and a .gns3 read from disk all
// use it.
func Exportable(p string, withSnapshots bool) bool {
	parts := strings.Split(p, "/")
	if !withSnapshots && slices.Contains(parts[:len(parts)-1], snapshotsDir) {
		return false
	}
	if i := slices.Index(parts, projectFilesDir); i >= 0 && i+1 < len(parts) && (parts[i+1] == "tmp" || parts[i+1] == "captures") {
		return false
	}
	base := path.Base(p)
	return !strings.HasSuffix(base, "_log.txt") && !strings.HasSuffix(base, ".log") && base != ".DS_Store" && !scratchFile(parts)
}

// scratchFile reports whether a file of a project's folder (its path's
// parts) is one of a node type's scratch files: under
// project-files/<the type's folder>/, named as the type's row says.
func scratchFile(parts []string) bool {
	if len(parts) < 3 || parts[0] != projectFilesDir {
		return false
	}
	base := parts[len(parts)-1]
	for _, e := range kinds {
		if e.k.folder != parts[1] {
			continue
		}
		for _, pat := range e.k.scratch {
			if ok, _ := path.Match(pat, base); ok {
				return true
			}
		}
	}
	return false
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
