package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// QEMUTools is what nodedesk asks of the QEMU programs installed on this
// machine: which there are, whether KVM works, and qemu-img's disk work.
// QEMU's runner (package app/qemu) has it; without it QEMU is not
// available.
type QEMUTools interface {
	// Binaries lists the qemu-system-* programs found, with their
	// versions; with archs, only those whose name ends with one of them
	// (qemu-system-x86_64 for x86_64), as GNS3 filters them.
	Binaries(ctx context.Context, archs []string) ([]QEMUBinary, error)
	// ImgBinaries lists the qemu-img programs found, with their versions.
	ImgBinaries(ctx context.Context) ([]QEMUBinary, error)
	// Capabilities says which guest architectures KVM accelerates here:
	// only those for which a probe guest ran under KVM in time, never
	// because /dev/kvm exists.
	Capabilities(ctx context.Context) QEMUCapabilities
	// CreateImage makes a disk image with qemu-img create; spec.Path is
	// absolute and names no existing file.
	CreateImage(ctx context.Context, spec QEMUImageSpec) error
	// ResizeImage grows an existing disk image with qemu-img resize;
	// spec.Path is absolute.
	ResizeImage(ctx context.Context, spec QEMUImageResize) error
}

// QEMUBinary is one QEMU program: its path and its version ("7.2.22"; ""
// when it would not tell), as GNS3 lists them.
type QEMUBinary struct {
	Path    string `json:"path"`
	Version string `json:"version"`
}

// The accelerations a QEMU node runs under.
const (
	AccelKVM  = "kvm"  // hardware virtualisation
	AccelTCG  = "tcg"  // QEMU's translator: no hardware help, slower
	AccelNone = "none" // QEMU is not available: nothing runs
)

// QEMUCapabilities are what GNS3 answers at GET /v2/compute/qemu/capabilities
// (kvm: the architectures KVM accelerates), with nodedesk's word on the
// acceleration its nodes get and why.
type QEMUCapabilities struct {
	KVM []string `json:"kvm"`
	// Acceleration is AccelKVM, AccelTCG or AccelNone.
	Acceleration string `json:"acceleration"`
	// AccelerationNote says what the acceleration means for the user,
	// such as "running without hardware acceleration: slower (…)".
	AccelerationNote string `json:"acceleration_note,omitempty"`
}

// QEMUImageSpec is a disk image to make, as GNS3's POST
// /v2/compute/qemu/img takes it: the qemu-img program, the path (relative:
// in the QEMU images folder), the format, the size in MiB, and the
// format's options qemu-img takes with -o (those not given are left out).
type QEMUImageSpec struct {
	QEMUImg       string `json:"qemu_img"`
	Path          string `json:"path"`
	Format        string `json:"format"`
	Size          int64  `json:"size"`
	Preallocation string `json:"preallocation,omitempty"`
	ClusterSize   int64  `json:"cluster_size,omitempty"`
	RefcountBits  int64  `json:"refcount_bits,omitempty"`
	LazyRefcounts string `json:"lazy_refcounts,omitempty"`
	Subformat     string `json:"subformat,omitempty"`
	Static        string `json:"static,omitempty"`
	ZeroedGrain   string `json:"zeroed_grain,omitempty"`
	AdapterType   string `json:"adapter_type,omitempty"`
}

// Options are the spec's -o options of qemu-img create, as name=value,
// sorted by name.
func (sp QEMUImageSpec) Options() []string {
	var o []string
	add := func(k, v string) {
		if v != "" && v != "0" {
			o = append(o, k+"="+v)
		}
	}
	add("adapter_type", sp.AdapterType)
	add("cluster_size", fmt.Sprint(sp.ClusterSize))
	add("lazy_refcounts", sp.LazyRefcounts)
	add("preallocation", sp.Preallocation)
	add("refcount_bits", fmt.Sprint(sp.RefcountBits))
	add("static", sp.Static)
	add("subformat", sp.Subformat)
	add("zeroed_grain", sp.ZeroedGrain)
	return o
}

// QEMUImageResize grows a disk image, as GNS3's PUT /v2/compute/qemu/img
// takes it: the qemu-img program, the image's path, and how many MiB to
// add (0: nothing is done).
type QEMUImageResize struct {
	QEMUImg string `json:"qemu_img"`
	Path    string `json:"path"`
	Extend  int64  `json:"extend,omitempty"`
}

// The values GNS3 takes for a disk image's format and options.
var (
	qemuImageFormats = []string{"qcow2", "qcow", "vpc", "vdi", "vmdk", "raw"}
	qemuImageEnums   = map[string][]string{
		"preallocation":  {"off", "metadata", "falloc", "full"},
		"lazy_refcounts": {"on", "off"},
		"subformat": {"dynamic", "fixed", "streamOptimized", "twoGbMaxExtentSparse", "twoGbMaxExtentFlat",
			"monolithicSparse", "monolithicFlat"},
		"static":       {"on", "off"},
		"zeroed_grain": {"on", "off"},
		"adapter_type": {"ide", "lsilogic", "buslogic", "legacyESX"},
	}
)

// maxQEMUImageMiB bounds the size of a disk image made (1 PiB, qemu-img's
// own limit for qcow2 is higher; a larger number is a typo).
const maxQEMUImageMiB = 1 << 30

// check tells what is wrong with a spec, field by field.
func (sp QEMUImageSpec) check() error {
	if !slices.Contains(qemuImageFormats, sp.Format) {
		return Invalid("format", "A disk image's format is one of %s", strings.Join(qemuImageFormats, ", "))
	}
	if sp.Size <= 0 || sp.Size > maxQEMUImageMiB {
		return Invalid("size", "A disk image's size is in MiB, from 1 to %d", maxQEMUImageMiB)
	}
	if sp.ClusterSize < 0 || sp.RefcountBits < 0 {
		return Invalid("cluster_size", "cluster_size and refcount_bits are positive numbers")
	}
	for k, v := range map[string]string{"preallocation": sp.Preallocation, "lazy_refcounts": sp.LazyRefcounts,
		"subformat": sp.Subformat, "static": sp.Static, "zeroed_grain": sp.ZeroedGrain, "adapter_type": sp.AdapterType} {
		if v != "" && !slices.Contains(qemuImageEnums[k], v) {
			return Invalid(k, "A disk image's %s is one of %s", k, strings.Join(qemuImageEnums[k], ", "))
		}
	}
	return nil
}

// errNoQEMU is the refusal of QEMU work on a machine without QEMU.
func errNoQEMU() error {
	return Errorf(ECONFLICT, "QEMU is not available to nodedesk on this machine; install it (on Debian or Ubuntu: apt install qemu-system-x86 qemu-utils) and restart nodedesk")
}

// QEMUBinaries lists this machine's qemu-system-* programs, only those of
// archs when it is not empty (GNS3's GET /v2/compute/qemu/binaries); none
// when QEMU is not available.
func (s *Service) QEMUBinaries(ctx context.Context, archs []string) ([]QEMUBinary, error) {
	tools, ok := capability[QEMUTools](s)
	if !ok {
		return []QEMUBinary{}, nil
	}
	return tools.Binaries(ctx, archs)
}

// QEMUImgBinaries lists this machine's qemu-img programs; none when QEMU
// is not available.
func (s *Service) QEMUImgBinaries(ctx context.Context) ([]QEMUBinary, error) {
	tools, ok := capability[QEMUTools](s)
	if !ok {
		return []QEMUBinary{}, nil
	}
	return tools.ImgBinaries(ctx)
}

// QEMUCapabilities says which architectures KVM accelerates here, and
// the acceleration QEMU nodes get.
func (s *Service) QEMUCapabilities(ctx context.Context) QEMUCapabilities {
	tools, ok := capability[QEMUTools](s)
	if !ok {
		return QEMUCapabilities{KVM: []string{}, Acceleration: AccelNone,
			AccelerationNote: "QEMU is not available on this machine: QEMU nodes cannot run"}
	}
	c := tools.Capabilities(ctx)
	if c.KVM == nil {
		c.KVM = []string{}
	}
	return c
}

// qemuImg checks the qemu-img program a request names: one that
// ImgBinaries lists (nodedesk runs no other program a request names), or
// the first of them when none is named.
func (s *Service) qemuImg(ctx context.Context, name string) (string, error) {
	tools, ok := capability[QEMUTools](s)
	if !ok {
		return "", errNoQEMU()
	}
	bins, err := tools.ImgBinaries(ctx)
	if err != nil {
		return "", err
	}
	if len(bins) == 0 {
		return "", Errorf(ECONFLICT, "qemu-img is not installed on this machine; install it (on Debian or Ubuntu: apt install qemu-utils)")
	}
	if name == "" {
		return bins[0].Path, nil
	}
	for _, b := range bins {
		if b.Path == name || filepath.Base(b.Path) == name {
			return b.Path, nil
		}
	}
	paths := make([]string, len(bins))
	for i, b := range bins {
		paths[i] = b.Path
	}
	return "", Invalid("qemu_img", "qemu_img %s is not one of this machine's qemu-img programs (%s); GET /v2/compute/qemu/img-binaries lists them", name, strings.Join(paths, ", "))
}

// qemuDiskPath resolves the path of a disk image a client names for
// qemu-img: a relative one is in nodedesk's QEMU images folder (checked
// by the images' path rule); an absolute one must be inside one of the
// QEMU images folders.
func (s *Service) qemuDiskPath(name string) (string, error) {
	folders, err := s.imageFolders(QEMUImages, true)
	if err != nil {
		return "", err
	}
	if filepath.IsAbs(name) {
		p := filepath.Clean(name)
		for _, dir := range folders {
			if r, err := filepath.Rel(dir, p); err == nil && r != "." && !strings.HasPrefix(r, "..") {
				if _, err := imageName(filepath.ToSlash(r)); err != nil {
					return "", &Error{Code: EINVALID, Message: ErrorMessage(err), Field: "path"}
				}
				return p, nil
			}
		}
		return "", Invalid("path", "Disk image %s is outside the QEMU images folders (%s); give a file name, which goes into %s",
			name, strings.Join(folders, ", "), folders[0])
	}
	rel, err := imageName(name)
	if err != nil {
		return "", &Error{Code: EINVALID, Message: ErrorMessage(err), Field: "path"}
	}
	return filepath.Join(folders[0], filepath.FromSlash(rel)), nil
}

// CreateQEMUImage makes a disk image with qemu-img (GNS3's POST
// /v2/compute/qemu/img): a relative path goes into nodedesk's QEMU images
// folder; an absolute one must be inside a QEMU images folder. An
// existing file is never overwritten. Codes: EINVALID (the spec, a
// qemu-img that is not this machine's, a path outside the folders),
// ECONFLICT (the file exists, QEMU is not available, qemu-img failed).
func (s *Service) CreateQEMUImage(ctx context.Context, sp QEMUImageSpec) error {
	if err := sp.check(); err != nil {
		return err
	}
	p, err := s.qemuDiskPath(sp.Path)
	if err != nil {
		return err
	}
	if sp.QEMUImg, err = s.qemuImg(ctx, sp.QEMUImg); err != nil {
		return err
	}
	if _, err := os.Lstat(p); err == nil {
		return Conflict("path", "Disk image %s exists already; choose another name", p)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("creating the folder of %s: %w", p, err)
	}
	sp.Path = p
	tools, _ := capability[QEMUTools](s) // qemuImg found it
	return tools.CreateImage(ctx, sp)
}

// ResizeQEMUImage grows a disk image by spec.Extend MiB with qemu-img
// (GNS3's PUT /v2/compute/qemu/img); a relative path is looked for as a
// node's image is, an absolute one must be inside a QEMU images folder.
// Extend 0 does nothing. Codes: EINVALID, ENOTFOUND (no such image),
// ECONFLICT (QEMU is not available, qemu-img failed).
func (s *Service) ResizeQEMUImage(ctx context.Context, r QEMUImageResize) error {
	if r.Extend < 0 || r.Extend > maxQEMUImageMiB {
		return Invalid("extend", "extend is the MiB to add to the disk image, from 0 to %d", maxQEMUImageMiB)
	}
	p, err := s.qemuDiskPath(r.Path)
	if err != nil {
		return err
	}
	if !filepath.IsAbs(r.Path) {
		folders, _ := s.imageFolders(QEMUImages, false)
		rel, _ := imageName(r.Path)
		if p = findImage(folders, rel); p == "" {
			return &Error{Code: ENOTFOUND, Field: "path", Message: fmt.Sprintf("Disk image %s doesn't exist in %s", r.Path, strings.Join(folders, " nor in "))}
		}
	} else if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return &Error{Code: ENOTFOUND, Field: "path", Message: fmt.Sprintf("Disk image %s doesn't exist", p)}
	}
	if r.QEMUImg, err = s.qemuImg(ctx, r.QEMUImg); err != nil {
		return err
	}
	if r.Extend == 0 {
		return nil
	}
	r.Path = p
	tools, _ := capability[QEMUTools](s) // qemuImg found it
	return tools.ResizeImage(ctx, r)
}
