package sqlitetest

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/sqlite"

	_ "modernc.org/sqlite" // the "sqlite" driver, for reading the schema
)

// schema opens the file at path with sqlite.Open (which migrates a new
// file) and lists its tables, indexes and triggers with their SQL, and the
// migrations recorded in it.
func schema(t *testing.T, path string) []string {
	t.Helper()
	s, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	rows, err := db.Query(`SELECT type || ' ' || name || ': ' || COALESCE(sql, '') FROM sqlite_master
		UNION ALL SELECT 'migration ' || version || ' ' || name FROM schema_migrations ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rows.Close() }()
	var out []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		out = append(out, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// A copy has the schema and the migrations of a file migrated from
// scratch, the file mode sqlite.Open gives, and copies are independent.
func TestCopyIsAFreshlyMigratedFile(t *testing.T) {
	fresh := filepath.Join(t.TempDir(), "fresh.db")
	want := schema(t, fresh)
	copied := Path(t)
	fi, err := os.Stat(copied)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("copy has mode %v, want 0600", fi.Mode().Perm())
	}
	if got := schema(t, copied); !reflect.DeepEqual(got, want) {
		t.Errorf("copy's schema differs from a fresh file's:\n got %q\nwant %q", got, want)
	}
	if len(want) < 20 {
		t.Errorf("a fresh file lists %d objects and migrations; the query sees too little", len(want))
	}

	a, b := Open(t), Open(t)
	ctx := context.Background()
	q := &queue.Queue{Key: queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: "o", Name: "r"}, Branch: "main"},
		State: queue.QueueRunning, Settings: queue.DefaultSettings()}
	if err := a.CreateQueue(ctx, q); err != nil {
		t.Fatal(err)
	}
	if qs, err := b.ListQueues(ctx); err != nil || len(qs) != 0 {
		t.Errorf("another copy lists %d queues (%v), want none", len(qs), err)
	}
}
