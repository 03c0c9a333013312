package app

import (
	"context"
	"time"

	"github.com/mergequeue/mq/app/notify"
	"github.com/mergequeue/mq/queue/record"
)

// notifyStore is the database as a notify.Store. Package notify declares
// its own cursor type so as not to import a store; the conversions below
// compile only while it and record.NotificationCursor have the same fields.
type notifyStore struct{ Database }

var _ notify.Store = notifyStore{}

// Cursor returns target's stored cursor (Database.NotificationCursor), for
// the outbox's lag gauges.
func (s notifyStore) Cursor(ctx context.Context, target string) (notify.Cursor, error) {
	c, err := s.NotificationCursor(ctx, target)
	return notify.Cursor(c), err
}

// ClaimCursor claims target's cursor (Database.ClaimNotificationCursor).
func (s notifyStore) ClaimCursor(ctx context.Context, target, holder string, now time.Time, hold time.Duration) (notify.Cursor, bool, error) {
	c, ok, err := s.ClaimNotificationCursor(ctx, target, holder, now, hold)
	return notify.Cursor(c), ok, err
}

// SaveCursor stores c (Database.SaveNotificationCursor).
func (s notifyStore) SaveCursor(ctx context.Context, c notify.Cursor) error {
	return s.SaveNotificationCursor(ctx, record.NotificationCursor(c))
}
