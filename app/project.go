package app

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// ProjectStatus tells whether a project is open for work.
type ProjectStatus string

// The statuses of a project.
const (
	ProjectOpened ProjectStatus = "opened"
	ProjectClosed ProjectStatus = "closed"
)

// Project is a lab: a named set of nodes. Its JSON tags are the store's
// record format.
type Project struct {
	ID                  string        `json:"project_id"`
	Name                string        `json:"name"`
	Filename            string        `json:"filename"`
	Status              ProjectStatus `json:"status"`
	AutoClose           bool          `json:"auto_close"`
	AutoOpen            bool          `json:"auto_open"`
	AutoStart           bool          `json:"auto_start"`
	SceneWidth          int           `json:"scene_width"`
	SceneHeight         int           `json:"scene_height"`
	Zoom                int           `json:"zoom"`
	GridSize            int           `json:"grid_size"`
	DrawingGridSize     int           `json:"drawing_grid_size"`
	ShowGrid            bool          `json:"show_grid"`
	ShowInterfaceLabels bool          `json:"show_interface_labels"`
	ShowLayers          bool          `json:"show_layers"`
	SnapToGrid          bool          `json:"snap_to_grid"`
	Supplier            *Supplier     `json:"supplier"`
	Variables           []Variable    `json:"variables"`
	// Closure says why nodedesk closed the project by itself (auto_close,
	// project_listeners.go), until it is opened or closed again; nil when
	// the last close was asked for. Runtime: history keeps it as it is.
	Closure *ProjectClosure `json:"closure,omitempty"`
	// Seq orders projects by creation; the store assigns it.
	Seq uint64 `json:"seq"`
}

// ProjectClosure is a close nodedesk decided by itself: when, and the
// message that tells the user why and what became of the nodes.
type ProjectClosure struct {
	At      time.Time `json:"at"`
	Message string    `json:"message"`
}

// Supplier names who provides a project (GNS3's appliance metadata).
type Supplier struct {
	Logo string `json:"logo"`
	URL  string `json:"url"`
}

// Variable is a name/value pair a project passes to its nodes.
type Variable struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
}

// ProjectUpdate is a change to a project's settings; every field is
// optional. ProjectCreate uses it for the initial settings.
type ProjectUpdate struct {
	Name                Field[string]     `json:"name"`
	AutoClose           Field[bool]       `json:"auto_close"`
	AutoOpen            Field[bool]       `json:"auto_open"`
	AutoStart           Field[bool]       `json:"auto_start"`
	SceneWidth          Field[int]        `json:"scene_width"`
	SceneHeight         Field[int]        `json:"scene_height"`
	Zoom                Field[int]        `json:"zoom"`
	GridSize            Field[int]        `json:"grid_size"`
	DrawingGridSize     Field[int]        `json:"drawing_grid_size"`
	ShowGrid            Field[bool]       `json:"show_grid"`
	ShowInterfaceLabels Field[bool]       `json:"show_interface_labels"`
	ShowLayers          Field[bool]       `json:"show_layers"`
	SnapToGrid          Field[bool]       `json:"snap_to_grid"`
	Supplier            Field[Supplier]   `json:"supplier"`
	Variables           Field[[]Variable] `json:"variables"`
}

// ProjectCreate is a request for a new project. ID is optional; a project
// that already has it is returned as it is.
type ProjectCreate struct {
	ID string `json:"project_id"`
	ProjectUpdate
}

// newProject is a project with GNS3's default settings.
func newProject(id string) *Project {
	return &Project{ID: id, Status: ProjectOpened, AutoClose: true, SceneWidth: 2000, SceneHeight: 1000,
		Zoom: 100, GridSize: 75, DrawingGridSize: 25}
}

// apply checks u and returns the changed project; p is not modified.
func (u ProjectUpdate) apply(p *Project) (*Project, error) {
	c := *p
	if u.Name.Set {
		if err := checkName("project", u.Name.Value); err != nil {
			return nil, err
		}
		c.Name = u.Name.Value
	}
	setIf(&c.AutoClose, u.AutoClose)
	setIf(&c.AutoOpen, u.AutoOpen)
	setIf(&c.AutoStart, u.AutoStart)
	setIf(&c.ShowGrid, u.ShowGrid)
	setIf(&c.ShowInterfaceLabels, u.ShowInterfaceLabels)
	setIf(&c.ShowLayers, u.ShowLayers)
	setIf(&c.SnapToGrid, u.SnapToGrid)
	for _, f := range []struct {
		name string
		dst  *int
		in   Field[int]
		min  int
	}{
		{"scene_width", &c.SceneWidth, u.SceneWidth, 0},
		{"scene_height", &c.SceneHeight, u.SceneHeight, 0},
		{"zoom", &c.Zoom, u.Zoom, 1},
		{"grid_size", &c.GridSize, u.GridSize, 0},
		{"drawing_grid_size", &c.DrawingGridSize, u.DrawingGridSize, 0},
	} {
		if f.in.has() {
			if f.in.Value < f.min {
				return nil, Errorf(EINVALID, "%s cannot be less than %d", f.name, f.min)
			}
			*f.dst = f.in.Value
		}
	}
	if u.Supplier.Set {
		c.Supplier = ptrOrNil(u.Supplier)
	}
	if u.Variables.Set {
		c.Variables = u.Variables.Value
		for _, v := range c.Variables {
			if v.Name == "" {
				return nil, Errorf(EINVALID, "A project variable needs a name")
			}
		}
	}
	return &c, nil
}

// CreateProject creates a project with GNS3's default settings changed by
// c. A project_id that already exists returns that project unchanged.
// Codes: EINVALID, ECONFLICT (name used by another project).
func (s *Service) CreateProject(ctx context.Context, c ProjectCreate) (*Project, error) {
	id := s.c.NewID()
	if c.ID != "" {
		var ok bool
		if id, ok = canonicalID(c.ID); !ok {
			return nil, Errorf(EINVALID, "Project ID %s is not a valid UUID", c.ID)
		}
	}
	if !c.Name.has() {
		return nil, Errorf(EINVALID, "A new project needs a name")
	}
	var p *Project
	err := s.update(ctx, func(tx Tx, emit emitFunc) error {
		existing, err := tx.Project(id)
		if err != nil || existing != nil {
			p = existing
			return cmp.Or(err, errUnchanged)
		}
		p, err = c.ProjectUpdate.apply(newProject(id))
		if err != nil {
			return err
		}
		p.Filename = projectFilename(p.Name)
		if err := checkProjectName(tx, p); err != nil {
			return err
		}
		emit(EventProjectCreated, p.ID, p)
		return tx.PutProject(p)
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// checkProjectName refuses a name another project has.
func checkProjectName(tx Tx, p *Project) error {
	all, err := tx.Projects()
	if err != nil {
		return err
	}
	for _, o := range all {
		if o.Name == p.Name && o.ID != p.ID {
			return Errorf(ECONFLICT, "Project \"%s\" already exists; choose another name", p.Name)
		}
	}
	return nil
}

// FindProjects returns every project in creation order.
func (s *Service) FindProjects(ctx context.Context) ([]*Project, error) {
	var ps []*Project
	err := s.view(func(tx Tx) (err error) {
		ps, err = tx.Projects()
		return err
	})
	return ps, err
}

// FindProjectByID returns a project. An id that is not a UUID is simply not
// found, as in GNS3 (clients probe /v2/projects/None). Codes: ENOTFOUND.
func (s *Service) FindProjectByID(ctx context.Context, id string) (*Project, error) {
	var p *Project
	err := s.view(func(tx Tx) (err error) {
		p, err = findProject(tx, id)
		return err
	})
	return p, err
}

func findProject(tx Tx, id string) (*Project, error) {
	cid, ok := canonicalID(id)
	if !ok {
		return nil, projectNotFound(id)
	}
	p, err := tx.Project(cid)
	if err == nil && p == nil {
		err = projectNotFound(id)
	}
	return p, err
}

// UpdateProject changes a project's settings. Codes: EINVALID, ENOTFOUND,
// ECONFLICT (name used by another project).
func (s *Service) UpdateProject(ctx context.Context, id string, u ProjectUpdate) (*Project, error) {
	return s.changeProject(ctx, id, EventProjectUpdated, u.apply)
}

// OpenProjectFile opens the project whose own project file path names:
// <projects folder>/<project id>/<its filename>, as a project's path and
// filename show it. GNS3 clients reopen a project that way (the GNS3
// desktop GUI after a snapshot restore, or from its recent projects);
// nodedesk writes no such file, since the store holds the project, so
// the path stands for the project itself. ok is false when path names no
// project's file, for the caller to read it as a .gns3 instead.
func (s *Service) OpenProjectFile(ctx context.Context, path string) (p *Project, ok bool, err error) {
	path = filepath.Clean(path)
	dir := filepath.Dir(path)
	if filepath.Dir(dir) != filepath.Join(s.c.DataDir, "projects") {
		return nil, false, nil
	}
	id, valid := canonicalID(filepath.Base(dir))
	if !valid || id != filepath.Base(dir) {
		return nil, false, nil
	}
	p, err = s.FindProjectByID(ctx, id)
	if ErrorCode(err) == ENOTFOUND || (err == nil && p.Filename != filepath.Base(path)) {
		return nil, false, nil
	} else if err != nil {
		return nil, false, err
	}
	p, err = s.OpenProject(ctx, id)
	return p, err == nil, err
}

// OpenProject marks a project opened, makes a closed project's remote
// nodes and tunnels again on their computes (ReopenComputeProjects), and
// sweeps the files of its snapshots and deleted nodes that nothing can
// bring back (sweepSnapshotFiles, sweepNodeTrash). Codes: ENOTFOUND.
func (s *Service) OpenProject(ctx context.Context, id string) (*Project, error) {
	before, err := s.FindProjectByID(ctx, id)
	if err != nil {
		return nil, err
	}
	p, err := s.changeProject(ctx, id, EventProjectOpened, func(p *Project) (*Project, error) {
		c := *p
		c.Status, c.Closure = ProjectOpened, nil
		return &c, nil
	})
	if err == nil && before.Status == ProjectClosed {
		s.ReopenComputeProjects(ctx, p.ID)
	}
	if err == nil {
		s.provisionProject(ctx, p.ID)
	}
	if err == nil {
		s.sweepProjectSnapshots(p.ID)
	}
	return p, err
}

// sweepProjectSnapshots runs sweepSnapshotFiles under the lock of the
// snapshots' files, then sweepNodeTrash.
func (s *Service) sweepProjectSnapshots(projectID string) {
	s.snapFiles.Lock()
	defer s.snapFiles.Unlock()
	s.sweepSnapshotFiles(projectID)
	s.sweepNodeTrash(projectID) // and the deleted nodes' folders (node_trash.go)
}

// CloseProject stops the project's running nodes, closes it on the remote
// computes its nodes live on (closeComputeProjects) and marks it closed.
// Its nodes stay readable and editable. The files of its snapshots and
// deleted nodes that nothing can bring back are swept (sweepSnapshotFiles,
// sweepNodeTrash). Codes: ENOTFOUND.
func (s *Service) CloseProject(ctx context.Context, id string) error {
	return s.closeProject(ctx, id, nil)
}

// closeProject is CloseProject, noting on the project why nodedesk closed
// it by itself (note), or nil when it was asked to.
func (s *Service) closeProject(ctx context.Context, id string, note *ProjectClosure) error {
	if err := s.ProjectAction(ctx, id, Stop); err != nil {
		return err
	}
	s.closeComputeProjects(ctx, id)
	p, err := s.changeProject(ctx, id, EventProjectClosed, func(p *Project) (*Project, error) {
		c := *p
		c.Status, c.Closure = ProjectClosed, note
		return &c, nil
	})
	if err == nil {
		s.releaseProject(ctx, p.ID) // closed first: no provision begins after
		s.sweepProjectSnapshots(p.ID)
	}
	return err
}

// changeProject applies change to a project in one transaction and
// publishes action if the project really changed.
func (s *Service) changeProject(ctx context.Context, id string, action EventAction, change func(*Project) (*Project, error)) (*Project, error) {
	var after *Project
	err := s.update(ctx, func(tx Tx, emit emitFunc) error {
		before, err := findProject(tx, id)
		if err != nil {
			return err
		}
		if after, err = change(before); err != nil {
			return err
		}
		if after.Name != before.Name {
			if err := checkProjectName(tx, after); err != nil {
				return err
			}
		}
		if unchanged(before, after) {
			return errUnchanged
		}
		emit(action, after.ID, after)
		return tx.PutProject(after)
	})
	if err != nil {
		return nil, err
	}
	return after, nil
}

// DeleteProject stops the project's running nodes and deletes it with all
// of its nodes and links, freeing their ports, and its folder with its
// snapshots' files, as GNS3 does: a deleted project's history goes with
// it, so nothing can bring it back. The folder is first renamed aside
// (projectDeleteAside), put back if the records' delete fails, and
// removed once it has committed; SweepDebris finishes what a crash
// interrupted. Codes: ENOTFOUND.
func (s *Service) DeleteProject(ctx context.Context, id string) error {
	if err := s.ProjectAction(ctx, id, Stop); err != nil {
		return err
	}
	s.deleteComputeProjects(ctx, id)
	p, err := s.FindProjectByID(ctx, id)
	if err != nil {
		return err
	}

	dir, aside := s.ProjectDir(p.ID), s.projectDeleteAside(p.ID)
	rerr := os.Rename(dir, aside)
	moved := rerr == nil
	if rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		s.c.Logger.Error("a project's folder could not be set aside for its delete; it stays", "project", p.ID, "folder", dir, "err", rerr)
	}
	var nodes []*Node // as the delete finds them: one made meanwhile too
	err = s.update(ctx, func(tx Tx, emit emitFunc) error {
		p, err := findProject(tx, id)
		if err != nil {
			return err
		}
		if nodes, err = tx.Nodes(p.ID); err != nil {
			return err
		}
		emit(EventProjectDeleted, p.ID, p)
		return tx.DeleteProject(p.ID)
	})
	switch {
	case err != nil && moved:
		if rerr := os.Rename(aside, dir); rerr != nil {
			s.c.Logger.Error("a project's folder could not be put back after its delete failed", "project", p.ID, "folder", aside, "err", rerr)
		}
	case err == nil && moved:
		if rerr := os.RemoveAll(aside); rerr != nil {
			s.c.Logger.Error("a deleted project's folder could not be removed", "project", p.ID, "folder", aside, "err", rerr)
		}
	}
	if err == nil {
		s.releaseNodes(ctx, nodes) // once gone: no provision begins after
	}
	return err
}

// projectDeletePrefix starts the name a project's folder takes, in the
// projects folder, while its project is being deleted.
const projectDeletePrefix = ".delete-"

// projectDeleteAside is where project id's folder waits for its records'
// delete to commit.
func (s *Service) projectDeleteAside(id string) string {
	return filepath.Join(s.ProjectsDir(), projectDeletePrefix+id)
}

// projectFilename is the name of a project's .gns3 file, as GNS3 names it.
func projectFilename(name string) string { return name + ".gns3" }
