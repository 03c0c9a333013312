package postgres_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/postgres"
	"github.com/mergequeue/mq/queue/postgres/pgtest"
)

func open(t *testing.T, url string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

// One process writes to a schema at a time: a second Open is refused with
// ErrLocked while the first holds it, and succeeds once it is closed; what
// the first wrote is there.
func TestOneWriterPerSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pgtest.URL(t)
	first := open(t, url)
	q := &queue.Queue{Key: queue.QueueKey{Repo: queue.Repo{Host: queue.DefaultHost, Owner: "acme", Name: "widgets"}, Branch: "main"},
		State: queue.QueueRunning, Settings: queue.DefaultSettings(), NextSeq: 1, CreatedAt: time.Unix(1, 0).UTC(), UpdatedAt: time.Unix(1, 0).UTC()}
	if err := first.CreateQueue(ctx, q); err != nil {
		t.Fatal(err)
	}
	if s, err := postgres.Open(ctx, url); !errors.Is(err, postgres.ErrLocked) {
		if s != nil {
			_ = s.Close()
		}
		t.Fatalf("second Open while the first is open = %v, want ErrLocked", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second := open(t, url)
	defer second.Close()
	got, err := second.GetQueue(ctx, q.Key)
	if err != nil || got.ID != q.ID {
		t.Fatalf("GetQueue after reopening = %+v, %v", got, err)
	}
	// Another schema of the same database is another store.
	other := open(t, pgtest.URL(t))
	defer other.Close()
	if _, err := other.GetQueue(ctx, q.Key); !errors.Is(err, queue.ErrNotFound) {
		t.Errorf("another schema sees the queue: %v", err)
	}
}

// A schema migrated by a newer binary is refused, not written to.
func TestNewerSchemaRefused(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	open(t, url).Close()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO goose_db_version (version_id, is_applied) VALUES (99999, true)`); err != nil {
		t.Fatal(err)
	}
	_, err = postgres.Open(context.Background(), url)
	if err == nil || !strings.Contains(err.Error(), "newer than this binary") {
		t.Fatalf("Open of a newer schema = %v, want a refusal", err)
	}
}

// Redact hides the password of a URL, in its user part or its query.
func TestRedact(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"postgres://mq:s3cret@db:5432/mq?sslmode=require", "postgres://mq:xxxxx@db:5432/mq?sslmode=require"},
		{"postgres://mq@db/mq?password=s3cret", "postgres://mq@db/mq?password=xxxxx"},
		{"host=db password=s3cret", "(a PostgreSQL connection string)"},
	} {
		if got := postgres.Redact(c.in); got != c.want || strings.Contains(got, "s3cret") {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
