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
)

// VPCSScriptFile is the name of a VPCS node's startup script in its
// folder. Through the node files endpoints it is the node's
// startup_script, read from and written to the store: one value, two
// views.
const VPCSScriptFile = "startup.vpc"

// MaxNodeFileBytes bounds a node file written through the API.
const MaxNodeFileBytes = 1 << 20

// nodeFilePath checks the path of a node file, given relative to the
// node's folder (with / or \ between names, as GNS3 accepts), and returns
// it cleaned, with /. A path that would leave the folder (an absolute path,
// a .. part) or names a hidden file (GNS3 refuses a path that starts with
// a dot; nodedesk refuses any part that does) is EFORBIDDEN, as GNS3
// answers 403.
func nodeFilePath(name string) (string, error) {
	p := strings.ReplaceAll(name, `\`, "/")
	switch {
	case p == "":
		return "", Invalid("path", "Give the path of a file in the node's folder, such as %s", VPCSScriptFile)
	case strings.ContainsRune(p, 0) || !utf8.ValidString(p):
		return "", Invalid("path", "A file path cannot contain a NUL byte or invalid UTF-8")
	case path.IsAbs(p) || filepath.VolumeName(p) != "":
		return "", Errorf(EFORBIDDEN, "File path %s is absolute; give a path relative to the node's folder", name)
	}
	p = path.Clean(p)
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			return "", Errorf(EFORBIDDEN, "File path %s leaves the node's folder; give a path inside it", name)
		}
		if strings.HasPrefix(part, ".") {
			return "", Errorf(EFORBIDDEN, "File path %s names a hidden file, which is the node's own; give another name", name)
		}
	}
	return p, nil
}

// nodeFolder resolves a node file request: the node, the cleaned path, and
// the node's folder ("" for a VPCS node's startup script, which lives in
// the store).
func (s *Service) nodeFolder(ctx context.Context, ref NodeRef, name string) (*Node, string, string, error) {
	p, err := nodeFilePath(name)
	if err != nil {
		return nil, "", "", err
	}
	n, err := s.FindNode(ctx, ref)
	if err != nil {
		return nil, "", "", err
	}
	if n.Type == VPCS && p == VPCSScriptFile {
		return n, p, "", nil
	}
	dir := s.NodeDirectory(n)
	if dir == nil {
		return n, p, "", Errorf(ECONFLICT, "%s is a %s node, which keeps no files; only nodes with a folder (%s) do",
			n.Name, n.Type, strings.Join(typesWithFolder(), ", "))
	}
	return n, p, *dir, nil
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

// ReadNodeFile returns the content of a file of a node's folder. A VPCS
// node's startup.vpc is its startup_script (not found when it has none).
// Codes: EINVALID, EFORBIDDEN (a path leaving the folder), ENOTFOUND
// (project, node, or file).
func (s *Service) ReadNodeFile(ctx context.Context, ref NodeRef, name string) ([]byte, error) {
	n, p, dir, err := s.nodeFolder(ctx, ref, name)
	if ErrorCode(err) == ECONFLICT { // a node without a folder has no file
		return nil, fileNotFound(n, name)
	}
	if err != nil {
		return nil, err
	}
	if dir == "" {
		if n.Properties.StartupScript == nil {
			return nil, fileNotFound(n, name)
		}
		return []byte(*n.Properties.StartupScript), nil
	}
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fileNotFound(n, name) // nothing was ever written
	}
	if err != nil {
		return nil, fileError(n, name, err)
	}
	defer root.Close()
	f, err := root.Open(p)
	if err != nil {
		return nil, fileError(n, name, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, fileError(n, name, err)
	} else if !fi.Mode().IsRegular() {
		return nil, Invalid("path", "%s of %s is not a file", name, n.Name)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fileError(n, name, err)
	}
	return b, nil
}

// WriteNodeFile writes a file of a node's folder, creating the folders of
// its path. Writing a VPCS node's startup.vpc sets its startup_script, in
// the store, as a node update does (and announces it as one). Codes:
// EINVALID (too large; a script that is not UTF-8), EFORBIDDEN (a path
// leaving the folder), ENOTFOUND (project or node), ECONFLICT (a node
// type that keeps no files).
func (s *Service) WriteNodeFile(ctx context.Context, ref NodeRef, name string, data []byte) error {
	if len(data) > MaxNodeFileBytes {
		return Errorf(EINVALID, "A node file can have at most %d bytes", MaxNodeFileBytes)
	}
	n, p, dir, err := s.nodeFolder(ctx, ref, name)
	if err != nil {
		return err
	}
	if dir == "" {
		if !utf8.Valid(data) {
			return Errorf(EINVALID, "%s of %s must be UTF-8 text", VPCSScriptFile, n.Name)
		}
		ref.Type = VPCS
		_, err := s.UpdateNode(ctx, ref, NodeUpdate{Properties: &VPCSUpdate{StartupScript: Some(string(data))}})
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fileError(n, name, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fileError(n, name, err)
	}
	defer root.Close()
	if d := path.Dir(p); d != "." {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return fileError(n, name, err)
		}
	}
	if err := root.WriteFile(p, data, 0o644); err != nil {
		return fileError(n, name, err)
	}
	return nil
}

func fileNotFound(n *Node, name string) error {
	return Errorf(ENOTFOUND, "File %s of %s doesn't exist", name, n.Name)
}

// fileError turns a failure of the node's folder into an error of the
// right code: a missing file, a path that a link leads out of the folder
// (os.Root refuses it), or a fault of the disk.
func fileError(n *Node, name string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fileNotFound(n, name)
	case strings.Contains(err.Error(), "path escapes from parent"):
		return Errorf(EFORBIDDEN, "File path %s of %s leads out of the node's folder through a link; give a path inside it", name, n.Name)
	case errors.Is(err, fs.ErrPermission):
		return Errorf(EINTERNAL, "File %s of %s cannot be accessed: %v; check the permissions of the node's folder", name, n.Name, err)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "directory") {
		return Invalid("path", "%s of %s is a folder or goes through a file: %v", name, n.Name, pe.Err)
	}
	return Errorf(EINTERNAL, "File %s of %s could not be read or written: %v", name, n.Name, err)
}
