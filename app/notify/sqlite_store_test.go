package notify

import (
	"context"

	"github.com/mergequeue/mq/queue/record"
	"github.com/mergequeue/mq/queue/sqlite"
)

// sqliteStore is the SQLite store as a Store, as the application adapts
// it (app/notify_store.go): the tests run the Notifier on a real database.
type sqliteStore struct{ *sqlite.Store }

var _ Store = sqliteStore{}

func (s sqliteStore) Cursor(ctx context.Context, target string) (Cursor, error) {
	c, err := s.NotificationCursor(ctx, target)
	return Cursor(c), err
}

func (s sqliteStore) SaveCursor(ctx context.Context, c Cursor) error {
	return s.SaveNotificationCursor(ctx, record.NotificationCursor(c))
}
