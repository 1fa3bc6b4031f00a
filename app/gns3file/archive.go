package gns3file

import (
	"archive/zip"
	"bytes"
	"cmp"
	"errors"
	"io"
	"io/fs"
	"math"
	"path"
	"strconv"
	"strings"

	"nodedesk/app"
)

// Limits bound what reading a project costs. Sizes are counted on the
// bytes actually read, never taken from an archive's headers alone (the
// headers' sizes are also checked first, to refuse early what would not
// fit).
type Limits struct {
	// ArchiveBytes bounds an archive (the request body of an import).
	ArchiveBytes int64
	// Files bounds the entries of an archive, or the files of a folder.
	Files int
	// FileBytes bounds one file, uncompressed; TotalBytes all of them.
	FileBytes, TotalBytes int64
	// Ratio bounds an entry's uncompressed bytes per compressed byte, once
	// it has given RatioAfter bytes.
	Ratio      int64
	RatioAfter int64
	// Room, when set, is the free disk space the unpacked files may take
	// (app.Service.ImportRoom): an archive whose files need more is
	// refused before a byte is written, and while it is read.
	Room int64
}

// DefaultLimits fit real GNS3 projects with room to spare, images
// included (a project carries QEMU disks of many GiB): one file may be as
// large as an image (app.MaxImageBytes). A Dynamips c7200's 64 MB PCMCIA
// disk of zeros deflates about 1000:1, which is deflate's own ceiling
// (about 1032:1), so the ratio bound only refuses what deflate cannot
// honestly give; what stops a bomb that stays under it is the room on the
// disk (Room), the total, and the count of entries.
var DefaultLimits = Limits{
	ArchiveBytes: 2 * app.MaxImageBytes,
	Files:        10000,
	FileBytes:    app.MaxImageBytes,
	TotalBytes:   4 * app.MaxImageBytes,
	Ratio:        1100,
	RatioAfter:   1 << 20,
}

// MaxTopologyBytes bounds a .gns3 file (a 10,000-node topology is about
// 20 MB).
const MaxTopologyBytes = 64 << 20

func (l Limits) orDefault() Limits {
	d := DefaultLimits
	return Limits{
		ArchiveBytes: cmp.Or(l.ArchiveBytes, d.ArchiveBytes), Files: cmp.Or(l.Files, d.Files),
		FileBytes: cmp.Or(l.FileBytes, d.FileBytes), TotalBytes: cmp.Or(l.TotalBytes, d.TotalBytes),
		Ratio: cmp.Or(l.Ratio, d.Ratio), RatioAfter: cmp.Or(l.RatioAfter, d.RatioAfter), Room: l.Room,
	}
}

// budget counts the bytes read from one project against its limits.
type budget struct {
	Limits
	total int64
}

// meter counts the bytes of one file against the budget. compressed is
// the most compressed bytes the file can be read from (0: not compressed).
type meter struct {
	r          io.Reader
	b          *budget
	name       string
	compressed int64
	n          int64
	limit      int64
}

func (m *meter) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	m.n += int64(n)
	m.b.total += int64(n)
	if err := m.b.checkFile(m.name, m.n, m.limit); err != nil {
		return n, err
	}
	if err := m.b.checkTotal(m.b.total); err != nil {
		return n, err
	}
	switch {
	case m.compressed > 0 && m.n > m.b.RatioAfter && m.n > m.compressed*m.b.Ratio:
		return n, app.Errorf(app.EINVALID, "The project's file %s expands more than %d times; it looks like a zip bomb, so nodedesk does not import it", m.name, m.b.Ratio)
	case err != nil && err != io.EOF:
		return n, app.Errorf(app.EINVALID, "The project's file %s is damaged: %v", m.name, err)
	}
	return n, err
}

// IsArchive reports whether b starts as a zip archive does, rather than as
// a lone .gns3 (JSON, perhaps after a UTF-8 byte order mark).
func IsArchive(b []byte) bool { return bytes.HasPrefix(b, []byte("PK")) }

// ReadArchive reads a .gns3project archive: its project.gns3 (Decode), the
// files of the project's folder beside it, and the images under
// images/<kind>/ (ProjectImport.Images), which app.ImportProject writes.
// Entries under snapshots/ (GNS3's snapshot archives), other .gns3 files
// at the top, and the files an export leaves out (app.Exportable: logs,
// a router's scratch files, which an older export may hold) are left
// out. The archive is refused whole if it is not a zip, has no
// project.gns3, has too many entries, holds a symbolic link or another
// special file, or its entries' stated sizes exceed the limits or the
// room on the disk; its files' sizes and compression are bounded again as
// they are read. Codes: EINVALID, ECONFLICT (Decode's revisions; files
// that need more room than the disk has).
func ReadArchive(ra io.ReaderAt, size int64, o Options) (*app.ProjectImport, error) {
	lim := o.Limits.orDefault()
	if size > lim.ArchiveBytes {
		return nil, archiveTooLarge(lim)
	}
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		return nil, app.Errorf(app.EINVALID, "Not a GNS3 project (invalid zip): %v", err)
	}
	if len(zr.File) > lim.Files {
		return nil, app.Errorf(app.EINVALID, "The archive has %d entries; nodedesk imports at most %d", len(zr.File), lim.Files)
	}
	b := &budget{Limits: lim}
	var topology *zip.File
	var files, images []app.ImportFile
	var stated uint64 // the sizes the headers state, of the entries read
	for _, f := range zr.File {
		mode := f.Mode()
		switch {
		case mode&fs.ModeSymlink != 0:
			return nil, app.Errorf(app.EINVALID, "The archive's entry %s is a symbolic link; nodedesk imports no links", f.Name)
		case !mode.IsDir() && !mode.IsRegular():
			return nil, app.Errorf(app.EINVALID, "The archive's entry %s is not a file (mode %v); nodedesk imports files and folders only", f.Name, mode)
		case f.Name == TopologyFile:
			if topology != nil {
				return nil, app.Errorf(app.EINVALID, "The archive has %s twice", TopologyFile)
			}
			topology = f
			continue
		case skipped(f.Name):
			continue
		}
		stated += f.UncompressedSize64
		if err := b.checkFile(f.Name, statedSize(f.UncompressedSize64), lim.FileBytes); err != nil {
			return nil, err
		}
		if img, ok := imageEntry(f.Name); ok {
			images = append(images, app.ImportFile{Path: img, Dir: mode.IsDir(), Open: entryOpener(f, b)})
			continue
		}
		files = append(files, app.ImportFile{Path: f.Name, Dir: mode.IsDir(), Open: entryOpener(f, b)})
	}
	if err := b.checkTotal(statedSize(stated)); err != nil {
		return nil, err
	}
	if topology == nil {
		return nil, app.Errorf(app.EINVALID, "Not a GNS3 project: the archive has no %s", TopologyFile)
	}
	raw, err := readAll(entryOpener(topology, b), TopologyFile, min(MaxTopologyBytes, lim.FileBytes))
	if err != nil {
		return nil, err
	}
	imp, err := Decode(raw, o)
	if err != nil {
		return nil, err
	}
	imp.Files, imp.Images = files, images
	return imp, nil
}

// statedSize is a size a zip header states, as an int64 (a size beyond
// int64 is the largest, which every limit refuses).
func statedSize(n uint64) int64 {
	return int64(min(n, math.MaxInt64))
}

// checkFile refuses a file of n bytes (read so far, or stated by its
// header) over limit: the one rule and message of a file too large.
func (b *budget) checkFile(name string, n, limit int64) error {
	if n > limit {
		return app.Errorf(app.EINVALID, "The project's file %s is larger than %s; nodedesk does not import it", name, mib(limit))
	}
	return nil
}

// checkTotal refuses files of n bytes in all (read so far, or stated by
// their headers) over the total bound (EINVALID) or the room on the disk
// (ECONFLICT, as a full disk is everywhere else: noRoom).
func (b *budget) checkTotal(n int64) error {
	switch {
	case n > b.TotalBytes:
		return app.Errorf(app.EINVALID, "The project's files are larger than %s in all; nodedesk does not import them", mib(b.TotalBytes))
	case b.Room > 0 && n > b.Room:
		return noRoom(n, b.Room)
	}
	return nil
}

// noRoom says that the unpacked files do not fit on the disk: a conflict
// with the disk's state, as an upload or an import's spool that fills it.
func noRoom(need, room int64) error {
	return app.Errorf(app.ECONFLICT, "The project's files need %s once unpacked, more than the %s the disk of nodedesk's data folder can take; free some space (or export the project without images) and import it again", mib(need), mib(room))
}

// imageEntry is, for an archive entry under images/ (GNS3's
// images/<kind>/<file name>), its path below images/.
func imageEntry(name string) (string, bool) {
	p := path.Clean(strings.ReplaceAll(name, `\`, "/"))
	rest, ok := strings.CutPrefix(p, "images/")
	return rest, ok && rest != ""
}

func archiveTooLarge(lim Limits) error {
	return app.Errorf(app.EINVALID, "The archive is larger than %s; nodedesk imports smaller ones", mib(lim.ArchiveBytes))
}

// skipped reports whether an archive entry is one an import leaves out:
// GNS3's snapshot archives, other .gns3 files at the top, and what an
// export leaves out (app.Exportable).
// The name is cleaned first, so that a path that climbs out of one of
// those folders is not mistaken for it (the import refuses it).
func skipped(name string) bool {
	p := path.Clean(strings.ReplaceAll(name, `\`, "/"))
	top, _, _ := strings.Cut(p, "/")
	return top == "snapshots" || (!strings.Contains(p, "/") && strings.HasSuffix(p, ".gns3")) ||
		(top != "images" && !app.Exportable(p, true))
}

// entryOpener opens an archive entry through the budget's meter.
func entryOpener(f *zip.File, b *budget) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) {
		rc, err := f.Open()
		if errors.Is(err, zip.ErrAlgorithm) {
			return nil, app.Errorf(app.EINVALID, "The archive's entry %s is compressed with a method nodedesk cannot read (method %d); export the project with compression zip or none", f.Name, f.Method)
		}
		if err != nil {
			return nil, app.Errorf(app.EINVALID, "The archive's entry %s is damaged: %v", f.Name, err)
		}
		m := &meter{r: rc, b: b, name: f.Name, compressed: max(int64(f.CompressedSize64), 1), limit: b.FileBytes}
		if f.Method == zip.Store {
			m.compressed = 0
		}
		return struct {
			io.Reader
			io.Closer
		}{m, rc}, nil
	}
}

// mib says a size in MiB (or bytes, below one).
func mib(n int64) string {
	if n < 1<<20 {
		return strconv.FormatInt(n, 10) + " bytes"
	}
	return strconv.FormatInt(n>>20, 10) + " MiB"
}

// readAll reads a whole file of at most limit bytes.
func readAll(open func() (io.ReadCloser, error), name string, limit int64) ([]byte, error) {
	rc, err := open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = app.Errorf(app.EINVALID, "%s is larger than %s; nodedesk does not import it", name, mib(limit))
	}
	return data, err
}
