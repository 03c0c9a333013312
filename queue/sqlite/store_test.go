package sqlite

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mergequeue/mq/queue"
)

func TestOpenRejectsBadPaths(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, path, want string
	}{
		{"empty", "", "empty"},
		{"memory", ":memory:", "in-memory"},
		{"memory uri", "file::memory:?cache=shared", "in-memory"},
		{"memory mode", "file:x.db?mode=memory", "in-memory"},
		{"uri", "file:/tmp/x.db", "not a SQLite URI"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := Open(context.Background(), tc.path)
			if err == nil {
				_ = s.Close()
				t.Fatalf("Open(%q) succeeded, want error", tc.path)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Open(%q) = %v, want it to mention %q", tc.path, err, tc.want)
			}
		})
	}
}

func TestOpenSetsPragmas(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	if err := checkWriterPragmas(ctx, s.writer); err != nil {
		t.Errorf("writer pragmas: %v", err)
	}
	if err := checkReaderPragmas(ctx, s.reader); err != nil {
		t.Errorf("reader pragmas: %v", err)
	}
	if _, err := s.reader.ExecContext(ctx, `DELETE FROM queues`); err == nil {
		t.Error("read pool accepted a write, want query_only")
	}
}

func TestDSNEscapesPath(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "odd dir?x=1&y#2%41 ü")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "mq.db")
	s := openAt(t, path)
	mustQueue(t, s, "main")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database file not created at the exact path: %v", err)
	}
	if s.Path() != path {
		t.Errorf("Path() = %q, want %q", s.Path(), path)
	}
}

func TestDataSurvivesReopen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mq.db")

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	q := mustQueue(t, s, "main")
	e := fullEntry("e1", q.ID, 1)
	if err := s.SaveEntry(ctx, e); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s2 := openAt(t, path)
	got, err := s2.GetEntryByID(ctx, "e1")
	if err != nil {
		t.Fatalf("GetEntryByID after reopen: %v", err)
	}
	assertEqual(t, got, e)
	gq, err := s2.GetQueue(ctx, q.Key)
	if err != nil {
		t.Fatalf("GetQueue after reopen: %v", err)
	}
	assertEqual(t, gq, q)
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mq.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.writer.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', 0)`); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(ctx, path)
	if err == nil {
		_ = s2.Close()
		t.Fatal("Open succeeded on a newer schema, want error")
	}
	if !strings.Contains(err.Error(), "newer") {
		t.Errorf("Open = %v, want it to mention the newer schema", err)
	}
}

func TestUseAfterCloseFails(t *testing.T) {
	t.Parallel()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "mq.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := s.GetQueueByID(context.Background(), 1); err == nil || errors.Is(err, queue.ErrNotFound) {
		t.Errorf("GetQueueByID after Close = %v, want a closed-database error", err)
	}
}
