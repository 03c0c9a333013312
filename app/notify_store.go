package app

import (
	"context"

	"github.com/mergequeue/mq/app/notify"
	"github.com/mergequeue/mq/queue/sqlite"
)

// notifyStore is the SQLite store as a notify.Store. Package notify
// declares its own cursor type so as not to import queue/sqlite (which may
// not import app/...); the conversions below compile only while the two
// cursor types have the same fields.
type notifyStore struct{ *sqlite.Store }

var _ notify.Store = notifyStore{}

// Cursor returns target's stored cursor (sqlite.Store.NotificationCursor).
func (s notifyStore) Cursor(ctx context.Context, target string) (notify.Cursor, error) {
	c, err := s.NotificationCursor(ctx, target)
	return notify.Cursor(c), err
}

// SaveCursor stores c (sqlite.Store.SaveNotificationCursor).
func (s notifyStore) SaveCursor(ctx context.Context, c notify.Cursor) error {
	return s.SaveNotificationCursor(ctx, sqlite.NotificationCursor(c))
}
