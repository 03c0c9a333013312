package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/mergequeue/mq/queue/record"
)

// A SQLite database serves one process: its leases are trivial, always
// held, so that the app runs the same code on both stores (the queue's
// worker syncs only while it holds the lease). The token is always 1 and
// writes under a fence are not checked (the dialect has no FenceGuard).

// AcquireLease grants holder the lease of queueID until now+ttl, always.
func (s *Store) AcquireLease(_ context.Context, queueID int64, holder string, now time.Time, ttl time.Duration) (record.Lease, bool, error) {
	if holder == "" || ttl <= 0 {
		return record.Lease{}, false, fmt.Errorf("failed to acquire the lease of queue %d: need a holder and a positive duration", queueID)
	}
	return record.Lease{QueueID: queueID, Holder: holder, Token: 1, ExpiresAt: now.Add(ttl).UTC()}, true, nil
}

// RenewLease extends l to now+ttl, always.
func (s *Store) RenewLease(_ context.Context, l record.Lease, now time.Time, ttl time.Duration) (record.Lease, error) {
	l.ExpiresAt = now.Add(ttl).UTC()
	return l, nil
}

// RenewLeases extends every lease of held to now+ttl, always, and
// returns them.
func (s *Store) RenewLeases(_ context.Context, _ string, held []record.Lease, now time.Time, ttl time.Duration) ([]record.Lease, error) {
	out := make([]record.Lease, len(held))
	for i, l := range held {
		l.ExpiresAt = now.Add(ttl).UTC()
		out[i] = l
	}
	return out, nil
}

// ReleaseLease gives l up; there is nothing to do.
func (s *Store) ReleaseLease(context.Context, record.Lease) error { return nil }

// WakeQueue does nothing: the one process's own wake-up is all there is.
func (s *Store) WakeQueue(context.Context, int64) error { return nil }

// ListenWakes returns once ctx ends: no other process wakes this one's
// queues.
func (s *Store) ListenWakes(ctx context.Context, _ func(queueID int64)) error {
	<-ctx.Done()
	return nil
}

// Heartbeat returns name alone: a SQLite database serves one process.
func (s *Store) Heartbeat(_ context.Context, name string, _ time.Time, _ time.Duration) ([]string, error) {
	return []string{name}, nil
}
