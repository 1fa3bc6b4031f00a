package docker

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"nodedesk/app"
)

// A Docker node keeps some folders of its container across restarts, as
// GNS3 does (persistentFolders): each is a folder of the node's own
// folder (<node>/etc/network for /etc/network), bound into the container
// where the image has it. A container lasts until its node is deleted or
// its project closed (containers.go), or is made again when its settings
// change; these folders are the node's state beyond that.
//
// GNS3 binds them elsewhere and has its init script copy and bind-mount
// them inside the container, which needs CAP_SYS_ADMIN. nodedesk binds
// them in place, and fills each from the image (Docker's archive of a
// created, never started container of the image) the first time: a
// folder whose list of owners and modes (permsFile, GNS3's name, so that
// node folders move between the two) exists has been filled.

// permsFile lists, in each kept folder, the owner and mode of its files
// inside the container (mode:uid:gid:path lines), which the files lose
// on this machine while the node is stopped: nodedesk's init restores
// them at each start, and each stop records them again.
const permsFile = ".gns3_perms"

// hostFolder is where the node's folder keeps container folder v.
func hostFolder(nodeDir, v string) string {
	return filepath.Join(nodeDir, filepath.FromSlash(strings.TrimPrefix(v, "/")))
}

// prepareFolders makes the kept folders in the node's folder and fills
// those never filled from the image (through a container of the image
// made for that and removed), then writes /etc/network's defaults and
// makes sure each folder to bind (targets) exists.
func (r *Runner) prepareFolders(ctx context.Context, p app.Process, image string, vols, targets []string, adapters int) error {
	root, err := os.OpenRoot(p.Dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := r.fillFolders(ctx, root, p, image, vols, adapters); err != nil {
		return err
	}
	for _, v := range targets {
		if err := root.MkdirAll(strings.TrimPrefix(v, "/"), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// fillFolders makes the kept folders and fills those never filled.
func (r *Runner) fillFolders(ctx context.Context, root *os.Root, p app.Process, image string, vols []string, adapters int) error {
	var fill []string
	for _, v := range vols {
		rel := strings.TrimPrefix(v, "/")
		if err := root.MkdirAll(rel, 0o755); err != nil {
			return err
		}
		if _, err := root.Stat(path.Join(rel, permsFile)); errors.Is(err, fs.ErrNotExist) {
			fill = append(fill, v)
		} else if err != nil {
			return err
		}
	}
	if len(fill) == 0 {
		return nil
	}
	id, err := r.eng.create(ctx, "", &containerConfig{
		Image: image, Entrypoint: []string{mountPoint + "/never-run"}, Cmd: []string{},
		NetworkDisabled: true, Labels: r.labels(p),
		HostConfig: hostConfig{NetworkMode: "none"},
	})
	if err != nil {
		return fmt.Errorf("a container of %s to copy its folders from could not be made: %w", image, err)
	}
	defer func() { _ = r.eng.remove(context.WithoutCancel(ctx), id) }()
	for _, v := range fill {
		var perms []string
		rc, err := r.eng.archive(ctx, id, v)
		switch {
		case status(err) == http.StatusNotFound:
			// the image has no such folder: it starts empty
		case err != nil:
			return fmt.Errorf("%s of %s could not be read: %w", v, image, err)
		default:
			perms, err = untar(root, strings.TrimPrefix(v, "/"), v, rc)
			rc.Close()
			if err != nil {
				return fmt.Errorf("%s of %s could not be copied to the node's folder: %w", v, image, err)
			}
		}
		if v == "/etc/network" {
			if err := networkDefaults(root, p.Name, adapters); err != nil {
				return err
			}
		}
		// The list is written last: it marks the folder as filled.
		if err := writeRoot(root, path.Join(strings.TrimPrefix(v, "/"), permsFile), []byte(strings.Join(perms, "")), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// untar writes the entries of Docker's archive of folder v (named after
// v's last element) into folder dst of root, keeping what is there
// already, and returns the owners and modes of the entries as permsFile
// lines. Entries that are neither files, folders nor links are left out.
func untar(root *os.Root, dst, v string, rd io.Reader) ([]string, error) {
	asRoot := os.Geteuid() == 0
	var perms []string
	tr := tar.NewReader(rd)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return perms, nil
		} else if err != nil {
			return perms, err
		}
		name := path.Clean(h.Name)
		_, rel, _ := strings.Cut(name, "/") // under the archive's top folder
		if name == "." || strings.HasPrefix(name, "../") || strings.HasPrefix(name, "/") || strings.Contains(rel, "..") {
			continue
		}
		target := dst
		if rel != "" {
			target = path.Join(dst, rel)
		}
		mode := fs.FileMode(h.Mode) & fs.ModePerm
		switch h.Typeflag {
		case tar.TypeDir:
			if err := root.Mkdir(target, mode|0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return perms, err
			}
		case tar.TypeReg:
			f, err := root.OpenFile(target, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode|0o600)
			if errors.Is(err, fs.ErrExist) {
				continue // the node's own, kept
			} else if err != nil {
				return perms, err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return perms, err
			}
		case tar.TypeSymlink:
			if err := root.Symlink(h.Linkname, target); err != nil {
				if errors.Is(err, fs.ErrExist) {
					continue
				}
				return perms, err
			}
		default:
			continue
		}
		if asRoot {
			_ = root.Lchown(target, h.Uid, h.Gid)
		}
		cpath := v
		if rel != "" {
			cpath = path.Join(v, rel)
		}
		perms = append(perms, fmt.Sprintf("%o:%d:%d:%s\n", int64(h.Mode)&0o7777, h.Uid, h.Gid, cpath))
	}
}

// networkDefaults gives a node's /etc/network the folders ifup reads
// and, if it has none, an interfaces file of commented examples.
func networkDefaults(root *os.Root, name string, adapters int) error {
	for _, d := range []string{"if-up.d", "if-down.d", "if-pre-up.d", "if-post-down.d", "interfaces.d"} {
		if err := root.MkdirAll("etc/network/"+d, 0o755); err != nil {
			return err
		}
	}
	if _, err := root.Stat(app.DockerInterfacesFile); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return writeRoot(root, app.DockerInterfacesFile, []byte(app.DockerInterfaces(name, adapters)), 0o644)
}

// writeRoot writes a file of root through a temporary file.
func writeRoot(root *os.Root, name string, b []byte, mode fs.FileMode) error {
	tmp := name + ".tmp"
	f, err := root.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, mode)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		_ = root.Remove(tmp)
	}
	return err
}

// handBackScript records, in each kept folder given, the owner and mode
// of each file (permsFile), then gives the files to the user $1:$2 and
// makes them readable and writable by that user: run inside the
// container at each stop, so that nodedesk and its user can read and
// edit the node's files while it is stopped.
const handBackScript = `PATH=` + mountPoint + `/bin:$PATH
uid=$1 gid=$2
shift 2
for vol in "$@"; do
	[ -d "$vol" ] || continue
	find "$vol" -depth ! -path "$vol/` + permsFile + `" -print0 |
		xargs -0 -r stat -c '%a:%u:%g:%n' >"$vol/` + permsFile + `.new" &&
		mv -f "$vol/` + permsFile + `.new" "$vol/` + permsFile + `"
	chmod -R u+rwX "$vol"
	chown -R "$uid:$gid" "$vol"
done`

// handBackCommand is the command that runs handBackScript on vols.
func handBackCommand(vols []string) []string {
	cmd := []string{mountPoint + "/bin/busybox", "sh", "-c", handBackScript, "sh",
		strconv.Itoa(os.Getuid()), strconv.Itoa(os.Getgid())}
	return append(cmd, vols...)
}
