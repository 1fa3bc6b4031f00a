package app

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"
)

// What an import or upload cut short leaves behind. A request body being
// imported is spooled to a hidden file of the projects folder
// (NewUploadFile), the imported files are staged in a hidden folder there
// (stageFiles), and an image is written to a hidden file beside its name
// (UploadImage): each is removed when its request ends, but a crash (kill
// -9, power loss) leaves it, up to the largest upload in size.
// SweepDebris removes them at start.

// importStagePrefix starts the name of the folder an import stages its
// files in, inside the projects folder.
const importStagePrefix = ".import-"

// debrisName reports whether name, with prefix, is one nodedesk makes for
// a temporary file or folder: the prefix then a UUID (made here), or then
// only digits (os.CreateTemp's and os.MkdirTemp's, made by earlier
// versions). Anything else that starts alike is someone else's.
func debrisName(name, prefix string) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok || rest == "" {
		return false
	}
	if _, valid := canonicalID(rest); valid && len(rest) == 36 {
		return true
	}
	return strings.Trim(rest, "0123456789") == ""
}

// deleteAside is the project id of a folder named as projectDeleteAside
// names one, or "".
func deleteAside(name string) string {
	rest, ok := strings.CutPrefix(name, projectDeletePrefix)
	if id, valid := canonicalID(rest); ok && valid && id == rest {
		return id
	}
	return ""
}

// NewUploadFile makes a new hidden file in the projects folder to spool a
// request body into (an archive being imported). The caller removes it when
// done; one that a crash leaves is removed by SweepDebris.
func (s *Service) NewUploadFile() (*os.File, error) {
	if err := os.MkdirAll(s.ProjectsDir(), 0o755); err != nil {
		return nil, Errorf(EINTERNAL, "Cannot create the projects folder: %v", err)
	}
	name := filepath.Join(s.ProjectsDir(), uploadPrefix+uuid.NewString())
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, Errorf(EINTERNAL, "Cannot create a file for the upload in the projects folder: %v", err)
	}
	return f, nil
}

// SweepDebris removes what imports and uploads cut short by a crash left
// in nodedesk's data folder: spooled bodies (.upload-…) and staging
// folders (.import-…) of the projects folder, and partial images and
// checksums (.upload-…) in nodedesk's own image folders (GNS3's are left
// alone). It finishes a project delete a crash interrupted: a project's
// folder set aside (.delete-<id>) is removed when the project's records
// are gone, and put back when they are not (the delete never committed).
// Only names nodedesk makes are touched (debrisName); links are not
// followed. Call it at start, before anything can upload, import or
// delete. It returns the paths removed, which Leftovers reports to the
// user; an error names what could not be.
func (s *Service) SweepDebris(ctx context.Context) ([]string, error) {
	var removed []string
	var errs []error
	remove := func(p string) {
		if err := os.RemoveAll(p); err != nil {
			errs = append(errs, err)
			return
		}
		removed = append(removed, p)
	}
	entries, err := os.ReadDir(s.ProjectsDir())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, err)
	}
	for _, e := range entries {
		switch {
		case e.Type().IsRegular() && debrisName(e.Name(), uploadPrefix),
			e.IsDir() && debrisName(e.Name(), importStagePrefix):
			remove(filepath.Join(s.ProjectsDir(), e.Name()))
		case e.IsDir() && deleteAside(e.Name()) != "":
			id := deleteAside(e.Name())
			_, err := s.FindProjectByID(ctx, id)
			switch {
			case ErrorCode(err) == ENOTFOUND:
				remove(s.projectDeleteAside(id))
			case err != nil:
				errs = append(errs, err)
			default:
				errs = append(errs, os.Rename(s.projectDeleteAside(id), s.ProjectDir(id)))
			}
		}
	}
	for _, kind := range ImageKinds() {
		dir := s.imagesDir(kind)
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			switch {
			case errors.Is(err, fs.ErrNotExist) && p == dir:
				return fs.SkipAll
			case err != nil:
				errs = append(errs, err)
				return nil
			case d.Type().IsRegular() && debrisName(d.Name(), uploadPrefix):
				remove(p)
			}
			return nil
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	s.noteLeftovers(nil, removed) // the user is told (leftovers.go)
	return removed, errors.Join(errs...)
}

// ImportRoom is the disk space an import may unpack its files and images
// into: the free space of the disk of the data folder, less what uploads
// leave free (imageDiskReserve); 0 when it cannot be read (no bound).
func (s *Service) ImportRoom() int64 {
	free, ok := diskFree(s.c.DataDir)
	if !ok {
		return 0
	}
	if free <= imageDiskReserve {
		return 1 // nothing fits
	}
	return int64(free - imageDiskReserve)
}
