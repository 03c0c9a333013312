package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/mergequeue/mq/queue/record"
)

// Prune deletes what the queue no longer needs: processed webhook
// deliveries received before deliveriesBefore (pending ones are kept
// whatever their age) and the notices delivered before it (a notice's key
// only has to outlive a redelivery of the webhook that caused it), and events recorded before eventsBefore whose ID is
// at most eventsUpTo (the lowest notification cursor, so no event is lost
// to a target that has not received it; pass a negative value when no
// target is configured). Entries, runs and merges are kept: the API
// answers about ended entries and finished runs.
func (s *Store) Prune(ctx context.Context, deliveriesBefore, eventsBefore time.Time, eventsUpTo int64) (record.Pruned, error) {
	var p record.Pruned
	res, err := s.wr.ExecContext(ctx, `DELETE FROM deliveries WHERE done = 1 AND received_at < ?`, timeVal(deliveriesBefore))
	if err != nil {
		return p, fmt.Errorf("failed to prune deliveries: %w", err)
	}
	if p.Deliveries, err = res.RowsAffected(); err != nil {
		return p, fmt.Errorf("failed to prune deliveries: %w", err)
	}
	query, args := `DELETE FROM events WHERE at < ?`, []any{timeVal(eventsBefore)}
	if eventsUpTo >= 0 {
		query, args = query+` AND id <= ?`, append(args, eventsUpTo)
	}
	if res, err = s.wr.ExecContext(ctx, query, args...); err != nil {
		return p, fmt.Errorf("failed to prune events: %w", err)
	}
	if p.Events, err = res.RowsAffected(); err != nil {
		return p, fmt.Errorf("failed to prune events: %w", err)
	}
	if p.Events > 0 {
		s.changed(0) // an ended entry's last event answers for it
	}
	if res, err = s.wr.ExecContext(ctx, `DELETE FROM notices WHERE done_at IS NOT NULL AND done_at < ?`, timeVal(deliveriesBefore)); err != nil {
		return p, fmt.Errorf("failed to prune notices: %w", err)
	}
	if p.Notices, err = res.RowsAffected(); err != nil {
		return p, fmt.Errorf("failed to prune notices: %w", err)
	}
	return p, nil
}
