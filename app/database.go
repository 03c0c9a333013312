package app

import (
	"context"
	"fmt"
	"time"

	"github.com/mergequeue/mq/handlers/api/apitoken"
	"github.com/mergequeue/mq/handlers/inbox"
	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/postgres"
	"github.com/mergequeue/mq/queue/record"
	"github.com/mergequeue/mq/queue/sqlite"
)

// Database is what the process needs of its database: the queues' store
// and every other port a part of the process declares (the webhook inbox's,
// the API tokens', the notifier's cursors, the dashboard's sessions, the
// App's remembered state and retention). Each port stays declared by its
// consumer; this interface only names their union, so that the app holds
// one value of it whatever the driver (OpenDatabase). Every method is safe
// for concurrent use; Close ends it.
type Database interface {
	queue.Store
	inbox.Store
	inbox.StatsReader
	apitoken.Store

	// EventsAfter returns up to limit events of every queue with an ID
	// above afterID, oldest first (the notifier's outbox).
	EventsAfter(ctx context.Context, afterID int64, limit int) ([]queue.Event, error)
	// CountEventsAfter counts the events with an ID above afterID.
	CountEventsAfter(ctx context.Context, afterID int64) (int, error)
	// NotificationCursor returns target's cursor; a target seen for the
	// first time starts at the newest event.
	NotificationCursor(ctx context.Context, target string) (record.NotificationCursor, error)
	// SaveNotificationCursor stores c as the cursor of c.Target.
	SaveNotificationCursor(ctx context.Context, c record.NotificationCursor) error
	// ClaimNotificationCursor makes holder the only deliverer to target
	// until now+hold, across the processes sharing the database, and
	// returns its cursor; ok is false while another holder's claim is live.
	ClaimNotificationCursor(ctx context.Context, target, holder string, now time.Time, hold time.Duration) (record.NotificationCursor, bool, error)

	// CreateSession stores a new dashboard session (queue.ErrExists if its
	// hash is taken).
	CreateSession(ctx context.Context, d record.DashboardSession) error
	// Session returns the session stored under hash, ended or not
	// (queue.ErrNotFound).
	Session(ctx context.Context, hash []byte) (record.DashboardSession, error)
	// TouchSession records a use at at; SeenAt never moves back
	// (queue.ErrNotFound).
	TouchSession(ctx context.Context, hash []byte, at time.Time) error
	// DeleteSession removes a session; a missing one is no error.
	DeleteSession(ctx context.Context, hash []byte) error
	// PruneSessions deletes the sessions ended at now and says how many.
	PruneSessions(ctx context.Context, now time.Time) (int64, error)

	// AppState returns the value stored under key, and whether there is one.
	AppState(ctx context.Context, key string) (string, bool, error)
	// SetAppState stores value under key.
	SetAppState(ctx context.Context, key, value string) error

	// Prune deletes processed deliveries and delivered notices received
	// before deliveriesBefore, and events recorded before eventsBefore
	// whose ID is at most eventsUpTo (negative: no notification target).
	Prune(ctx context.Context, deliveriesBefore, eventsBefore time.Time, eventsUpTo int64) (record.Pruned, error)

	// AcquireLease makes holder the decision-maker of queueID until now+ttl
	// unless another holder's lease is live (ok false); RenewLeases
	// extends in one statement the leases of holder still its (those it
	// does not return changed hands); ReleaseLease gives one up. On SQLite
	// (one process) every lease is always held.
	AcquireLease(ctx context.Context, queueID int64, holder string, now time.Time, ttl time.Duration) (record.Lease, bool, error)
	RenewLeases(ctx context.Context, holder string, held []record.Lease, now time.Time, ttl time.Duration) ([]record.Lease, error)
	ReleaseLease(ctx context.Context, l record.Lease) error
	// Heartbeat records that replica name is alive and returns the live
	// replicas (on SQLite, name alone); they divide the queues.
	Heartbeat(ctx context.Context, name string, now time.Time, ttl time.Duration) ([]string, error)

	// WakeQueue and ListenWakes pass queue wake-ups between the replicas
	// sharing the database (wakeStore).
	wakeStore
	// ClaimRole makes holder the one replica doing role (the surface
	// reconciler) until now+hold unless another's claim is live.
	roleClaimer

	// Close releases the database; it must not be used afterwards.
	Close() error
}

var (
	_ Database = (*sqlite.Store)(nil)
	_ Database = (*postgres.Store)(nil)
)

// OpenDatabase opens the database that cfg names with its driver (and
// applies its pending migrations) for the server: the one place the
// process, and every command of the CLI (OpenDatabaseBeside), opens its
// database. On PostgreSQL it takes the schema's writer lock (a second
// server on the schema is refused) unless cfg.Replicas: then any number of
// servers share the schema, dividing the queues by per-queue leases.
func OpenDatabase(ctx context.Context, cfg DatabaseConfig) (Database, error) {
	return openDatabase(ctx, cfg, cfg.Replicas)
}

// OpenDatabaseBeside opens the database as OpenDatabase does, for a
// command that writes a few rows beside a running server (bot token): it
// takes no writer lock.
func OpenDatabaseBeside(ctx context.Context, cfg DatabaseConfig) (Database, error) {
	return openDatabase(ctx, cfg, true)
}

func openDatabase(ctx context.Context, cfg DatabaseConfig, noLock bool) (Database, error) {
	switch cfg.Driver {
	case DriverSQLite:
		store, err := sqlite.Open(ctx, cfg.Path)
		if err != nil {
			return nil, fmt.Errorf("failed to open the SQLite database: %w", err)
		}
		return store, nil
	case DriverPostgres:
		var opts []postgres.Option
		if noLock {
			opts = append(opts, postgres.NoWriterLock())
		}
		store, err := postgres.Open(ctx, cfg.URL, opts...)
		if err != nil {
			return nil, fmt.Errorf("failed to open the PostgreSQL database: %w", err)
		}
		return store, nil
	default:
		return nil, fmt.Errorf("failed to open the database: database.driver %q is not supported", cfg.Driver)
	}
}
