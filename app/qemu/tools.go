package qemu

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"nodedesk/app"
)

// Tools finds and runs the QEMU programs of this machine for the Service
// (app.QEMUTools): the qemu-system-* and qemu-img programs in the folders
// of $PATH, their versions, the KVM probe (ProbeKVM), and qemu-img's
// create and resize.
type Tools struct {
	// Dirs are the folders searched for QEMU programs, in order; nil:
	// those of $PATH when asked.
	Dirs []string
	// Logger receives the programs left out of a list and why; nil
	// discards it.
	Logger *slog.Logger

	mu       sync.Mutex
	versions map[string]cachedVersion
}

// cachedVersion is a program's version, as read from the file that had
// this size and modification time.
type cachedVersion struct {
	size    int64
	modTime time.Time
	version string
}

// versionTimeout bounds a program's answer to -version.
const versionTimeout = 10 * time.Second

// NewTools returns the Tools of this machine's $PATH.
func NewTools(logger *slog.Logger) *Tools {
	return &Tools{Logger: logger}
}

var _ app.QEMUTools = (*Tools)(nil)

func (t *Tools) logger() *slog.Logger {
	if t.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return t.Logger
}

// dirs are the folders searched, without repeats.
func (t *Tools) dirs() []string {
	ds := t.Dirs
	if ds == nil {
		ds = filepath.SplitList(os.Getenv("PATH"))
	}
	var out []string
	for _, d := range ds {
		if d != "" && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// find lists the programs of the folders whose name match takes, once
// each (a folder that links to another, such as /bin to /usr/bin, adds
// nothing), in folder order and by name.
func (t *Tools) find(match func(name string) bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range t.dirs() {
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !match(e.Name()) {
				continue
			}
			p := filepath.Join(d, e.Name())
			fi, err := os.Stat(p)
			if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
				continue
			}
			real, err := filepath.EvalSymlinks(p)
			if err != nil || seen[real] {
				continue
			}
			seen[real] = true
			out = append(out, p)
		}
	}
	return out
}

// versionRE finds the version in a QEMU program's -version answer ("QEMU
// emulator version 7.2.22 (Debian …)").
var versionRE = regexp.MustCompile(`version\s+([0-9a-z\-.]+)`)

// version returns the version of the program at p, asked with flag and
// cached while the file does not change.
func (t *Tools) version(ctx context.Context, p, flag string) (string, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	t.mu.Lock()
	c, ok := t.versions[p]
	t.mu.Unlock()
	if ok && c.size == fi.Size() && c.modTime.Equal(fi.ModTime()) {
		return c.version, nil
	}
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, p, flag).Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", p, flag, err)
	}
	m := versionRE.FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("%s %s told no version: %q", p, flag, lastWords(string(out)))
	}
	t.mu.Lock()
	if t.versions == nil {
		t.versions = map[string]cachedVersion{}
	}
	t.versions[p] = cachedVersion{size: fi.Size(), modTime: fi.ModTime(), version: string(m[1])}
	t.mu.Unlock()
	return string(m[1]), nil
}

// list gives the programs with their versions; one whose version cannot
// be read is left out (logged), as GNS3 leaves it out.
func (t *Tools) list(ctx context.Context, paths []string, flag string) ([]app.QEMUBinary, error) {
	out := []app.QEMUBinary{}
	for _, p := range paths {
		v, err := t.version(ctx, p, flag)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			t.logger().Warn("QEMU program left out", "path", p, "err", err)
			continue
		}
		out = append(out, app.QEMUBinary{Path: p, Version: v})
	}
	return out, nil
}

// Binaries lists the qemu-system-* (and qemu-kvm) programs; with archs,
// those whose name ends with one of them.
func (t *Tools) Binaries(ctx context.Context, archs []string) ([]app.QEMUBinary, error) {
	paths := t.find(func(name string) bool {
		name = strings.TrimSuffix(name, ".exe")
		if !strings.HasPrefix(name, "qemu-system") && name != "qemu-kvm" {
			return false
		}
		if len(archs) == 0 {
			return true
		}
		for _, a := range archs {
			if a != "" && (strings.HasSuffix(name, a) || strings.HasSuffix(name, a+"w")) {
				return true
			}
		}
		return false
	})
	return t.list(ctx, paths, "-version")
}

// ImgBinaries lists the qemu-img programs.
func (t *Tools) ImgBinaries(ctx context.Context) ([]app.QEMUBinary, error) {
	return t.list(ctx, t.find(func(name string) bool { return name == "qemu-img" || name == "qemu-img.exe" }), "--version")
}

// hostGuest is the qemu-system-* architecture of this machine's own
// guests (the ones KVM can accelerate), and the architectures KVM then
// accelerates.
func hostGuest() (arch string, kvm []string) {
	switch runtime.GOARCH {
	case "amd64":
		return "x86_64", []string{"x86_64", "i386"}
	case "386":
		return "i386", []string{"i386"}
	case "arm64":
		return "aarch64", []string{"aarch64"}
	}
	return runtime.GOARCH, []string{runtime.GOARCH}
}

// Capabilities probes KVM with this machine's own qemu-system program
// (ProbeKVM, cached): kvm lists the architectures it accelerates only when
// a test guest ran under it; otherwise nodes run under TCG, and the note
// says so and why.
func (t *Tools) Capabilities(ctx context.Context) app.QEMUCapabilities {
	arch, archs := hostGuest()
	bins := t.find(func(name string) bool { return strings.TrimSuffix(name, ".exe") == "qemu-system-"+arch })
	if len(bins) == 0 {
		return app.QEMUCapabilities{KVM: []string{}, Acceleration: app.AccelNone,
			AccelerationNote: fmt.Sprintf("qemu-system-%s is not installed: QEMU nodes cannot run (on Debian or Ubuntu: apt install qemu-system-x86 qemu-utils)", arch)}
	}
	ok, why := ProbeKVM(ctx, bins[0])
	if !ok {
		return app.QEMUCapabilities{KVM: []string{}, Acceleration: app.AccelTCG, AccelerationNote: NoKVMCapability + " (why: " + why + ")"}
	}
	return app.QEMUCapabilities{KVM: archs, Acceleration: app.AccelKVM, AccelerationNote: "running with hardware acceleration (" + why + ")"}
}

// NoKVMCapability is what the node panel says of VMs on a machine that
// gives QEMU no KVM (the reason follows it).
const NoKVMCapability = "VMs run slowly here: this machine gives QEMU no hardware acceleration (KVM), so they boot and run several times slower. Nothing needs to change for the lab to work"

// CreateImage runs qemu-img create for spec (its path absolute, checked
// by the Service). Codes: ECONFLICT (qemu-img refused, with its words).
func (t *Tools) CreateImage(ctx context.Context, spec app.QEMUImageSpec) error {
	args := []string{"create", "-f", spec.Format}
	for _, o := range spec.Options() {
		args = append(args, "-o", o)
	}
	args = append(args, spec.Path, fmt.Sprintf("%dM", spec.Size))
	cmd := exec.CommandContext(ctx, spec.QEMUImg, args...)
	cmd.Dir = filepath.Dir(spec.Path) // it writes nothing else, nor anywhere else
	if out, err := cmd.CombinedOutput(); err != nil {
		os.Remove(spec.Path) // what a failed create left, if anything: the Service made sure nothing was there
		return app.Errorf(app.ECONFLICT, "qemu-img could not create disk image %s: %s", spec.Path, imgFailure(out, err))
	}
	return nil
}

// ResizeImage runs qemu-img resize to grow spec.Path by spec.Extend MiB.
// Codes: ECONFLICT (qemu-img refused, with its words).
func (t *Tools) ResizeImage(ctx context.Context, spec app.QEMUImageResize) error {
	cmd := exec.CommandContext(ctx, spec.QEMUImg, "resize", spec.Path, fmt.Sprintf("+%dM", spec.Extend))
	cmd.Dir = filepath.Dir(spec.Path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return app.Errorf(app.ECONFLICT, "qemu-img could not resize disk image %s: %s", spec.Path, imgFailure(out, err))
	}
	return nil
}

// imgFailure says why a program failed: its last line of output, else the
// error.
func imgFailure(out []byte, err error) string {
	if s := strings.TrimSpace(string(out)); s != "" {
		return lastWords(s)
	}
	return err.Error()
}
