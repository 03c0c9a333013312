package sqlite

import (
	"context"
	"testing"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/sqlstore"
)

// Upgrading to 0014 keeps every PR's impacted targets and counts those
// stored before their source was kept as a token's: a forked workflow
// run's upload for the same SHA cannot replace them.
func TestMigration0014TargetsCountAsToken(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openRaw(t)
	if err := migrate(ctx, db, embeddedMigrations[:13]); err != nil {
		t.Fatalf("migrate to 0013: %v", err)
	}
	for _, q := range []string{
		`INSERT INTO queues (host, owner, name, branch, state, settings, next_seq, paused_reason) VALUES ('github.com', 'acme', 'widgets', 'main', 'running', '{}', 1, '')`,
		`INSERT INTO targets (queue_id, pr_number, sha, all_, list, updated_at) VALUES (1, 7, 'abc', 0, '["//a"]', 1)`,
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
	defer s.Close()
	got, err := s.GetTargets(ctx, 1, 7)
	if err != nil {
		t.Fatal(err)
	}
	if got.Source != queue.TargetsFromToken || got.SHA != "abc" || len(got.List) != 1 {
		t.Errorf("targets after the upgrade = %+v, want the token's //a at abc", got)
	}
}
