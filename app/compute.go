package app

import (
	"cmp"
	"context"
	"crypto/md5"
	"encoding/hex"
	"io"
	"path/filepath"
	"time"
)

// The compute side's own use cases beyond nodes and NIOs: what a GNS3
// controller asks of a compute when it closes a project, captures on a
// port, or looks at the compute's host.

// CloseComputeProject is a GNS3 controller closing a project on this
// compute: its nodes stop, its NIOs and its UDP reservations go (the
// controller makes them again when it opens the project); its records
// stay. Codes: ENOTFOUND.
func (s *Service) CloseComputeProject(ctx context.Context, projectID string) error {
	if err := s.ProjectAction(ctx, projectID, Stop); err != nil {
		return err
	}
	return s.updateUnrecorded(ctx, func(tx Tx, emit emitFunc) error {
		p, err := findProject(tx, projectID)
		if err != nil {
			return err
		}
		nios, err := tx.NIOs(p.ID)
		if err != nil {
			return err
		}
		for _, n := range nios {
			if err := tx.DeleteNIO(n.ProjectID, n.NodeID, n.AdapterNumber, n.PortNumber); err != nil {
				return err
			}
			emit(EventNIODeleted, n.ProjectID, n)
		}
		return tx.ReleaseUDPReservations(p.ID)
	})
}

// StartNIOCapture starts capturing the frames of the NIO of a port to a
// pcap file of the project's captures folder (GNS3's start_capture on a
// compute port). Codes: ENOTFOUND (project, node), EINVALID (file name,
// data link type), ECONFLICT (no NIO on the port, already capturing).
func (s *Service) StartNIOCapture(ctx context.Context, ref NodeRef, adapter, port int, c LinkCapture) (*NIO, error) {
	var out *NIO
	err := s.updateUnrecorded(ctx, func(tx Tx, emit emitFunc) error {
		n, nio, err := findNIO(tx, ref, adapter, port)
		switch {
		case err != nil:
			return err
		case nio == nil:
			return Errorf(ECONFLICT, "Port %d/%d of %s has no NIO to capture; link it first", adapter, port, n.Name)
		case nio.Capturing:
			return Errorf(ECONFLICT, "Packet capture is already running on port %d/%d of %s; stop it first", adapter, port, n.Name)
		}
		linkType, ports := "ethernet", []Port(nil)
		if p, ok := findPort(n, adapter, port); ok {
			linkType, ports = p.LinkType, []Port{p}
		}
		dlt, err := captureDataLinkType(linkType, ports, c.DataLinkType)
		if err != nil {
			return err
		}
		if !c.FileName.has() || c.FileName.Value == "" {
			return Invalid("capture_file_name", "A capture needs capture_file_name, the pcap file's name")
		}
		name, err := checkCaptureFileName(c.FileName.Value)
		if err != nil {
			return err
		}
		path := filepath.Join(s.CaptureDir(n.ProjectID), name)
		nio.Capturing, nio.CaptureFileName, nio.CaptureFilePath, nio.CaptureDataLinkType = true, &name, &path, dlt
		out = nio
		emit(EventNIOUpdated, nio.ProjectID, nio)
		return tx.PutNIO(nio)
	})
	return out, err
}

// StopNIOCapture stops the capture of the NIO of a port; the file stays.
// A port without NIO or capture changes nothing. Codes: ENOTFOUND
// (project, node).
func (s *Service) StopNIOCapture(ctx context.Context, ref NodeRef, adapter, port int) error {
	return s.updateUnrecorded(ctx, func(tx Tx, emit emitFunc) error {
		_, nio, err := findNIO(tx, ref, adapter, port)
		if err != nil {
			return err
		}
		if nio == nil || !nio.Capturing {
			return errUnchanged
		}
		nio.Capturing = false
		emit(EventNIOUpdated, nio.ProjectID, nio)
		return tx.PutNIO(nio)
	})
}

// UsedUDPPorts lists the UDP ports of the range this nodedesk holds: VPCS
// pairs, NIO lports and reservations (GNS3's udp_ports of a compute).
func (s *Service) UsedUDPPorts(ctx context.Context) ([]int, error) {
	var out []int
	err := s.view(func(tx Tx) (err error) {
		out, err = tx.UDPPortsInUse()
		return err
	})
	return out, err
}

// NetworkInterface is an interface of this machine as a GNS3 compute
// describes it (GET /v2/compute/network/interfaces).
type NetworkInterface struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	IPAddress  string `json:"ip_address"`
	Netmask    string `json:"netmask"`
	MACAddress string `json:"mac_address"`
	Type       string `json:"type"`
	Special    bool   `json:"special"`
}

// NetworkInterfaces lists this machine's interfaces with their first IPv4
// address, as a GNS3 controller reads them to find addresses two computes
// share a subnet on (Config.NetworkInterfaces).
func (s *Service) NetworkInterfaces() []NetworkInterface { return s.c.NetworkInterfaces() }

// DuplicateComputeNode gives node dstID, which a GNS3 controller has just
// created as a copy of src, what the controller could not copy itself
// (GNS3's POST …/nodes/{n}/duplicate on a compute): src's folder, which
// replaces dstID's (copyNodeFolder: a QEMU node's disks), and the files
// src's type owns (a VPCS's startup script). The other settings came with
// the copy. Neither node may run meanwhile (duplicable); their lifecycle
// calls wait for the copy. Codes: EINVALID (a node onto itself),
// ENOTFOUND (project, either node, or dstID not of src's type), ECONFLICT
// (either runs, the folder cannot be copied).
func (s *Service) DuplicateComputeNode(ctx context.Context, src NodeRef, dstID string) (*Node, error) {
	from, err := s.FindNode(ctx, src)
	if err != nil {
		return nil, err
	}
	to := NodeRef{ProjectID: from.ProjectID, NodeID: dstID, Type: from.Type}
	dst, err := s.FindNode(ctx, to)
	if err != nil {
		return nil, err
	}
	if dst.ID == from.ID {
		return nil, Errorf(EINVALID, "Node %s cannot be duplicated onto itself; give a new node as destination_node_id", from.Name)
	}
	first, second := min(from.ID, dst.ID), max(from.ID, dst.ID) // one order: two copies never wait on each other
	defer s.lockNode(first)()
	defer s.lockNode(second)()
	if from, err = s.FindNode(ctx, src); err != nil { // as they are now we hold the locks
		return nil, err
	}
	if dst, err = s.FindNode(ctx, to); err != nil {
		return nil, err
	}
	if err := cmp.Or(duplicable(from), duplicable(dst)); err != nil {
		return nil, err
	}
	if err := s.copyNodeFolder(from, dst.ID); err != nil {
		return nil, err
	}
	files := from.ownFiles()
	if len(files) == 0 {
		return dst, nil
	}
	u, err := filesUpdate(from.Type, files)
	if err != nil {
		return nil, err
	}
	return s.UpdateNode(ctx, to, NodeUpdate{Properties: u})
}

// ComputeFile is a file of a project's folder on this compute, as a GNS3
// controller lists them to export the project.
type ComputeFile struct {
	Path   string `json:"path"`
	MD5Sum string `json:"md5sum"`
}

// ListComputeFiles lists the files of a project's folder that an export
// carries, with the files the nodes' types own (a VPCS's startup.vpc)
// from the store (folderFiles, the export's one list), and their MD5 sums
// (GNS3's GET …/files on a compute; each is then read through
// ReadProjectFile). Codes: ENOTFOUND.
func (s *Service) ListComputeFiles(ctx context.Context, projectID string) ([]ComputeFile, error) {
	var p *Project
	var nodes []*Node
	err := s.view(func(tx Tx) (err error) {
		if p, err = findProject(tx, projectID); err != nil {
			return err
		}
		nodes, err = tx.Nodes(p.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	files, err := folderFiles(s.ProjectDir(p.ID), nodes, time.Now())
	if err != nil {
		return nil, err
	}
	out := make([]ComputeFile, 0, len(files))
	for _, f := range files {
		rc, err := f.Open()
		if err != nil {
			continue // gone meanwhile
		}
		h := md5.New()
		_, err = io.Copy(h, rc)
		_ = rc.Close()
		if err == nil {
			out = append(out, ComputeFile{Path: f.Path, MD5Sum: hex.EncodeToString(h.Sum(nil))})
		}
	}
	return out, nil
}
