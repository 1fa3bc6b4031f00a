package app

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
)

// MaxNodeFileBytes bounds a node or project file written through the API.
const MaxNodeFileBytes = 1 << 20

// The folders a file path may be relative to, as messages name them.
const (
	nodeFolderName    = "node's folder"
	projectFolderName = "project's folder"
)

// relPath is the one path rule of the files nodedesk reads and writes for
// a client or from an imported project: a path given relative to a folder
// (with / or \ between names, as GNS3 accepts) is returned cleaned, with
// /. A path that would leave the folder (an absolute path, a .. part) is
// EFORBIDDEN, as GNS3 answers 403; an empty path, a NUL byte or invalid
// UTF-8 is EINVALID. folder names the folder in messages.
func relPath(name, folder string) (string, error) {
	p := strings.ReplaceAll(name, `\`, "/")
	switch {
	case p == "":
		return "", Invalid("path", "Give the path of a file in the %s, such as notes/readme.txt", folder)
	case strings.ContainsRune(p, 0) || !utf8.ValidString(p):
		return "", Invalid("path", "A file path cannot contain a NUL byte or invalid UTF-8")
	case path.IsAbs(p) || filepath.VolumeName(p) != "":
		return "", Errorf(EFORBIDDEN, "File path %s is absolute; give a path relative to the %s", name, folder)
	}
	p = path.Clean(p)
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			return "", Errorf(EFORBIDDEN, "File path %s leaves the %s; give a path inside it", name, folder)
		}
	}
	if p == "." {
		return "", Errorf(EFORBIDDEN, "File path %s names the %s itself; give the path of a file inside it", name, folder)
	}
	return p, nil
}

// hidden reports whether a cleaned path names a hidden file or folder (a
// part that starts with a dot): a node's own state, such as VPCS's
// .vpcs_history, which clients neither read nor write.
func hidden(p string) bool {
	return strings.HasPrefix(p, ".") || strings.Contains(p, "/.")
}

// clientPath checks the path of a file a client reads or writes: relPath,
// and no hidden part (GNS3 refuses a path that starts with a dot; nodedesk
// refuses any part that does), which is EFORBIDDEN.
func clientPath(name, folder string) (string, error) {
	p, err := relPath(name, folder)
	if err == nil && hidden(p) {
		return "", Errorf(EFORBIDDEN, "File path %s names a hidden file, which is the node's own; give another name", name)
	}
	return p, err
}

// nodeTarget is what a node file request names: the node, the cleaned
// path, and either a file the node's type owns (whose content is a
// property, in the store) or the node's folder.
type nodeTarget struct {
	n    *Node
	path string
	own  *nodeFile // nil: a file of dir
	dir  string
}

// nodeFolder resolves a node file request. A file the node's type owns
// is resolved wherever the node lives, since the store holds it.
func (s *Service) nodeFolder(ctx context.Context, ref NodeRef, name string) (nodeTarget, error) {
	p, err := clientPath(name, nodeFolderName)
	if err != nil {
		return nodeTarget{}, err
	}
	n, err := s.FindNode(ctx, ref)
	if err != nil {
		return nodeTarget{}, err
	}
	t := nodeTarget{n: n, path: p}
	if t.own = n.Type.file(p); t.own != nil {
		return t, nil
	}
	dir := s.NodeDirectory(n)
	if n.Remote() && n.Type.kind().folder != "" {
		return t, Errorf(ECONFLICT, "%s lives on compute %s, which keeps its files; nodedesk does not reach them there yet", n.Name, n.ComputeID)
	}
	if dir == nil {
		return t, Errorf(ECONFLICT, "%s is a %s node, which keeps no files; only nodes with a folder (%s) do",
			n.Name, n.Type, strings.Join(typesWithFolder(), ", "))
	}
	t.dir = *dir
	return t, nil
}

// typesWithFolder lists the node types that keep files.
func typesWithFolder() []string {
	var ts []string
	for _, t := range NodeTypes {
		if t.kind().folder != "" {
			ts = append(ts, string(t))
		}
	}
	return ts
}

// ReadNodeFile returns the content of a file of a node's folder. A file
// the node's type owns (a VPCS node's startup.vpc) is its property (not
// found when it has none); one its runner writes at the first start (a
// router's startup config) shows what it will hold until then. Codes:
// EINVALID, EFORBIDDEN (a path leaving the folder), ENOTFOUND (project,
// node, or file).
func (s *Service) ReadNodeFile(ctx context.Context, ref NodeRef, name string) ([]byte, error) {
	t, err := s.nodeFolder(ctx, ref, name)
	if ErrorCode(err) == ECONFLICT { // a node without a folder has no file
		return nil, folderFile{owner: t.n.Name, name: name}.notFound()
	}
	if err != nil {
		return nil, err
	}
	if t.own != nil {
		v := t.own.get(&t.n.Properties)
		if v == nil {
			return nil, folderFile{owner: t.n.Name, name: name}.notFound()
		}
		return []byte(*v), nil
	}
	b, err := folderFile{owner: t.n.Name, folder: nodeFolderName, dir: t.dir, path: t.path, name: name}.read()
	if first := t.n.Type.kind().firstFile; ErrorCode(err) == ENOTFOUND && first != nil {
		if content, ok := first(t.n, t.path); ok {
			return []byte(content), nil
		}
	}
	return b, err
}

// WriteNodeFile writes a file of a node's folder, creating the folders of
// its path. Writing a file the node's type owns (a VPCS node's
// startup.vpc) sets its property, in the store, as a node update does
// (and announces it as one). Codes: EINVALID (too large; an owned file
// that is not UTF-8), EFORBIDDEN (a path leaving the folder), ENOTFOUND
// (project or node), ECONFLICT (a node type that keeps no files).
func (s *Service) WriteNodeFile(ctx context.Context, ref NodeRef, name string, data []byte) error {
	if err := checkFileSize(data); err != nil {
		return err
	}
	t, err := s.nodeFolder(ctx, ref, name)
	if err != nil {
		return err
	}
	if t.own != nil {
		if err := t.own.checkText(t.n.Name, data); err != nil {
			return err
		}
		u, err := filesUpdate(t.n.Type, map[string]string{t.own.name: string(data)})
		if err != nil {
			return err
		}
		ref.Type = t.n.Type
		_, err = s.UpdateNode(ctx, ref, NodeUpdate{Properties: u})
		return err
	}
	return folderFile{owner: t.n.Name, folder: nodeFolderName, dir: t.dir, path: t.path, name: name}.write(data)
}

func checkFileSize(data []byte) error {
	if len(data) > MaxNodeFileBytes {
		return Errorf(EINVALID, "A file written through the API can have at most %d bytes", MaxNodeFileBytes)
	}
	return nil
}

// projectFolder resolves a project file request: the project and the
// cleaned path. A path that names a file a node's type owns
// (project-files/vpcs/<node_id>/startup.vpc) also returns that node and
// the file's name in its folder: the file is the node's property, as
// through the node's own files.
func (s *Service) projectFolder(ctx context.Context, projectID, name string) (*Project, string, *Node, string, error) {
	p, err := clientPath(name, projectFolderName)
	if err != nil {
		return nil, "", nil, "", err
	}
	proj, err := s.FindProjectByID(ctx, projectID)
	if err != nil {
		return nil, "", nil, "", err
	}
	if folder, id, file, ok := ownedFilePath(p); ok {
		if n, err := s.FindNode(ctx, NodeRef{ProjectID: proj.ID, NodeID: id}); err == nil {
			if f := n.Type.ownedFile(folder, file); f != nil {
				return proj, p, n, f.name, nil
			}
		}
	}
	return proj, p, nil, "", nil
}

// projectFilesDir is the sub-folder of a project's folder that holds its
// node folders, as in GNS3.
const projectFilesDir = "project-files"

// ReadProjectFile returns the content of a file of a project's folder. A
// file a node's type owns (a VPCS node's startup.vpc) is the node's
// property (ReadNodeFile).
// Codes: EINVALID, EFORBIDDEN (a path leaving the folder), ENOTFOUND
// (project or file).
func (s *Service) ReadProjectFile(ctx context.Context, projectID, name string) ([]byte, error) {
	proj, p, n, own, err := s.projectFolder(ctx, projectID, name)
	if err != nil {
		return nil, err
	}
	if n != nil {
		return s.ReadNodeFile(ctx, NodeRef{ProjectID: n.ProjectID, NodeID: n.ID}, own)
	}
	return folderFile{owner: "project " + proj.Name, folder: projectFolderName, dir: s.ProjectDir(proj.ID), path: p, name: name}.read()
}

// WriteProjectFile writes a file of a project's folder, creating the
// folders of its path. A file a node's type owns (a VPCS node's
// startup.vpc) is the node's property (WriteNodeFile). Codes: EINVALID (too large), EFORBIDDEN (a path leaving
// the folder), ENOTFOUND (project).
func (s *Service) WriteProjectFile(ctx context.Context, projectID, name string, data []byte) error {
	if err := checkFileSize(data); err != nil {
		return err
	}
	proj, p, n, own, err := s.projectFolder(ctx, projectID, name)
	if err != nil {
		return err
	}
	if n != nil {
		return s.WriteNodeFile(ctx, NodeRef{ProjectID: n.ProjectID, NodeID: n.ID}, own, data)
	}
	return folderFile{owner: "project " + proj.Name, folder: projectFolderName, dir: s.ProjectDir(proj.ID), path: p, name: name}.write(data)
}

// folderFile is one file of a node's or a project's folder, read and
// written through os.Root, so that no link leads out of the folder.
type folderFile struct {
	owner  string // who the folder is of, for messages: a node's name, "project lab"
	folder string // nodeFolderName or projectFolderName
	dir    string // the folder
	path   string // the file, cleaned, relative to dir
	name   string // the path as the client gave it
}

func (f folderFile) read() ([]byte, error) {
	root, err := os.OpenRoot(f.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, f.notFound() // nothing was ever written
	}
	if err != nil {
		return nil, f.error(err)
	}
	defer root.Close()
	fh, err := root.Open(f.path)
	if err != nil {
		return nil, f.error(err)
	}
	defer fh.Close()
	if fi, err := fh.Stat(); err != nil {
		return nil, f.error(err)
	} else if !fi.Mode().IsRegular() {
		return nil, Invalid("path", "%s of %s is not a file", f.name, f.owner)
	}
	b, err := io.ReadAll(fh)
	if err != nil {
		return nil, f.error(err)
	}
	return b, nil
}

// write replaces the file with data as one step: a hidden temporary file
// beside it, synced, renamed over it, then the folder synced. A reader sees
// the old file or the new one, never a part, and an acknowledged write
// survives a crash; one cut short leaves at worst the hidden temporary
// file, which exports and snapshots never carry.
func (f folderFile) write(data []byte) error {
	if err := os.MkdirAll(f.dir, 0o755); err != nil {
		return f.error(err)
	}
	root, err := os.OpenRoot(f.dir)
	if err != nil {
		return f.error(err)
	}
	defer root.Close()
	sub := path.Dir(f.path)
	if sub != "." {
		if err := root.MkdirAll(sub, 0o755); err != nil {
			return f.error(err)
		}
	}
	// A link in the file's place is not replaced: it is followed, and one
	// that leads out of the folder is refused (os.Root says so).
	if fi, err := root.Lstat(f.path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if err := root.WriteFile(f.path, data, 0o644); err != nil {
			return f.error(err)
		}
		return nil
	}
	tmp := path.Join(sub, "."+path.Base(f.path)+"."+uuid.NewString()+".tmp")
	fh, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return f.error(err)
	}
	_, err = fh.Write(data)
	if err == nil {
		err = fh.Sync()
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, f.path)
	}
	if err != nil {
		_ = root.Remove(tmp)
		return f.error(err)
	}
	syncDir(filepath.Join(f.dir, filepath.FromSlash(sub)))
	return nil
}

func (f folderFile) notFound() error {
	return Errorf(ENOTFOUND, "File %s of %s doesn't exist", f.name, f.owner)
}

// error turns a failure of the folder into an error of the right code: a
// missing file, a path that a link leads out of the folder (os.Root
// refuses it), or a fault of the disk.
func (f folderFile) error(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return f.notFound()
	case strings.Contains(err.Error(), "path escapes from parent"):
		return Errorf(EFORBIDDEN, "File path %s of %s leads out of the %s through a link; give a path inside it", f.name, f.owner, f.folder)
	case errors.Is(err, fs.ErrPermission):
		return Errorf(EINTERNAL, "File %s of %s cannot be accessed: %v; check the permissions of the %s", f.name, f.owner, err, f.folder)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "directory") {
		return Invalid("path", "%s of %s is a folder or goes through a file: %v", f.name, f.owner, pe.Err)
	}
	return Errorf(EINTERNAL, "File %s of %s could not be read or written: %v", f.name, f.owner, err)
}
