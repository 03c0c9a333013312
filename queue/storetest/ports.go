package storetest

import (
	"context"
	"crypto/sha256"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/record"
)

// Ports is every port a durable store serves beside queue.Store: the
// webhook inbox's (handlers/inbox), the API tokens' (handlers/api/apitoken),
// the notifier's event log and cursors (app/notify), the dashboard's
// sessions, the App's remembered state and retention (app). Each is
// declared by its consumer; this union is spelled out here, with the
// shared types of queue/record, because no package under queue/ imports a
// handler or app package. app.Database is the same union (plus Close).
type Ports interface {
	queue.Store

	PutDelivery(ctx context.Context, d record.Delivery) (bool, error)
	PendingDeliveries(ctx context.Context, limit int) ([]record.Delivery, error)
	FinishDelivery(ctx context.Context, id string, done bool, errText string) error
	ClaimDeliveries(ctx context.Context, now time.Time, hold time.Duration, limit int) ([]record.Delivery, error)
	ReleaseDelivery(ctx context.Context, id string, done bool, errText string, retryAt time.Time) error
	RenewClaim(ctx context.Context, id string, until time.Time) error
	ClaimRole(ctx context.Context, role, holder string, now time.Time, hold time.Duration) (bool, error)
	InboxStats(ctx context.Context) (record.InboxStats, error)

	CreateToken(ctx context.Context, t record.Token) error
	TokenByHash(ctx context.Context, hash []byte) (*record.Token, error)
	TokenByID(ctx context.Context, id string) (*record.Token, error)
	ListTokens(ctx context.Context) ([]record.Token, error)
	RevokeToken(ctx context.Context, idOrName string, at time.Time) error

	EventsAfter(ctx context.Context, afterID int64, limit int) ([]queue.Event, error)
	CountEventsAfter(ctx context.Context, afterID int64) (int, error)
	NotificationCursor(ctx context.Context, target string) (record.NotificationCursor, error)
	SaveNotificationCursor(ctx context.Context, c record.NotificationCursor) error
	ClaimNotificationCursor(ctx context.Context, target, holder string, now time.Time, hold time.Duration) (record.NotificationCursor, bool, error)

	CreateSession(ctx context.Context, d record.DashboardSession) error
	Session(ctx context.Context, hash []byte) (record.DashboardSession, error)
	TouchSession(ctx context.Context, hash []byte, at time.Time) error
	DeleteSession(ctx context.Context, hash []byte) error
	PruneSessions(ctx context.Context, now time.Time) (int64, error)

	AppState(ctx context.Context, key string) (string, bool, error)
	SetAppState(ctx context.Context, key, value string) error

	Prune(ctx context.Context, deliveriesBefore, eventsBefore time.Time, eventsUpTo int64) (record.Pruned, error)
}

// PortsFactory returns a new, empty store, cleaned up when t ends.
type PortsFactory func(t *testing.T) Ports

type portsCase struct {
	name string
	fn   func(t *testing.T, s Ports)
}

// RunPorts runs Run's conformance tests of queue.Store and those of every
// other port on fresh stores from newStore, in parallel subtests.
func RunPorts(t *testing.T, newStore PortsFactory) {
	t.Run("queue", func(t *testing.T) {
		Run(t, func(t *testing.T) queue.Store { return newStore(t) })
	})
	var all []portsCase
	for _, group := range [][]portsCase{inboxTests, sharedClaimTests, tokenTests, sessionTests, outboxTests, retentionTests} {
		all = append(all, group...)
	}
	for _, tc := range all {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}

// hashOf is the SHA-256 of secret, as tokens and sessions are stored.
func hashOf(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}
