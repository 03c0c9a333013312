package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/mergequeue/mq/app"
)

// pgSchema is a schema of its own on a PostgreSQL server, for one server
// of the load run: created empty, dropped with everything in it by drop.
type pgSchema struct {
	base, name string
}

// newPGSchema creates an empty schema on the server of base (a postgres://
// URL of a user that may create schemas).
func newPGSchema(ctx context.Context, base string) (*pgSchema, error) {
	var b [6]byte
	_, _ = rand.Read(b[:])
	s := &pgSchema{base: base, name: "mqload_" + hex.EncodeToString(b[:])}
	if err := s.exec(ctx, `CREATE SCHEMA "`+s.name+`"`); err != nil {
		return nil, fmt.Errorf("failed to create a schema for the load run: %w", err)
	}
	return s, nil
}

// database is the app's database.driver postgres in the schema, with
// database.replicas on (as replicas run it: per-queue leases, no writer
// lock).
func (s *pgSchema) database() (*app.DatabaseConfig, error) {
	u, err := url.Parse(s.base)
	if err != nil {
		return nil, fmt.Errorf("-postgres: %w", err)
	}
	q := u.Query()
	q.Set("search_path", s.name)
	u.RawQuery = q.Encode()
	return &app.DatabaseConfig{Driver: app.DriverPostgres, URL: u.String(), Replicas: true}, nil
}

// drop removes the schema and everything in it.
func (s *pgSchema) drop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.exec(ctx, `DROP SCHEMA "`+s.name+`" CASCADE`); err != nil {
		return fmt.Errorf("failed to drop schema %s: %w", s.name, err)
	}
	return nil
}

func (s *pgSchema) exec(ctx context.Context, stmt string) error {
	db, err := sql.Open("pgx", s.base)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	_, err = db.ExecContext(ctx, stmt)
	return err
}

// storeLabel names the store of the run for the report: SQLite, or
// PostgreSQL with the server's version.
func storeLabel(ctx context.Context, pg string) string {
	if pg == "" {
		return "SQLite (a file in a temporary directory)"
	}
	db, err := sql.Open("pgx", pg)
	if err != nil {
		return "PostgreSQL"
	}
	defer func() { _ = db.Close() }()
	var v string
	if err := db.QueryRowContext(ctx, "SHOW server_version").Scan(&v); err != nil {
		return "PostgreSQL"
	}
	return "PostgreSQL " + v + " (on loopback, a schema of its own)"
}
