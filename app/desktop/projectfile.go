package desktop

// Project files in the window: opening a .gns3 or .gns3project through the
// native Open dialog (or a file dropped on the window), and exporting a
// project through the native Save dialog. The page cannot hand bytes to
// the string binding Call cleanly, so these methods move the bytes in Go;
// what a project file means — load, import, export, and every refusal — is
// still the API's, reached in-process through the same Caller as Call.

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"net/url"
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

// window is the source of the door's own requests: the window's, no gesture.
var window = app.Source{Origin: app.OriginWindow}

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
// API does it: a .gns3 file is loaded where it is (POST /v2/projects/load
// {"path"}); a portable project is read and imported as a new project
// named after the file (POST /v2/projects/{new id}/import?name=…). It
// answers the project's id; a refusal (a hostile archive, a newer
// revision) is the API's error.
func (a *App) ImportProjectFile(path string) (string, error) {
	zip, err := portable(path)
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", app.Invalid("path", "%s is not a path nodedesk can read: %v", path, err)
	}
	var status int
	var resp []byte
	if zip {
		body, err := os.ReadFile(abs)
		if err != nil {
			return "", readError(abs, err)
		}
		name := strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
		status, resp = a.serve(window, http.MethodPost, "/v2/projects/"+a.newID()+"/import?"+url.Values{"name": {name}}.Encode(), body)
	} else {
		body, _ := json.Marshal(map[string]string{"path": abs})
		status, resp = a.serve(window, http.MethodPost, "/v2/projects/load", body)
	}
	r := CallResult{Status: status, Body: string(resp)}
	if status/100 != 2 {
		return "", answerError(r)
	}
	var p struct {
		ID string `json:"project_id"`
	}
	if err := json.Unmarshal(resp, &p); err != nil || p.ID == "" {
		a.logger.Error("desktop: reading an imported project", "err", err, "body", r.Body)
		return "", app.Errorf(app.EINTERNAL, "%s", app.InternalMessage)
	}
	return p.ID, nil
}

// ExportOptions are GNS3's choices for an exported project.
type ExportOptions struct {
	IncludeSnapshots  bool `json:"include_snapshots"`
	ResetMACAddresses bool `json:"reset_mac_addresses"`
}

// query is the options as the export route reads them (GNS3's yes/no).
func (o ExportOptions) query() string {
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	return url.Values{"include_snapshots": {yes(o.IncludeSnapshots)}, "reset_mac_addresses": {yes(o.ResetMACAddresses)}}.Encode()
}

// ExportProject exports a project as a portable project (GET
// /v2/projects/{id}/export) and writes it to the file the user picks in
// the native Save dialog, proposed as "<name>.gns3project". The API is
// asked first, so that a refusal (a running project: 409) comes before the
// dialog. It answers the file's path, or "" when the user cancelled.
func (a *App) ExportProject(pid string, o ExportOptions) (string, error) {
	var p struct {
		Name string `json:"name"`
	}
	projectPath := "/v2/projects/" + url.PathEscape(pid)
	if err := a.get(projectPath, "project", &p); err != nil {
		return "", err
	}
	status, archive := a.serve(window, http.MethodGet, projectPath+"/export?"+o.query(), nil)
	if status != http.StatusOK {
		return "", answerError(CallResult{Status: status, Body: string(archive)})
	}
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
func writeFile(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".nodedesk-export-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
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
