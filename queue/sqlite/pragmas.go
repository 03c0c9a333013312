package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// pragmaQuery maps the pragmas read back at start-up to their queries.
var pragmaQuery = map[string]string{
	"journal_mode": "PRAGMA journal_mode",
	"busy_timeout": "PRAGMA busy_timeout",
	"synchronous":  "PRAGMA synchronous",
	"foreign_keys": "PRAGMA foreign_keys",
	"query_only":   "PRAGMA query_only",
}

// checkWriterPragmas reads back the writer connection's pragmas: the driver
// runs _pragma parameters as SQL, and an older driver once ignored
// mis-spelled keys silently, so the settings are proven, not assumed.
func checkWriterPragmas(ctx context.Context, db *sql.DB) error {
	mode, err := pragmaString(ctx, db, "journal_mode")
	if err != nil {
		return err
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("journal_mode is %q, want wal (is the file on a network filesystem or read-only?)", mode)
	}
	if err := expectPragmaInt(ctx, db, "busy_timeout", busyTimeoutMS); err != nil {
		return err
	}
	// synchronous: 1 = NORMAL.
	if err := expectPragmaInt(ctx, db, "synchronous", 1); err != nil {
		return err
	}
	if err := expectPragmaInt(ctx, db, "foreign_keys", 1); err != nil {
		return err
	}
	// secure_delete: 2 = FAST.
	var secureDelete int64
	if err := db.QueryRowContext(ctx, "PRAGMA secure_delete").Scan(&secureDelete); err != nil {
		return fmt.Errorf("failed to read pragma secure_delete: %w", err)
	}
	if secureDelete != 2 {
		return fmt.Errorf("pragma secure_delete is %d, want 2 (fast): the DSN setting did not take effect", secureDelete)
	}
	return nil
}

// checkReaderPragmas reads back the read pool's pragmas.
func checkReaderPragmas(ctx context.Context, db *sql.DB) error {
	if err := expectPragmaInt(ctx, db, "busy_timeout", busyTimeoutMS); err != nil {
		return err
	}
	return expectPragmaInt(ctx, db, "query_only", 1)
}

func expectPragmaInt(ctx context.Context, db *sql.DB, name string, want int64) error {
	var got int64
	if err := db.QueryRowContext(ctx, pragmaQuery[name]).Scan(&got); err != nil {
		return fmt.Errorf("failed to read pragma %s: %w", name, err)
	}
	if got != want {
		return fmt.Errorf("pragma %s is %d, want %d: the DSN setting did not take effect", name, got, want)
	}
	return nil
}

func pragmaString(ctx context.Context, db *sql.DB, name string) (string, error) {
	var got string
	if err := db.QueryRowContext(ctx, pragmaQuery[name]).Scan(&got); err != nil {
		return "", fmt.Errorf("failed to read pragma %s: %w", name, err)
	}
	return got, nil
}
