package postgres_test

import (
	"context"
	"database/sql"
	"errors"
	neturl "net/url"
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
	q := testQueue()
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
	reopened(t, url, q)
}

// Replicas (NoWriterLock, database.replicas) open one schema at once: each
// sees what the others wrote, and what was written is there after they
// closed.
func TestReplicasShareASchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pgtest.URL(t)
	first, err := postgres.Open(ctx, url, postgres.NoWriterLock())
	if err != nil {
		t.Fatal(err)
	}
	second, err := postgres.Open(ctx, url, postgres.NoWriterLock())
	if err != nil {
		t.Fatal(err)
	}
	q := testQueue()
	if err := first.CreateQueue(ctx, q); err != nil {
		t.Fatal(err)
	}
	if got, err := second.GetQueue(ctx, q.Key); err != nil || got.ID != q.ID {
		t.Fatalf("GetQueue through the other replica = %+v, %v", got, err)
	}
	if err := second.SetAppState(ctx, "k", "v"); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := first.AppState(ctx, "k"); err != nil || !ok || v != "v" {
		t.Fatalf("AppState through the other replica = %q, %v, %v", v, ok, err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if err := second.Close(); err != nil {
		t.Fatal(err)
	}
	reopened(t, url, q)
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

// The server drops the store's connections (a restart, a failover, an
// administrator): the store reconnects on its own. A call caught on a
// dropped connection may fail; the next ones succeed, nothing committed is
// lost, and the reconnected writer holds the schema's lock again.
func TestReconnectsAfterTheServerDropsItsConnections(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pgtest.URL(t) + "&application_name=mq_reconnect_test"
	s := open(t, url)
	defer s.Close()
	q := testQueue()
	if err := s.CreateQueue(ctx, q); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ListQueues(ctx); err != nil { // a reader connection too
		t.Fatal(err)
	}
	admin, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var killed int
	if err := admin.QueryRow(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = 'mq_reconnect_test' AND pid <> pg_backend_pid()`).Scan(&killed); err != nil {
		t.Fatal(err)
	}
	if killed < 2 {
		t.Fatalf("terminated %d connections, want the writer's and a reader's", killed)
	}
	// A call may fail on a dropped connection, or while the server has not
	// yet ended the dropped session that held the lock; the store
	// reconnects by itself within moments.
	deadline := time.Now().Add(20 * time.Second)
	for {
		werr := s.SetAppState(ctx, "k", "v")
		got, rerr := s.GetQueue(ctx, q.Key)
		if werr == nil && rerr == nil {
			if got.ID != q.ID {
				t.Fatalf("GetQueue = %+v", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no reconnection: write %v, read %v", werr, rerr)
		}
		time.Sleep(20 * time.Millisecond) // polling interval
	}
	if v, ok, err := s.AppState(ctx, "k"); err != nil || !ok || v != "v" {
		t.Errorf("AppState = %q, %v, %v", v, ok, err)
	}
	if other, err := postgres.Open(ctx, url); !errors.Is(err, postgres.ErrLocked) {
		if other != nil {
			_ = other.Close()
		}
		t.Errorf("a second server after the reconnection: %v, want ErrLocked (the writer holds the lock again)", err)
	}
}

// FuzzRedact: Redact's output does not depend on the password in the
// URL's user part: it shows nothing of it.
func FuzzRedact(f *testing.F) {
	f.Add("mq", "s3cret", "db:5432", "sslmode=require")
	f.Add("u", "p@ss/w:rd", "h", "password=p@ss/w:rd")
	f.Add("", "x", "", "")
	f.Fuzz(func(t *testing.T, user, password, host, query string) {
		at := func(pw string) string {
			return (&neturl.URL{Scheme: "postgres", User: neturl.UserPassword(user, pw), Host: host, Path: "/db", RawQuery: query}).String()
		}
		if a, b := postgres.Redact(at(password)), postgres.Redact(at(password+"-other")); a != b {
			t.Fatalf("Redact shows the password: %q for %q but %q for another password", a, at(password), b)
		}
	})
}

// testQueue is a queue to store in the tests.
func testQueue() *queue.Queue {
	return &queue.Queue{Key: queue.QueueKey{Repo: queue.Repo{Host: queue.DefaultHost, Owner: "acme", Name: "widgets"}, Branch: "main"},
		State: queue.QueueRunning, Settings: queue.DefaultSettings(), NextSeq: 1, CreatedAt: time.Unix(1, 0).UTC(), UpdatedAt: time.Unix(1, 0).UTC()}
}

// reopened checks that the schema of url, opened again, holds q, and that
// another schema of the same database is another store.
func reopened(t *testing.T, url string, q *queue.Queue) {
	t.Helper()
	ctx := context.Background()
	again := open(t, url)
	defer again.Close()
	got, err := again.GetQueue(ctx, q.Key)
	if err != nil || got.ID != q.ID {
		t.Fatalf("GetQueue after reopening = %+v, %v", got, err)
	}
	other := open(t, pgtest.URL(t))
	defer other.Close()
	if _, err := other.GetQueue(ctx, q.Key); !errors.Is(err, queue.ErrNotFound) {
		t.Errorf("another schema sees the queue: %v", err)
	}
}
