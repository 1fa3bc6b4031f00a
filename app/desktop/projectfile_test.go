package desktop_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"nodedesk/app"
	"nodedesk/app/desktop"
)

// fakeDialog answers each dialog with path (or err) and records what it showed.
type fakeDialog struct {
	path  string
	err   error
	shown []desktop.FileDialog
}

func (f *fakeDialog) show(_ context.Context, d desktop.FileDialog) (string, error) {
	f.shown = append(f.shown, d)
	return f.path, f.err
}

const importedID = "0b4e2f0a-8c5a-4a57-9e4c-2d1c7a5e0f11"

func fileDoor(r *fakeAPI, open, save *fakeDialog) *desktop.App {
	door := desktop.New(r, app.NewBroker(), nil, quiet)
	door.NewID = func() string { return importedID }
	if open != nil {
		door.Dialogs.Open = open.show
	}
	if save != nil {
		door.Dialogs.Save = save.show
	}
	return door
}

// pageErr is a binding's error as the page receives it.
func pageErr(t *testing.T, err error) map[string]any {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	var m map[string]any
	if e := json.Unmarshal([]byte(desktop.FormatError(err).(string)), &m); e != nil {
		t.Fatal(e)
	}
	return m
}

func writeTemp(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOpenProjectFile: the native Open dialog shows GNS3's project files;
// a .gns3 is loaded where it is, a .gns3project is read and its bytes
// imported under a new id and the file's name; the answer is the
// project's id, and a cancelled dialog asks the API nothing.
func TestOpenProjectFile(t *testing.T) {
	dotGNS3 := writeTemp(t, "ospf lab.gns3", `{"revision":9}`)
	archive := writeTemp(t, "ospf lab.gns3project", "PK\x03\x04\xff\x00binary")
	r := &fakeAPI{
		load: func(string) (*app.Project, error) { return &app.Project{ID: "p-loaded", Name: "ospf lab"}, nil },
		imp: func(id, name string) (*app.Project, error) {
			if id != importedID || name != "ospf lab" {
				return nil, notFound("Project " + id)
			}
			return &app.Project{ID: importedID, Name: name}, nil
		},
	}
	open := &fakeDialog{path: dotGNS3}
	door := fileDoor(r, open, nil)

	id, err := door.OpenProjectFile()
	if err != nil || id != "p-loaded" {
		t.Fatalf("open .gns3: %q %v", id, err)
	}
	if len(open.shown) != 1 || !strings.Contains(open.shown[0].Filters[0].Pattern, "*.gns3;*.gns3project") {
		t.Errorf("the dialog showed %+v", open.shown)
	}
	if q := r.asked[0]; q.op != "LoadProject" || q.path != dotGNS3 {
		t.Errorf("asked %+v", q)
	}

	open.path = archive
	if id, err = door.OpenProjectFile(); err != nil || id != importedID {
		t.Fatalf("open .gns3project: %q %v", id, err)
	}
	last := r.asked[len(r.asked)-1]
	if !bytes.Equal(last.body, []byte("PK\x03\x04\xff\x00binary")) {
		t.Errorf("import body %q: not the file's bytes", last.body)
	}
	for _, q := range r.asked {
		if q.source != (app.Source{Origin: app.OriginWindow}) {
			t.Errorf("%s came from %+v, not the window (the project's history says who changed what)", q.op, q.source)
		}
	}

	open.path = ""
	asked := len(r.asked)
	if id, err = door.OpenProjectFile(); err != nil || id != "" || len(r.asked) != asked {
		t.Errorf("cancelled: %q %v, %d more requests", id, err, len(r.asked)-asked)
	}
	open.err = errors.New("no display")
	if e := pageErr(t, func() error { _, err := door.OpenProjectFile(); return err }()); e["code"] != "conflict" {
		t.Errorf("dialog failure: %v", e)
	}
	if e := pageErr(t, func() error { _, err := fileDoor(r, nil, nil).OpenProjectFile(); return err }()); e["code"] != "conflict" {
		t.Errorf("no dialogs: %v", e)
	}
}

// TestImportProjectFileErrors: the API's refusal reaches the page as the
// API said it (code, message, field); a file that is no project, or is
// missing, is refused before the API is asked.
func TestImportProjectFileErrors(t *testing.T) {
	hostile := app.Errorf(app.EINVALID, "The archive has a member outside the project (../../etc/passwd); nodedesk imports only members under the project")
	newer := app.Errorf(app.ECONFLICT, "This project was saved by a newer GNS3 (revision 10); nodedesk reads revisions up to 9: open it in that GNS3 and export it for 2.2")
	for _, c := range []struct {
		file   string
		answer error
		code   string
	}{
		{"evil.gns3project", hostile, "invalid"},
		{"new.gns3", newer, "conflict"},
	} {
		r := &fakeAPI{
			load: func(string) (*app.Project, error) { return nil, newer },
			imp: func(id, name string) (*app.Project, error) {
				if id != importedID || name != "evil" {
					return nil, notFound("Project " + id)
				}
				return nil, hostile
			},
		}
		_, err := fileDoor(r, nil, nil).ImportProjectFile(writeTemp(t, c.file, "x"))
		e := pageErr(t, err)
		if e["code"] != c.code || e["message"] != app.ErrorMessage(c.answer) {
			t.Errorf("%s: the page got %v", c.file, e)
		}
	}

	r := &fakeAPI{}
	door := fileDoor(r, nil, nil)
	if e := pageErr(t, func() error { _, err := door.ImportProjectFile(writeTemp(t, "notes.txt", "x")); return err }()); e["code"] != "invalid" || e["field"] != "path" {
		t.Errorf("a text file: %v", e)
	}
	if e := pageErr(t, func() error {
		_, err := door.ImportProjectFile(filepath.Join(t.TempDir(), "gone.gns3project"))
		return err
	}()); e["code"] != "not_found" {
		t.Errorf("a missing file: %v", e)
	}
	if len(r.asked) != 0 {
		t.Errorf("the API was asked %v", r.ops())
	}
}

// TestExportProject: the export is asked for with GNS3's options, then the
// native Save dialog proposes "<name>.gns3project" and the archive is
// written there whole; a refusal of the API comes before any dialog, and a
// cancelled dialog writes nothing.
func TestExportProject(t *testing.T) {
	const pid = "11111111-2222-4333-8444-555555555555"
	archive := "PK\x03\x04 the archive \x00\xff"
	r := &fakeAPI{
		project: func(id string) (*app.Project, error) {
			if id != pid {
				return nil, notFound("Project " + id)
			}
			return &app.Project{ID: pid, Name: "core/edge"}, nil
		},
		export: func(id string, snapshots, resetMACs bool) ([]byte, error) {
			switch {
			case id == pid && snapshots && !resetMACs:
				return []byte(archive), nil
			case id == pid && !snapshots && resetMACs:
				return nil, app.Errorf(app.ECONFLICT, "Stop the project's running nodes before exporting it")
			}
			return nil, notFound("Project " + id)
		},
	}
	dest := filepath.Join(t.TempDir(), "out.gns3project")
	save := &fakeDialog{path: dest}
	door := fileDoor(r, nil, save)

	got, err := door.ExportProject(pid, desktop.ExportOptions{IncludeSnapshots: true})
	if err != nil || got != dest {
		t.Fatalf("export: %q %v", got, err)
	}
	if b, _ := os.ReadFile(dest); string(b) != archive {
		t.Errorf("the file holds %q", b)
	}
	if len(save.shown) != 1 || save.shown[0].DefaultFilename != "core-edge.gns3project" {
		t.Errorf("the Save dialog showed %+v", save.shown)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(dest), ".nodedesk-export-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}

	e := pageErr(t, func() error {
		_, err := door.ExportProject(pid, desktop.ExportOptions{ResetMACAddresses: true})
		return err
	}())
	if e["code"] != "conflict" || e["message"] != "Stop the project's running nodes before exporting it" || len(save.shown) != 1 {
		t.Errorf("a running project: %v, %d dialogs", e, len(save.shown))
	}

	save.path = ""
	_ = os.Remove(dest)
	if got, err := door.ExportProject(pid, desktop.ExportOptions{IncludeSnapshots: true}); err != nil || got != "" {
		t.Errorf("cancelled: %q %v", got, err)
	}
	if _, err := os.Stat(dest); err == nil {
		t.Error("a cancelled export wrote the file")
	}

	save.path = filepath.Join(t.TempDir(), "missing", "x.gns3project")
	if e := pageErr(t, func() error {
		_, err := door.ExportProject(pid, desktop.ExportOptions{IncludeSnapshots: true})
		return err
	}()); e["code"] != "conflict" {
		t.Errorf("an unwritable place: %v", e)
	}
	if e := pageErr(t, func() error { _, err := door.ExportProject("nope", desktop.ExportOptions{}); return err }()); e["code"] != "not_found" {
		t.Errorf("a missing project: %v", e)
	}
}

// TestProjectFilesThroughTheAPI: through the real router, a project
// exported by the door (a zip written where the Save dialog said) comes
// back by ImportProjectFile as a new project with its nodes; the .gns3 in
// it is loaded by its path; a hostile archive is the API's 400.
func TestProjectFilesThroughTheAPI(t *testing.T) {
	door, _ := newDoor(t)
	pid, _ := linkedPair(t, door, "lab")
	dir := t.TempDir()
	exported := filepath.Join(dir, "copy of lab.gns3project")
	door.Dialogs.Save = (&fakeDialog{path: exported}).show
	if got, err := door.ExportProject(pid, desktop.ExportOptions{}); err != nil || got != exported {
		t.Fatalf("export: %q %v", got, err)
	}
	archive, err := zip.OpenReader(exported)
	if err != nil {
		t.Fatalf("the export is no zip: %v", err)
	}
	defer archive.Close()

	nodesOf := func(id string) int {
		r, err := door.Call("GET", "/v2/projects/"+id+"/nodes", "")
		var nodes []any
		if err != nil || json.Unmarshal([]byte(r.Body), &nodes) != nil {
			t.Fatalf("nodes of %s: %v %+v", id, err, r)
		}
		return len(nodes)
	}
	imported, err := door.ImportProjectFile(exported)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	if _, p := call(t, door, "GET", "/v2/projects/"+imported, nil); imported == pid || p["name"] != "copy of lab" || nodesOf(imported) != 2 {
		t.Errorf("imported %s: %v with %d nodes", imported, p, nodesOf(imported))
	}

	// The project file inside, as another project's .gns3 on this machine.
	var topology map[string]any
	for _, f := range archive.File {
		if strings.HasSuffix(f.Name, ".gns3") {
			r, _ := f.Open()
			b, _ := io.ReadAll(r)
			r.Close()
			if err := json.Unmarshal(b, &topology); err != nil {
				t.Fatal(err)
			}
		}
	}
	if topology == nil {
		t.Fatal("no .gns3 in the export")
	}
	topology["project_id"], topology["name"] = "6d3e3c1a-5b1f-4c7e-9a55-0f6f0c8e2b10", "loaded lab"
	b, _ := json.Marshal(topology)
	dotGNS3 := filepath.Join(dir, "loaded", "loaded lab.gns3")
	_ = os.MkdirAll(filepath.Dir(dotGNS3), 0o755)
	if err := os.WriteFile(dotGNS3, b, 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := door.ImportProjectFile(dotGNS3)
	if err != nil || loaded != topology["project_id"] || nodesOf(loaded) != 2 {
		t.Errorf("load: %q %v", loaded, err)
	}

	var hostile bytes.Buffer
	w := zip.NewWriter(&hostile)
	for _, name := range []string{"project.gns3", "../../escaped.txt"} {
		f, _ := w.Create(name)
		_, _ = f.Write(b)
	}
	_ = w.Close()
	evil := filepath.Join(dir, "evil.gns3project")
	_ = os.WriteFile(evil, hostile.Bytes(), 0o644)
	if e := pageErr(t, func() error { _, err := door.ImportProjectFile(evil); return err }()); e["code"] != "invalid" || e["message"] == "" {
		t.Errorf("a hostile archive: %v", e)
	}
}
