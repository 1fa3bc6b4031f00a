package app

import (
	"errors"
	"path/filepath"
	"reflect"
	"sync"

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
	// Runner runs process-backed nodes (VPCS); nil: statuses change alone.
	Runner Runner
}

// Service is every use case of nodedesk. The REST API and the desktop window
// are thin doors onto it: they parse, call one method, and render.
type Service struct {
	c Config
	// mu orders writes with their events: a change is published after its
	// commit and before the next write commits, so listeners see changes
	// in commit order. (bbolt serialises writers anyway.)
	mu sync.Mutex
	// nodeLocks holds one *sync.Mutex per node for lifecycle calls.
	nodeLocks sync.Map
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

// errUnchanged ends a write transaction that found nothing to change: it
// is rolled back instead of committed (no fsync), and the caller succeeds.
var errUnchanged = errors.New("unchanged")

// emitFunc records an event to publish once the transaction commits.
type emitFunc = func(action, projectID string, payload any)

// update runs fn in one read-write transaction. The events fn emits are
// published, in order, once the transaction has committed; if fn or the
// commit fails, nothing is published. This is the only way a change is
// written and announced.
func (s *Service) update(fn func(tx Tx, emit emitFunc) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var events []Event
	err := s.c.Store.Update(func(tx Tx) error {
		events = events[:0]
		return fn(tx, func(action, projectID string, payload any) {
			events = append(events, Event{Action: action, ProjectID: projectID, Payload: payload})
		})
	})
	if errors.Is(err, errUnchanged) {
		return nil
	}
	if err != nil {
		return err
	}
	if s.c.Events != nil {
		for _, e := range events {
			s.c.Events.Publish(e)
		}
	}
	return nil
}

// view runs fn in a read-only transaction.
func (s *Service) view(fn func(tx Tx) error) error { return s.c.Store.View(fn) }

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

// unchanged reports whether a change left a record as it was.
func unchanged(a, b any) bool { return reflect.DeepEqual(a, b) }
