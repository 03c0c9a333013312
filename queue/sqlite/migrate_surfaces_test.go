package sqlite

import (
	"context"
	"testing"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/sqlstore"
)

// Upgrading to 0006 keeps each PR's sticky comment and check run: their ids
// move from entries to surfaces, and active entries are due once, so the
// reconciler edits (not re-creates) what GitHub shows.
func TestMigration0006KeepsCommentAndCheckRunIDs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openRaw(t)
	if err := migrate(ctx, db, embeddedMigrations[:5]); err != nil {
		t.Fatalf("migrate to 0005: %v", err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`INSERT INTO queues (host, owner, name, branch, state, settings, next_seq, paused_reason) VALUES ('github.com', 'acme', 'widgets', 'main', 'running', '{}', 1, '')`)
	entry := `INSERT INTO entries (id, queue_id, pr_number, pr_sha, pr_title, pr_body, pr_author, pr_head_sha, pr_base_branch,
		pr_open, pr_draft, pr_merged, pr_merge_commit_sha, pr_mergeable_state, state, state_reason, state_reason_detail,
		priority_value, priority_name, used_default_priority_name, no_batch, direct, submitter, source, seq, run_id,
		blocked_by, merge_intent, merge_attempts, restarts, status_comment_id, check_run_id, position, vouched, merge_base)
		VALUES (?, 1, ?, ?, '', '', '', '', '', 1, 0, 0, '', '', ?, '', '', 100, 'medium', 0, 0, 0, '', '', 0, '', '', 0, 0, 0, ?, ?, 0, 0, '')`
	exec(entry, "active", 1, "sha1", "testing", 11, 21)
	exec(entry, "ended", 2, "sha2", "merged", 12, 22)
	exec(entry, "bare", 3, "sha3", "merged", 0, 0)
	exec(entry, "new", 4, "sha4", "pending", 0, 0)
	if err := migrate(ctx, db, embeddedMigrations); err != nil {
		t.Fatalf("migrate to the end: %v", err)
	}
	s, err := sqlstore.New(ctx, db, db, sqlstore.Options{Dialect: Dialect})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tc := range []struct {
		id   string
		want *queue.Surface
	}{
		{"active", &queue.Surface{EntryID: "active", QueueID: 1, Want: 1, CommentID: 11, CheckRunID: 21, CheckRunSHA: "sha1", CheckRunOpen: true}},
		{"ended", &queue.Surface{EntryID: "ended", QueueID: 1, CommentID: 12, CheckRunID: 22, CheckRunSHA: "sha2"}},
		{"bare", nil},
		{"new", &queue.Surface{EntryID: "new", QueueID: 1, Want: 1, CheckRunSHA: "sha4"}},
	} {
		got, err := s.GetSurface(ctx, tc.id)
		if tc.want == nil {
			if err == nil {
				t.Errorf("%s: surface %+v, want none", tc.id, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.id, err)
			continue
		}
		assertEqual(t, *got, *tc.want)
	}
	e, err := s.GetEntryByID(ctx, "active")
	if err != nil || e.PRNumber != 1 || e.State != queue.StateTesting {
		t.Fatalf("entry after migration = %+v, %v", e, err)
	}
}
