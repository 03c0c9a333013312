package sqlstore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	msqlite "modernc.org/sqlite" // the "sqlite" driver, for tests on a real database
	sqlite3 "modernc.org/sqlite/lib"
)

// The package's own tests run the store on SQLite (the package cannot
// import queue/sqlite, which imports it), with queue/sqlite's migrations
// read from the repository; queue/storetest runs it on both databases.

// t0 is a fixed instant with nanoseconds, to prove full precision.
var t0 = time.Date(2026, 7, 23, 1, 32, 50, 123456789, time.UTC)

func hashOf(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

var testDialect = &Dialect{Name: "SQLite", IsUnique: func(err error) bool {
	var se *msqlite.Error
	return errors.As(err, &se) && (se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY)
}}

func init() {
	// Migration 0016 uses queue/sqlite's SQL function.
	msqlite.MustRegisterDeterministicScalarFunction("mq_sha256_hex", 1, func(_ *msqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		var b []byte
		switch v := args[0].(type) {
		case nil:
			return nil, nil
		case string:
			b = []byte(v)
		case []byte:
			b = v
		}
		sum := sha256.Sum256(b)
		return hex.EncodeToString(sum[:]), nil
	})
}

// testStore is a Store on a SQLite file, with its databases.
type testStore struct {
	*Store
	writer, reader *sql.DB
}

func openTest(t *testing.T) *testStore {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "mq.db"))
}

// openAt opens the SQLite file at path as queue/sqlite does (one writer
// connection, a read pool), migrating it first if it is new.
func openAt(t *testing.T, path string) *testStore {
	t.Helper()
	ctx := context.Background()
	u := url.URL{Path: filepath.ToSlash(path)}
	dsn := "file:" + u.EscapedPath() + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_txlock=immediate"
	writer, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	writer.SetMaxOpenConns(1)
	reader, err := sql.Open("sqlite", dsn+"&_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = reader.Close(); _ = writer.Close() })
	var n int
	if err := writer.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE name = 'queues'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		files, err := filepath.Glob(filepath.Join("..", "sqlite", "migrations", "*.sql"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no migrations found (%v)", err)
		}
		sort.Strings(files)
		for _, f := range files {
			b, err := os.ReadFile(f) //nolint:gosec // the repository's own migrations
			if err != nil {
				t.Fatal(err)
			}
			if _, err := writer.ExecContext(ctx, string(b)); err != nil {
				t.Fatalf("%s: %v", filepath.Base(f), err)
			}
		}
	}
	s, err := New(ctx, writer, reader, Options{Dialect: testDialect})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return &testStore{Store: s, writer: writer, reader: reader}
}

// assertEqual fails the test unless got and want are deeply equal.
func assertEqual(t *testing.T, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mismatch\n got: %+v\nwant: %+v", got, want)
	}
}
