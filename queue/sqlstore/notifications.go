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

var eventsAfter = "SELECT id, " + selectList(eventCols, "") + " FROM events WHERE id > ? ORDER BY id LIMIT ?" //nolint:gosec // G202: constant column names; the values are bound parameters

// EventsAfter returns up to limit events of every queue with an ID above
// afterID, oldest first.
func (s *Store) EventsAfter(ctx context.Context, afterID int64, limit int) ([]queue.Event, error) {
	rows, err := s.rd.QueryContext(ctx, eventsAfter, afterID, limit)
	if err != nil {
		return nil, fmt.Errorf("failed to list events after %d: %w", afterID, err)
	}
	out, err := collect(rows, func(sc interface{ Scan(...any) error }) (queue.Event, error) {
		var ev queue.Event
		err := sc.Scan(append([]any{&ev.ID}, columnDests(eventColumns(&ev))...)...)
		return ev, err
	})
	if err != nil {
		return nil, fmt.Errorf("failed to list events after %d: %w", afterID, err)
	}
	return out, nil
}

// NotificationCursor returns target's cursor. A target seen for the first
// time starts at the newest event: it is told about what happens from now
// on, not about the whole history.
func (s *Store) NotificationCursor(ctx context.Context, target string) (record.NotificationCursor, error) {
	c := record.NotificationCursor{Target: target}
	var next sql.NullInt64
	err := s.wr.QueryRowContext(ctx, `SELECT last_event_id, attempts, next_attempt_at, last_error
		FROM notification_cursors WHERE target = ?`, target).Scan(&c.LastEventID, &c.Attempts, &next, &c.LastError)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err = s.wr.ExecContext(ctx, `INSERT INTO notification_cursors (target, last_event_id, attempts, next_attempt_at, last_error)
			VALUES (?, (SELECT COALESCE(MAX(id), 0) FROM events), 0, NULL, '') ON CONFLICT (target) DO NOTHING`, target)
		if err != nil {
			return c, fmt.Errorf("failed to start a notification cursor: %w", err)
		}
		return s.NotificationCursor(ctx, target)
	case err != nil:
		return c, fmt.Errorf("failed to read a notification cursor: %w", err)
	}
	if next.Valid {
		c.NextAttemptAt = time.UnixMilli(next.Int64).UTC()
	}
	return c, nil
}

// SaveNotificationCursor stores target's cursor.
func (s *Store) SaveNotificationCursor(ctx context.Context, c record.NotificationCursor) error {
	var next any
	if !c.NextAttemptAt.IsZero() {
		next = c.NextAttemptAt.UnixMilli()
	}
	_, err := s.wr.ExecContext(ctx, `INSERT INTO notification_cursors (target, last_event_id, attempts, next_attempt_at, last_error)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (target) DO UPDATE SET last_event_id = excluded.last_event_id,
		attempts = excluded.attempts, next_attempt_at = excluded.next_attempt_at, last_error = excluded.last_error`,
		c.Target, c.LastEventID, c.Attempts, next, c.LastError)
	if err != nil {
		return fmt.Errorf("failed to save a notification cursor: %w", err)
	}
	return nil
}
