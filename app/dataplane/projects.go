package dataplane

import (
	"context"

	"nodedesk/app"
)

// Projects: the fabric carries the frames of open projects only. A closed
// or deleted project's switches, hubs, clouds and NAT gateways stop with
// it — their UDP tunnels, consoles and host interfaces are released, as
// GNS3 releases them when it closes a project — and come back when it is
// opened again.

// carriedNode is what the fabric knows of a node it carries besides its
// engine and ports: its project, and its name for what users are told.
type carriedNode struct{ project, name string }

// noteNodeProject records the project and name of a node the fabric
// carries; under mu.
func (f *Fabric) noteNodeProject(n *app.Node) {
	if f.carriedNodes == nil {
		f.carriedNodes = map[string]carriedNode{}
	}
	f.carriedNodes[n.ID] = carriedNode{project: n.ProjectID, name: n.Name}
}

// tellProject is a function that tells the users of node id's project a
// warning about it (on the project's notification stream, as GNS3 tells
// its compute's warnings); it does nothing without a Service. Call with
// mu held; the function it returns may be called from any goroutine.
func (f *Fabric) tellProject(id string) func(msg func(node string) string) {
	n, svc := f.carriedNodes[id], f.svc
	return func(msg func(node string) string) {
		if svc != nil && n.project != "" {
			svc.OnProcessNote(n.project, id, app.Note{Message: msg(n.name)})
		}
	}
}

// carried reports whether the fabric carries the frames of project id:
// every project but those it saw closed.
func (f *Fabric) carried(projectID string) bool { return !f.closed[projectID] }

// applyProject follows a project's life: closing or deleting it drops its
// nodes, links and NIOs; opening it loads them again from svc.
func (f *Fabric) applyProject(d *draft, action app.EventAction, p *app.Project) {
	switch {
	case action == app.EventProjectDeleted || p.Status == app.ProjectClosed:
		if f.closed == nil {
			f.closed = map[string]bool{}
		}
		if f.closed[p.ID] && action != app.EventProjectDeleted {
			return
		}
		f.closed[p.ID] = true
		f.dropProject(d, p.ID)
		if action == app.EventProjectDeleted {
			delete(f.closed, p.ID) // no event names it again
		}
	case f.closed[p.ID]:
		delete(f.closed, p.ID)
		f.loadProject(d, p.ID)
	}
}

// dropProject drops every node and link of project id the fabric carries.
func (f *Fabric) dropProject(d *draft, id string) {
	for linkID, l := range f.linkRecs {
		if l.ProjectID == id {
			f.dropLink(d, linkID)
		}
	}
	for nodeID, n := range f.carriedNodes {
		if n.project == id {
			f.dropNode(d, nodeID)
		}
	}
}

// loadProject loads project id's nodes, links and NIOs from the service
// the fabric follows (none without Attach).
func (f *Fabric) loadProject(d *draft, id string) {
	if f.svc == nil {
		return
	}
	ctx := context.Background()
	nodes, err := f.svc.FindNodes(ctx, id)
	if err != nil {
		f.log.Error("dataplane: an opened project's nodes cannot be read", "project", id, "err", err)
		return
	}
	links, err := f.svc.FindLinks(ctx, id)
	if err != nil {
		f.log.Error("dataplane: an opened project's links cannot be read", "project", id, "err", err)
		return
	}
	nios, err := f.svc.FindNIOs(ctx, id)
	if err != nil {
		f.log.Error("dataplane: an opened project's NIOs cannot be read", "project", id, "err", err)
		return
	}
	for _, n := range nodes {
		f.putNode(d, n)
	}
	for _, l := range links {
		f.putLink(d, l)
	}
	for _, n := range nios {
		f.putNIO(d, n)
	}
}
