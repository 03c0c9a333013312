package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/record"
)

func sessionColumns(s *record.DashboardSession) []column {
	return []column{
		{"hash", s.Hash, &s.Hash},
		{"token_id", s.TokenID, &s.TokenID},
		{"login", s.Login, &s.Login},
		{"repos", jsonVal{s.Repos}, jsonScan{&s.Repos}},
		{"created_at", timeVal(s.CreatedAt), timeScan{&s.CreatedAt}},
		{"seen_at", timeVal(s.SeenAt), timeScan{&s.SeenAt}},
		{"expires_at", timeVal(s.ExpiresAt), timeScan{&s.ExpiresAt}},
		{"idle_ns", int64(s.Idle), (*int64)(&s.Idle)},
	}
}

var (
	sessionCols   = sessionColumns(&record.DashboardSession{})
	sessionInsert = insertSQL("dashboard_sessions", sessionCols, "")
	sessionByHash = "SELECT " + selectList(sessionCols, "") + " FROM dashboard_sessions WHERE hash = ?"
)

// CreateSession stores a new session. It needs a hash, an expiry and
// exactly one of TokenID and Login; queue.ErrExists if the hash is taken.
func (s *Store) CreateSession(ctx context.Context, d record.DashboardSession) error {
	switch {
	case len(d.Hash) == 0:
		return errors.New("failed to create a dashboard session: no hash")
	case (d.TokenID == "") == (d.Login == ""):
		return errors.New("failed to create a dashboard session: it needs a token or a GitHub login, not both")
	case d.ExpiresAt.IsZero() || d.CreatedAt.IsZero():
		return errors.New("failed to create a dashboard session: no creation or expiry time")
	case d.Idle < 0:
		return fmt.Errorf("failed to create a dashboard session: negative idle limit %s", d.Idle)
	}
	if d.SeenAt.IsZero() {
		d.SeenAt = d.CreatedAt
	}
	if _, err := s.wr.ExecContext(ctx, sessionInsert, columnArgs(sessionColumns(&d))...); err != nil {
		return fmt.Errorf("failed to create a dashboard session: %w", s.existsErr(err))
	}
	return nil
}

// Session returns the session stored under hash, expired or not (the
// caller decides, see DashboardSession.Expired); queue.ErrNotFound if none.
func (s *Store) Session(ctx context.Context, hash []byte) (record.DashboardSession, error) {
	var d record.DashboardSession
	err := s.rd.QueryRowContext(ctx, sessionByHash, hash).Scan(columnDests(sessionColumns(&d))...)
	if errors.Is(err, sql.ErrNoRows) {
		return record.DashboardSession{}, fmt.Errorf("dashboard session: %w", queue.ErrNotFound)
	}
	if err != nil {
		return record.DashboardSession{}, fmt.Errorf("failed to look up a dashboard session: %w", err)
	}
	return d, nil
}

// TouchSession records a use of the session at at (SeenAt never moves
// back); queue.ErrNotFound if there is no such session.
func (s *Store) TouchSession(ctx context.Context, hash []byte, at time.Time) error {
	res, err := s.wr.ExecContext(ctx, `UPDATE dashboard_sessions SET seen_at = CASE WHEN seen_at > ?1 THEN seen_at ELSE ?1 END WHERE hash = ?2`, timeVal(at), hash)
	if err != nil {
		return fmt.Errorf("failed to touch a dashboard session: %w", err)
	}
	if err := rowsAffected(res); err != nil {
		return fmt.Errorf("failed to touch a dashboard session: %w", err)
	}
	return nil
}

// DeleteSession removes the session stored under hash (sign-out); removing
// one that is gone already is no error.
func (s *Store) DeleteSession(ctx context.Context, hash []byte) error {
	if _, err := s.wr.ExecContext(ctx, `DELETE FROM dashboard_sessions WHERE hash = ?`, hash); err != nil {
		return fmt.Errorf("failed to delete a dashboard session: %w", err)
	}
	return nil
}

// PruneSessions deletes the sessions ended at now: expired, idle past
// their limit, or opened with an API token that is revoked, expired or gone.
// It returns how many it deleted.
func (s *Store) PruneSessions(ctx context.Context, now time.Time) (int64, error) {
	at := timeVal(now)
	res, err := s.wr.ExecContext(ctx, `DELETE FROM dashboard_sessions
		WHERE expires_at <= ?1
		   OR (idle_ns > 0 AND seen_at + idle_ns <= ?1)
		   OR (token_id != '' AND NOT EXISTS (SELECT 1 FROM api_tokens t WHERE t.id = token_id
		           AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > ?1)))`, at)
	if err != nil {
		return 0, fmt.Errorf("failed to prune dashboard sessions: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("failed to prune dashboard sessions: %w", err)
	}
	return n, nil
}
