package sqlite

import (
	"context"
	"testing"

	"github.com/mergequeue/mq/queue/sqlstore"
)

// Upgrading to 0017 gives every stored queue the defaults of
// checksStartTimeoutMinutes (10) and stallAlertMinutes (60), and keeps a
// value already stored.
func TestMigration0017ChecksStartTimeoutDefault(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openRaw(t)
	if err := migrate(ctx, db, embeddedMigrations[:16]); err != nil {
		t.Fatalf("migrate to 0016: %v", err)
	}
	for _, q := range []string{
		`INSERT INTO queues (host, owner, name, branch, state, settings, next_seq, paused_reason) VALUES ('github.com', 'acme', 'widgets', 'main', 'running', '{"concurrency":2}', 1, '')`,
		`INSERT INTO queues (host, owner, name, branch, state, settings, next_seq, paused_reason) VALUES ('github.com', 'acme', 'widgets', 'dev', 'running', '{"checks_start_timeout_minutes":0,"stall_alert_minutes":0}', 1, '')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := migrate(ctx, db, embeddedMigrations); err != nil {
		t.Fatalf("migrate to the end: %v", err)
	}
	s, err := sqlstore.New(ctx, db, db, sqlstore.Options{Dialect: Dialect})
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[int64]int{1: 10, 2: 0} {
		q, err := s.GetQueueByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if q.Settings.ChecksStartTimeoutMinutes != want || q.Settings.StallAlertMinutes != 6*want ||
			(id == 1 && q.Settings.Concurrency != 2) {
			t.Errorf("queue %d after the upgrade: %+v, want checksStartTimeoutMinutes %d", id, q.Settings, want)
		}
	}
}
