package app

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"

	"github.com/google/uuid"
)

// LocalCompute is the id of the one compute nodedesk has: itself.
const LocalCompute = "local"

// Publisher receives every committed change, once, after commit.
type Publisher interface {
	Publish(Event)
}

// Config wires a Service to its store and environment.
type Config struct {
	Store  Store
	Events Publisher // nil: changes are not published
	// DataDir is the folder beside the store; projects' working folders
	// live in DataDir/projects/<project_id>.
	DataDir string
	// ConsoleHost is the address clients use to reach console ports.
	ConsoleHost string
	// HostInterfaces lists this machine's network interfaces for new
	// clouds; nil means SystemInterfaces.
	HostInterfaces func() []HostInterface
	// NewID returns a fresh UUID string; nil means uuid.NewString.
	NewID func() string
}

// Service is every use case of nodedesk. The REST API and the desktop window
// are thin doors onto it: they parse, call one method, and render.
type Service struct {
	c Config
}

// NewService returns a Service for c.
func NewService(c Config) *Service {
	if c.HostInterfaces == nil {
		c.HostInterfaces = SystemInterfaces
	}
	if c.NewID == nil {
		c.NewID = uuid.NewString
	}
	if c.ConsoleHost == "" {
		c.ConsoleHost = "127.0.0.1"
	}
	return &Service{c: c}
}

// NodeRef names a node by its project and id, as a request path does. Type,
// when set, is the compute view the request came through: a node of
// another type is not found there.
type NodeRef struct {
	ProjectID string
	NodeID    string
	Type      NodeType
}

// ConsoleHost is the address clients use to reach console ports.
func (s *Service) ConsoleHost() string { return s.c.ConsoleHost }

// ProjectDir is the working folder of a project.
func (s *Service) ProjectDir(projectID string) string {
	return filepath.Join(s.c.DataDir, "projects", projectID)
}

// NodeDirectory is the working folder of a node whose type keeps files
// (VPCS, cloud), or nil.
func (s *Service) NodeDirectory(n *Node) *string {
	var sub string
	switch n.Type {
	case VPCS:
		sub = "vpcs"
	case Cloud, NAT:
		sub = "builtin"
	default:
		return nil
	}
	d := filepath.Join(s.ProjectDir(n.ProjectID), "project-files", sub, n.ID)
	return &d
}

func (s *Service) publish(action, projectID string, payload any) {
	if s.c.Events != nil {
		s.c.Events.Publish(Event{Action: action, ProjectID: projectID, Payload: payload})
	}
}

// canonicalID parses a UUID in any spelling and returns its canonical form.
func canonicalID(id string) (string, bool) {
	u, err := uuid.Parse(id)
	if err != nil {
		return "", false
	}
	return u.String(), true
}

func projectNotFound(id string) error {
	return Errorf(ENOTFOUND, "Project ID %s doesn't exist", id)
}

func nodeNotFound(id string) error { return Errorf(ENOTFOUND, "Node ID %s doesn't exist", id) }

// --- projects ---

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
	created := false
	err := s.c.Store.Update(func(tx Tx) error {
		existing, err := tx.Project(id)
		if err != nil || existing != nil {
			p = existing
			return err
		}
		p, err = c.ProjectUpdate.apply(newProject(id))
		if err != nil {
			return err
		}
		p.Filename = p.Name + ".gns3"
		if err := checkProjectName(tx, p); err != nil {
			return err
		}
		created = true
		return tx.PutProject(p)
	})
	if err != nil {
		return nil, err
	}
	if created {
		s.publish("project.created", p.ID, p)
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
	err := s.c.Store.View(func(tx Tx) (err error) {
		ps, err = tx.Projects()
		return err
	})
	return ps, err
}

// FindProjectByID returns a project. An id that is not a UUID is simply not
// found, as in GNS3 (clients probe /v2/projects/None). Codes: ENOTFOUND.
func (s *Service) FindProjectByID(ctx context.Context, id string) (*Project, error) {
	var p *Project
	err := s.c.Store.View(func(tx Tx) (err error) {
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
	return s.changeProject(id, "project.updated", func(p *Project) (*Project, error) {
		c, err := u.apply(p)
		if err != nil {
			return nil, err
		}
		return c, nil
	})
}

// OpenProject marks a project opened. Codes: ENOTFOUND.
func (s *Service) OpenProject(ctx context.Context, id string) (*Project, error) {
	return s.changeProject(id, "project.opened", func(p *Project) (*Project, error) {
		c := *p
		c.Status = ProjectOpened
		return &c, nil
	})
}

// CloseProject marks a project closed. Its nodes stay readable and
// editable; closing is where running nodes will be stopped. Codes: ENOTFOUND.
func (s *Service) CloseProject(ctx context.Context, id string) error {
	_, err := s.changeProject(id, "project.closed", func(p *Project) (*Project, error) {
		c := *p
		c.Status = ProjectClosed
		return &c, nil
	})
	return err
}

// changeProject applies change to a project in one transaction and
// publishes action if the project really changed.
func (s *Service) changeProject(id, action string, change func(*Project) (*Project, error)) (*Project, error) {
	var after *Project
	changed := false
	err := s.c.Store.Update(func(tx Tx) error {
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
		if changed = !sameJSON(before, after); !changed {
			return nil
		}
		return tx.PutProject(after)
	})
	if err != nil {
		return nil, err
	}
	if changed {
		s.publish(action, after.ID, after)
	}
	return after, nil
}

// DeleteProject deletes a project and all of its nodes, freeing their
// console ports. Codes: ENOTFOUND.
func (s *Service) DeleteProject(ctx context.Context, id string) error {
	var p *Project
	err := s.c.Store.Update(func(tx Tx) (err error) {
		if p, err = findProject(tx, id); err != nil {
			return err
		}
		return tx.DeleteProject(p.ID)
	})
	if err == nil {
		s.publish("project.deleted", p.ID, p)
	}
	return err
}

// --- nodes ---

// CreateNode adds a node of c.Type to a project, with GNS3's defaults for
// every field c leaves out, a free name, and (for types with a console) the
// lowest free console port. A node id that already exists in the project
// with the same type returns that node unchanged.
// Codes: EINVALID, ENOTFOUND (project or compute), ECONFLICT (name or
// console port taken, node id used by another node).
func (s *Service) CreateNode(ctx context.Context, projectID string, c NodeCreate) (*Node, error) {
	if !c.Type.Valid() {
		return nil, Errorf(EINVALID, "Unknown node type %q", c.Type)
	}
	if c.ComputeID != "" && c.ComputeID != LocalCompute {
		return nil, Errorf(ENOTFOUND, "Compute ID %s doesn't exist; nodedesk has one compute, \"local\"", c.ComputeID)
	}
	id := s.c.NewID()
	if c.ID != "" {
		var ok bool
		if id, ok = canonicalID(c.ID); !ok {
			return nil, Errorf(EINVALID, "Node ID %s is not a valid UUID", c.ID)
		}
	}
	var ifaces []HostInterface
	if c.Type == Cloud {
		ifaces = s.c.HostInterfaces()
	}
	var n *Node
	created := false
	err := s.c.Store.Update(func(tx Tx) error {
		p, err := findProject(tx, projectID)
		if err != nil {
			return err
		}
		if existing, err := tx.Node(p.ID, id); err != nil || existing != nil {
			if err == nil && existing.Type != c.Type {
				err = Errorf(ECONFLICT, "Node ID %s already exists as a %s node", id, existing.Type)
			}
			n = existing
			return err
		}
		want := types[c.Type].nameFormat
		if c.Name.has() {
			want = c.Name.Value
		}
		u := c.NodeUpdate
		u.Name = Field[string]{}
		base := newNode(id, p.ID, c.Type, ifaces)
		base.Name = want
		if n, err = u.apply(base); err != nil {
			return err
		}
		if c.TemplateID.Set {
			n.TemplateID = ptrOrNil(c.TemplateID)
		}
		if n.Name, err = allocateName(want, func(name string) (bool, error) {
			_, ok, err := tx.NodeIDByName(p.ID, name)
			return ok, err
		}); err != nil {
			return err
		}
		if !u.Label.Set {
			n.Label.Text = n.Name
		}
		if err := claimConsole(tx, n); err != nil {
			return err
		}
		created = true
		return tx.PutNode(n)
	})
	if err != nil {
		return nil, err
	}
	if created {
		s.publish("node.created", n.ProjectID, n)
	}
	return n, nil
}

// FindNodes returns a project's nodes in creation order. Codes: ENOTFOUND.
func (s *Service) FindNodes(ctx context.Context, projectID string) ([]*Node, error) {
	var ns []*Node
	err := s.c.Store.View(func(tx Tx) error {
		p, err := findProject(tx, projectID)
		if err != nil {
			return err
		}
		ns, err = tx.Nodes(p.ID)
		return err
	})
	return ns, err
}

// FindNode returns one node. Codes: EINVALID (an id is not a UUID),
// ENOTFOUND (no such project or node, or the node is of another type than
// ref.Type).
func (s *Service) FindNode(ctx context.Context, ref NodeRef) (*Node, error) {
	var n *Node
	err := s.c.Store.View(func(tx Tx) (err error) {
		n, err = findNode(tx, ref)
		return err
	})
	return n, err
}

func findNode(tx Tx, ref NodeRef) (*Node, error) {
	pid, ok := canonicalID(ref.ProjectID)
	if !ok {
		return nil, Errorf(EINVALID, "Project ID %s is not a valid UUID", ref.ProjectID)
	}
	nid, ok := canonicalID(ref.NodeID)
	if !ok {
		return nil, Errorf(EINVALID, "Node ID %s is not a valid UUID", ref.NodeID)
	}
	p, err := tx.Project(pid)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, projectNotFound(ref.ProjectID)
	}
	n, err := tx.Node(pid, nid)
	if err != nil {
		return nil, err
	}
	if n == nil || (ref.Type != "" && n.Type != ref.Type) {
		return nil, nodeNotFound(ref.NodeID)
	}
	return n, nil
}

// UpdateNode changes a node. Read, check, write and commit happen in one
// transaction, so two clients racing for one console port or name leave
// exactly one winner. An update that changes nothing writes nothing and
// publishes nothing.
// Codes: EINVALID, ENOTFOUND, ECONFLICT (name or console port taken).
func (s *Service) UpdateNode(ctx context.Context, ref NodeRef, u NodeUpdate) (*Node, error) {
	var after *Node
	changed := false
	err := s.c.Store.Update(func(tx Tx) error {
		before, err := findNode(tx, ref)
		if err != nil {
			return err
		}
		if after, err = u.apply(before); err != nil {
			return err
		}
		if after.Name != before.Name {
			if id, taken, err := tx.NodeIDByName(after.ProjectID, after.Name); err != nil {
				return err
			} else if taken && id != after.ID {
				return Errorf(ECONFLICT, "Another node of this project is already named %s; choose another name", after.Name)
			}
		}
		if after.Console != before.Console || after.ConsoleType != before.ConsoleType {
			if err := claimConsole(tx, after); err != nil {
				return err
			}
		}
		if changed = !sameJSON(before, after); !changed {
			return nil
		}
		return tx.PutNode(after)
	})
	if err != nil {
		return nil, err
	}
	if changed {
		s.publish("node.updated", after.ProjectID, after)
	}
	return after, nil
}

// DeleteNode deletes a node, freeing its name and console port.
// Codes: EINVALID, ENOTFOUND.
func (s *Service) DeleteNode(ctx context.Context, ref NodeRef) error {
	var n *Node
	err := s.c.Store.Update(func(tx Tx) (err error) {
		if n, err = findNode(tx, ref); err != nil {
			return err
		}
		return tx.DeleteNode(n.ProjectID, n.ID)
	})
	if err == nil {
		s.publish("node.deleted", n.ProjectID, n)
	}
	return err
}

// sameJSON reports whether a and b encode to the same record.
func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
