// Package sqlitetest gives tests SQLite database files whose schema is
// already migrated, copied from one file this process migrates once.
// Migrating a fresh file parses and runs every migration, about a second
// of CPU under -race; a copy costs a file write, and sqlite.Open on it
// still checks the pragmas and that no migration is pending. Tests of the
// migrations themselves open fresh files instead.
package sqlitetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mergequeue/mq/queue/sqlite"
)

var template = sync.OnceValues(migrated)

// migrated returns the bytes of a database file that sqlite.Open created
// and migrated, and that was closed (its WAL copied into the file).
func migrated() ([]byte, error) {
	dir, err := os.MkdirTemp("", "mq-sqlite-template-")
	if err != nil {
		return nil, fmt.Errorf("failed to create the template's directory: %w", err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	path := filepath.Join(dir, "mq.db")
	s, err := sqlite.Open(context.Background(), path)
	if err != nil {
		return nil, fmt.Errorf("failed to create the template database: %w", err)
	}
	if err := s.Close(); err != nil {
		return nil, fmt.Errorf("failed to close the template database: %w", err)
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		return nil, fmt.Errorf("the template database kept %d bytes in its WAL after closing", fi.Size())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("failed to read the template database: %w", err)
	}
	return data, nil
}

// CopyTo writes a migrated database file at path (mode 0600, as
// sqlite.Open creates one), which must not exist yet.
func CopyTo(t testing.TB, path string) {
	t.Helper()
	data, err := template()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatalf("failed to create %s: %v", path, err)
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		t.Fatalf("failed to write %s: %v", path, err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("failed to write %s: %v", path, err)
	}
}

// Path returns the path of a new migrated database file in t.TempDir().
func Path(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mq.db")
	CopyTo(t, path)
	return path
}

// Open opens a store on a new migrated database file (Path), closed when
// the test ends.
func Open(t testing.TB) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), Path(t))
	if err != nil {
		t.Fatalf("failed to open the test database: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("failed to close the test database: %v", err)
		}
	})
	return s
}
