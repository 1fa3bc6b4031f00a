package app

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/google/uuid"
)

// ProjectImport is a project read from a GNS3 project file (a
// .gns3project archive, a lone .gns3, or a .gns3 on this machine), as
// requests to make its records under the same rules as the API's, and the
// files of its folder. Package app/gns3file reads the file format into it.
type ProjectImport struct {
	// ID is the project's id: the one the client chose for an import, the
	// file's for a load.
	ID string
	// Name is the wanted name. On an import, a name another project has
	// becomes name-1, name-2, ... (GNS3's free-name rule); on a load it is
	// a conflict.
	Name string
	// Load is GNS3's "open this .gns3" rather than an import: the file's
	// ids are kept, its auto_* settings too, the project is opened, and a
	// project that already has the id is returned as it is. An import gives
	// every node, link and drawing a new id (links follow their nodes), and
	// the project is closed with auto_start and auto_open off, as GNS3 does.
	Load bool
	// Settings are the project's settings (name aside).
	Settings ProjectUpdate
	// Nodes are made with CreateNode's rules; each ID is the file's.
	Nodes []NodeCreate
	// Links are made with CreateLink's rules; ends name the file's node ids.
	Links []LinkImport
	// Drawings are made with CreateDrawing's rules; each ID is the file's.
	Drawings []DrawingUpdate
	// Files are the files of the project's folder. Their paths follow the
	// one path rule; a path of a node's folder
	// (project-files/<type>/<node_id>/...) follows the node to its new id,
	// and a file the node's type owns (a VPCS node's startup.vpc) becomes
	// its property.
	Files []ImportFile
	// Images are the image files the project file carries, each by
	// <kind folder>/<file name> (GNS3's images/IOS/c7200.image is
	// IOS/c7200.image): they go into nodedesk's images folders
	// (project_import_images.go).
	Images []ImportFile
}

// LinkImport is a link of a project file: its id there and what it joins.
type LinkImport struct {
	ID string
	LinkUpdate
}

// ImportFile is one file (or folder) of a project file's folder. Open
// gives its content; the reader may fail (an archive's limits, a damaged
// entry) and the import fails with that error.
type ImportFile struct {
	Path string
	Dir  bool
	Open func() (io.ReadCloser, error)
}

// ImportProject makes a project from a project file in one transaction:
// first the images it carries go into the images folders and its local
// nodes name their images as this machine finds them (importNodeImages);
// then
// its settings, nodes, links and drawings under the same rules as the
// API's creations (names, console ports, properties, labels, ports), all
// published as events once committed; process-run nodes are stopped. A
// console port the file gives that another node owns, or that another
// program of this machine holds, is replaced by a free one (fitConsole);
// a console type the node's type does not allow in nodedesk becomes the
// type's default (a VPCS always has a telnet console).
//
// The files are written to a temporary folder inside the projects folder
// and renamed to the project's folder before the transaction; a failed
// import leaves neither a project nor files behind. Codes: EINVALID (the
// file breaks a rule: a record, named by its name or id in the file, or a
// path, which may not leave the project's folder), ECONFLICT (the project
// id is taken, on an import; the name is taken, on a load; no console
// port is free).
func (s *Service) ImportProject(ctx context.Context, imp ProjectImport) (*Project, error) {
	id, ok := canonicalID(imp.ID)
	if !ok {
		return nil, Errorf(EINVALID, "Project ID %q is not a valid UUID", imp.ID)
	}
	if err := checkName("project", imp.Name); err != nil {
		return nil, err
	}
	ids, err := s.importIDs(imp)
	if err != nil {
		return nil, err
	}
	s.imports.Lock() // one import at a time: the folder checks and the rename
	defer s.imports.Unlock()
	if existing, err := s.FindProjectByID(ctx, id); err == nil {
		if imp.Load { // GNS3 answers a known project as it is, opened
			return s.OpenProject(ctx, existing.ID)
		}
		return nil, Errorf(ECONFLICT, "Project ID %s already exists (project %s); import under another id", id, existing.Name)
	} else if ErrorCode(err) != ENOTFOUND {
		return nil, err
	}
	images, err := s.importNodeImages(ctx, &imp)
	if err != nil {
		return nil, err
	}
	done := false
	defer func() {
		if !done {
			images.undo()
		}
	}()
	staged, owned, err := s.stageFiles(imp.Files, ids, imp.Nodes)
	if err != nil {
		return nil, err
	}
	dir := s.ProjectDir(id)
	// A folder no project has is a deleted project's leftovers: set aside
	// while the import runs, gone once it succeeded, back if it failed.
	leftovers := staged + ".old"
	if err := os.Rename(dir, leftovers); err != nil && !errors.Is(err, fs.ErrNotExist) {
		_ = os.RemoveAll(staged)
		return nil, Errorf(EINTERNAL, "Cannot clear the folder of project %s: %v", id, err)
	}
	defer os.RemoveAll(leftovers)
	if err := os.Rename(staged, dir); err != nil {
		_ = os.RemoveAll(staged)
		_ = os.Rename(leftovers, dir)
		return nil, Errorf(EINTERNAL, "Cannot move the imported files into place: %v", err)
	}
	var env newNodeEnv // read once, outside the transaction, if a node needs it
	for _, n := range imp.Nodes {
		if n.Type.kind().props.usesHost {
			env = newNodeEnvFor(n.Type, s.c.HostInterfaces)
			break
		}
	}
	var p *Project
	err = s.update(ctx, func(tx Tx, emit emitFunc) (err error) {
		p, err = s.importIn(tx, emit, id, imp, ids, owned, env)
		return err
	})
	if err != nil {
		_ = os.RemoveAll(dir)
		_ = os.Rename(leftovers, dir)
		return nil, err
	}
	done = true
	for _, m := range images.notes {
		s.tell(EventLogWarning, p.ID, m)
	}
	return p, nil
}

// importIDs maps each id of the file's nodes, links and drawings to the
// id the project gets: the same on a load, a new one on an import. It is
// made before the transaction, which may run more than once. Two records
// of a kind with one id are refused.
func (s *Service) importIDs(imp ProjectImport) (map[string]string, error) {
	ids := map[string]string{}
	add := func(kind, given string) error {
		old, ok := canonicalID(given)
		if !ok {
			return Errorf(EINVALID, "The file's %s id %q is not a valid UUID", kind, given)
		}
		if _, dup := ids[kind+old]; dup {
			return Errorf(EINVALID, "The file has two %ss with id %s", kind, old)
		}
		ids[kind+old] = old
		if !imp.Load {
			ids[kind+old] = s.c.NewID()
		}
		return nil
	}
	for _, n := range imp.Nodes {
		if err := add("node", n.ID); err != nil {
			return nil, err
		}
	}
	for _, l := range imp.Links {
		if err := add("link", l.ID); err != nil {
			return nil, err
		}
	}
	for _, d := range imp.Drawings {
		if err := add("drawing", d.ID.Value); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// newID is the id a record of the file gets (importIDs made them all).
func newID(ids map[string]string, kind, given string) string {
	old, _ := canonicalID(given)
	return ids[kind+old]
}

// importIn writes an import's records inside tx. owned holds the files
// the nodes' types own, by new node id (stageFiles).
func (s *Service) importIn(tx Tx, emit emitFunc, id string, imp ProjectImport, ids map[string]string, owned map[string]map[string]string, env newNodeEnv) (*Project, error) {
	if existing, err := tx.Project(id); err != nil || existing != nil {
		if err == nil {
			err = Errorf(ECONFLICT, "Project ID %s already exists; import under another id", id)
		}
		return nil, err
	}
	name := imp.Name
	settings := imp.Settings
	settings.Name = Some(name)
	if !imp.Load {
		var err error
		if name, err = freeProjectName(tx, name); err != nil {
			return nil, err
		}
		settings.Name = Some(name)
		settings.AutoStart, settings.AutoOpen, settings.AutoClose = Some(false), Some(false), Some(true)
	}
	p, err := settings.apply(newProject(id))
	if err != nil {
		return nil, err
	}
	p.Filename = projectFilename(p.Name)
	if !imp.Load {
		p.Status = ProjectClosed
	} else if err := checkProjectName(tx, p); err != nil {
		return nil, err
	}
	emit(EventProjectCreated, p.ID, p)
	if err := tx.PutProject(p); err != nil {
		return nil, err
	}
	for _, c := range imp.Nodes {
		if err := s.importNodeIn(tx, emit, p.ID, c, ids, owned[newID(ids, "node", c.ID)], env); err != nil {
			return nil, err
		}
	}
	if err := checkLinkPorts(imp); err != nil {
		return nil, err
	}
	for _, l := range imp.Links {
		if err := s.importLinkIn(tx, emit, p.ID, l, ids); err != nil {
			return nil, err
		}
	}
	for _, u := range imp.Drawings {
		given := u.ID.Value
		d, err := newDrawingIn(tx, p.ID, newID(ids, "drawing", given), u)
		if err != nil {
			return nil, ImportError("Drawing", given, err)
		}
		emit(EventDrawingCreated, d.ProjectID, d)
	}
	return p, nil
}

// importNodeIn writes one node of an import inside tx, with the files its
// type owns (files, by name).
func (s *Service) importNodeIn(tx Tx, emit emitFunc, pid string, c NodeCreate, ids map[string]string, files map[string]string, env newNodeEnv) error {
	given := c.ID
	c.ID = newID(ids, "node", given)
	if err := s.fitConsole(tx, &c); err != nil {
		return err
	}
	nodeEnv := newNodeEnv{}
	if c.Type.kind().props.usesHost {
		nodeEnv = env
	}
	n, err := s.newNodeIn(tx, pid, c.ID, c, nodeEnv)
	if err != nil {
		return ImportError("Node", cmp.Or(c.Name.Value, given), err)
	}
	// The file's host interfaces wait for this machine's user.
	put := markFilePorts(n)
	if files != nil { // the files win over the properties (a revision-7 startup_script)
		if err := n.setOwnFiles(files); err != nil {
			return ImportError("Node", cmp.Or(c.Name.Value, given), err)
		}
		put = true
	}
	if g, ok := c.Properties.(*GenericUpdate); ok {
		keepNulls(n, *g)
		put = true
	}
	if put {
		if err := tx.PutNode(n); err != nil {
			return err
		}
	}
	emit(EventNodeCreated, n.ProjectID, n)
	return nil
}

// importLinkIn writes one link of an import inside tx, its ends named by
// their nodes' new ids.
func (s *Service) importLinkIn(tx Tx, emit emitFunc, pid string, l LinkImport, ids map[string]string) error {
	u := l.LinkUpdate
	if u.Nodes.has() {
		ends := make([]LinkEnd, len(u.Nodes.Value))
		for i, e := range u.Nodes.Value {
			if e.NodeID = newID(ids, "node", e.NodeID); e.NodeID == "" {
				return Errorf(EINVALID, "Link %s of the file joins node %s, which the file does not have", l.ID, u.Nodes.Value[i].NodeID)
			}
			ends[i] = e
		}
		u.Nodes = Some(ends)
	}
	nl, err := s.newLinkIn(tx, pid, newID(ids, "link", l.ID), u)
	if err != nil {
		return ImportError("Link", l.ID, err)
	}
	emit(EventLinkCreated, nl.ProjectID, nl)
	return nil
}

// fitConsole adapts the console settings a file gives a node to the rules
// of its type here: a console type the type does not allow becomes the
// type's default, a port is dropped when the node has no console, and a
// port that is not free (consolePortFree) is left for allocation (a free
// one), as gns3-server 2.2.59's reserve_tcp_port replaces a port in use
// (compute/port_manager.py).
func (s *Service) fitConsole(tx Tx, c *NodeCreate) error {
	ct := c.Type.kind().consoles[0]
	if c.ConsoleType.Set {
		want := ConsoleNone
		if !c.ConsoleType.Null {
			want = c.ConsoleType.Value
		}
		if c.Type.allowsConsole(want) {
			ct = want
		}
		c.ConsoleType = Some(ct)
	}
	if ct == ConsoleNone || !c.Console.has() {
		c.Console = Field[int]{}
		return nil
	}
	free, err := s.consolePortFree(tx, c.Console.Value)
	if !free {
		c.Console = Field[int]{}
	}
	return err
}

// keepNulls puts back the properties a file gives as null: an update
// drops a key set to null, but a file lists the empty slots of a router
// that way, and they are kept as given.
func keepNulls(n *Node, g GenericUpdate) {
	for k, v := range g {
		if string(v) == "null" {
			if n.Properties.Extra == nil {
				n.Properties.Extra = map[string]json.RawMessage{}
			}
			n.Properties.Extra[k] = v
		}
	}
}

// checkLinkPorts refuses a file in which two links use one port.
func checkLinkPorts(imp ProjectImport) error {
	type port struct {
		node            string
		adapter, number int
	}
	names := map[string]string{}
	for _, n := range imp.Nodes {
		id, _ := canonicalID(n.ID)
		names[id] = cmp.Or(n.Name.Value, n.ID)
	}
	used := map[port]string{}
	for _, l := range imp.Links {
		if !l.Nodes.has() {
			continue
		}
		for _, e := range l.Nodes.Value {
			id, _ := canonicalID(e.NodeID)
			k := port{id, e.AdapterNumber, e.PortNumber}
			if other, ok := used[k]; ok && other != l.ID {
				return Errorf(EINVALID, "Links %s and %s of the file both use port %d/%d of %s; a port takes one link",
					other, l.ID, e.AdapterNumber, e.PortNumber, cmp.Or(names[id], e.NodeID))
			}
			used[k] = l.ID
		}
	}
	return nil
}

// ImportError names the record of a project file (kind "Node", "Link",
// "Drawing"; name its name or id there) that a rule refused. A rule's
// refusal is the file's fault, so it is EINVALID whatever its code was;
// an internal error stays one.
func ImportError(kind, name string, err error) error {
	var e *Error
	if !errors.As(err, &e) || e.Code == EINTERNAL {
		return err
	}
	return &Error{Code: EINVALID, Message: kind + " " + name + " of the file cannot be imported: " + e.Message, Field: e.Field}
}

// stageFiles writes a project file's files into a new temporary folder
// inside the projects folder and returns it, with the files the nodes'
// types own (by new node id, then file name: a VPCS node's startup.vpc),
// which the store keeps as properties instead of files.
// A path that breaks the one path rule, or comes twice, refuses the whole
// import; hidden names (a node's own state, OS noise) are left out.
func (s *Service) stageFiles(files []ImportFile, ids map[string]string, nodes []NodeCreate) (string, map[string]map[string]string, error) {
	types := map[string]NodeType{}
	for _, n := range nodes {
		types[newID(ids, "node", n.ID)] = n.Type
	}
	parent := s.ProjectsDir()
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", nil, Errorf(EINTERNAL, "Cannot create the projects folder: %v", err)
	}
	tmp := filepath.Join(parent, importStagePrefix+uuid.NewString()) // SweepDebris removes it after a crash
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return "", nil, Errorf(EINTERNAL, "Cannot create a folder for the imported files: %v", err)
	}
	owned := map[string]map[string]string{}
	if err := stage(tmp, files, ids, types, owned); err != nil {
		_ = os.RemoveAll(tmp)
		return "", nil, err
	}
	return tmp, owned, nil
}

func stage(tmp string, files []ImportFile, ids map[string]string, types map[string]NodeType, owned map[string]map[string]string) error {
	root, err := os.OpenRoot(tmp)
	if err != nil {
		return Errorf(EINTERNAL, "Cannot open the folder of the imported files: %v", err)
	}
	defer root.Close()
	seen := map[string]bool{}
	dirs := folders{root: root, made: map[string]bool{".": true}}
	for _, f := range files {
		p, err := relPath(f.Path, projectFolderName)
		if err != nil {
			return Invalid("", "The project's file %q cannot be imported: %s", f.Path, ErrorMessage(err))
		}
		if hidden(p) {
			continue
		}
		parts := strings.Split(p, "/")
		if len(parts) >= 3 && parts[0] == projectFilesDir {
			if nid := newID(ids, "node", parts[2]); nid != "" {
				parts[2] = nid // the node's folder follows the node
			}
		}
		p = strings.Join(parts, "/")
		if seen[p] {
			return Invalid("", "The project's file %s appears twice", f.Path)
		}
		seen[p] = true
		owner := folderFile{owner: "the imported project", folder: projectFolderName, dir: tmp, path: p, name: f.Path}
		if f.Dir {
			if err := dirs.make(p); err != nil {
				return importFileError(owner, err)
			}
			continue
		}
		if folder, id, file, ok := ownedFilePath(p); ok {
			if own := types[id].ownedFile(folder, file); own != nil {
				b, err := readImportFile(f, MaxNodeFileBytes)
				if err == nil {
					err = own.checkText(f.Path, b)
				}
				if err != nil {
					return err
				}
				if owned[id] == nil {
					owned[id] = map[string]string{}
				}
				owned[id][own.name] = string(b)
				continue
			}
		}
		if err := writeImportFile(root, dirs, p, f); err != nil {
			return importFileError(owner, err)
		}
	}
	return nil
}

// importFileError is the error of writing one file of an import: the
// reader's own (a limit, a damaged entry), a path that collides with
// another (a file where a folder is, or the reverse), which is the file's
// fault (EINVALID), or a fault of the disk.
func importFileError(f folderFile, err error) error {
	var e *Error
	switch {
	case errors.As(err, &e):
		return err
	case errors.Is(err, fs.ErrExist):
		return Invalid("", "The project's file %s collides with a folder of the same name", f.name)
	case errors.Is(err, syscall.ENAMETOOLONG):
		return Invalid("", "The project's file %s has a name too long for this machine's disk", f.name)
	}
	if err = f.error(err); ErrorCode(err) != EINTERNAL {
		return Invalid("", "%s", ErrorMessage(err))
	}
	return err
}

// readImportFile reads a small file of an import whole.
func readImportFile(f ImportFile, limit int64) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = Invalid("", "The project's file %s has more than %d bytes", f.Path, limit)
	}
	return b, err
}

// writeImportFile copies one file of an import into root.
func writeImportFile(root *os.Root, dirs folders, p string, f ImportFile) error {
	if err := dirs.make(path.Dir(p)); err != nil {
		return err
	}
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	w, err := root.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, rc); err != nil {
		_ = w.Close()
		return err
	}
	return w.Close()
}

// folders makes the folders of an import's files, each once (a file of
// every node folder would otherwise walk its whole path again).
type folders struct {
	root *os.Root
	made map[string]bool
}

func (f folders) make(d string) error {
	if f.made[d] {
		return nil
	}
	if err := f.make(path.Dir(d)); err != nil {
		return err
	}
	if err := f.root.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	f.made[d] = true
	return nil
}

// ProjectsDir is the folder that holds the projects' folders.
func (s *Service) ProjectsDir() string { return filepath.Join(s.c.DataDir, "projects") }
