package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/mergequeue/mq/queue/record"
)

// memClaims are the claims of a Store whose dialect has no SharedClaims:
// kept in memory, for the one process that uses the database.
type memClaims struct {
	mu         sync.Mutex
	deliveries map[string]time.Time // delivery id → claimable again at
	cursors    map[string]cursorClaim
	roles      map[string]cursorClaim
}

// cursorClaim is who holds a notification cursor, until when.
type cursorClaim struct {
	holder string
	until  time.Time
}

// claimDeliveries is the shared claim: the oldest pending deliveries that
// nobody holds, skipping the rows another transaction is claiming.
const claimDeliveries = `UPDATE deliveries SET held_until = ? WHERE id IN (
	SELECT id FROM deliveries WHERE done = 0 AND held_until <= ?
	ORDER BY received_at, rowid LIMIT ? FOR UPDATE SKIP LOCKED)
	RETURNING rowid, `

// ClaimDeliveries claims, until now+hold, up to limit pending deliveries
// (not Done) that no claim holds at now, and returns them oldest first. A
// claimed delivery is returned by no other claim — of this Store or, with
// a dialect of SharedClaims, of any process on the database — until its
// claim ends (ReleaseDelivery, or now+hold passed: its claimer is presumed
// dead). limit must be positive.
func (s *Store) ClaimDeliveries(ctx context.Context, now time.Time, hold time.Duration, limit int) ([]record.Delivery, error) {
	if limit <= 0 || hold <= 0 {
		return nil, fmt.Errorf("failed to claim deliveries: need a positive limit and hold (got %d, %v)", limit, hold)
	}
	until := now.Add(hold)
	if s.dialect.SharedClaims {
		return s.claimShared(ctx, now, until, limit)
	}
	s.claims.mu.Lock()
	defer s.claims.mu.Unlock()
	for id, at := range s.claims.deliveries {
		if !at.After(now) {
			delete(s.claims.deliveries, id)
		}
	}
	// The held deliveries are at most len(claims): reading that many more
	// finds limit free ones if there are.
	ds, err := s.PendingDeliveries(ctx, limit+len(s.claims.deliveries))
	if err != nil {
		return nil, fmt.Errorf("failed to claim deliveries: %w", err)
	}
	var out []record.Delivery
	for _, d := range ds {
		if _, held := s.claims.deliveries[d.ID]; held || len(out) == limit {
			continue
		}
		s.claims.deliveries[d.ID] = until
		out = append(out, d)
	}
	return out, nil
}

func (s *Store) claimShared(ctx context.Context, now, until time.Time, limit int) ([]record.Delivery, error) {
	rows, err := s.wr.QueryContext(ctx, claimDeliveries+selectList(deliveryCols, ""), until.UnixNano(), now.UnixNano(), limit)
	if err != nil {
		return nil, fmt.Errorf("failed to claim deliveries: %w", err)
	}
	type claimed struct {
		rowid int64
		d     record.Delivery
	}
	got, err := collect(rows, func(sc interface{ Scan(...any) error }) (claimed, error) {
		var c claimed
		err := sc.Scan(append([]any{&c.rowid}, columnDests(deliveryColumns(&c.d))...)...)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("failed to claim deliveries: %w", err)
	}
	// RETURNING keeps no order: put them back in the claim's.
	sort.Slice(got, func(i, j int) bool {
		a, b := got[i], got[j]
		if !a.d.ReceivedAt.Equal(b.d.ReceivedAt) {
			return a.d.ReceivedAt.Before(b.d.ReceivedAt)
		}
		return a.rowid < b.rowid
	})
	out := make([]record.Delivery, len(got))
	for i, c := range got {
		out[i] = c.d
	}
	return out, nil
}

// RenewClaim extends the claim of delivery id, while it is not done, to
// until (its claimer is still handling it). An unknown or done delivery is
// no error: there is nothing to hold.
func (s *Store) RenewClaim(ctx context.Context, id string, until time.Time) error {
	if !s.dialect.SharedClaims {
		s.claims.mu.Lock()
		defer s.claims.mu.Unlock()
		s.claims.deliveries[id] = until
		return nil
	}
	if _, err := s.wr.ExecContext(ctx, `UPDATE deliveries SET held_until = ? WHERE id = ? AND done = 0`, until.UnixNano(), id); err != nil {
		return fmt.Errorf("failed to renew the claim of delivery %s: %w", id, err)
	}
	return nil
}

// ReleaseDelivery records an attempt at a claimed delivery, as
// FinishDelivery does (done marks it processed, errText is the last
// error), and ends its claim: a delivery not done is claimed again from
// retryAt on (at once if retryAt is zero), by any claimer.
// queue.ErrNotFound if the ID is unknown.
func (s *Store) ReleaseDelivery(ctx context.Context, id string, done bool, errText string, retryAt time.Time) error {
	if !s.dialect.SharedClaims {
		if err := s.FinishDelivery(ctx, id, done, errText); err != nil {
			return err
		}
		s.claims.mu.Lock()
		defer s.claims.mu.Unlock()
		delete(s.claims.deliveries, id)
		if !done && !retryAt.IsZero() {
			s.claims.deliveries[id] = retryAt
		}
		return nil
	}
	var held int64
	if !retryAt.IsZero() {
		held = retryAt.UnixNano()
	}
	res, err := s.wr.ExecContext(ctx,
		`UPDATE deliveries SET attempts = attempts + 1, done = done | ?, error = ?, held_until = ? WHERE id = ?`,
		done, errText, held, id)
	if err != nil {
		return fmt.Errorf("failed to finish delivery %s: %w", id, err)
	}
	if err := rowsAffected(res); err != nil {
		return fmt.Errorf("failed to finish delivery %s: %w", id, err)
	}
	return nil
}

// ClaimNotificationCursor makes holder the only deliverer to target until
// now+hold and returns target's cursor (started as NotificationCursor
// starts it), if no other holder's claim is live at now; ok is false, and
// nothing changes, if one is. A holder claiming again extends its claim.
// With a dialect of SharedClaims the claim holds across processes.
func (s *Store) ClaimNotificationCursor(ctx context.Context, target, holder string, now time.Time, hold time.Duration) (c record.NotificationCursor, ok bool, err error) {
	if holder == "" || hold <= 0 {
		return c, false, fmt.Errorf("failed to claim a notification cursor: need a holder and a positive hold")
	}
	// Start the cursor if it is new.
	if _, err := s.NotificationCursor(ctx, target); err != nil {
		return c, false, err
	}
	until := now.Add(hold)
	if !s.dialect.SharedClaims {
		s.claims.mu.Lock()
		cl, held := s.claims.cursors[target]
		if held && cl.holder != holder && cl.until.After(now) {
			s.claims.mu.Unlock()
			return c, false, nil
		}
		s.claims.cursors[target] = cursorClaim{holder: holder, until: until}
		s.claims.mu.Unlock()
		c, err = s.NotificationCursor(ctx, target)
		return c, err == nil, err
	}
	c.Target = target
	var next sql.NullInt64
	err = s.wr.QueryRowContext(ctx, `UPDATE notification_cursors SET holder = ?, held_until = ?
		WHERE target = ? AND (holder = ? OR held_until <= ?)
		RETURNING last_event_id, attempts, next_attempt_at, last_error`,
		holder, until.UnixNano(), target, holder, now.UnixNano()).Scan(&c.LastEventID, &c.Attempts, &next, &c.LastError)
	if errors.Is(err, sql.ErrNoRows) {
		return record.NotificationCursor{}, false, nil
	}
	if err != nil {
		return record.NotificationCursor{}, false, fmt.Errorf("failed to claim a notification cursor: %w", err)
	}
	if next.Valid {
		c.NextAttemptAt = time.UnixMilli(next.Int64).UTC()
	}
	return c, true, nil
}

// ClaimRole makes holder the one process doing the work named role (the
// surface reconciler) until now+hold, if no other holder's claim is live at
// now; ok is false, and nothing changes, if one is. A holder claiming again
// extends its claim. With a dialect of SharedClaims (table roles) the
// claim holds across processes.
func (s *Store) ClaimRole(ctx context.Context, role, holder string, now time.Time, hold time.Duration) (bool, error) {
	if role == "" || holder == "" || hold <= 0 {
		return false, fmt.Errorf("failed to claim a role: need a role, a holder and a positive hold")
	}
	until := now.Add(hold)
	if !s.dialect.SharedClaims {
		s.claims.mu.Lock()
		defer s.claims.mu.Unlock()
		if cl, held := s.claims.roles[role]; held && cl.holder != holder && cl.until.After(now) {
			return false, nil
		}
		s.claims.roles[role] = cursorClaim{holder: holder, until: until}
		return true, nil
	}
	var got string
	err := s.wr.QueryRowContext(ctx, `INSERT INTO roles (name, holder, held_until) VALUES (?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, held_until = excluded.held_until
		WHERE roles.holder = excluded.holder OR roles.held_until <= ?
		RETURNING holder`, role, holder, until.UnixNano(), now.UnixNano()).Scan(&got)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("failed to claim the role %s: %w", role, err)
	}
	return true, nil
}
