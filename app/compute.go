package app

import (
	"context"
	"net"
	"path/filepath"
	"slices"
	"strings"
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
	return s.updateRuntime(ctx, func(tx Tx, emit emitFunc) error {
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
	err := s.updateRuntime(ctx, func(tx Tx, emit emitFunc) error {
		n, err := findNode(tx, ref)
		if err != nil {
			return err
		}
		nio, err := tx.NIO(n.ProjectID, n.ID, adapter, port)
		switch {
		case err != nil:
			return err
		case nio == nil:
			return Errorf(ECONFLICT, "Port %d/%d of %s has no NIO to capture; link it first", adapter, port, n.Name)
		case nio.Capturing:
			return Errorf(ECONFLICT, "Packet capture is already running on port %d/%d of %s; stop it first", adapter, port, n.Name)
		}
		linkType := "ethernet"
		if p, ok := findPort(n, adapter, port); ok {
			linkType = p.LinkType
		}
		dlt, err := captureDataLinkType(linkType, c.DataLinkType)
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
	return s.updateRuntime(ctx, func(tx Tx, emit emitFunc) error {
		n, err := findNode(tx, ref)
		if err != nil {
			return err
		}
		nio, err := tx.NIO(n.ProjectID, n.ID, adapter, port)
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
// share a subnet on; type and special are the cloud's rule
// (SystemInterfaces).
func NetworkInterfaces() []NetworkInterface {
	ifaces, err := net.Interfaces()
	if err != nil {
		return []NetworkInterface{}
	}
	out := make([]NetworkInterface, 0, len(ifaces))
	for _, i := range ifaces {
		h := hostInterfaceOf(i)
		n := NetworkInterface{ID: i.Name, Name: i.Name, MACAddress: i.HardwareAddr.String(), Type: h.Type, Special: h.Special}
		addrs, _ := i.Addrs()
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil {
				n.IPAddress, n.Netmask = ipn.IP.String(), net.IP(ipn.Mask).String()
				break
			}
		}
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b NetworkInterface) int { return strings.Compare(a.Name, b.Name) })
	return out
}
