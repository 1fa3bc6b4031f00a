package app

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/google/uuid"
)

// The images a project file carries (GNS3's include_images: its archive's
// images/<kind>/<file name>) go into nodedesk's images folder of their
// kind, as GNS3's import moves them into its own. A user's image is never
// replaced: an incoming image whose name is taken by a file with the same
// MD5 sum is the same image (dropped); one whose name is taken by a
// different file is kept beside it under a name of its own
// (<stem>-<first 8 hex digits of its sum><ext>), and the nodes of the
// import that named it name that file instead (decision 0064). Each such
// choice is told on the project's notification stream.

// imageKindOfFolder is the kind of images an archive's images/<folder>
// holds: GNS3 names the folder by the kind (IOS, QEMU, IOU) for the
// images of its local compute, and by the node type (dynamips, qemu, iou)
// for those of a remote one.
func imageKindOfFolder(folder string) (ImageKind, bool) {
	for _, k := range ImageKinds() {
		if strings.EqualFold(folder, string(k)) {
			return k, true
		}
	}
	for _, e := range kinds {
		if e.k.imageKind != "" && strings.EqualFold(folder, string(e.t)) {
			return e.k.imageKind, true
		}
	}
	return "", false
}

// importedImages are the images an import wrote or found: the file name
// a node of the import names an image by (its kind, then its file name)
// and the name it gets here when it differs (stored beside a different
// image of the same name), with the sentences the user is told.
type importedImages struct {
	renamed map[ImageKind]map[string]string
	notes   []string
	// written are the files this import added to the images folders,
	// removed if it fails (undo).
	written []string
}

// undo removes the images the import added (it failed), with their sums.
func (got *importedImages) undo() {
	for _, p := range got.written {
		_ = os.Remove(p)
		_ = os.Remove(p + md5Suffix)
	}
}

// importImages writes the images of a project file (ProjectImport.Images,
// each by <kind folder>/<file name>) into nodedesk's images folders. An
// entry whose folder is no kind of images, or whose name has a folder, is
// left out. Each is streamed to a hidden temporary file of the folder
// with its MD5 sum computed on the way, the disk's free space checked as
// it goes. Codes: EINVALID (a damaged or too large entry, from its
// reader), ECONFLICT (the disk is full).
func (s *Service) importImages(ctx context.Context, files []ImportFile) (*importedImages, error) {
	out := &importedImages{renamed: map[ImageKind]map[string]string{}}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			out.undo()
			return nil, err
		}
		folder, name, ok := strings.Cut(f.Path, "/")
		kind, known := imageKindOfFolder(folder)
		if f.Dir || !ok || !known || strings.Contains(name, "/") {
			continue
		}
		if _, err := imageName(name); err != nil {
			continue // a hidden name or a checksum sidecar: not an image
		}
		if err := s.importImage(ctx, kind, name, f, out); err != nil {
			out.undo()
			return nil, err
		}
	}
	return out, nil
}

// importImage writes one incoming image (importImages).
func (s *Service) importImage(ctx context.Context, kind ImageKind, name string, f ImportFile, out *importedImages) error {
	folders, err := s.imageFolders(kind, true)
	if err != nil {
		return err
	}
	dir := folders[0]
	tmp := filepath.Join(dir, uploadPrefix+uuid.NewString())
	w, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return imageWriteError(name, err)
	}
	defer os.Remove(tmp) // once renamed, there is nothing to remove
	rc, err := f.Open()
	if err != nil {
		w.Close()
		return err
	}
	h := md5.New()
	_, err = copyImage(ctx, io.MultiWriter(w, h), rc, dir, name)
	rc.Close()
	if err == nil {
		err = w.Sync()
	}
	if cerr := w.Close(); err == nil && cerr != nil {
		err = imageWriteError(name, cerr)
	}
	if err != nil {
		return err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	imageCommits.Lock()
	defer imageCommits.Unlock()
	keep := name
	if existing := findImage(folders, name); existing != "" {
		fi, err := os.Stat(existing)
		if err == nil {
			var have string
			if have, err = imageMD5(ctx, existing, fi); err == nil && have == sum {
				return nil // the same image: nothing to write
			}
		}
		keep = differentImageName(name, sum)
		if out.renamed[kind] == nil {
			out.renamed[kind] = map[string]string{}
		}
		out.renamed[kind][name] = keep // the nodes use it, written now or before
		out.notes = append(out.notes, fmt.Sprintf("The project's %s image %s differs from the one of that name on this machine (%s), which is kept as it is; the project's copy is stored as %s and its nodes use it",
			kind, name, existing, keep))
		if other := filepath.Join(dir, keep); fileExists(other) {
			return nil // imported before, under that name
		}
	}
	p := filepath.Join(dir, keep)
	if err := os.Rename(tmp, p); err != nil {
		return imageWriteError(name, err)
	}
	out.written = append(out.written, p)
	syncDir(dir)
	if err := writeSidecar(p, sum); err != nil {
		s.c.Logger.Warn("image checksum not kept", "image", p, "err", err)
	}
	return nil
}

// differentImageName is the name an incoming image is stored under when
// its own name is taken by a different image: its sum's first 8 hex
// digits before its extension (c7200.image → c7200-1a2b3c4d.image).
func differentImageName(name, sum string) string {
	ext := path.Ext(name)
	if len(ext) > 8 || strings.ContainsAny(ext, " -") { // not an extension (c7200-mz.124-24.T5)
		ext = ""
	}
	return strings.TrimSuffix(name, ext) + "-" + sum[:8] + ext
}

// fileExists reports whether p is a regular file.
func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// importImageNames is change u of an imported node of type t with the
// images it names as the node keeps them here: a file name an incoming
// image was stored under another name for (importedImages) names that
// file; a path of another machine (C:\GNS3\images\IOS\c7200.image) found
// here by its file name names the file found; the sums are the files'.
// note tells the user of each name found by its file name.
func (s *Service) importImageNames(ctx context.Context, t NodeType, u PropertiesUpdate, got *importedImages, note func(string)) PropertiesUpdate {
	iu, ok := u.(imageUpdate)
	if !ok {
		return u
	}
	given := iu.givenImages(t.ImageProperties())
	if len(given) == 0 {
		return u
	}
	kind := t.kind().imageKind
	kept := make(map[string]keptImage, len(given))
	for key, name := range given {
		look := name
		if other, ok := got.renamed[kind][imageFileName(name)]; ok {
			look = other
		}
		k := s.keepImage(ctx, kind, look, true)
		if k.foreign != "" {
			note(k.foreign)
		}
		kept[key] = k
	}
	return iu.withImages(kept)
}

// importNodeImages writes the images imp carries (importImages) and
// gives imp's local nodes their images' names as this machine finds them
// (importImageNames). It returns what it wrote (to undo if the import
// fails) with what the user is to be told (its notes).
func (s *Service) importNodeImages(ctx context.Context, imp *ProjectImport) (*importedImages, error) {
	got, err := s.importImages(ctx, imp.Images)
	if err != nil {
		return nil, err
	}
	notes := got.notes
	for i := range imp.Nodes {
		c := &imp.Nodes[i]
		if onRemote(c.ComputeID) || c.Properties == nil {
			continue
		}
		c.Properties = s.importImageNames(ctx, c.Type, c.Properties, got, func(m string) {
			notes = append(notes, c.Name.Value+": "+m)
		})
	}
	got.notes = notes
	return got, nil
}
