package notify

import (
	"context"
	"time"

	"github.com/mergequeue/mq/queue/record"
	"github.com/mergequeue/mq/queue/sqlite"
)

// sqliteStore is the SQLite store as a Store, as the application adapts
// it (app/notify_store.go): the tests run the Notifier on a real database.
type sqliteStore struct{ *sqlite.Store }

var _ Store = sqliteStore{}

func (s sqliteStore) ClaimCursor(ctx context.Context, target, holder string, now time.Time, hold time.Duration) (Cursor, bool, error) {
	c, ok, err := s.ClaimNotificationCursor(ctx, target, holder, now, hold)
	return Cursor(c), ok, err
}

func (s sqliteStore) SaveCursor(ctx context.Context, c Cursor) error {
	return s.SaveNotificationCursor(ctx, record.NotificationCursor(c))
}
