package docker

import (
	"bytes"
	"debug/elf"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"nodedesk/app"
)

// Every container of a lab node has nodedesk's resources folder mounted
// read-only at /nodedesk: its init script (the container's first
// process), a statically linked busybox with its applets (for the init,
// the aux shell and the stop's chown, whatever the image holds) and the
// DHCP client's lease script. The folder is made under the runner's
// RunDir from this machine's busybox.

// mountPoint is where the resources folder is in a container.
const mountPoint = "/nodedesk"

var (
	//go:embed resources/init.sh
	initScript []byte
	//go:embed resources/udhcpc.script
	udhcpcScript []byte
)

// errNoBusybox is the refusal to start without a static busybox.
func errNoBusybox(why string) error {
	return app.Errorf(app.ECONFLICT, "Docker nodes need a statically linked busybox on this machine (%s). Install it with `sudo apt-get install busybox-static`, then start the node again", why)
}

// findBusybox is the path of this machine's busybox, which must be
// statically linked: it runs inside containers of any image.
func findBusybox() (string, error) {
	p, err := exec.LookPath("busybox")
	if err != nil {
		return "", errNoBusybox("no busybox program found")
	}
	if p, err = filepath.EvalSymlinks(p); err != nil {
		return "", errNoBusybox(err.Error())
	}
	f, err := elf.Open(p)
	if err != nil {
		return "", errNoBusybox(fmt.Sprintf("%s cannot be read: %v", p, err))
	}
	defer f.Close()
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			return "", errNoBusybox(p + " is dynamically linked")
		}
	}
	return p, nil
}

// installResources makes (or brings up to date) the resources folder dir.
func installResources(dir string) error {
	bb, err := findBusybox()
	if err != nil {
		return err
	}
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	if err := copyIfChanged(bb, filepath.Join(bin, "busybox"), 0o755); err != nil {
		return err
	}
	out, err := exec.Command(filepath.Join(bin, "busybox"), "--list").Output()
	if err != nil {
		return errNoBusybox(fmt.Sprintf("%s --list failed: %v", bb, err))
	}
	for _, applet := range strings.Fields(string(out)) {
		if applet == "busybox" || strings.ContainsAny(applet, "/.") {
			continue
		}
		link := filepath.Join(bin, applet)
		if t, err := os.Readlink(link); err == nil && t == "busybox" {
			continue
		}
		_ = os.Remove(link)
		if err := os.Symlink("busybox", link); err != nil {
			return err
		}
	}
	for name, b := range map[string][]byte{"init.sh": initScript, "udhcpc.script": udhcpcScript} {
		if err := writeIfChanged(filepath.Join(dir, name), b, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// copyIfChanged copies file src to dst unless dst has its size and time.
func copyIfChanged(src, dst string, mode os.FileMode) error {
	si, err := os.Stat(src)
	if err != nil {
		return err
	}
	if di, err := os.Stat(dst); err == nil && di.Size() == si.Size() && di.ModTime().Equal(si.ModTime()) {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp := dst + ".tmp"
	out, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, mode)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chtimes(tmp, si.ModTime(), si.ModTime())
	}
	if err == nil {
		err = os.Rename(tmp, dst)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

// writeIfChanged writes b to path unless it holds b already.
func writeIfChanged(path string, b []byte, mode os.FileMode) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b) {
		return os.Chmod(path, mode)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, mode); err != nil {
		return err
	}
	if err := os.Chmod(tmp, mode); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
