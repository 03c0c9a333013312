package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"time"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// embeddedMigrations are the schema migrations compiled into the binary.
var embeddedMigrations = mustLoadMigrations(migrationFiles, "migrations")

// migration is one versioned schema change.
type migration struct {
	version int
	name    string
	sql     string
}

var migrationName = regexp.MustCompile(`^(\d{4})_([a-z0-9_]+)\.sql$`)

func mustLoadMigrations(fsys fs.FS, dir string) []migration {
	m, err := loadMigrations(fsys, dir)
	if err != nil {
		panic(err)
	}
	return m
}

// loadMigrations reads dir/NNNN_name.sql files, ordered by version. Versions
// must be unique and start at 1; a gap is allowed (numbers are handed out
// ahead to work in progress, so a number may not have landed yet).
func loadMigrations(fsys fs.FS, dir string) ([]migration, error) {
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("failed to list migrations: %w", err)
	}
	var out []migration
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		m := migrationName.FindStringSubmatch(e.Name())
		if m == nil {
			return nil, fmt.Errorf("migration file %q is not named NNNN_name.sql", e.Name())
		}
		v, _ := strconv.Atoi(m[1])
		body, err := fs.ReadFile(fsys, dir+"/"+e.Name())
		if err != nil {
			return nil, fmt.Errorf("failed to read migration %s: %w", e.Name(), err)
		}
		out = append(out, migration{version: v, name: m[2], sql: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i, m := range out {
		if (i == 0 && m.version != 1) || (i > 0 && m.version == out[i-1].version) {
			return nil, fmt.Errorf("migration versions must start at 1 without duplicates; found %04d_%s at position %d", m.version, m.name, i+1)
		}
	}
	return out, nil
}

// migrate applies the migrations not yet recorded in schema_migrations, in
// order, each in its own transaction together with its record (a version
// below the newest applied one is applied too: a number that landed after
// a later one). It fails if the database has a version this binary does
// not know.
func migrate(ctx context.Context, db *sql.DB, migs []migration) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT    NOT NULL,
		applied_at INTEGER NOT NULL
	) STRICT`); err != nil {
		return fmt.Errorf("failed to create schema_migrations: %w", err)
	}
	applied, err := appliedMigrations(ctx, db)
	if err != nil {
		return err
	}
	known := map[int]bool{}
	for _, m := range migs {
		known[m.version] = true
	}
	for v := range applied {
		if !known[v] {
			return fmt.Errorf("database schema version %d is not one this binary knows (a newer binary applied it; newest here %d)", v, migs[len(migs)-1].version)
		}
	}
	for _, m := range migs {
		if applied[m.version] {
			continue
		}
		if err := applyMigration(ctx, db, m); err != nil {
			return err
		}
	}
	return nil
}

// appliedMigrations are the versions recorded in schema_migrations.
func appliedMigrations(ctx context.Context, db *sql.DB) (map[int]bool, error) {
	rows, err := db.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, fmt.Errorf("failed to read schema versions: %w", err)
	}
	defer func() { _ = rows.Close() }()
	out := map[int]bool{}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("failed to read schema versions: %w", err)
		}
		out[v] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("failed to read schema versions: %w", err)
	}
	return out, nil
}

func applyMigration(ctx context.Context, db *sql.DB, m migration) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("failed to begin migration %04d_%s: %w", m.version, m.name, err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, rollback(tx))
		}
	}()
	// Another process may have applied it since we looked.
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&n); err != nil {
		return fmt.Errorf("failed to check migration %04d_%s: %w", m.version, m.name, err)
	}
	if n > 0 {
		return tx.Commit()
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("failed to apply migration %04d_%s: %w", m.version, m.name, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
		m.version, m.name, time.Now().UnixNano()); err != nil {
		return fmt.Errorf("failed to record migration %04d_%s: %w", m.version, m.name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("failed to commit migration %04d_%s: %w", m.version, m.name, err)
	}
	return nil
}

func rollback(tx *sql.Tx) error {
	if err := tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return fmt.Errorf("failed to roll back: %w", err)
	}
	return nil
}
