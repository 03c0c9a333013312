package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// openRaw opens a writer connection without migrating.
func openRaw(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(filepath.Join(t.TempDir(), "raw.db"), writerParams))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func appliedVersions(t *testing.T, db *sql.DB) []int {
	t.Helper()
	rows, err := db.Query(`SELECT version FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func TestEmbeddedMigrationsFromEmpty(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openRaw(t)
	if err := migrate(ctx, db, embeddedMigrations); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	want := make([]int, len(embeddedMigrations))
	for i := range want {
		want[i] = embeddedMigrations[i].version
	}
	assertEqual(t, appliedVersions(t, db), want)
	for _, table := range []string{"queues", "entries", "runs", "checks", "merges", "deliveries", "api_tokens", "surfaces", "notices", "refs"} {
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, table).Scan(&n); err != nil || n != 1 {
			t.Errorf("table %s: count %d, err %v", table, n, err)
		}
	}

	// Re-running applies nothing: the recorded times do not change.
	// (Concatenated, not summed: a sum of unix nanoseconds overflows.)
	var before string
	if err := db.QueryRow(`SELECT group_concat(applied_at, ',') FROM schema_migrations`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, db, embeddedMigrations); err != nil {
		t.Fatalf("second migrate: %v", err)
	}
	var after string
	if err := db.QueryRow(`SELECT group_concat(applied_at, ',') FROM schema_migrations`).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if before != after {
		t.Error("second migrate re-applied a migration")
	}
	assertEqual(t, appliedVersions(t, db), want)
}

func TestReopenAppliesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mq.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	var first int64
	if err := s.writer.QueryRow(`SELECT MAX(applied_at) FROM schema_migrations`).Scan(&first); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := openAt(t, path)
	var second int64
	var n int
	if err := s2.writer.QueryRow(`SELECT MAX(applied_at), COUNT(*) FROM schema_migrations`).Scan(&second, &n); err != nil {
		t.Fatal(err)
	}
	if first != second || n != len(embeddedMigrations) {
		t.Errorf("reopen changed schema_migrations: applied_at %d -> %d, %d rows", first, second, n)
	}
}

func TestMigrationsApplyInOrderAndRollBackOnFailure(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openRaw(t)
	good := fstest.MapFS{
		"m/0002_b.sql": {Data: []byte(`INSERT INTO a (v) VALUES ('from 2');`)},
		"m/0001_a.sql": {Data: []byte(`CREATE TABLE a (v TEXT); INSERT INTO a (v) VALUES ('from 1');`)},
	}
	migs, err := loadMigrations(good, "m")
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, db, migs); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	assertEqual(t, appliedVersions(t, db), []int{1, 2})

	// 0003 fails halfway: its first statement must not survive.
	bad := fstest.MapFS{
		"m/0001_a.sql": good["m/0001_a.sql"],
		"m/0002_b.sql": good["m/0002_b.sql"],
		"m/0003_c.sql": {Data: []byte(`INSERT INTO a (v) VALUES ('from 3'); INSERT INTO missing VALUES (1);`)},
	}
	migs, err = loadMigrations(bad, "m")
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, db, migs); err == nil || !strings.Contains(err.Error(), "0003_c") {
		t.Fatalf("migrate with a bad migration = %v, want an error naming 0003_c", err)
	}
	assertEqual(t, appliedVersions(t, db), []int{1, 2})
	var vals []string
	rows, err := db.Query(`SELECT v FROM a ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		vals = append(vals, v)
	}
	assertEqual(t, vals, []string{"from 1", "from 2"})
}

func TestLoadMigrationsValidates(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		fs   fstest.MapFS
		want string
	}{
		{"bad name", fstest.MapFS{"m/init.sql": {}}, "not named"},
		{"duplicate", fstest.MapFS{"m/0001_a.sql": {}, "m/0001_b.sql": {}}, "without duplicates"},
		{"not from one", fstest.MapFS{"m/0002_a.sql": {}}, "start at 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := loadMigrations(tc.fs, "m")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("loadMigrations = %v, want error containing %q", err, tc.want)
			}
		})
	}
}

// A number handed out ahead may land after a later one: the database that
// has 1 and 3 gets 2 when it arrives, and a version the binary does not
// know is refused.
func TestMigrationsWithAGapApplyTheLateNumber(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openRaw(t)
	first := fstest.MapFS{
		"m/0001_a.sql": {Data: []byte(`CREATE TABLE a (v TEXT);`)},
		"m/0003_c.sql": {Data: []byte(`INSERT INTO a (v) VALUES ('from 3');`)},
	}
	migs, err := loadMigrations(first, "m")
	if err != nil {
		t.Fatalf("loadMigrations with a gap: %v", err)
	}
	if err := migrate(ctx, db, migs); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	assertEqual(t, appliedVersions(t, db), []int{1, 3})
	later := fstest.MapFS{
		"m/0001_a.sql": first["m/0001_a.sql"],
		"m/0002_b.sql": {Data: []byte(`INSERT INTO a (v) VALUES ('from 2');`)},
		"m/0003_c.sql": first["m/0003_c.sql"],
	}
	if migs, err = loadMigrations(later, "m"); err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, db, migs); err != nil {
		t.Fatalf("migrate with the late number: %v", err)
	}
	assertEqual(t, appliedVersions(t, db), []int{1, 2, 3})
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM a`).Scan(&n); err != nil || n != 2 {
		t.Errorf("rows of a = %d, %v; want 2 (each migration once)", n, err)
	}
	if migs, err = loadMigrations(fstest.MapFS{"m/0001_a.sql": first["m/0001_a.sql"]}, "m"); err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, db, migs); err == nil || !strings.Contains(err.Error(), "newer binary") {
		t.Errorf("migrate by an older binary = %v, want a refusal", err)
	}
}
