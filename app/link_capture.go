package app

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Packet capture on a link, as GNS3 offers it: the Service records that a
// link is capturing and where to; the data plane, which follows committed
// links, writes the file.

// LinkCapture is a request to start capturing a link's frames.
type LinkCapture struct {
	FileName     Field[string] `json:"capture_file_name"`
	DataLinkType Field[string] `json:"data_link_type"`
}

// dataLinkTypes lists the capture formats of each link type; the first is
// the default.
var dataLinkTypes = map[string][]string{
	"ethernet": {"DLT_EN10MB"},
	"serial":   {"DLT_FRELAY"},
}

// portFormats are the capture formats a port offers (its data_link_types)
// that nodedesk writes, in this order of preference: an ATM port's cells
// are captured as DLT_ATM_RFC1483, as GNS3 captures them.
var portFormats = []string{"DLT_EN10MB", "DLT_FRELAY", "DLT_ATM_RFC1483"}

// captureFormats lists the formats a capture of a link of linkType
// between ports can write, its default first: those the ports offer that
// nodedesk writes (the first port's first), else its link type's.
func captureFormats(linkType string, ports ...Port) []string {
	var out []string
	for _, p := range ports {
		for _, f := range portFormats {
			for _, offered := range p.DataLinkTypes {
				if offered == f && !slices.Contains(out, f) {
					out = append(out, f)
				}
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	if out = dataLinkTypes[linkType]; len(out) == 0 {
		out = dataLinkTypes["ethernet"]
	}
	return out
}

// CaptureDir is the folder of a project's capture files.
func (s *Service) CaptureDir(projectID string) string {
	return filepath.Join(s.ProjectDir(projectID), "project-files", "captures")
}

// StartCapture starts capturing a link's frames to a pcap file in the
// project's captures folder; a link whose two nodes are remote is captured
// on a compute (startCaptureOnCompute). Codes: EINVALID (a file name with a
// path, a data link type the link cannot carry), ENOTFOUND, ECONFLICT
// (already capturing; on a compute: none of its nodes started, compute
// unreachable).
func (s *Service) StartCapture(ctx context.Context, projectID, linkID string, c LinkCapture) (*Link, error) {
	if l, err := s.FindLink(ctx, projectID, linkID); err == nil && capturedOnCompute(l) {
		return s.startCaptureOnCompute(ctx, projectID, linkID, c)
	}
	var l *Link
	err := s.update(ctx, func(tx Tx, emit emitFunc) (err error) {
		if l, err = s.prepareCapture(tx, projectID, linkID, c); err != nil {
			return err
		}
		emit(EventLinkUpdated, l.ProjectID, l)
		return tx.PutLink(l)
	})
	return l, err
}

// prepareCapture is the link as a capture would make it, inside tx.
func (s *Service) prepareCapture(tx Tx, projectID, linkID string, c LinkCapture) (*Link, error) {
	before, err := findLink(tx, projectID, linkID)
	if err != nil {
		return nil, err
	}
	if before.Capturing {
		return nil, Errorf(ECONFLICT, "Link %s is already capturing to %s; stop that capture first", before.ID, *before.CaptureFileName)
	}
	dlt, err := captureDataLinkType(before.LinkType, linkPorts(tx, before), c.DataLinkType)
	if err != nil {
		return nil, err
	}
	name, err := s.captureFileName(tx, before, c.FileName)
	if err != nil {
		return nil, err
	}
	after := *before
	path := filepath.Join(s.CaptureDir(after.ProjectID), name)
	after.Capturing, after.CaptureFileName, after.CaptureFilePath, after.CaptureDataLinkType = true, &name, &path, dlt
	return &after, nil
}

// linkPorts are the ports at l's ends that are known, in l's order.
func linkPorts(tx Tx, l *Link) []Port {
	var ports []Port
	for _, e := range l.Nodes {
		if n, err := tx.Node(l.ProjectID, e.NodeID); err == nil && n != nil {
			if p, ok := findPort(n, e.AdapterNumber, e.PortNumber); ok {
				ports = append(ports, p)
			}
		}
	}
	return ports
}

// captureFileName is the file a capture writes: the one asked for (a bare
// file name), or GNS3's default, "<node>_<port>_to_<node>_<port>.pcap".
func (s *Service) captureFileName(tx Tx, l *Link, asked Field[string]) (string, error) {
	if asked.has() && asked.Value != "" {
		return checkCaptureFileName(asked.Value)
	}
	parts := make([]string, 0, 2)
	for _, e := range l.Nodes {
		n, err := tx.Node(l.ProjectID, e.NodeID)
		if err != nil {
			return "", err
		}
		name := e.NodeID
		if n != nil {
			name = n.Name
			if p, ok := findPort(n, e.AdapterNumber, e.PortNumber); ok {
				name += "_" + p.Name
			}
		}
		parts = append(parts, strings.Map(fileSafe, name))
	}
	return fmt.Sprintf("%s_to_%s.pcap", parts[0], parts[1]), nil
}

// checkCaptureFileName refuses a capture file name that is not a bare
// file name.
func checkCaptureFileName(name string) (string, error) {
	if name != filepath.Base(name) || name == "." || name == ".." || strings.ContainsAny(name, "\x00\\") {
		return "", Invalid("capture_file_name", "Capture file name %q must be a file name, without a folder; it is written in the project's captures folder", name)
	}
	return name, nil
}

// captureDataLinkType is the data link type a capture of a link of
// linkType between ports writes: the one asked for, if they can carry
// it, or their default (captureFormats).
func captureDataLinkType(linkType string, ports []Port, asked Field[string]) (string, error) {
	allowed := captureFormats(linkType, ports...)
	dlt := allowed[0]
	if asked.has() {
		dlt = asked.Value
	}
	if !slices.Contains(allowed, dlt) {
		return "", Invalid("data_link_type", "A %s link is captured as %s, not %s", linkType, strings.Join(allowed, " or "), dlt)
	}
	return dlt, nil
}

func fileSafe(r rune) rune {
	if r == '/' || r == '\\' || r == ' ' || r < 32 {
		return '_'
	}
	return r
}

// StopCapture stops a link's capture; the file stays. Stopping a link
// that does not capture changes nothing. A capture on a compute is
// stopped there (a compute that does not answer is logged). Codes:
// ENOTFOUND.
func (s *Service) StopCapture(ctx context.Context, projectID, linkID string) (*Link, error) {
	cur, err := s.FindLink(ctx, projectID, linkID)
	if err != nil {
		return nil, err
	}
	onCompute := cur.Capturing && cur.CapturedOnCompute()
	if onCompute {
		s.stopComputeCapture(ctx, cur)
	}
	var l *Link
	err = s.remoteWrite(onCompute)(ctx, func(tx Tx, emit emitFunc) error {
		before, err := findLink(tx, projectID, linkID)
		if err != nil {
			return err
		}
		l = before
		if !before.Capturing {
			return errUnchanged
		}
		after := *before
		after.Capturing = false
		if after.Tunnel != nil && after.Tunnel.Capture != nil {
			t := *after.Tunnel
			t.Capture = nil
			after.Tunnel = &t
		}
		l = &after
		emit(EventLinkUpdated, l.ProjectID, l)
		return tx.PutLink(l)
	})
	return l, err
}

// AvailableFilters lists the filters a link can take. nodedesk carries
// every link's frames itself, so every link takes every filter (GNS3
// offers none on links between its builtin switches). Codes: ENOTFOUND.
func (s *Service) AvailableFilters(ctx context.Context, projectID, linkID string) ([]FilterInfo, error) {
	if _, err := s.FindLink(ctx, projectID, linkID); err != nil {
		return nil, err
	}
	return AvailableFilters(), nil
}

// ReconcileCaptures records as stopped every capture a previous nodedesk
// left running: at start-up none is written.
func (s *Service) ReconcileCaptures(ctx context.Context) error {
	return s.update(ctx, func(tx Tx, emit emitFunc) error {
		projects, err := tx.Projects()
		if err != nil {
			return err
		}
		changed := false
		for _, p := range projects {
			links, err := tx.Links(p.ID)
			if err != nil {
				return err
			}
			for _, l := range links {
				if !l.Capturing {
					continue
				}
				c := *l
				c.Capturing, changed = false, true
				emit(EventLinkUpdated, c.ProjectID, &c)
				if err := tx.PutLink(&c); err != nil {
					return err
				}
			}
			nios, err := tx.NIOs(p.ID)
			if err != nil {
				return err
			}
			for _, n := range nios {
				if n.Capturing {
					n.Capturing, changed = false, true
					if err := tx.PutNIO(n); err != nil {
						return err
					}
				}
			}
		}
		if !changed {
			return errUnchanged
		}
		return nil
	})
}

// CaptureComputeID is the compute that captures l's frames while it
// captures, as GNS3 names it: the compute of the side a capture on a
// compute runs on, else this nodedesk ("local"), whose data plane writes
// the file; nil when l does not capture.
func (l *Link) CaptureComputeID() *string {
	switch {
	case !l.Capturing:
		return nil
	case l.CapturedOnCompute() && *l.Tunnel.Capture >= 0 && *l.Tunnel.Capture < len(l.Tunnel.Ends):
		return ptr(l.Tunnel.Ends[*l.Tunnel.Capture].ComputeID)
	}
	return ptr(LocalCompute)
}
