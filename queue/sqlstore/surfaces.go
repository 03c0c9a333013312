package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/mergequeue/mq/queue"
)

// surfaceColumns lists the surfaces table's columns.
func surfaceColumns(s *queue.Surface) []column {
	return []column{
		{"entry_id", s.EntryID, &s.EntryID},
		{"queue_id", s.QueueID, &s.QueueID},
		{"want", s.Want, &s.Want},
		{"done", s.Done, &s.Done},
		{"comment_id", s.CommentID, &s.CommentID},
		{"comment_hash", s.CommentHash, &s.CommentHash},
		{"check_run_id", s.CheckRunID, &s.CheckRunID},
		{"check_run_sha", s.CheckRunSHA, &s.CheckRunSHA},
		{"check_run_hash", s.CheckRunHash, &s.CheckRunHash},
		{"check_run_open", s.CheckRunOpen, &s.CheckRunOpen},
		{"state_label", s.StateLabel, &s.StateLabel},
		{"comment_creating", s.CommentCreating, &s.CommentCreating},
		{"check_run_creating", s.CheckRunCreating, &s.CheckRunCreating},
		{"attempts", s.Attempts, &s.Attempts},
		{"next_attempt_at", timeVal(s.NextAttemptAt), timeScan{&s.NextAttemptAt}},
		{"last_error", s.LastError, &s.LastError},
		{"written_at", timeVal(s.WrittenAt), timeScan{&s.WrittenAt}},
	}
}

var (
	surfaceCols   = surfaceColumns(&queue.Surface{})
	surfaceSelect = "SELECT " + selectList(surfaceCols, "") + " FROM surfaces"
	// A new surface is the zero one with Want 1.
	surfaceTouch = insertSQL("surfaces", surfaceCols, "") + " ON CONFLICT (entry_id) DO UPDATE SET want = surfaces.want + 1"
	surfaceDue   = surfaceSelect + ` WHERE want > done AND (next_attempt_at IS NULL OR next_attempt_at <= ?)
		ORDER BY next_attempt_at NULLS FIRST, entry_id LIMIT ?`
	// Saving keeps the queue and Want, which only TouchSurface bumps.
	surfaceSave = updateSQL("surfaces", surfaceCols, "entry_id", "queue_id", "want")
)

func scanSurface(sc interface{ Scan(...any) error }) (queue.Surface, error) {
	var s queue.Surface
	err := sc.Scan(columnDests(surfaceColumns(&s))...)
	return s, err
}

// TouchSurface bumps the Want of an entry's surface, creating it.
func (o *ops) TouchSurface(ctx context.Context, queueID int64, entryID string) error {
	args := columnArgs(surfaceColumns(&queue.Surface{EntryID: entryID, QueueID: queueID, Want: 1}))
	if _, err := o.wr.ExecContext(ctx, surfaceTouch, args...); err != nil {
		return fmt.Errorf("failed to touch the surface of entry %s: %w", entryID, err)
	}
	return nil
}

// GetSurface returns an entry's surface.
func (o *ops) GetSurface(ctx context.Context, entryID string) (*queue.Surface, error) {
	s, err := scanSurface(o.rd.QueryRowContext(ctx, surfaceSelect+" WHERE entry_id = ?", entryID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("surface of entry %s: %w", entryID, queue.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read the surface of entry %s: %w", entryID, err)
	}
	return &s, nil
}

// DueSurfaces returns due surfaces, least recently attempted first.
func (o *ops) DueSurfaces(ctx context.Context, now time.Time, limit int) ([]queue.Surface, error) {
	rows, err := o.rd.QueryContext(ctx, surfaceDue, timeVal(now), sqlLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("failed to list due surfaces: %w", err)
	}
	out, err := collect(rows, scanSurface)
	if err != nil {
		return nil, fmt.Errorf("failed to list due surfaces: %w", err)
	}
	return out, nil
}

// SaveSurface stores everything of s but Want.
func (o *ops) SaveSurface(ctx context.Context, s queue.Surface) error {
	res, err := o.wr.ExecContext(ctx, surfaceSave, updateArgs(surfaceColumns(&s), "entry_id", "queue_id", "want")...)
	if err != nil {
		return fmt.Errorf("failed to save the surface of entry %s: %w", s.EntryID, err)
	}
	if err := rowsAffected(res); err != nil {
		return fmt.Errorf("surface of entry %s: %w", s.EntryID, err)
	}
	return nil
}

// noticeColumns lists the notices table's columns, without id.
func noticeColumns(n *queue.Notice) []column {
	return []column{
		{"key", n.Key, &n.Key},
		{"host", n.Repo.Host, &n.Repo.Host},
		{"owner", n.Repo.Owner, &n.Repo.Owner},
		{"name", n.Repo.Name, &n.Repo.Name},
		{"pr_number", n.PRNumber, &n.PRNumber},
		{"kind", string(n.Kind), &n.Kind},
		{"body", n.Body, &n.Body},
		{"comment_id", n.CommentID, &n.CommentID},
		{"created_at", timeVal(n.CreatedAt), timeScan{&n.CreatedAt}},
		{"attempted", n.Attempted, &n.Attempted},
		{"attempts", n.Attempts, &n.Attempts},
		{"next_attempt_at", timeVal(n.NextAttemptAt), timeScan{&n.NextAttemptAt}},
		{"last_error", n.LastError, &n.LastError},
		{"done_at", timeVal(n.DoneAt), timeScan{&n.DoneAt}},
	}
}

var (
	noticeCols   = noticeColumns(&queue.Notice{})
	noticeInsert = insertSQL("notices", noticeCols, "") + " ON CONFLICT (key) DO NOTHING"
	noticeDue    = "SELECT id, " + selectList(noticeCols, "") + ` FROM notices
		WHERE done_at IS NULL AND (next_attempt_at IS NULL OR next_attempt_at <= ?) ORDER BY id LIMIT ?`
	noticeSave = `UPDATE notices SET attempted = ?, attempts = ?, next_attempt_at = ?, last_error = ?, done_at = ? WHERE id = ?`
)

// AddNotice stores n unless its key exists.
func (o *ops) AddNotice(ctx context.Context, n *queue.Notice) (bool, error) {
	// RETURNING yields no row when the key exists (DO NOTHING).
	var id int64
	err := scanRow(ctx, o.wr, []any{&id}, noticeInsert+" RETURNING id", columnArgs(noticeColumns(n))...)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("failed to add notice %s: %w", n.Key, err)
	}
	n.ID = id
	return true, nil
}

// DueNotices returns undelivered due notices, oldest first.
func (o *ops) DueNotices(ctx context.Context, now time.Time, limit int) ([]queue.Notice, error) {
	rows, err := o.rd.QueryContext(ctx, noticeDue, timeVal(now), sqlLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("failed to list due notices: %w", err)
	}
	out, err := collect(rows, func(sc interface{ Scan(...any) error }) (queue.Notice, error) {
		var n queue.Notice
		err := sc.Scan(append([]any{&n.ID}, columnDests(noticeColumns(&n))...)...)
		return n, err
	})
	if err != nil {
		return nil, fmt.Errorf("failed to list due notices: %w", err)
	}
	return out, nil
}

// SaveNotice stores the delivery bookkeeping of n.
func (o *ops) SaveNotice(ctx context.Context, n queue.Notice) error {
	res, err := o.wr.ExecContext(ctx, noticeSave, n.Attempted, n.Attempts, timeVal(n.NextAttemptAt), n.LastError,
		timeVal(n.DoneAt), n.ID)
	if err != nil {
		return fmt.Errorf("failed to save notice %d: %w", n.ID, err)
	}
	if err := rowsAffected(res); err != nil {
		return fmt.Errorf("notice %d: %w", n.ID, err)
	}
	return nil
}

// RecordRef records a branch before it is created.
func (o *ops) RecordRef(ctx context.Context, r queue.Ref) error {
	_, err := o.wr.ExecContext(ctx, `INSERT INTO refs (host, owner, name, ref, queue_id, run_id, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (host, owner, name, ref) DO UPDATE SET
		queue_id = excluded.queue_id, run_id = excluded.run_id, created_at = excluded.created_at`,
		r.Repo.Host, r.Repo.Owner, r.Repo.Name, r.Name, r.QueueID, r.RunID, timeVal(r.CreatedAt))
	if err != nil {
		return fmt.Errorf("failed to record branch %s of %s: %w", r.Name, r.Repo, err)
	}
	return nil
}

// ListRefs returns the recorded branches of a repository, by name.
func (o *ops) ListRefs(ctx context.Context, repo queue.Repo) ([]queue.Ref, error) {
	rows, err := o.rd.QueryContext(ctx, `SELECT host, owner, name, ref, queue_id, run_id, created_at FROM refs
		WHERE host = ? AND owner = ? AND name = ? ORDER BY ref`, repo.Host, repo.Owner, repo.Name)
	if err != nil {
		return nil, fmt.Errorf("failed to list the branches of %s: %w", repo, err)
	}
	out, err := collect(rows, func(sc interface{ Scan(...any) error }) (queue.Ref, error) {
		var r queue.Ref
		err := sc.Scan(&r.Repo.Host, &r.Repo.Owner, &r.Repo.Name, &r.Name, &r.QueueID, &r.RunID, timeScan{&r.CreatedAt})
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("failed to list the branches of %s: %w", repo, err)
	}
	return out, nil
}

// ForgetRef removes a branch's record.
func (o *ops) ForgetRef(ctx context.Context, repo queue.Repo, name string) error {
	if _, err := o.wr.ExecContext(ctx, `DELETE FROM refs WHERE host = ? AND owner = ? AND name = ? AND ref = ?`,
		repo.Host, repo.Owner, repo.Name, name); err != nil {
		return fmt.Errorf("failed to forget branch %s of %s: %w", name, repo, err)
	}
	return nil
}

// queueWithRunRefs reads the queues with a recorded run branch.
var queueWithRunRefs = queueSelect + " WHERE id IN (SELECT queue_id FROM refs WHERE run_id <> '') ORDER BY id"

// ListQueuesWithRunRefs returns the queues with a recorded branch made for
// a run, ordered by ID.
func (o *ops) ListQueuesWithRunRefs(ctx context.Context) ([]*queue.Queue, error) {
	rows, err := o.rd.QueryContext(ctx, queueWithRunRefs)
	if err != nil {
		return nil, fmt.Errorf("failed to list the queues with recorded run branches: %w", err)
	}
	out, err := collect(rows, scanQueue)
	if err != nil {
		return nil, fmt.Errorf("failed to list the queues with recorded run branches: %w", err)
	}
	return out, nil
}
