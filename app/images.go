package app

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/google/uuid"
)

// The images of the emulators that boot from files (QEMU disks, IOS and
// IOU binaries) are looked for in folders, one per kind: nodedesk's own,
// DataDir/images/<kind>, where uploads go, then GNS3's, <GNS3ImagesDir>/<kind>
// (~/GNS3/images/QEMU), when it exists, so that a GNS3 user's images work
// as they are. A node's property names an image by its path relative to
// a folder (a bare file name is also looked for in subfolders, as GNS3
// does) or by an absolute path.

// ImageKind names the images of one emulator, and their folder: GNS3's
// folder names. The kinds, and the files each takes, are the image-kind
// table beside the node-type table (node_type.go).
type ImageKind string

// valid reports whether k is one of the kinds.
func (k ImageKind) valid() bool { _, ok := imageKindOf(k); return ok }

// ImageHeaderLen is how many bytes of a file Accepts looks at.
const ImageHeaderLen = 7

// Emulator is the title of the node type that runs images of kind k
// ("Dynamips" for IOS images); "" for none.
func (k ImageKind) Emulator() string {
	for _, e := range kinds {
		if e.k.imageKind == k {
			return e.k.title
		}
	}
	return ""
}

// Accepts reports whether a file that starts with header (its first
// ImageHeaderLen bytes, or all of a shorter file) is an image of kind k.
func (k ImageKind) Accepts(header []byte) bool {
	e, ok := imageKindOf(k)
	return ok && e.accepts(header)
}

// ImageKinds lists the kinds of images, in the table's order.
func ImageKinds() []ImageKind {
	out := make([]ImageKind, len(imageKinds))
	for i, e := range imageKinds {
		out[i] = e.kind
	}
	return out
}

// imageHeader reads the first ImageHeaderLen bytes of the file at p (fewer
// when it is shorter).
func imageHeader(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, ImageHeaderLen)
	n, err := io.ReadFull(f, b)
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, err
	}
	return b[:n], nil
}

// Image is one image file, as GNS3 2.2 lists them (GET
// /v2/compute/qemu/images): its file name, its path relative to its folder
// (with /), its MD5 sum and its size in bytes.
type Image struct {
	Filename string `json:"filename"`
	Path     string `json:"path"`
	MD5Sum   string `json:"md5sum"`
	FileSize int64  `json:"filesize"`
}

// MaxImageBytes bounds an uploaded image.
const MaxImageBytes int64 = 64 << 30

// imageDiskReserve is the free space an upload leaves on the disk of the
// images folder: an upload that would eat into it is refused.
const imageDiskReserve = 256 << 20

// md5Suffix names the sidecar file that caches an image's MD5 sum, as
// GNS3 names it.
const md5Suffix = ".md5sum"

// uploadPrefix starts the name of an upload's temporary file (hidden, so
// never listed).
const uploadPrefix = ".upload-"

// imageFolders are the folders of kind's images in search order: nodedesk's
// own (created when create is set) then GNS3's when it exists.
func (s *Service) imageFolders(kind ImageKind, create bool) ([]string, error) {
	if !kind.valid() {
		var names []string
		for _, k := range ImageKinds() {
			names = append(names, string(k))
		}
		return nil, Errorf(EINVALID, "Unknown kind of images %q; the kinds are %s", kind, joinAnd(names))
	}
	own := s.imagesDir(kind)
	if create {
		if err := os.MkdirAll(own, 0o755); err != nil {
			return nil, fmt.Errorf("creating the images folder: %w", err)
		}
	}
	folders := []string{own}
	if s.c.GNS3ImagesDir != "" {
		gns3 := filepath.Join(s.c.GNS3ImagesDir, string(kind))
		if fi, err := os.Stat(gns3); err == nil && fi.IsDir() && !samePath(gns3, own) {
			folders = append(folders, gns3)
		}
	}
	return folders, nil
}

// imagesDir is nodedesk's own folder of kind's images.
func (s *Service) imagesDir(kind ImageKind) string {
	return filepath.Join(s.c.DataDir, "images", string(kind))
}

// samePath reports whether two paths name one file or folder.
func samePath(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// imageName checks the name of an image given relative to its folders:
// the one path rule of files (relPath: nothing absolute, no .. part), no
// hidden part and no checksum sidecar. It returns the name cleaned, with /.
func imageName(name string) (string, error) {
	p, err := relPath(name, "images folder")
	if err != nil {
		return "", err
	}
	if hidden(p) {
		return "", Errorf(EFORBIDDEN, "Image name %s names a hidden file; give a name that does not start with a dot", name)
	}
	if strings.HasSuffix(p, md5Suffix) {
		return "", Errorf(EFORBIDDEN, "Image name %s ends with %s, which names the checksum files kept beside images; give another name", name, md5Suffix)
	}
	return p, nil
}

// listed reports whether a file of an images folder is an image: not
// hidden (an upload under way is), not a checksum sidecar, not a GNS3
// upload under way (.tmp).
func listed(name string) bool {
	return !strings.HasPrefix(name, ".") && !strings.HasSuffix(name, md5Suffix) && !strings.HasSuffix(name, ".tmp")
}

// Images lists the images of kind in its folders, subfolders included
// (their path is relative to the folder, such as vyos/vyos.qcow2), sorted
// by file name. A file name found in an earlier folder hides the same name
// in a later one, as GNS3 lists them, and a file that is not of the kind
// (Accepts: an IOS image that is no big-endian ELF file) is left out, as
// GNS3 leaves it out. MD5 sums are cached in a <file>.md5sum
// beside each file, as GNS3 does, and computed again when the file is
// newer. Codes: EINVALID (an unknown kind).
func (s *Service) Images(ctx context.Context, kind ImageKind) ([]Image, error) {
	folders, err := s.imageFolders(kind, true)
	if err != nil {
		return nil, err
	}
	out := []Image{}
	seen := map[string]bool{}
	for _, dir := range folders {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == dir {
					return err
				}
				return nil // an unreadable subfolder is left out
			}
			if p == dir {
				return nil
			}
			if strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() || !listed(d.Name()) || seen[d.Name()] {
				return nil
			}
			fi, err := os.Stat(p) // a link to an image counts as the image
			if err != nil || !fi.Mode().IsRegular() {
				return nil
			}
			if head, err := imageHeader(p); err != nil || !kind.Accepts(head) {
				return nil
			}
			sum, err := imageMD5(ctx, p, fi)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				s.c.Logger.Warn("image left out of the list", "path", p, "err", err)
				return nil
			}
			rel, _ := filepath.Rel(dir, p)
			seen[d.Name()] = true
			out = append(out, Image{Filename: d.Name(), Path: filepath.ToSlash(rel), MD5Sum: sum, FileSize: fi.Size()})
			return nil
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("listing the images of %s: %w", dir, err)
		}
	}
	slices.SortFunc(out, func(a, b Image) int { return strings.Compare(a.Filename, b.Filename) })
	return out, nil
}

// imageMD5 returns the MD5 sum of the image at p (fi its stat): the
// sidecar's when it is a sum and not older than the file, else the sum
// computed now, which is written to the sidecar (a folder that cannot be
// written only loses the cache).
func imageMD5(ctx context.Context, p string, fi fs.FileInfo) (string, error) {
	if side, err := os.Stat(p + md5Suffix); err == nil && !side.ModTime().Before(fi.ModTime()) {
		if b, err := os.ReadFile(p + md5Suffix); err == nil {
			if sum := strings.TrimSpace(string(b)); isMD5(sum) {
				return sum, nil
			}
		}
	}
	sum, err := fileMD5(ctx, p)
	if err != nil {
		return "", err
	}
	_ = writeSidecar(p, sum)
	return sum, nil
}

// fileMD5 reads the file at p whole for its MD5 sum, caching nothing.
func fileMD5(ctx context.Context, p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := md5.New()
	if _, err := io.Copy(h, ctxReader{ctx, f}); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// isMD5 reports whether s is an MD5 sum in hexadecimal.
func isMD5(s string) bool {
	if len(s) != 32 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// writeSidecar writes an image's MD5 sum beside it, whole or not at all
// (a temporary file renamed).
func writeSidecar(p, sum string) error {
	tmp := filepath.Join(filepath.Dir(p), uploadPrefix+uuid.NewString())
	if err := os.WriteFile(tmp, []byte(sum+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, p+md5Suffix); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// ctxReader stops a long read (an image's checksum, an upload) once its
// context is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (r ctxReader) Read(b []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.r.Read(b)
}

// ImagePath resolves what a node's property names (a file name, a path
// relative to an images folder, or an absolute path) to the image file
// (findImageFile, an absolute path outside the folders taken as it is: a
// user may name any file of this machine, as GNS3's compute takes it).
// Codes: those of findImageFile.
func (s *Service) ImagePath(kind ImageKind, name string) (string, error) {
	f, err := s.findImageFile(kind, name, true)
	return f.path, err
}

// foundImage is the file an image name finds here (findImageFile).
type foundImage struct {
	path string
	// foreign: the name is a path of another machine (absolute, or a
	// Windows path, that names no image here), found by its file name.
	foreign bool
	// outside: the name is an absolute path to a file outside kind's
	// folders, which a user gave; nodedesk starts a node on it, but never
	// exports it nor writes beside it (decision 0064).
	outside bool
}

// foreignNote tells the user that a node's image, named by another
// machine's path, is the file f found here by its file name.
func (f foundImage) foreignNote(kind ImageKind, name string) string {
	return fmt.Sprintf("%s image %s is not on this machine; nodedesk uses %s, found by its file name", kind, name, f.path)
}

// findImageFile finds the image file name names: an absolute path to a
// file inside one of kind's folders (inImageFolders) is that file; one
// to a file outside them is that file when outsideOK (a user's own
// choice), else, as a path that names no image here (another machine's,
// perhaps on Windows), it is looked for by its file name; a relative one
// is looked for in the folders in order, a bare file name in their
// subfolders too. Codes: EINVALID (an empty name, or one that leaves the
// folders), ECONFLICT (the image is in none of the folders: the message
// names it and the folders, and says to upload it).
func (s *Service) findImageFile(kind ImageKind, name string, outsideOK bool) (foundImage, error) {
	folders, err := s.imageFolders(kind, false)
	if err != nil {
		return foundImage{}, err
	}
	if strings.TrimSpace(name) == "" {
		return foundImage{}, Errorf(EINVALID, "No %s image named: give the file name of an image", kind)
	}
	look := name
	if filepath.IsAbs(name) {
		if fi, err := os.Stat(name); err == nil && fi.Mode().IsRegular() {
			switch {
			case inImageFolders(folders, name):
				return foundImage{path: name}, nil
			case outsideOK:
				return foundImage{path: name, outside: true}, nil
			}
		}
		look = path.Base(filepath.ToSlash(name))
	} else if isWindowsAbs(name) {
		look = path.Base(strings.ReplaceAll(name, `\`, "/"))
	}
	rel, err := imageName(look)
	if err != nil {
		return foundImage{}, &Error{Code: EINVALID, Message: ErrorMessage(err)}
	}
	if p := findImage(folders, rel); p != "" {
		return foundImage{path: p, foreign: look != name}, nil
	}
	return foundImage{}, Errorf(ECONFLICT, "%s image %s is missing: it is not in %s; upload it (or copy it into %s) and start again",
		kind, name, strings.Join(folders, " nor in "), folders[0])
}

// inImageFolders reports whether the absolute path p lies inside one of
// folders, once cleaned and the links of its folder and of theirs
// resolved (a link to an image inside a folder is the folder's, as a
// listing counts it; /images/QEMU/../../home/u/.ssh/id_rsa is not).
func inImageFolders(folders []string, p string) bool {
	dir, err := filepath.EvalSymlinks(filepath.Dir(filepath.Clean(p)))
	if err != nil {
		return false
	}
	p = filepath.Join(dir, filepath.Base(p))
	for _, f := range folders {
		root, err := filepath.EvalSymlinks(f)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(root, p); err == nil && filepath.IsLocal(rel) {
			return true
		}
	}
	return false
}

// keepImage is an image name as a node keeps it, as GNS3 2.2.59's compute
// keeps it, and the MD5 sum of the image it finds here ("" when it finds
// none, or cannot read it): an absolute path to a file inside one of
// kind's folders becomes its path relative to that folder (with /), when
// that relative path finds the same file again (an image of the same name
// in an earlier folder would be found instead: the path is kept); a path
// of another machine (absolute, or a Windows path, that is not here)
// found here by its file name becomes the file found, named so, and
// foreign tells the user which file that is; any other name is kept as
// given. An absolute path to a file outside the folders is kept as given,
// its sum read but not cached, when a user gives it (imported false); a
// project's (imported) is taken for another machine's path, and one found
// nowhere is kept as its file name, so that no start ever takes a file
// outside the folders that a project named. The sum of an image of the
// folders is cached beside it (imageMD5), so only the first look at an
// image reads it whole; nothing is written outside the folders.
func (s *Service) keepImage(ctx context.Context, kind ImageKind, name string, imported bool) keptImage {
	f, err := s.findImageFile(kind, name, !imported)
	if err != nil {
		if imported && filepath.IsAbs(name) {
			return keptImage{name: imageFileName(name)}
		}
		return keptImage{name: name} // missing here: kept as given, to be found at start
	}
	if f.outside { // its sum, as GNS3 answers it, but no file beside it
		sum, err := fileMD5(ctx, f.path)
		if err != nil {
			sum = ""
		}
		return keptImage{name: name, sum: sum}
	}
	p := f.path
	var sum string
	if fi, err := os.Stat(p); err == nil {
		if sum, err = imageMD5(ctx, p, fi); err != nil {
			sum = ""
		}
	}
	if !f.foreign && !filepath.IsAbs(name) { // a relative name
		return keptImage{name: name, sum: sum}
	}
	kept := keptImage{name: name, sum: sum}
	if f.foreign {
		kept = keptImage{name: p, sum: sum, foreign: f.foreignNote(kind, name)}
	}
	folders, err := s.imageFolders(kind, false)
	if err != nil {
		return kept
	}
	for _, dir := range folders {
		rel, err := filepath.Rel(dir, p)
		if err != nil || !filepath.IsLocal(rel) {
			continue
		}
		rel = filepath.ToSlash(rel)
		if _, err := imageName(rel); err != nil {
			continue // a hidden file or a checksum: not an image of the folder
		}
		if q, err := s.ImagePath(kind, rel); err == nil && samePath(q, p) {
			kept.name = rel
			return kept
		}
	}
	return kept
}

// imageDefaultsUpdate is a PropertiesUpdate whose new node may take some
// defaults from its image (IOU's RAM and NVRAM, which the image states).
type imageDefaultsUpdate interface {
	PropertiesUpdate
	// imageForDefaults is the image whose defaults the node takes; false
	// when it takes none (they were given, or it is told not to).
	imageForDefaults() (image string, ok bool)
	// withDefaults is a copy of the change with those defaults.
	withDefaults(d map[string]json.RawMessage) PropertiesUpdate
}

// imageDefaults is change u of a new local node of type t with the
// defaults its image states, as GNS3's compute reads them when it makes
// the node (an IOU image's `-h`); u when its runner cannot read them or
// the image is not here.
func (s *Service) imageDefaults(t NodeType, u PropertiesUpdate) PropertiesUpdate {
	du, ok := u.(imageDefaultsUpdate)
	if !ok {
		return u
	}
	image, ok := du.imageForDefaults()
	if !ok {
		return u
	}
	reader, ok := s.runner(t).(ImageDefaultsReader)
	if !ok {
		return u
	}
	path, err := s.ImagePath(t.kind().imageKind, image)
	if err != nil {
		return u
	}
	if d := reader.ImageDefaults(path); len(d) > 0 {
		return du.withDefaults(d)
	}
	return u
}

// settleImages is change u of a local node of type t with the images it
// names as the node keeps them (keepImage), and their MD5 sums, as GNS3's
// compute answers a node it creates or updates, which its controller
// keeps. It reads files (an image's sum, the first time), so it runs
// before the write's transaction. A change that names no image is u.
func (s *Service) settleImages(ctx context.Context, t NodeType, u PropertiesUpdate) PropertiesUpdate {
	iu, ok := u.(imageUpdate)
	if !ok {
		return u
	}
	given := iu.givenImages(t.ImageProperties())
	if len(given) == 0 {
		return u
	}
	kept := make(map[string]keptImage, len(given))
	for key, name := range given {
		kept[key] = s.keepImage(ctx, t.kind().imageKind, name, false)
	}
	return iu.withImages(kept)
}

// isWindowsAbs reports whether name is an absolute Windows path
// (C:\GNS3\images\QEMU\vyos.qcow2), as projects made on Windows hold.
func isWindowsAbs(name string) bool {
	return len(name) > 2 && name[1] == ':' && (name[2] == '\\' || name[2] == '/') &&
		(name[0] >= 'A' && name[0] <= 'Z' || name[0] >= 'a' && name[0] <= 'z')
}

// findImage looks for rel (checked by imageName) in folders, in order, as
// GNS3 looks: in each folder, the file at that path, then, for a bare file
// name, a file of that name in a subfolder (not a hidden one). It returns
// the file's path, or "".
func findImage(folders []string, rel string) string {
	for _, dir := range folders {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
		if strings.Contains(rel, "/") {
			continue
		}
		var found string
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return filepath.SkipDir
			case d.IsDir() && p != dir && strings.HasPrefix(d.Name(), "."):
				return filepath.SkipDir
			case !d.IsDir() && d.Name() == rel:
				if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
					found = p
					return filepath.SkipAll
				}
			}
			return nil
		})
		if found != "" {
			return found
		}
	}
	return ""
}

// sized is an upload body that knows its length ahead (an HTTP request
// with a Content-Length).
type sized interface {
	Size() int64
}

// imageCommits serialises the last step of uploads (the rename of the file
// and the write of its checksum), so that two uploads of one name cannot
// leave the checksum of one beside the other.
var imageCommits sync.Mutex

// UploadImage writes an image into nodedesk's folder of kind as filename
// (a path relative to it: subfolders are made), streamed from body: a
// temporary hidden file there, synced and renamed over the name at the
// end, so that the name shows the old image or the whole new one, never a
// part; an upload that fails or is cut short leaves no file. Its MD5 sum is
// computed on the way and kept beside it. A body that has a Size() int64
// method (its length known ahead) is refused before a byte is written when
// it is too large or does not fit on the disk. Codes: EINVALID (an unknown
// kind, an empty name, a body larger than MaxImageBytes, a body cut
// short), EFORBIDDEN (a name that is absolute, leaves the folder, or names
// a hidden file or a checksum), ECONFLICT (the disk is full).
func (s *Service) UploadImage(ctx context.Context, kind ImageKind, filename string, body io.Reader) (*Image, error) {
	folders, err := s.imageFolders(kind, true)
	if err != nil {
		return nil, err
	}
	rel, err := imageName(filename)
	if err != nil {
		return nil, err
	}
	dir := folders[0]
	if b, ok := body.(sized); ok && b.Size() >= 0 {
		if err := checkImageSpace(dir, b.Size(), filename); err != nil {
			return nil, err
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	sub := path.Dir(rel)
	if sub != "." {
		if err := root.MkdirAll(sub, 0o755); err != nil {
			return nil, imageWriteError(filename, err)
		}
	}
	tmp := path.Join(sub, uploadPrefix+uuid.NewString())
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, imageWriteError(filename, err)
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			root.Remove(tmp)
		}
	}()
	h := md5.New()
	n, err := copyImage(ctx, io.MultiWriter(f, h), body, dir, filename)
	if err != nil {
		return nil, err
	}
	if err := f.Sync(); err != nil {
		return nil, imageWriteError(filename, err)
	}
	if err := f.Close(); err != nil {
		return nil, imageWriteError(filename, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	imageCommits.Lock()
	defer imageCommits.Unlock()
	// The old checksum goes first: a crash before the new one is written
	// leaves none, and the next listing computes it.
	if err := root.Remove(rel + md5Suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, imageWriteError(filename, err)
	}
	if err := root.Rename(tmp, rel); err != nil {
		return nil, imageWriteError(filename, err)
	}
	done = true
	syncDir(filepath.Join(dir, filepath.FromSlash(sub)))
	if err := writeSidecar(filepath.Join(dir, filepath.FromSlash(rel)), sum); err != nil {
		s.c.Logger.Warn("image checksum not kept", "image", rel, "err", err)
	}
	return &Image{Filename: path.Base(rel), Path: rel, MD5Sum: sum, FileSize: n}, nil
}

// uploadCheckEvery is how many bytes an upload writes between two looks
// at the free space of the disk.
const uploadCheckEvery = 64 << 20

// copyImage copies an upload's body to w, at most MaxImageBytes, checking
// the free space of dir's disk as it goes and stopping when ctx is done.
func copyImage(ctx context.Context, w io.Writer, body io.Reader, dir, filename string) (int64, error) {
	buf := make([]byte, 1<<20)
	var n, checked int64
	for {
		if err := ctx.Err(); err != nil {
			return n, Errorf(EINVALID, "The upload of %s stopped after %d bytes: %v", filename, n, err)
		}
		k, rerr := body.Read(buf)
		if k > 0 {
			if n+int64(k) > MaxImageBytes {
				return n, Errorf(EINVALID, "Image %s is larger than %d GiB, the most nodedesk takes", filename, MaxImageBytes>>30)
			}
			if _, err := w.Write(buf[:k]); err != nil {
				return n, imageWriteError(filename, err)
			}
			n += int64(k)
			if n-checked >= uploadCheckEvery {
				checked = n
				if err := checkImageSpace(dir, 0, filename); err != nil {
					return n, err
				}
			}
		}
		if rerr == io.EOF {
			return n, nil
		}
		if rerr != nil {
			var e *Error
			if errors.As(rerr, &e) {
				return n, rerr
			}
			return n, Errorf(EINVALID, "The upload of %s was cut short after %d bytes: %v; send it again", filename, n, rerr)
		}
	}
}

// checkImageSpace refuses a write of size more bytes into dir when its disk
// would keep less than imageDiskReserve free (size 0: whether it has that
// much free now). A disk whose free space cannot be read is not refused.
func checkImageSpace(dir string, size int64, filename string) error {
	if size > MaxImageBytes {
		return Errorf(EINVALID, "Image %s is larger than %d GiB, the most nodedesk takes", filename, MaxImageBytes>>30)
	}
	free, ok := diskFree(dir)
	if !ok || uint64(size)+imageDiskReserve <= free {
		return nil
	}
	return Errorf(ECONFLICT, "Not enough disk space for image %s: %s has %d MiB free, and the image needs %d MiB plus %d MiB kept free; free some space and upload it again",
		filename, dir, free>>20, size>>20, imageDiskReserve>>20)
}

// imageWriteError says why an image could not be written.
func imageWriteError(filename string, err error) error {
	if isNoSpace(err) {
		return Errorf(ECONFLICT, "Not enough disk space for image %s; free some space and upload it again", filename)
	}
	return fmt.Errorf("writing image %s: %w", filename, err)
}

// isNoSpace reports whether err is a full disk.
func isNoSpace(err error) bool { return errors.Is(err, syscall.ENOSPC) }

// syncDir makes a rename in dir durable (best effort: not every system
// syncs a folder).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// OpenImage opens an image of kind for reading (a download), by its path
// relative to the folders as Images lists it; a link that leads out of its
// folder is not followed. Codes: EINVALID (an unknown kind, an empty name),
// EFORBIDDEN (an absolute name, a .. part, a hidden file), ENOTFOUND.
func (s *Service) OpenImage(kind ImageKind, filename string) (*os.File, error) {
	folders, err := s.imageFolders(kind, false)
	if err != nil {
		return nil, err
	}
	rel, err := imageName(filename)
	if err != nil {
		return nil, err
	}
	p := findImage(folders, rel)
	if p == "" {
		return nil, Errorf(ENOTFOUND, "%s image %s doesn't exist; GET the list of images to see their names", kind, filename)
	}
	for _, dir := range folders {
		r, err := filepath.Rel(dir, p)
		if err != nil || strings.HasPrefix(r, "..") {
			continue
		}
		root, err := os.OpenRoot(dir)
		if err != nil {
			return nil, err
		}
		defer root.Close()
		f, err := root.Open(r)
		if err != nil {
			return nil, Errorf(EFORBIDDEN, "%s image %s is a link that leads out of %s; nodedesk sends only files inside its images folders", kind, filename, dir)
		}
		return f, nil
	}
	return nil, Errorf(ENOTFOUND, "%s image %s doesn't exist", kind, filename)
}
