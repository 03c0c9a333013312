// Package pgtest gives tests a PostgreSQL database of their own: a fresh
// schema on the server named by MQ_TEST_POSTGRES_URL, dropped when the test
// ends. Without that variable the tests skip, saying why, unless
// MQ_REQUIRE_POSTGRES=1 (set by .ci/run), which makes them fail instead.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// Environment variables.
const (
	// EnvURL names the server the tests use (a postgres:// URL of a user
	// that may create schemas).
	EnvURL = "MQ_TEST_POSTGRES_URL"
	// EnvRequire=1 makes a missing or unreachable server a failure.
	EnvRequire = "MQ_REQUIRE_POSTGRES"
)

// URL returns the URL of a new, empty schema of the test server, dropped
// (with everything in it) when t ends; it skips or fails t when there is no
// server (see the package comment).
func URL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvURL)
	if base == "" {
		if os.Getenv(EnvRequire) == "1" {
			t.Fatalf("%s is not set but %s=1: the PostgreSQL tests must run", EnvURL, EnvRequire)
		}
		t.Skipf("PostgreSQL tests skipped: set %s to a server's URL (postgres://user@127.0.0.1:5432/db) to run them", EnvURL)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", EnvURL, err)
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("%s: %v", EnvURL, err)
	}
	defer func() { _ = admin.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := admin.PingContext(ctx); err != nil {
		if os.Getenv(EnvRequire) == "1" {
			t.Fatalf("the PostgreSQL server of %s is unreachable: %v", EnvURL, err)
		}
		t.Skipf("PostgreSQL tests skipped: the server of %s is unreachable: %v", EnvURL, err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "t_" + strings.ToLower(sanitize(t.Name())) + "_" + hex.EncodeToString(b[:])
	if _, err := admin.ExecContext(ctx, `CREATE SCHEMA "`+schema+`"`); err != nil {
		t.Fatalf("failed to create schema %s: %v", schema, err)
	}
	t.Cleanup(func() {
		db, err := sql.Open("pgx", base)
		if err != nil {
			t.Errorf("failed to drop schema %s: %v", schema, err)
			return
		}
		defer func() { _ = db.Close() }()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := db.ExecContext(ctx, `DROP SCHEMA "`+schema+`" CASCADE`); err != nil {
			t.Errorf("failed to drop schema %s: %v", schema, err)
		}
	})
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// sanitize keeps the letters and digits of a test name (at most 30), for a
// schema name that says whose it is.
func sanitize(name string) string {
	var b strings.Builder
	for _, r := range name {
		if b.Len() >= 30 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
