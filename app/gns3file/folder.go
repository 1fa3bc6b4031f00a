package gns3file

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"nodedesk/app"
)

// NodeFilesDir is the folder of a GNS3 project that holds its nodes'
// folders (project-files/<type>/<node_id>).
const NodeFilesDir = "project-files"

// ReadFile reads a .gns3 on this machine, as GNS3's "load" opens one: the
// topology (Decode), and the files of its project-files folder and its
// checks file (app.ChecksFileName, beside the .gns3), which
// app.ImportProject copies into the project's own folder (GNS3 leaves them
// where they are; nodedesk keeps every project in its data folder). Links
// are not followed, and what GNS3 leaves out of an export (captures, tmp,
// logs) is left out. Codes: EINVALID (not an absolute path to a file, not a
// topology, too many files), ENOTFOUND (no such file), ECONFLICT (Decode's
// revisions).
func ReadFile(name string, o Options) (*app.ProjectImport, error) {
	if !filepath.IsAbs(name) {
		return nil, app.Invalid("path", "Give the absolute path of a .gns3 file; %s is relative", name)
	}
	raw, err := readTopology(name)
	if err != nil {
		return nil, err
	}
	imp, err := Decode(raw, o)
	if err != nil {
		return nil, err
	}
	if imp.Files, err = folderFiles(filepath.Dir(name), o.Limits.orDefault()); err != nil {
		return nil, err
	}
	return imp, nil
}

// readTopology reads the .gns3 at name, which must be a regular file: a
// FIFO, device or socket is refused before it is opened (opening a FIFO
// waits for a writer), and the open itself does not wait (O_NONBLOCK) in
// case one takes the file's place in between; the open file is checked
// again.
func readTopology(name string) ([]byte, error) {
	fi, err := os.Stat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, app.Errorf(app.ENOTFOUND, "File %s doesn't exist", name)
	case err != nil:
		return nil, app.Invalid("path", "Cannot read %s: %v", name, err)
	}
	if err := regularFile(name, fi); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, app.Errorf(app.ENOTFOUND, "File %s doesn't exist", name)
	case err != nil:
		return nil, app.Invalid("path", "Cannot read %s: %v", name, err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, app.Invalid("path", "Cannot read %s: %v", name, err)
	}
	if err := regularFile(name, fi); err != nil {
		return nil, err
	}
	return readAll(func() (io.ReadCloser, error) { return io.NopCloser(f), nil }, name, MaxTopologyBytes)
}

// regularFile refuses what is not a regular file, saying what it is.
func regularFile(name string, fi fs.FileInfo) error {
	m := fi.Mode()
	var what string
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		what = "a folder"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0:
		what = "a device"
	default:
		what = "not a regular file"
	}
	return app.Invalid("path", "%s is %s; give the path of a .gns3 file", name, what)
}

// folderFiles lists the files and folders of dir's project-files folder,
// and its checks file. Other files beside the .gns3 are left: a .gns3 may
// sit in a folder of unrelated files.
func folderFiles(dir string, lim Limits) ([]app.ImportFile, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, app.Invalid("path", "Cannot read the folder of %s: %v", dir, err)
	}
	defer root.Close()
	b := &budget{Limits: lim}
	var files []app.ImportFile
	err = fs.WalkDir(root.FS(), NodeFilesDir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist) && p == NodeFilesDir:
			return fs.SkipAll // a project without node files
		case err != nil:
			return err
		case !app.Exportable(p, false):
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		case !d.IsDir() && !d.Type().IsRegular():
			return nil // a link or a special file: not followed, not copied
		}
		if len(files) == lim.Files {
			return app.Errorf(app.EINVALID, "The project's folder %s has more than %d files; nodedesk loads at most that many", dir, lim.Files)
		}
		files = append(files, app.ImportFile{Path: p, Dir: d.IsDir(), Open: func() (io.ReadCloser, error) {
			return openMetered(dir, p, b)
		}})
		return nil
	})
	if err == nil {
		if fi, serr := root.Lstat(app.ChecksFileName); serr == nil && fi.Mode().IsRegular() {
			files = append(files, app.ImportFile{Path: app.ChecksFileName, Open: func() (io.ReadCloser, error) {
				return openMetered(dir, app.ChecksFileName, b)
			}})
		}
	}
	var e *app.Error
	switch {
	case errors.As(err, &e):
		return nil, err
	case err != nil:
		return nil, app.Invalid("path", "Cannot read the folder of the project: %v", err)
	}
	return files, nil
}

// openMetered opens a file of dir through os.Root, counted by the budget.
func openMetered(dir, p string, b *budget) (io.ReadCloser, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close() // an open file outlives its root
	f, err := root.Open(p)
	if err != nil {
		return nil, err
	}
	return struct {
		io.Reader
		io.Closer
	}{&meter{r: f, b: b, name: p, limit: b.FileBytes}, f}, nil
}
