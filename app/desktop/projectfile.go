package desktop

// Project files in the window: opening a .gns3 or .gns3project through the
// native Open dialog (or a file dropped on the window), and exporting a
// project through the native Save dialog. The page cannot hand bytes to
// the string binding Call cleanly, so these methods move the bytes in Go;
// what a project file means — load, import, export, and every refusal — is
// still the API's, asked in-process through the same API as Call.

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"

	"nodedesk/app"
)

// FileFilter is one kind of file a dialog shows: a name and its patterns
// ("*.gns3;*.gns3project").
type FileFilter struct {
	DisplayName string
	Pattern     string
}

// FileDialog is what a native file dialog asks.
type FileDialog struct {
	Title           string
	DefaultFilename string
	Filters         []FileFilter
}

// Dialogs are the window's native file dialogs (Wails' OpenFileDialog and
// SaveFileDialog, given by main's window). Each answers the path the user
// chose, or "" when they cancelled. Tests give fakes.
type Dialogs struct {
	Open func(ctx context.Context, d FileDialog) (string, error)
	Save func(ctx context.Context, d FileDialog) (string, error)
}

// The two kinds of project file: GNS3's project file (JSON, next to its
// nodes' folders) and its portable project (a zip archive; GNS3 also names
// it .gns3p).
const (
	extProject  = ".gns3"
	extPortable = ".gns3project"
)

var projectFilters = []FileFilter{
	{DisplayName: "GNS3 projects (*.gns3, *.gns3project)", Pattern: "*.gns3;*.gns3project;*.gns3p"},
}

// portable says whether path names a portable project (.gns3project,
// .gns3p), and fails when it is no project file at all.
func portable(path string) (bool, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case extProject:
		return false, nil
	case extPortable, ".gns3p":
		return true, nil
	}
	return false, app.Invalid("path", "%s is not a GNS3 project: nodedesk opens .gns3 project files and .gns3project portable projects", filepath.Base(path))
}

// OpenProjectFile asks for a project file in the native Open dialog and
// brings it into nodedesk (ImportProjectFile). It answers the project's
// id, or "" when the user cancelled.
func (a *App) OpenProjectFile() (string, error) {
	path, err := a.dialog(a.Dialogs.Open, FileDialog{Title: "Open a GNS3 project", Filters: projectFilters})
	if err != nil || path == "" {
		return "", err
	}
	return a.ImportProjectFile(path)
}

// ImportProjectFile brings the project file at path into nodedesk, as the
// API does it: a .gns3 file is loaded where it is (API.LoadProject, what
// POST /v2/projects/load {"path"} runs); a portable project is read and
// imported as a new project named after the file (API.ImportProject, POST
// /v2/projects/{new id}/import?name=…). It answers the project's id; a
// refusal (a hostile archive, a newer revision) is the API's error.
func (a *App) ImportProjectFile(path string) (string, error) {
	zip, err := portable(path)
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", app.Invalid("path", "%s is not a path nodedesk can read: %v", path, err)
	}
	var p *app.Project
	if zip {
		body, err := os.Open(abs) // streamed: an archive with images may be GiBs
		if err != nil {
			return "", readError(abs, err)
		}
		defer body.Close()
		name := strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
		p, err = a.api.ImportProject(a.asking(), a.newID(), name, body)
		if err != nil {
			return "", err
		}
	} else if p, err = a.api.LoadProject(a.asking(), abs); err != nil {
		return "", err
	}
	return p.ID, nil
}

// ExportOptions are GNS3's choices for an exported project.
type ExportOptions struct {
	IncludeSnapshots  bool `json:"include_snapshots"`
	ResetMACAddresses bool `json:"reset_mac_addresses"`
	IncludeImages     bool `json:"include_images"`
}

// ExportProject exports a project as a portable project (API.ExportProject,
// what GET /v2/projects/{id}/export answers) and writes it to the file the
// user picks in the native Save dialog, proposed as "<name>.gns3project".
// The API is asked first, so that a refusal (a running project: 409) comes
// before the dialog. It answers the file's path, or "" when the user
// cancelled.
func (a *App) ExportProject(pid string, o ExportOptions) (string, error) {
	p, err := a.api.FindProject(a.asking(), pid)
	if err != nil {
		return "", err
	}
	archive, err := a.api.ExportProject(a.asking(), pid, o.IncludeSnapshots, o.ResetMACAddresses, o.IncludeImages)
	if err != nil {
		return "", err
	}
	defer archive.Close()
	path, err := a.dialog(a.Dialogs.Save, FileDialog{
		Title:           "Export " + p.Name,
		DefaultFilename: fileName(p.Name) + extPortable,
		Filters:         []FileFilter{{DisplayName: "GNS3 portable projects (*.gns3project)", Pattern: "*.gns3project"}},
	})
	if err != nil || path == "" {
		return "", err
	}
	if err := writeFile(path, archive); err != nil {
		return "", app.Errorf(app.ECONFLICT, "%s could not be written (%v); choose a folder you may write to", path, err)
	}
	return path, nil
}

// dialog shows a native file dialog; its failure is a window's error.
func (a *App) dialog(show func(context.Context, FileDialog) (string, error), d FileDialog) (string, error) {
	if show == nil {
		return "", app.Errorf(app.ECONFLICT, "This window has no file dialogs; use nodedesk in a browser to open or export project files")
	}
	path, err := show(a.context(), d)
	if err != nil {
		a.logger.Warn("desktop: file dialog", "err", err)
		return "", app.Errorf(app.ECONFLICT, "The file dialog could not be shown (%v); try again", err)
	}
	return path, nil
}

func (a *App) newID() string {
	if a.NewID != nil {
		return a.NewID()
	}
	return uuid.NewString()
}

// readError is the window's error for a project file it cannot read.
func readError(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return app.Errorf(app.ENOTFOUND, "%s does not exist; pick the project file again", path)
	}
	return app.Errorf(app.ECONFLICT, "%s cannot be read (%v); check that you may read it", path, err)
}

// fileName is a project name made fit to be a file name: no path
// separators, and not empty.
func fileName(name string) string {
	name = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '-'
		}
		return r
	}, strings.TrimSpace(name))
	if name == "" || name == "." || name == ".." {
		return "project"
	}
	return name
}

// writeFile writes data to path whole or not at all: into a temporary file
// beside it, then renamed over it.
func writeFile(path string, data io.Reader) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".nodedesk-export-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = io.Copy(f, data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}
