package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mergequeue/mq/app"
	"github.com/mergequeue/mq/queue/postgres/pgtest"
)

// `bot token` opens the database the configuration names through the one
// place that opens it (app.OpenDatabase): a driver it does not know is a
// clear error, not a SQLite file silently created at database.path.
func TestTokenOpensTheConfiguredDatabase(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "mq.db")
	cfgPath := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(cfgPath, []byte("database:\n  driver: oracle\n  path: "+db+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runBot(t, "token", "list", "--config", cfgPath)
	if code == 0 || !strings.Contains(errOut, `"oracle"`) {
		t.Fatalf("token list with driver oracle: exit %d, stdout %q, stderr %q; want a failure naming the driver", code, out, errOut)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("a database was created at %s (%v)", db, err)
	}

	// The configured SQLite database is the one the command uses.
	if err := os.WriteFile(cfgPath, []byte("database:\n  driver: sqlite\n  path: "+db+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runBot(t, "token", "create", "--config", cfgPath, "--name", "ci"); code != 0 {
		t.Fatalf("token create: exit %d %q %q", code, out, errOut)
	}
	if code, out, _ := runBot(t, "token", "list", "--db", db); code != 0 || !strings.Contains(out, "ci") {
		t.Errorf("the token is not in %s: exit %d %q", db, code, out)
	}
}

// With database.driver postgres, `bot token` works on the PostgreSQL
// database that MQ_DATABASE_URL names (skipped without a test server).
func TestTokenOnPostgres(t *testing.T) {
	dbURL := pgtest.URL(t)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(cfgPath, []byte("database:\n  driver: postgres\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MQ_DATABASE_URL", dbURL)
	if code, out, errOut := runBot(t, "token", "create", "--config", cfgPath, "--name", "ci", "--read-only"); code != 0 {
		t.Fatalf("token create: exit %d %q %q", code, out, errOut)
	}
	code, out, errOut := runBot(t, "token", "list", "--config", cfgPath)
	if code != 0 || !strings.Contains(out, "ci") || !strings.Contains(out, "read-only") {
		t.Fatalf("token list: exit %d %q %q; want the read-only token ci", code, out, errOut)
	}
	if _, err := os.Stat("mq.db"); !os.IsNotExist(err) {
		t.Errorf("a SQLite file was created at the default path (%v)", err)
	}
}

// `bot token` works beside a running server on the same PostgreSQL schema
// (which holds the schema's writer lock), as it does beside one on the same
// SQLite file: the server sees the token it created.
func TestTokenBesideARunningServerOnPostgres(t *testing.T) {
	dbURL := pgtest.URL(t)
	server, err := app.OpenDatabase(context.Background(), app.DatabaseConfig{Driver: app.DriverPostgres, URL: dbURL})
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	if second, err := app.OpenDatabase(context.Background(), app.DatabaseConfig{Driver: app.DriverPostgres, URL: dbURL}); err == nil {
		_ = second.Close()
		t.Fatal("a second server opened the schema")
	}
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(cfgPath, []byte("database:\n  driver: postgres\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MQ_DATABASE_URL", dbURL)
	if code, out, errOut := runBot(t, "token", "create", "--config", cfgPath, "--name", "ci"); code != 0 {
		t.Fatalf("token create beside the server: exit %d %q %q", code, out, errOut)
	}
	toks, err := server.ListTokens(context.Background())
	if err != nil || len(toks) != 1 || toks[0].Name != "ci" {
		t.Fatalf("the server sees tokens %+v, %v; want ci", toks, err)
	}
}
