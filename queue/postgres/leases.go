package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/record"
	"github.com/mergequeue/mq/queue/sqlstore"
)

// Lease is a replica's hold on the decisions of one queue (see
// record.Lease).
type Lease = record.Lease

// ErrLeaseLost is returned when a lease's token is no longer the queue's:
// another replica took the queue (or the queue is gone). Nothing was
// written.
var ErrLeaseLost = queue.ErrLeaseLost

// fenceGuard is the Dialect's FenceGuard: the lease row while the token is
// the queue's, locked against a takeover until the transaction ends.
const fenceGuard = `SELECT 1 FROM queue_leases WHERE queue_id = ? AND token = ? AND holder = ? FOR SHARE`

// acquireLease takes the lease of a queue that has none, whose lease
// expired, or that holder holds already (a renewal: the token stays);
// otherwise it changes nothing and returns no row.
const acquireLease = `INSERT INTO queue_leases (queue_id, holder, token, expires_at) VALUES (?1, ?2, 1, ?4)
	ON CONFLICT (queue_id) DO UPDATE SET
		token = CASE WHEN queue_leases.holder = excluded.holder AND queue_leases.expires_at > ?3
			THEN queue_leases.token ELSE queue_leases.token + 1 END,
		holder = excluded.holder, expires_at = excluded.expires_at
	WHERE queue_leases.holder = excluded.holder OR queue_leases.expires_at <= ?3
	RETURNING token`

// AcquireLease makes holder the decision-maker of queue queueID until
// now+ttl if no other replica holds an unexpired lease on it; ok is false
// (and nothing changes) if one does. A holder acquiring its own live lease
// extends it and keeps its token; a lease taken over gets a token one
// higher than the last.
func (s *Store) AcquireLease(ctx context.Context, queueID int64, holder string, now time.Time, ttl time.Duration) (Lease, bool, error) {
	if holder == "" || ttl <= 0 {
		return Lease{}, false, fmt.Errorf("failed to acquire the lease of queue %d: need a holder and a positive duration", queueID)
	}
	exp := now.Add(ttl)
	var token int64
	err := s.writer.QueryRowContext(ctx, Rebind(acquireLease), queueID, holder, now.UnixNano(), exp.UnixNano()).Scan(&token)
	if errors.Is(err, sql.ErrNoRows) {
		return Lease{}, false, nil
	}
	if err != nil {
		return Lease{}, false, fmt.Errorf("failed to acquire the lease of queue %d: %w", queueID, err)
	}
	return Lease{QueueID: queueID, Holder: holder, Token: token, ExpiresAt: exp.UTC()}, true, nil
}

// RenewLease extends l to now+ttl; ErrLeaseLost if its token is no longer
// the queue's. A lease that expired but that nobody took is renewed with
// its token: no other replica decided for the queue meanwhile.
func (s *Store) RenewLease(ctx context.Context, l Lease, now time.Time, ttl time.Duration) (Lease, error) {
	exp := now.Add(ttl)
	res, err := s.writer.ExecContext(ctx, Rebind(`UPDATE queue_leases SET expires_at = ? WHERE queue_id = ? AND holder = ? AND token = ?`),
		exp.UnixNano(), l.QueueID, l.Holder, l.Token)
	if err != nil {
		return l, fmt.Errorf("failed to renew the lease of queue %d: %w", l.QueueID, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return l, errors.Join(fmt.Errorf("failed to renew the lease of queue %d: %w", l.QueueID, ErrLeaseLost), err)
	}
	l.ExpiresAt = exp.UTC()
	return l, nil
}

// renewLeases extends the leases of holder among (queue_id, token) pairs
// still holder's with that token and not released (a release sets
// expires_at to 0): one statement for all of a replica's leases.
const renewLeases = `UPDATE queue_leases SET expires_at = $1
	WHERE holder = $2 AND expires_at > 0
	  AND (queue_id, token) IN (SELECT * FROM unnest($3::bigint[], $4::bigint[]))
	RETURNING queue_id, token`

// RenewLeases extends to now+ttl, in one statement, every lease of held
// that holder still holds with its token, and returns those (in no
// particular order). A lease it does not return changed hands, or was
// released: it is lost. As RenewLease, a lease that expired but that
// nobody took is renewed with its token; a released one is not.
func (s *Store) RenewLeases(ctx context.Context, holder string, held []Lease, now time.Time, ttl time.Duration) ([]Lease, error) {
	if len(held) == 0 {
		return nil, nil
	}
	exp := now.Add(ttl)
	ids, tokens := make([]int64, len(held)), make([]int64, len(held))
	for i, l := range held {
		if l.Holder != holder {
			return nil, fmt.Errorf("failed to renew the leases of %s: queue %d's lease is %s's", holder, l.QueueID, l.Holder)
		}
		ids[i], tokens[i] = l.QueueID, l.Token
	}
	rows, err := s.writer.QueryContext(ctx, renewLeases, exp.UnixNano(), holder, ids, tokens)
	if err != nil {
		return nil, fmt.Errorf("failed to renew the leases of %s: %w", holder, err)
	}
	defer func() { _ = rows.Close() }()
	var out []Lease
	for rows.Next() {
		l := Lease{Holder: holder, ExpiresAt: exp.UTC()}
		if err := rows.Scan(&l.QueueID, &l.Token); err != nil {
			return nil, fmt.Errorf("failed to renew the leases of %s: %w", holder, err)
		}
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("failed to renew the leases of %s: %w", holder, err)
	}
	return out, nil
}

// ReleaseLease gives l up at once (another replica may take the queue
// without waiting for it to expire); releasing a lease already lost is no
// error.
func (s *Store) ReleaseLease(ctx context.Context, l Lease) error {
	_, err := s.writer.ExecContext(ctx, Rebind(`UPDATE queue_leases SET expires_at = 0 WHERE queue_id = ? AND holder = ? AND token = ?`),
		l.QueueID, l.Holder, l.Token)
	if err != nil {
		return fmt.Errorf("failed to release the lease of queue %d: %w", l.QueueID, err)
	}
	return nil
}

// Fenced runs fn in one transaction that carries l's fencing token: it
// first checks, locking the lease row until the transaction ends, that the
// queue's token is still l's. If it is not, fn is not run, nothing is
// written and the error wraps ErrLeaseLost. While the transaction runs,
// no replica can take the lease over (its AcquireLease waits), so a write
// the check let through commits before any new holder's first write.
func (s *Store) Fenced(ctx context.Context, l Lease, fn func(tx queue.Store) error) error {
	err := s.WithGuardedTx(ctx, fenceGuard, []any{l.QueueID, l.Token, l.Holder}, fn)
	if errors.Is(err, sqlstore.ErrGuardFailed) {
		return fmt.Errorf("queue %d, fencing token %d: %w", l.QueueID, l.Token, ErrLeaseLost)
	}
	return err
}
