package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// AppState returns a value the process stored about itself (ok false if
// none is stored under key).
func (s *Store) AppState(ctx context.Context, key string) (string, bool, error) {
	var v string
	err := s.rd.QueryRowContext(ctx, `SELECT value FROM app_state WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("failed to read app state %s: %w", key, err)
	}
	return v, true, nil
}

// SetAppState stores a value the process learned about itself.
func (s *Store) SetAppState(ctx context.Context, key, value string) error {
	if _, err := s.wr.ExecContext(ctx, `INSERT INTO app_state (key, value) VALUES (?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value); err != nil {
		return fmt.Errorf("failed to store app state %s: %w", key, err)
	}
	return nil
}
