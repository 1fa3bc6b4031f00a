package app

import "encoding/json"

// Store is the persistence the Service needs: transactions over projects
// and nodes. Package store implements it on a bbolt file.
type Store interface {
	// View runs fn in a read-only transaction.
	View(fn func(Tx) error) error
	// Update runs fn in a read-write transaction and commits it durably
	// (fsync'd) before returning; if fn returns an error nothing is written.
	Update(fn func(Tx) error) error
}

// Tx is one transaction. Lookups of a missing project or node return nil and
// no error; the Service turns that into ENOTFOUND with its own wording.
type Tx interface {
	// Writes is how many writes the transaction has made so far: the
	// Service rolls back a write that failed after writing, and commits
	// nothing (no fsync) when a batch wrote nothing. The store counts
	// them where they reach the file, so no write method can forget to.
	Writes() int

	// Project returns the project with the given id, or nil.
	Project(id string) (*Project, error)
	// HasProject reports whether a project exists, without reading it.
	HasProject(id string) (bool, error)
	// Projects returns every project in creation order.
	Projects() ([]*Project, error)
	// PutProject creates or replaces a project, assigning Seq to a new one.
	PutProject(p *Project) error
	// DeleteProject removes a project and all of its nodes, links,
	// drawings, snapshots and history.
	DeleteProject(id string) error

	// Node returns the node of a project, or nil.
	Node(projectID, nodeID string) (*Node, error)
	// Nodes returns a project's nodes in creation order.
	Nodes(projectID string) ([]*Node, error)
	// PutNode creates or replaces a node, assigning Seq to a new one and
	// keeping the console-port and name indexes in step.
	PutNode(n *Node) error
	// DeleteNode removes a node and frees its console port and name.
	DeleteNode(projectID, nodeID string) error

	// Link returns the link of a project, or nil.
	Link(projectID, linkID string) (*Link, error)
	// Links returns a project's links in creation order.
	Links(projectID string) ([]*Link, error)
	// NodeLinks returns the links attached to a node.
	NodeLinks(projectID, nodeID string) ([]*Link, error)
	// PutLink creates or replaces a link, assigning Seq to a new one and
	// indexing the ports it uses.
	PutLink(l *Link) error
	// DeleteLink removes a link and frees its ports.
	DeleteLink(projectID, linkID string) error
	// LinkOnPort returns the id of the link attached to a port, if any.
	LinkOnPort(projectID, nodeID string, adapter, port int) (string, bool, error)

	// Drawing returns the drawing of a project, or nil.
	Drawing(projectID, drawingID string) (*Drawing, error)
	// Drawings returns a project's drawings in creation order.
	Drawings(projectID string) ([]*Drawing, error)
	// PutDrawing creates or replaces a drawing, assigning Seq to a new one.
	PutDrawing(d *Drawing) error
	// DeleteDrawing removes a drawing.
	DeleteDrawing(projectID, drawingID string) error

	// Snapshot returns the snapshot of a project, or nil.
	Snapshot(projectID, snapshotID string) (*Snapshot, error)
	// Snapshots returns a project's snapshots (in no particular order).
	Snapshots(projectID string) ([]*Snapshot, error)
	// PutSnapshot creates or replaces a snapshot.
	PutSnapshot(s *Snapshot) error
	// DeleteSnapshot removes a snapshot.
	DeleteSnapshot(projectID, snapshotID string) error

	// Template returns a user template, or nil.
	Template(id string) (*Template, error)
	// Templates returns the user templates in creation order.
	Templates() ([]*Template, error)
	// PutTemplate creates or replaces a user template, assigning Seq to a
	// new one.
	PutTemplate(t *Template) error
	// DeleteTemplate removes a user template.
	DeleteTemplate(id string) error

	// EmulatorSettings returns the settings an emulator keeps as a whole
	// (app/emulator_settings.go) under name, nil if none were saved.
	EmulatorSettings(name string) (map[string]json.RawMessage, error)
	// PutEmulatorSettings saves an emulator's settings under name.
	PutEmulatorSettings(name string, settings map[string]json.RawMessage) error

	// RestoreIntents returns the snapshot restores whose records have
	// committed and whose files may not have followed yet: project id ->
	// the tag of the restore's staged folder.
	RestoreIntents() (map[string]string, error)
	// PutRestoreIntent records, with a restore's records, that project
	// projectID's files are to be swapped for those staged under tag.
	PutRestoreIntent(projectID, tag string) error
	// DeleteRestoreIntent ends project projectID's restore intent, if any.
	DeleteRestoreIntent(projectID string) error

	// ConsoleOwner returns the node that owns a console port, if any.
	ConsoleOwner(port int) (NodeKey, bool, error)
	// ConsolePorts returns every console port some node owns, ascending.
	ConsolePorts() ([]int, error)
	// UDPOwner returns the node that owns a UDP port, if any (for a
	// reservation of a project, NodeID is empty).
	UDPOwner(port int) (NodeKey, bool, error)
	// UDPUse says what holds a UDP port: a node's UDP pair, a NIO's lport
	// or a project's reservation.
	UDPUse(port int) (UDPUse, bool, error)
	// UDPPortsInUse returns every UDP port the index holds, ascending.
	UDPPortsInUse() ([]int, error)
	// ReserveUDP reserves a UDP port for a project (ports/udp).
	ReserveUDP(projectID string, port int) error
	// ReleaseUDPReservations frees every reservation of a project that no
	// NIO took.
	ReleaseUDPReservations(projectID string) error
	// ReleaseUDPReservation frees one reservation of a project, if it is
	// still the project's (no NIO took it).
	ReleaseUDPReservation(projectID string, port int) error

	// NIO returns the NIO of a node's port, or nil.
	NIO(projectID, nodeID string, adapter, port int) (*NIO, error)
	// NIOs returns a project's NIOs, by node and port.
	NIOs(projectID string) ([]*NIO, error)
	// PutNIO creates or replaces the NIO of a port and moves its lport in
	// the UDP index (a reservation it takes becomes its).
	PutNIO(n *NIO) error
	// DeleteNIO removes the NIO of a port and frees its lport. Deleting
	// a node removes its NIOs.
	DeleteNIO(projectID, nodeID string, adapter, port int) error
	// ActiveNodes returns the process-bound nodes whose status is not
	// stopped.
	ActiveNodes() ([]NodeKey, error)
	// NodeIDByName returns the id of the node of a project with that name.
	NodeIDByName(projectID, name string) (string, bool, error)

	// History returns the entries of one of a project's history stacks,
	// newest first.
	History(projectID string, st HistoryStack) ([]*HistoryEntry, error)
	// HistoryTop returns the newest entry of a stack, or nil.
	HistoryTop(projectID string, st HistoryStack) (*HistoryEntry, error)
	// PushHistory puts e on top of a stack of its project, assigning its
	// Seq; an e whose Seq is set replaces that entry (the top). Then only
	// the newest keep entries stay (keep 0: all).
	PushHistory(st HistoryStack, e *HistoryEntry, keep int) error
	// PopHistory removes the newest entry of a stack.
	PopHistory(projectID string, st HistoryStack) error
	// ClearHistory removes every entry of a stack.
	ClearHistory(projectID string, st HistoryStack) error

	// Compute returns a remote compute, or nil.
	Compute(id string) (*Compute, error)
	// Computes returns the remote computes in the order they were added.
	Computes() ([]*Compute, error)
	// PutCompute creates or replaces a remote compute.
	PutCompute(c *Compute) error
	// DeleteCompute removes a remote compute.
	DeleteCompute(id string) error
}
