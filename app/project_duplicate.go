package app

import (
	"context"
	"fmt"
)

// ProjectDuplicate is a request for a copy of a project ("Save as").
type ProjectDuplicate struct {
	// Name of the copy; default the project's. A name another project has
	// becomes "name-1", "name-2", ..., as in GNS3.
	Name Field[string]
	// ResetMACAddresses gives the copy's VPCS nodes new MAC addresses at
	// their next start, and its QEMU nodes the ones of their new ids,
	// instead of the original's.
	ResetMACAddresses bool
}

// DuplicateProject copies a project in one transaction: its settings,
// nodes, links, drawings and snapshots, under new ids (links re-pointed to
// the new nodes), with the same node names and new console ports. The copy
// is closed and its auto_open, auto_close and auto_start are off, as GNS3
// does; its process-run nodes are stopped. Files of node folders other
// than what the store holds are not copied, nor the files the snapshots
// kept (their node folders are named by the old node ids). Codes: EINVALID, ENOTFOUND,
// ECONFLICT (no console port free).
func (s *Service) DuplicateProject(ctx context.Context, projectID string, d ProjectDuplicate) (*Project, error) {
	if d.Name.Set && !d.Name.Null {
		if err := checkName("project", d.Name.Value); err != nil {
			return nil, err
		}
	}
	var dup *Project
	err := s.update(ctx, func(tx Tx, emit emitFunc) error {
		src, err := findProject(tx, projectID)
		if err != nil {
			return err
		}
		name := src.Name
		if d.Name.has() {
			name = d.Name.Value
		}
		if name, err = freeProjectName(tx, name); err != nil {
			return err
		}
		ids := map[string]string{}
		newID := func(old string) string {
			if id, ok := ids[old]; ok {
				return id
			}
			ids[old] = s.c.NewID()
			return ids[old]
		}
		c := *src
		c.ID, c.Name, c.Filename, c.Status, c.Seq, c.Closure = s.c.NewID(), name, projectFilename(name), ProjectClosed, 0, nil
		c.AutoOpen, c.AutoClose, c.AutoStart = false, false, false
		dup = &c
		emit(EventProjectCreated, dup.ID, dup)
		if err := tx.PutProject(dup); err != nil {
			return err
		}
		nodes, links, drawings, err := projectRecords(tx, src.ID)
		if err != nil {
			return err
		}
		ns, ls, ds := copied(dup.ID, newID, d.ResetMACAddresses, nodes, links, drawings)
		if err := s.putRecords(tx, emit, ns, ls, ds); err != nil {
			return err
		}
		snaps, err := tx.Snapshots(src.ID)
		if err != nil {
			return err
		}
		for _, snap := range snaps {
			sc := *snap
			sc.ID, sc.ProjectID = s.c.NewID(), dup.ID
			p := *snap.Project
			p.ID = dup.ID
			sc.Project = &p
			sc.Nodes, sc.Links, sc.Drawings = copied(dup.ID, newID, d.ResetMACAddresses, snap.Nodes, snap.Links, snap.Drawings)
			if err := tx.PutSnapshot(&sc); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return dup, nil
}

// copied returns copies of a project's records for the project projectID:
// new ids from newID (the same old id always gives the same new one, so
// links follow their nodes), creation order kept, process-run nodes
// stopped, no UDP ports (claimed at the next start), captures off. Console
// ports are kept for putRecords to replace when taken.
func copied(projectID string, newID func(string) string, resetMACs bool, nodes []*Node, links []*Link, drawings []*Drawing) ([]*Node, []*Link, []*Drawing) {
	ns, ls, ds := frozen(nodes, links, drawings)
	for _, n := range ns {
		n.ID, n.ProjectID, n.Seq, n.UDPPorts = newID(n.ID), projectID, 0, nil
		if resetMACs {
			n.Properties.MACOffset = nil
			n.renewUnique()
		}
	}
	for _, l := range ls {
		l.ID, l.ProjectID, l.Seq = newID(l.ID), projectID, 0
		l.CaptureFileName, l.CaptureFilePath, l.CaptureDataLinkType = nil, nil, ""
		ends := make([]LinkEnd, len(l.Nodes))
		for i, e := range l.Nodes {
			e.NodeID = newID(e.NodeID)
			ends[i] = e
		}
		l.Nodes = ends
	}
	for _, d := range ds {
		d.ID, d.ProjectID, d.Seq = newID(d.ID), projectID, 0
	}
	return ns, ls, ds
}

// freeProjectName returns name if no project has it, else the first of
// name-1, name-2, ... that none has.
func freeProjectName(tx Tx, name string) (string, error) {
	all, err := tx.Projects()
	if err != nil {
		return "", err
	}
	used := map[string]bool{}
	for _, p := range all {
		used[p.Name] = true
	}
	for i, n := 1, name; ; i++ {
		if !used[n] {
			return n, nil
		}
		n = fmt.Sprintf("%s-%d", name, i)
	}
}
