package kit

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// FolderHashes is every entry under dir by its slash path: a regular
// file's SHA-256 (hidden ones too), a link's target, a folder as "dir".
// Two folders whose hashes are equal hold the same bytes, byte for byte.
// A missing dir is an empty map.
func FolderHashes(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && os.IsNotExist(err) {
				return fs.SkipAll
			}
			return err
		}
		if p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			out[rel] = "dir"
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = "link " + target
		case d.Type().IsRegular():
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			h := sha256.New()
			if _, err := io.Copy(h, f); err != nil {
				return err
			}
			out[rel] = hex.EncodeToString(h.Sum(nil))
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// FolderSize is the bytes the regular files under dir hold.
func FolderSize(tb testing.TB, dir string) int64 {
	tb.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// WantFiles fails the test, naming each path that differs, unless got
// and want (FolderHashes) are the same.
func WantFiles(tb testing.TB, what string, got, want map[string]string) {
	tb.Helper()
	if len(want) == 0 {
		tb.Errorf("%s: the folder compared was empty before", what)
	}
	for p, h := range want {
		if got[p] != h {
			tb.Errorf("%s: %s is %q, want %q", what, p, got[p], h)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			tb.Errorf("%s: %s was not there before", what, p)
		}
	}
}
