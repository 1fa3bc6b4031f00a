package app

import (
	"context"
	"slices"
	"strings"
)

// A node's disks: the drives its images are attached as (QEMU's hda…hdd),
// which GNS3 lets a user grow while the node is stopped.

// DiskResizer is a Runner that grows a node's disk in place (QEMU, with
// qemu-img): the linked clone, made first if the node never ran, or the
// image itself when the node does not use linked clones.
type DiskResizer interface {
	ResizeDisk(p Process, drive string, extendMB int) error
}

// diskSuffix ends the image properties that are disks.
const diskSuffix = "_disk_image"

// Drives lists the drives of a node of type t (hda, hdb, …): its image
// properties that are disks.
func (t NodeType) Drives() []string {
	var drives []string
	for _, k := range t.ImageProperties() {
		if d, ok := strings.CutSuffix(k, diskSuffix); ok {
			drives = append(drives, d)
		}
	}
	return drives
}

// ResizeNodeDisk grows drive of a stopped node by extendMB MiB, as GNS3's
// "Resize" of a disk does. Codes: ENOTFOUND; EINVALID (no such drive, a
// size below 1 MiB, no image on the drive); ECONFLICT (the node runs, is
// on a remote compute, or qemu-img failed).
func (s *Service) ResizeNodeDisk(ctx context.Context, ref NodeRef, drive string, extendMB int) error {
	n, err := s.FindNode(ctx, ref)
	if err != nil {
		return err
	}
	unlock := s.lockNode(n.ID)
	defer unlock()
	if n, err = s.FindNode(ctx, ref); err != nil {
		return err
	}
	drives := n.Type.Drives()
	if !slices.Contains(drives, drive) {
		if len(drives) == 0 {
			return Invalid("drive_name", "A %s node has no disk to resize", n.Type)
		}
		return Invalid("drive_name", "%s has no drive %q; its drives are %s", n.Name, drive, strings.Join(drives, ", "))
	}
	if extendMB < 1 {
		return Invalid("extend", "A disk grows by at least 1 MiB; extend %d cannot be used", extendMB)
	}
	if n.Remote() {
		return Errorf(ECONFLICT, "%s lives on compute %s: resize its disk there", n.Name, n.ComputeID)
	}
	if n.Active() {
		return Conflict("status", "%s must be stopped to resize its disk; stop it first", n.Name)
	}
	r, ok := s.runner(n.Type).(DiskResizer)
	if !ok {
		return Errorf(ECONFLICT, "nodedesk cannot resize the disks of %s nodes here", n.Type)
	}
	images, err := s.nodeImages(n)
	if err != nil {
		return err
	}
	if images[drive+diskSuffix] == "" {
		return Invalid("drive_name", "%s has no image on %s: give it a %s%s first", n.Name, drive, drive, diskSuffix)
	}
	return r.ResizeDisk(s.processOf(n, images), drive, extendMB)
}
