package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// CreateNode adds a node of c.Type to a project, with GNS3's defaults for
// every field c leaves out, a free name, and (for types with a console) the
// lowest free console port. A node id that already exists in the project
// with the same type returns that node unchanged. The images a local
// node's properties name are kept as GNS3 keeps them, with their MD5 sums
// (settleImages). A node of a remote compute is made there too
// (createRemoteNode).
// Codes: EINVALID, ENOTFOUND (project or compute), ECONFLICT (name or
// console port taken, node id used by another node; the compute's
// refusal or unreachable).
func (s *Service) CreateNode(ctx context.Context, projectID string, c NodeCreate) (*Node, error) {
	if !c.Type.Valid() {
		return nil, Errorf(EINVALID, "Unknown node type %q", c.Type)
	}
	id := s.c.NewID()
	if c.ID != "" {
		var ok bool
		if id, ok = canonicalID(c.ID); !ok {
			return nil, Errorf(EINVALID, "Node ID %s is not a valid UUID", c.ID)
		}
	}
	env := newNodeEnvFor(c.Type, s.c.HostInterfaces) // outside the write transaction
	if !onRemote(c.ComputeID) {
		c.Properties = s.settleImages(ctx, c.Type, c.Properties) // a remote compute keeps its own
		c.Properties = s.imageDefaults(c.Type, c.Properties)
	}
	create := func(tx Tx) (*Node, error) { return s.createNodeIn(tx, projectID, id, c, env) }
	if onRemote(c.ComputeID) {
		return s.createRemoteNode(ctx, c.ComputeID, create)
	}
	var n *Node
	err := s.update(ctx, func(tx Tx, emit emitFunc) (err error) {
		if n, err = create(tx); err != nil {
			return err
		}
		emit(EventNodeCreated, n.ProjectID, n)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.awaitProvision(ctx, n), nil // a Docker node's container, made with it
}

// createNodeIn is CreateNode's rule, inside tx: the node made and stored,
// or, when the project has a node with that id, that node and
// errUnchanged (ECONFLICT if it is of another type).
func (s *Service) createNodeIn(tx Tx, projectID, id string, c NodeCreate, env newNodeEnv) (*Node, error) {
	p, err := findProject(tx, projectID)
	if err != nil {
		return nil, err
	}
	if existing, err := tx.Node(p.ID, id); err != nil || existing != nil {
		if err == nil && existing.Type != c.Type {
			return nil, Errorf(ECONFLICT, "Node ID %s already exists as a %s node", id, existing.Type)
		}
		return existing, cmp.Or(err, errUnchanged)
	}
	return s.newNodeIn(tx, p.ID, id, c, env)
}

// newNodeIn makes and stores, inside tx, a new node of project projectID
// with id: c's type with GNS3's defaults, c's settings checked and applied
// by NodeUpdate.apply, a free name and console port (addNode). It is the
// one way a node is created, through the API or from a project file.
func (s *Service) newNodeIn(tx Tx, projectID, id string, c NodeCreate, env newNodeEnv) (*Node, error) {
	want := c.Type.kind().nameFormat
	if c.Name.has() {
		want = c.Name.Value
	}
	u := c.NodeUpdate
	u.Name = Field[string]{}
	base := newNode(id, projectID, c.Type, env)
	base.Name = want
	if c.ComputeID != LocalCompute {
		base.ComputeID = c.ComputeID
	}
	n, err := u.apply(base)
	if err != nil {
		return nil, err
	}
	if c.TemplateID.Set {
		n.TemplateID = ptrOrNil(c.TemplateID)
	}
	if c.ReplaceTakenConsole && n.Console != 0 {
		if owner, taken, err := tx.ConsoleOwner(n.Console); err != nil {
			return nil, err
		} else if taken && owner != (NodeKey{n.ProjectID, n.ID}) {
			n.Console = 0 // addNode gives it a free one
		}
	}
	if err := s.addNode(tx, n, want, !u.Label.Set); err != nil {
		return nil, err
	}
	return n, nil
}

// addNode gives a new node a free name (from want) and console port, and
// stores it. The label follows the name unless the caller set it; a copy's
// properties that hold its name follow it as a rename's do.
func (s *Service) addNode(tx Tx, n *Node, want string, labelFollowsName bool) error {
	name, pattern, number, err := allocateName(want,
		func(pattern string) int { return s.hints.get(n.ProjectID, pattern) },
		func(name string) (bool, error) {
			_, ok, err := tx.NodeIDByName(n.ProjectID, name)
			return ok, err
		})
	if err != nil {
		return err
	}
	was := n.Name // "" for a new node; the original's for a copy, which is renamed
	n.Name = name
	n.settleName(was)
	if labelFollowsName {
		n.Label.Text = name
	}
	if err := s.claimTunnelPorts(tx, nil, n); err != nil {
		return err
	}
	if err := s.claimConsole(tx, n); err != nil {
		return err
	}
	if claim := n.Type.kind().props.claim; claim != nil {
		if err := claim(s.claimEnv(tx, n.Type), n); err != nil {
			return err
		}
	}
	if err := tx.PutNode(n); err != nil {
		return err
	}
	if pattern != "" {
		s.hints.set(n.ProjectID, pattern, number+1)
	}
	return nil
}

// FindNodes returns a project's nodes in creation order. Codes: ENOTFOUND.
func (s *Service) FindNodes(ctx context.Context, projectID string) ([]*Node, error) {
	var ns []*Node
	err := s.view(func(tx Tx) error {
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
	err := s.view(func(tx Tx) (err error) {
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
	if ok, err := tx.HasProject(pid); err != nil || !ok {
		return nil, cmp.Or(err, projectNotFound(ref.ProjectID))
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
// publishes nothing. The images a change of a local node names are kept
// as GNS3 keeps them, with their MD5 sums (settleImages). A change a
// remote node's compute must know is sent there first (updateRemoteNode).
// The node is read once before the write, for the work that must not
// happen inside it (images' sums, host ports' checks, a remake), and
// again inside it (the write path's rule).
// Codes: EINVALID, ENOTFOUND, ECONFLICT (name or console port taken, a
// linked port removed, console type changed while running, a linked host
// port from a project file confirmed that cannot be opened; the compute's
// refusal or unreachable).
func (s *Service) UpdateNode(ctx context.Context, ref NodeRef, u NodeUpdate) (*Node, error) {
	n, err := s.FindNode(ctx, ref)
	if err != nil {
		return nil, err
	}
	if u.PropertiesOf != nil {
		if u.Properties, err = u.PropertiesOf(n.Type); err != nil {
			return nil, err
		}
		u.PropertiesOf = nil
	}
	if err := s.checkConfirmedHostPorts(n, u); err != nil {
		return nil, err
	}
	if n, done, err := s.remakeRunning(ctx, n, u); done {
		return n, err
	}
	return s.updateNode(ctx, n, u)
}

// updateNode is UpdateNode for a node, as read before the write, whose
// change needs no restart.
func (s *Service) updateNode(ctx context.Context, read *Node, u NodeUpdate) (*Node, error) {
	ref := NodeRef{ProjectID: read.ProjectID, NodeID: read.ID}
	if !read.Remote() {
		u.Properties = s.settleImages(ctx, read.Type, u.Properties) // outside the write transaction
	}
	var after *Node
	err := s.update(ctx, func(tx Tx, emit emitFunc) error {
		before, err := findNode(tx, ref)
		if err != nil {
			return err
		}
		if after, err = u.apply(before); err != nil {
			return err
		}
		if computeHolds(before, after) {
			return errPrepared // where it runs: its compute first
		}
		return s.changeNodeIn(tx, emit, before, after)
	})
	if errors.Is(err, errPrepared) {
		return s.updateRemoteNode(ctx, ref, u, after)
	}
	if err != nil {
		return nil, err
	}
	s.tune(after)
	return after, nil
}

// tune gives a node that runs here the settings its runner takes while
// it runs (Tuner); one it could not take is told to the project, and the
// node keeps it for its next start.
func (s *Service) tune(n *Node) {
	if n.Status != Started || n.Remote() {
		return
	}
	t, ok := s.runner(n.Type).(Tuner)
	if !ok {
		return
	}
	unlock := s.lockNode(n.ID) // not while it starts or stops
	defer unlock()
	if err := t.Tune(n.ID, propertiesJSON(n)); err != nil {
		s.tell(EventLogWarning, n.ProjectID, fmt.Sprintf("%s keeps running with its former settings (they apply at its next start): %v", n.Name, err))
	}
}

// changeNodeIn is UpdateNode's rule, inside tx: before may become after
// (its console type, name, console port, ports and tunnel ports checked),
// which is stored; errUnchanged when it is before.
func (s *Service) changeNodeIn(tx Tx, emit emitFunc, before, after *Node) error {
	after.settleName(before.Name)
	if after.ConsoleType != before.ConsoleType && before.Active() {
		return Conflict("console_type", "%s must be stopped to change its console type", before.Name)
	}
	if after.Name != before.Name {
		if id, taken, err := tx.NodeIDByName(after.ProjectID, after.Name); err != nil {
			return err
		} else if taken && id != after.ID {
			return Conflict("name", "Another node of this project is already named %s; choose another name", after.Name)
		}
		s.hints.forget(after.ProjectID) // the old name is free again
	}
	if after.Console != before.Console || after.ConsoleType != before.ConsoleType {
		if err := s.claimConsole(tx, after); err != nil {
			return err
		}
	}
	if err := checkLinkedPorts(tx, after); err != nil {
		return err
	}
	if err := checkLinkedHostPorts(tx, before, after); err != nil {
		return err
	}
	if err := s.claimTunnelPorts(tx, before, after); err != nil {
		return err
	}
	if unchanged(before, after) {
		return errUnchanged
	}
	emit(EventNodeUpdated, after.ProjectID, after)
	return tx.PutNode(after)
}

// DeleteNode stops a node's process, if it runs one, and deletes the node
// and its links, freeing its name and ports. Its folder is kept in the
// project's trash while an undo can bring the node back (node_trash.go).
// What remote computes hold of them (the node, its links' tunnels) is
// deleted there first (dropFromComputes). Codes: EINVALID, ENOTFOUND.
func (s *Service) DeleteNode(ctx context.Context, ref NodeRef) error {
	s.cancelProvision(ref.NodeID) // its lock is not held for an image's pull
	if _, err := s.NodeAction(ctx, ref, Stop); err != nil {
		return err
	}
	var n *Node
	var links []*Link
	if err := s.view(func(tx Tx) (err error) {
		if n, err = findNode(tx, ref); err != nil {
			return err
		}
		links, err = tx.NodeLinks(n.ProjectID, n.ID)
		return err
	}); err != nil {
		return err
	}
	remote := s.dropFromComputes(ctx, n, links)
	err := s.remoteWrite(remote)(ctx, func(tx Tx, emit emitFunc) error {
		n, err := findNode(tx, ref)
		if err != nil {
			return err
		}
		links, err := tx.NodeLinks(n.ProjectID, n.ID)
		if err != nil {
			return err
		}
		for _, l := range links {
			if err := tx.DeleteLink(l.ProjectID, l.ID); err != nil {
				return err
			}
			emit(EventLinkDeleted, l.ProjectID, l)
		}
		emit(EventNodeDeleted, n.ProjectID, n)
		s.hints.forget(n.ProjectID) // its name is free again
		return tx.DeleteNode(n.ProjectID, n.ID)
	})
	if err == nil {
		s.awaitProvision(ctx, n) // a Docker node's container goes first
		// Its folder goes to the project's trash, whole, for an undo to
		// bring it back; it goes for good once no history entry names
		// the node (node_trash.go).
		s.trashNodeFolder(n)
	}
	return err
}

// DuplicateNode copies a node to (x, y[, z]) under a fresh name (from the
// original's) and console port. Links are not copied; the copy starts in
// its type's initial status. The original's folder is copied too
// (copyNodeFolder), as GNS3 copies it: a QEMU node's copy starts from the
// original's disks. A process-run node is copied only while stopped, as in
// GNS3, so that no file is copied while it is written; its lifecycle calls
// wait for the copy. A remote node is copied on its compute
// (duplicateRemoteNode). Codes: EINVALID, ENOTFOUND, ECONFLICT (it runs,
// its folder cannot be copied).
func (s *Service) DuplicateNode(ctx context.Context, ref NodeRef, x, y int, z Field[int]) (*Node, error) {
	n, err := s.FindNode(ctx, ref)
	if err != nil {
		return nil, err
	}
	if n.Remote() {
		return s.duplicateRemoteNode(ctx, n, x, y, z) // where it runs: its compute copies it
	}
	// It cannot start while its folder is copied; read it again under the
	// lock, as it is now.
	defer s.lockNode(n.ID)()
	if n, err = s.FindNode(ctx, ref); err != nil {
		return nil, err
	}
	if err := duplicable(n); err != nil {
		return nil, err
	}
	id := s.c.NewID()
	if err := s.copyNodeFolder(n, id); err != nil {
		return nil, err
	}
	var c *Node
	err = s.update(ctx, func(tx Tx, emit emitFunc) error {
		orig, err := findNode(tx, ref)
		if err != nil {
			return err
		}
		if c, err = s.copyNodeIn(tx, orig, id, x, y, z); err != nil {
			return err
		}
		emit(EventNodeCreated, c.ProjectID, c)
		return nil
	})
	if err != nil {
		refused := *n
		refused.ID = id
		s.removeNodeFolder(&refused) // the copy's files go with its refused record
		return nil, err
	}
	return c, nil
}

// duplicable refuses to copy a process-run node that is not stopped, as
// GNS3's controller refuses: its files (a QEMU node's disks) may be half
// written. Always-running nodes (switches, clouds) are copied as they are.
func duplicable(n *Node) error {
	if n.Status != Stopped && n.Type.Lifecycle() == ProcessRun {
		return Errorf(ECONFLICT, "Cannot duplicate node data while the node is running: %s is %s; stop it first", n.Name, n.Status)
	}
	return nil
}

// copyNodeFolder makes the folder of node toID, a copy of node from (same
// project and type), a copy of from's folder, as GNS3's compute copies a
// node's working folder when it duplicates it: a QEMU copy gets the
// original's linked-clone disks, with what its guest wrote. It carries
// what an export carries (walkCarried: no link, no log, nothing hidden),
// through os.Root. A folder toID had is replaced; none is made when from
// has none (never started) or its type keeps no folder. On failure toID
// has no folder. Codes: ECONFLICT (the folder cannot be copied).
func (s *Service) copyNodeFolder(from *Node, toID string) error {
	to := *from
	to.ID = toID
	src, dst := s.NodeDirectory(from), s.NodeDirectory(&to)
	if src == nil || dst == nil {
		return nil
	}
	project := s.ProjectDir(from.ProjectID)
	srcRel, err1 := filepath.Rel(project, *src)
	dstRel, err2 := filepath.Rel(project, *dst)
	if err := cmp.Or(err1, err2); err != nil {
		return err
	}
	srcRel, dstRel = filepath.ToSlash(srcRel), filepath.ToSlash(dstRel)
	root, err := os.OpenRoot(project)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // nothing was ever written
	}
	if err == nil {
		defer root.Close()
		err = root.RemoveAll(dstRel)
	}
	if err == nil {
		if _, serr := root.Lstat(srcRel); errors.Is(serr, fs.ErrNotExist) {
			return nil
		}
		if err = copyCarried(root, srcRel, dstRel); err != nil {
			_ = root.RemoveAll(dstRel)
		}
	}
	if err != nil {
		return Errorf(ECONFLICT, "Cannot duplicate node data of %s: %v; check the project's folder (its permissions, the free space)", from.Name, err)
	}
	return nil
}

// removeNodeFolder removes the folder of n on this nodedesk, if any (none
// for a remote node: its compute keeps it), logging what it could not
// remove.
func (s *Service) removeNodeFolder(n *Node) {
	if dir := s.NodeDirectory(n); dir != nil {
		if err := os.RemoveAll(*dir); err != nil {
			s.c.Logger.Warn("a node's folder could not be removed", "node", n.Name, "dir", *dir, "err", err)
		}
	}
}

// copyNodeIn stores a copy of node n under id, inside tx.
func (s *Service) copyNodeIn(tx Tx, n *Node, id string, x, y int, z Field[int]) (*Node, error) {
	dup := *n
	c := &dup
	c.ID, c.Seq, c.X, c.Y = id, 0, x, y
	setIf(&c.Z, z)
	c.Status, c.Locked = n.Type.Lifecycle().initialStatus(), false
	c.Console, c.Aux = 0, 0 // fresh ports: the original keeps its own
	c.ComputeConsole = 0    // a remote copy's is its compute's answer
	if c.CommandLine != nil {
		empty := ""
		c.CommandLine = &empty
	}
	c.UDPPorts, c.Properties.MACOffset = nil, nil // its own, at its first start
	c.Properties.Provisioned = ""                 // its own container, made for it
	c.renewUnique()
	if err := s.addNode(tx, c, n.Name, n.Label.Text == n.Name); err != nil {
		return nil, err
	}
	return c, nil
}
