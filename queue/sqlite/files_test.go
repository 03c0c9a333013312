//go:build unix

package sqlite

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rs/zerolog"
)

// withUmask runs f with the process umask set to mask (tests using it
// must not run in parallel: the umask is process-wide).
func withUmask(mask int, f func()) {
	old := syscall.Umask(mask)
	defer syscall.Umask(old)
	f()
}

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

// A new database and the -wal and -shm files SQLite creates beside it are
// readable by their owner only, whatever the umask lets through.
func TestOpenCreatesOwnerOnlyFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mq.db")
	var s *Store
	withUmask(0o022, func() { s = openAt(t, path) })
	q := newQueue(testRepo, "main")
	if err := s.CreateQueue(context.Background(), q); err != nil { // the WAL holds a write
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if got := mode(t, p); got != 0o600 {
			t.Errorf("%s has mode %04o, want 0600", filepath.Base(p), got)
		}
	}
}

// An existing database (and its siblings) readable by others is restricted
// to its owner at Open, and the change is logged.
func TestOpenTightensLooseFiles(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mq.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	loose := []string{path, path + "-wal", path + "-shm"}
	for _, p := range loose[1:] {
		if err := os.WriteFile(p, nil, 0o600); err != nil { // empty: what SQLite leaves after a checkpoint
			t.Fatal(err)
		}
	}
	for _, p := range loose {
		if err := os.Chmod(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var logs bytes.Buffer
	ctx := zerolog.New(&logs).WithContext(context.Background())
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, p := range loose {
		if got := mode(t, p); got != 0o600 {
			t.Errorf("%s has mode %04o after Open, want 0600", filepath.Base(p), got)
		}
		if !strings.Contains(logs.String(), `"file":"`+p+`"`) {
			t.Errorf("no log line names %s:\n%s", p, logs.String())
		}
	}
	if !strings.Contains(logs.String(), `"was":"0644"`) {
		t.Errorf("the log does not say what the mode was:\n%s", logs.String())
	}
}

// dbBytes returns the database file's bytes and its WAL's (if any).
func dbBytes(t *testing.T, path string) []byte {
	t.Helper()
	var out []byte
	for _, p := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		out = append(out, b...)
	}
	return out
}

// Upgrading to 0016 replaces each notification cursor's URL by its hash:
// the cursor keeps its position and retry count under the new key, and
// neither the database file nor its WAL holds the URL afterwards (nor the
// secret part of it), while the store is open and after it closes.
func TestMigration0016RemovesNotificationURLs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const secret = "XOXB0SECRET0TOKEN0Q7"
	url := "https://hooks.slack.com/services/T0AAA/B0BBB/" + secret
	path := filepath.Join(t.TempDir(), "mq.db")
	raw, err := sql.Open("sqlite", dsn(path, writerParams[:4])) // an older writer: no secure_delete
	if err != nil {
		t.Fatal(err)
	}
	raw.SetMaxOpenConns(1)
	if err := migrate(ctx, raw, embeddedMigrations[:15]); err != nil {
		t.Fatalf("migrate to 0015: %v", err)
	}
	for _, row := range []struct {
		key      string
		last     int64
		attempts int
	}{{"slack " + url, 7, 2}, {"webhook https://example.com/hook?token=" + secret, 9, 0}} {
		if _, err := raw.Exec(`INSERT INTO notification_cursors (target, last_event_id, attempts, next_attempt_at, last_error)
			VALUES (?, ?, ?, NULL, ?)`, row.key, row.last, row.attempts, "Post "+url+": refused"); err != nil {
			t.Fatal(err)
		}
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(dbBytes(t, path), []byte(secret)) {
		t.Fatal("the 0015 database does not hold the URL: the test proves nothing")
	}

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(url))
	c, err := s.NotificationCursor(ctx, "slack sha256:"+hex.EncodeToString(sum[:]))
	if err != nil {
		t.Fatal(err)
	}
	if c.LastEventID != 7 || c.Attempts != 2 || c.LastError != "" {
		t.Errorf("migrated cursor = %+v, want last event 7, 2 attempts, no stored error", c)
	}
	if bytes.Contains(dbBytes(t, path), []byte(secret)) {
		t.Error("the database or its WAL still holds the URL's secret while open")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(dbBytes(t, path), []byte(secret)) {
		t.Error("the database file still holds the URL's secret after Close")
	}
}
