package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// replicaGone is how long a replica's row is kept after it was last seen.
const replicaGone = time.Hour

// heartbeat records name as seen at $2, deletes the rows of replicas gone
// for replicaGone, and returns the other replicas seen since $3: one
// statement.
const heartbeat = `WITH beat AS (
		INSERT INTO replicas (name, seen_at) VALUES ($1, $2)
		ON CONFLICT (name) DO UPDATE SET seen_at = excluded.seen_at
	), gone AS (
		DELETE FROM replicas WHERE seen_at < $4 AND name <> $1
	)
	SELECT name FROM replicas WHERE seen_at > $3 AND name <> $1`

// Heartbeat records that replica name is alive at now and returns the
// replicas alive (seen within ttl of now), itself included, sorted, in
// one statement.
func (s *Store) Heartbeat(ctx context.Context, name string, now time.Time, ttl time.Duration) ([]string, error) {
	if name == "" || ttl <= 0 {
		return nil, fmt.Errorf("failed to record the replica's heartbeat: need a name and a positive duration")
	}
	rows, err := s.writer.QueryContext(ctx, heartbeat, name, now.UnixNano(), now.Add(-ttl).UnixNano(), now.Add(-replicaGone).UnixNano())
	if err != nil {
		return nil, fmt.Errorf("failed to record the heartbeat of replica %s: %w", name, err)
	}
	defer func() { _ = rows.Close() }()
	live := []string{name}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("failed to read the live replicas: %w", err)
		}
		live = append(live, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("failed to read the live replicas: %w", err)
	}
	slices.Sort(live)
	return live, nil
}
