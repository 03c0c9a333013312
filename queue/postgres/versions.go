package postgres

import (
	"context"
	"time"
)

// versionTimeout bounds the read of a queue's version.
const versionTimeout = 2 * time.Second

// QueueVersion returns the queue's write version as the database keeps it
// (queue_versions, bumped by triggers in the transaction of every write to
// the queue's row, entries, runs, targets or events, and of every queue's
// creation or deletion), so that it moves with the writes of every replica
// on the schema, committed before the call. It reads one row from the
// read pool; if that fails, it returns a number no earlier or later call
// returns, so that nothing kept by it is served.
func (s *Store) QueueVersion(queueID int64) uint64 {
	ctx, cancel := context.WithTimeout(context.Background(), versionTimeout)
	defer cancel()
	var v int64
	err := s.reader.QueryRowContext(ctx,
		`SELECT COALESCE(SUM(version), 0) FROM queue_versions WHERE queue_id = 0 OR queue_id = $1`, queueID).Scan(&v)
	if err != nil {
		return 1<<63 | s.unknownVersion.Add(1)
	}
	return uint64(max(v, 0)) //nolint:gosec // a sum of counters that only grow: never negative, below 2^63
}
