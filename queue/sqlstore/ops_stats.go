package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/mergequeue/mq/queue/record"
)

// InboxStats counts the webhook deliveries not yet processed and finds
// when the oldest of them arrived, without reading payloads (the partial
// index deliveries_pending answers it).
func (s *Store) InboxStats(ctx context.Context) (record.InboxStats, error) {
	var n int
	var oldest sql.NullInt64
	err := s.rd.QueryRowContext(ctx, `SELECT COUNT(*), MIN(received_at) FROM deliveries WHERE done = 0`).Scan(&n, &oldest)
	if err != nil {
		return record.InboxStats{}, fmt.Errorf("failed to count pending deliveries: %w", err)
	}
	st := record.InboxStats{Pending: n}
	if oldest.Valid {
		st.OldestPending = time.Unix(0, oldest.Int64).UTC()
	}
	return st, nil
}

// CountEventsAfter counts the events with an ID above afterID: how far a
// notification target's cursor is behind the event log.
func (s *Store) CountEventsAfter(ctx context.Context, afterID int64) (int, error) {
	var n int
	if err := s.rd.QueryRowContext(ctx, `SELECT COUNT(*) FROM events WHERE id > ?`, afterID).Scan(&n); err != nil {
		return 0, fmt.Errorf("failed to count events after %d: %w", afterID, err)
	}
	return n, nil
}
