package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Link joins two ports of two nodes of a project. Its JSON tags are the
// store's record format.
type Link struct {
	ID        string                     `json:"link_id"`
	ProjectID string                     `json:"project_id"`
	Nodes     []LinkEnd                  `json:"nodes"`
	LinkType  string                     `json:"link_type"` // ethernet or serial, from the ports
	Suspend   bool                       `json:"suspend"`
	Filters   map[string]json.RawMessage `json:"filters,omitempty"`
	LinkStyle map[string]json.RawMessage `json:"link_style,omitempty"`
	Seq       uint64                     `json:"seq"`
	// Tunnel is set when a node of the link lives on a remote compute
	// (remote_links.go).
	Tunnel *Tunnel `json:"tunnel,omitempty"`
	// A packet capture of the link's frames: while Capturing, the data
	// plane writes them to CaptureFilePath (CaptureDataLinkType is GNS3's
	// data_link_type). The file's name and path stay after it stops.
	Capturing           bool    `json:"capturing,omitempty"`
	CaptureFileName     *string `json:"capture_file_name,omitempty"`
	CaptureFilePath     *string `json:"capture_file_path,omitempty"`
	CaptureDataLinkType string  `json:"capture_data_link_type,omitempty"`
}

// LinkEnd is one end of a link: a port of a node, as listed in the node's
// ports array, with the label drawn beside it.
type LinkEnd struct {
	NodeID        string     `json:"node_id"`
	AdapterNumber int        `json:"adapter_number"`
	PortNumber    int        `json:"port_number"`
	Label         *LinkLabel `json:"label,omitempty"`
}

// LinkLabel is the text beside one end of a link. GNS3 gives a new link's
// ends only text and style and lets the client place them; a client that
// places or turns one sends numbers. A position is x and y together: the
// GNS3 desktop GUI moves a label only when it gets both, and fails on a
// null, so a position with either missing is left out whole, and so is a
// null rotation.
type LinkLabel struct {
	Text     string  `json:"text"`
	Style    *string `json:"style,omitempty"`
	X        *int    `json:"x,omitempty"`
	Y        *int    `json:"y,omitempty"`
	Rotation *int    `json:"rotation,omitempty"`
}

// UnmarshalJSON reads a label, dropping a half-given position.
func (l *LinkLabel) UnmarshalJSON(b []byte) error {
	type plain LinkLabel
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	if p.X == nil || p.Y == nil {
		p.X, p.Y = nil, nil
	}
	*l = LinkLabel(p)
	return nil
}

// LinkUpdate is a request for a new link or a change to one. On a change,
// Nodes may only relabel the ends: the ports a link joins never change.
type LinkUpdate struct {
	Nodes     Field[[]LinkEnd]                  `json:"nodes"`
	Suspend   Field[bool]                       `json:"suspend"`
	Filters   Field[map[string]json.RawMessage] `json:"filters"`
	LinkStyle Field[map[string]json.RawMessage] `json:"link_style"`
}

// defaultLinkLabelStyle is the style GNS3 gives a link end's label.
const defaultLinkLabelStyle = "font-family: TypeWriter;font-size: 10.0;font-weight: bold;fill: #000000;fill-opacity: 1.0;"

func linkNotFound(id string) error { return Errorf(ENOTFOUND, "Link ID %s doesn't exist", id) }

// CreateLink joins two free ports of two different nodes of a project. A
// link that touches a remote compute is a UDP tunnel, made there first
// (createTunnelLink). Codes: EINVALID (not two ends, a port the node does
// not have), ENOTFOUND (project or node), ECONFLICT (a port already
// linked, a node linked to itself, ports of different link types, cloud
// to cloud, a cloud host port the data plane cannot open: HostPorts; a
// compute's refusal or unreachable).
func (s *Service) CreateLink(ctx context.Context, projectID string, u LinkUpdate) (*Link, error) {
	if err := s.checkLinkHostPorts(projectID, u); err != nil {
		return nil, err
	}
	id := s.c.NewID()
	var l *Link
	var ends [2]*Node
	err := s.update(ctx, func(tx Tx, emit emitFunc) error {
		p, err := findProject(tx, projectID)
		if err != nil {
			return err
		}
		if ends = linkNodesIn(tx, p.ID, u); tunnelled(ends) {
			return errPrepared // where it runs: a tunnel, its computes first
		}
		if l, err = s.newLinkIn(tx, p.ID, id, u); err != nil {
			return err
		}
		emit(EventLinkCreated, l.ProjectID, l)
		return nil
	})
	if errors.Is(err, errPrepared) {
		return s.createTunnelLink(ctx, projectID, id, u, ends)
	}
	if err != nil {
		return nil, err
	}
	return l, nil
}

// newLinkIn makes and stores, inside tx, a new link of project projectID
// with id: two free ports of two different nodes of the project, of the
// same link type, labelled by default with their numbers, and u's
// suspension, filters and style. It is the one way a link is created,
// through the API or from a project file.
func (s *Service) newLinkIn(tx Tx, projectID, id string, u LinkUpdate) (*Link, error) {
	if !u.Nodes.has() || len(u.Nodes.Value) != 2 {
		return nil, Errorf(EINVALID, "A link joins exactly two ports: give two entries in nodes")
	}
	l := &Link{ID: id, ProjectID: projectID}
	var ends [2]*Node
	for i, e := range u.Nodes.Value {
		var err error
		if ends[i], err = findNode(tx, NodeRef{ProjectID: projectID, NodeID: e.NodeID}); err != nil {
			return nil, err
		}
		port, ok := findPort(ends[i], e.AdapterNumber, e.PortNumber)
		if !ok {
			return nil, Errorf(EINVALID, "%s has no port %d/%d; see its ports array", ends[i].Name, e.AdapterNumber, e.PortNumber)
		}
		if err := checkPortFree(tx, ends[i], port, id, false); err != nil {
			return nil, err
		}
		if i == 1 && port.LinkType != l.LinkType {
			return nil, Errorf(ECONFLICT, "Cannot connect a %s port to a %s port", l.LinkType, port.LinkType)
		}
		l.LinkType = port.LinkType
		e.NodeID = ends[i].ID
		if e.Label == nil {
			e.Label = &LinkLabel{Text: fmt.Sprintf("%d/%d", e.AdapterNumber, e.PortNumber), Style: ptr(defaultLinkLabelStyle)}
		}
		l.Nodes = append(l.Nodes, e)
	}
	switch {
	case ends[0].ID == ends[1].ID:
		return nil, Errorf(ECONFLICT, "Cannot connect %s to itself", ends[0].Name)
	case isCloudLike(ends[0].Type) && isCloudLike(ends[1].Type):
		return nil, Errorf(ECONFLICT, "Cannot connect a %s to a %s: link one of them to a node of the lab", ends[0].Type, ends[1].Type)
	}
	if err := u.applyTo(l, false); err != nil {
		return nil, err
	}
	return l, tx.PutLink(l)
}

func isCloudLike(t NodeType) bool { return t.kind().hostSide }

func ptr[T any](v T) *T { return &v }

// findPort returns the port of n with that adapter and port number.
func findPort(n *Node, adapter, port int) (Port, bool) {
	for _, p := range n.Ports() {
		if p.AdapterNumber == adapter && p.PortNumber == port {
			return p, true
		}
	}
	return Port{}, false
}

// applyTo sets the link's suspend, filters (normalized as GNS3 stores
// them), style and (when relabel is true) the labels of its ends.
func (u LinkUpdate) applyTo(l *Link, relabel bool) error {
	setIf(&l.Suspend, u.Suspend)
	if u.Filters.Set {
		f, err := NormalizeFilters(u.Filters.Value)
		if err != nil {
			return err
		}
		l.Filters = f
		if len(l.Filters) == 0 {
			l.Filters = nil // none, however it was said
		}
	}
	if u.LinkStyle.Set {
		l.LinkStyle = u.LinkStyle.Value
		if len(l.LinkStyle) == 0 {
			l.LinkStyle = nil
		}
	}
	if relabel && u.Nodes.has() {
		for _, e := range u.Nodes.Value {
			for i := range l.Nodes {
				if l.Nodes[i].NodeID == e.NodeID && l.Nodes[i].AdapterNumber == e.AdapterNumber &&
					l.Nodes[i].PortNumber == e.PortNumber && e.Label != nil {
					l.Nodes[i].Label = e.Label
				}
			}
		}
	}
	return nil
}

// UpdateLink changes a link's labels, suspension, filters or style. Ends
// that name other ports than the link's are refused: delete the link and
// create another. A tunnelled link's change is sent to its filter side
// too (updateTunnelLink). Codes: EINVALID, ENOTFOUND, ECONFLICT (a
// compute's refusal or unreachable).
func (s *Service) UpdateLink(ctx context.Context, projectID, linkID string, u LinkUpdate) (*Link, error) {
	var l *Link
	err := s.update(ctx, func(tx Tx, emit emitFunc) error {
		before, err := findLink(tx, projectID, linkID)
		if err != nil {
			return err
		}
		if before.Tunnel != nil {
			return errPrepared // where it runs: a tunnel, its computes too
		}
		l, err = changeLinkIn(tx, emit, before, u)
		return err
	})
	if errors.Is(err, errPrepared) {
		return s.updateTunnelLink(ctx, projectID, linkID, u)
	}
	if err != nil {
		return nil, err
	}
	return l, nil
}

// changeLinkIn is UpdateLink's rule, inside tx: before with u applied,
// which is stored; errUnchanged (and before) when u changes nothing.
func changeLinkIn(tx Tx, emit emitFunc, before *Link, u LinkUpdate) (*Link, error) {
	if u.Nodes.has() {
		for _, e := range u.Nodes.Value {
			if !before.joins(e) {
				return nil, Errorf(EINVALID, "Link %s does not join port %d/%d of node %s; a link's ports cannot change: delete it and create another",
					before.ID, e.AdapterNumber, e.PortNumber, e.NodeID)
			}
		}
	}
	after := *before
	after.Nodes = append([]LinkEnd(nil), before.Nodes...)
	if err := u.applyTo(&after, true); err != nil {
		return nil, err
	}
	if unchanged(before, &after) {
		return &after, errUnchanged
	}
	emit(EventLinkUpdated, after.ProjectID, &after)
	return &after, tx.PutLink(&after)
}

// updateTunnelLink changes a tunnelled link: committed unrecorded
// (remoteWrite), then sent to the side of the tunnel that carries its
// filters; a compute's refusal puts the record back as it was.
func (s *Service) updateTunnelLink(ctx context.Context, projectID, linkID string, u LinkUpdate) (*Link, error) {
	var l, prev *Link
	err := s.updateUnrecorded(ctx, func(tx Tx, emit emitFunc) error {
		before, err := findLink(tx, projectID, linkID)
		if err != nil {
			return err
		}
		prev = nil
		if l, err = changeLinkIn(tx, emit, before, u); err == nil {
			prev = before
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := s.syncTunnelFilters(ctx, l); err != nil {
		if prev != nil {
			s.undoLinkUpdate(context.WithoutCancel(ctx), prev, l)
		}
		return nil, err
	}
	return l, nil
}

// undoLinkUpdate puts a tunnelled link's record back as it was when the
// compute refused its change (unless it changed again meanwhile), so that
// what is stored matches what the caller is told.
func (s *Service) undoLinkUpdate(ctx context.Context, before, after *Link) {
	err := s.updateUnrecorded(ctx, func(tx Tx, emit emitFunc) error {
		cur, err := tx.Link(before.ProjectID, before.ID)
		if err != nil || cur == nil || !unchanged(cur, after) {
			return cmpErr(err, errUnchanged)
		}
		emit(EventLinkUpdated, before.ProjectID, before)
		return tx.PutLink(before)
	})
	if err == nil {
		_ = s.syncTunnelFilters(ctx, before) // the side the refusal left half-changed, if any
	}
}

// joins reports whether e names one of the link's ends.
func (l *Link) joins(e LinkEnd) bool {
	id, _ := canonicalID(e.NodeID)
	for _, n := range l.Nodes {
		if n.NodeID == id && n.AdapterNumber == e.AdapterNumber && n.PortNumber == e.PortNumber {
			return true
		}
	}
	return false
}

// DeleteLink deletes a link; a tunnelled link's sides are removed on
// their computes first. Codes: EINVALID, ENOTFOUND.
func (s *Service) DeleteLink(ctx context.Context, projectID, linkID string) error {
	var tunnel *Link
	err := s.update(ctx, func(tx Tx, emit emitFunc) error {
		l, err := findLink(tx, projectID, linkID)
		if err != nil {
			return err
		}
		if tunnel = nil; l.Tunnel != nil {
			tunnel = l
			return errPrepared // where it runs: a tunnel, its computes first
		}
		return deleteLinkIn(tx, emit, l)
	})
	if !errors.Is(err, errPrepared) {
		return err
	}
	s.breakLinkTunnels(ctx, []*Link{tunnel})
	return s.updateUnrecorded(ctx, func(tx Tx, emit emitFunc) error { // not undoable: see remoteWrite
		l, err := findLink(tx, projectID, linkID)
		if err != nil {
			return err
		}
		return deleteLinkIn(tx, emit, l)
	})
}

// deleteLinkIn deletes l, inside tx.
func deleteLinkIn(tx Tx, emit emitFunc, l *Link) error {
	emit(EventLinkDeleted, l.ProjectID, l)
	return tx.DeleteLink(l.ProjectID, l.ID)
}

// FindLinks returns a project's links in creation order. Codes: ENOTFOUND.
func (s *Service) FindLinks(ctx context.Context, projectID string) ([]*Link, error) {
	var ls []*Link
	err := s.view(func(tx Tx) error {
		p, err := findProject(tx, projectID)
		if err != nil {
			return err
		}
		ls, err = tx.Links(p.ID)
		return err
	})
	return ls, err
}

// FindLink returns one link. Codes: EINVALID, ENOTFOUND.
func (s *Service) FindLink(ctx context.Context, projectID, linkID string) (*Link, error) {
	var l *Link
	err := s.view(func(tx Tx) (err error) {
		l, err = findLink(tx, projectID, linkID)
		return err
	})
	return l, err
}

// FindNodeLinks returns the links of one node. Codes: EINVALID, ENOTFOUND.
func (s *Service) FindNodeLinks(ctx context.Context, ref NodeRef) ([]*Link, error) {
	var ls []*Link
	err := s.view(func(tx Tx) error {
		n, err := findNode(tx, ref)
		if err != nil {
			return err
		}
		ls, err = tx.NodeLinks(n.ProjectID, n.ID)
		return err
	})
	return ls, err
}

func findLink(tx Tx, projectID, linkID string) (*Link, error) {
	p, err := findProject(tx, projectID)
	if err != nil {
		return nil, err
	}
	lid, ok := canonicalID(linkID)
	if !ok { // links follow GNS3: an id that is no UUID is simply not found
		return nil, linkNotFound(linkID)
	}
	l, err := tx.Link(p.ID, lid)
	if err == nil && l == nil {
		err = linkNotFound(linkID)
	}
	return l, err
}

// checkLinkedPorts refuses a change to a node that would remove a port a
// link or a NIO is attached to.
func checkLinkedPorts(tx Tx, n *Node) error {
	nios, err := tx.NIOs(n.ProjectID)
	if err != nil {
		return err
	}
	for _, x := range nios {
		if _, ok := findPort(n, x.AdapterNumber, x.PortNumber); x.NodeID == n.ID && !ok {
			return Errorf(ECONFLICT, "Port %d/%d of %s carries a UDP tunnel (NIO) a GNS3 controller set; delete its link on that controller before removing the port",
				x.AdapterNumber, x.PortNumber, n.Name)
		}
	}
	links, err := tx.NodeLinks(n.ProjectID, n.ID)
	if err != nil {
		return err
	}
	for _, l := range links {
		for _, e := range l.Nodes {
			if e.NodeID != n.ID {
				continue
			}
			if _, ok := findPort(n, e.AdapterNumber, e.PortNumber); !ok {
				return Errorf(ECONFLICT, "Port %d/%d of %s has a link attached; delete link %s before removing the port",
					e.AdapterNumber, e.PortNumber, n.Name, l.ID)
			}
		}
	}
	return nil
}

// Stats counts what a project holds.
type Stats struct {
	Nodes, Links, Drawings, Snapshots int
}

// ProjectStats counts a project's nodes, links and drawings (not its
// snapshots: Snapshots stays 0). Codes: ENOTFOUND.
func (s *Service) ProjectStats(ctx context.Context, projectID string) (Stats, error) {
	var st Stats
	err := s.view(func(tx Tx) error {
		p, err := findProject(tx, projectID)
		if err != nil {
			return err
		}
		ns, ls, ds, err := projectRecords(tx, p.ID)
		st.Nodes, st.Links, st.Drawings = len(ns), len(ls), len(ds)
		return err
	})
	return st, err
}
