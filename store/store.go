package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"nodedesk/app"
)

// lockTimeout bounds the wait for another process's lock on the file, so
// that a second nodedesk on the same store fails fast instead of hanging.
const lockTimeout = time.Second

// Store is an app.Store on a bbolt file.
type Store struct {
	db   *bolt.DB
	path string
}

var _ app.Store = (*Store)(nil)

// Open opens (creating it and its folder if needed) the store at path. Its
// errors are one sentence naming the file and what to do.
func Open(path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the folder of store %s: %w", path, unwrapPath(err))
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: lockTimeout})
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return nil, fmt.Errorf("store %s is in use by another nodedesk; quit that one or choose another file with --db", path)
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrVersionMismatch), errors.Is(err, berrors.ErrChecksum):
		return nil, fmt.Errorf("%s is not a nodedesk store or is damaged (%v); it was left untouched: move it aside or choose another file with --db", path, err)
	case errors.Is(err, fs.ErrPermission):
		return nil, fmt.Errorf("cannot open store %s: permission denied; choose a writable file with --db", path)
	case err != nil && !errors.Is(err, fs.ErrNotExist) && fileHasData(path):
		// bbolt could not read what is there: refuse it, without writing.
		return nil, fmt.Errorf("%s is not a nodedesk store or is damaged (%v); it was left untouched: move it aside or choose another file with --db", path, unwrapPath(err))
	case err != nil:
		return nil, fmt.Errorf("cannot open store %s: %w", path, unwrapPath(err))
	}
	if err := migrate(db, path); err != nil {
		db.Close()
		return nil, err
	}
	return &Store{db: db, path: path}, nil
}

// fileHasData reports whether path is a regular file with content.
func fileHasData(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Size() > 0
}

// unwrapPath drops the *fs.PathError wrapper, whose path the caller's
// message already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Path is the file the store lives in.
func (s *Store) Path() string { return s.path }

// Close closes the file, waiting for running transactions.
func (s *Store) Close() error { return s.db.Close() }

// View runs fn in a read-only transaction.
func (s *Store) View(fn func(app.Tx) error) error {
	return s.db.View(func(btx *bolt.Tx) error { return fn(&tx{b: btx}) })
}

// Update runs fn in a read-write transaction and commits it (fsync'd).
// If the file cannot be written (a full disk, a read-only file) nothing is
// written and the error says so; the store stays usable for the next write.
func (s *Store) Update(fn func(app.Tx) error) error {
	var fnErr error
	err := s.db.Update(func(btx *bolt.Tx) error {
		fnErr = fn(&tx{b: btx, read: map[string]*indexed{}})
		return fnErr
	})
	if err != nil && fnErr == nil {
		return app.Errorf(app.EINTERNAL, "The change was not saved: the store %s could not be written (%v); check free disk space and permissions, then try again", s.path, err)
	}
	return err
}

// Backup writes a consistent copy of the whole store to w.
func (s *Store) Backup(w io.Writer) error {
	return s.db.View(func(btx *bolt.Tx) error {
		_, err := btx.WriteTo(w)
		return err
	})
}
