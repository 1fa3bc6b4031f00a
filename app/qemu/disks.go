package qemu

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"nodedesk/app"
)

// imgWait bounds one run of qemu-img.
const imgWait = 2 * time.Minute

// qemuImg is the qemu-img next to the node's qemu-system binary, else the
// one in PATH: the two come from one package.
func qemuImg(qemuBinary string) (string, error) {
	if p := filepath.Join(filepath.Dir(qemuBinary), "qemu-img"); filepath.IsAbs(p) {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	p, err := exec.LookPath("qemu-img")
	if err != nil {
		return "", app.Errorf(app.ECONFLICT, "qemu-img is not installed; it makes the nodes' disks. Install it with `sudo apt-get install qemu-utils`")
	}
	return p, nil
}

// runImg runs qemu-img in dir, the folder of the disk it works on, and
// returns its output; a failure says what it printed.
func runImg(ctx context.Context, img, dir string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, imgWait)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, img, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errOut.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, errors.New(msg)
	}
	return out.Bytes(), nil
}

// imageInfo is what qemu-img info tells of a disk.
type imageInfo struct {
	Format    string `json:"format"`
	Snapshots []struct {
		Name string `json:"name"`
	} `json:"snapshots"`
}

func diskInfo(ctx context.Context, img, path string) (imageInfo, error) {
	var info imageInfo
	out, err := runImg(ctx, img, filepath.Dir(path), "info", "--output=json", "-U", path)
	if err != nil {
		return info, err
	}
	err = json.Unmarshal(out, &info)
	return info, err
}

// prepareDisks returns the file each drive opens. With linked clones
// (GNS3's default) that is <drive>_disk.qcow2 in the node's folder, made
// at the first start over the image, which is never written; an existing
// one is pointed at the image again, which may have moved since (an
// imported project). Without, it is the image itself.
func prepareDisks(ctx context.Context, img string, s settings, p app.Process) ([4]string, error) {
	var disks [4]string
	for i := range drives {
		d, err := prepareDisk(ctx, img, s, p, i)
		if err != nil {
			return disks, err
		}
		disks[i] = d
	}
	return disks, nil
}

// prepareDisk is prepareDisks for drive i alone; "" for a drive with no
// image.
func prepareDisk(ctx context.Context, img string, s settings, p app.Process, i int) (string, error) {
	d := drives[i]
	base := p.Images[d+"_disk_image"]
	if base == "" || !s.linkedClone() {
		return base, nil
	}
	info, err := diskInfo(ctx, img, base)
	if err != nil {
		return "", app.Errorf(app.ECONFLICT, "The %s image %s of %s cannot be read by qemu-img: %v", d, base, p.Name, err)
	}
	clone := filepath.Join(p.Dir, d+"_disk.qcow2")
	if _, err := os.Stat(clone); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(p.Dir, 0o755); err != nil {
			return "", app.Errorf(app.EINTERNAL, "The folder of %s could not be made (%v); check free disk space and permissions", p.Name, err)
		}
		if _, err := runImg(ctx, img, p.Dir, "create", "-f", "qcow2", "-F", info.Format, "-b", base, clone); err != nil {
			os.Remove(clone)
			return "", app.Errorf(app.ECONFLICT, "The %s disk of %s could not be made over %s: %v; check free disk space", d, p.Name, base, err)
		}
	} else if _, err := runImg(ctx, img, p.Dir, "rebase", "-u", "-F", info.Format, "-b", base, clone); err != nil {
		return "", app.Errorf(app.ECONFLICT, "The %s disk of %s (%s) could not be pointed at its image %s: %v", d, p.Name, clone, base, err)
	}
	return clone, nil
}

// savedStateIn lists the disks that hold a guest state saved at the last
// stop (on_close save_vm_state), with one qemu-img info each.
func savedStateIn(ctx context.Context, img string, disks [4]string) []string {
	var holding []string
	for _, d := range disks {
		if d == "" {
			continue
		}
		if info, err := diskInfo(ctx, img, d); err == nil {
			for _, sn := range info.Snapshots {
				if sn.Name == savedState {
					holding = append(holding, d)
					break
				}
			}
		}
	}
	return holding
}
