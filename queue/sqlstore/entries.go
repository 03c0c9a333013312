package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mergequeue/mq/queue"
)

// entryColumns lists the entries table's columns.
func entryColumns(e *queue.Entry) []column {
	pr := &e.PR
	return []column{
		{"id", e.ID, &e.ID},
		{"queue_id", e.QueueID, &e.QueueID},
		{"pr_number", e.PRNumber, &e.PRNumber},
		{"pr_sha", e.PRSHA, &e.PRSHA},
		{"pr_title", pr.Title, &pr.Title},
		{"pr_body", pr.Body, &pr.Body},
		{"pr_author", pr.Author, &pr.Author},
		{"pr_head_sha", pr.HeadSHA, &pr.HeadSHA},
		{"pr_base_branch", pr.BaseBranch, &pr.BaseBranch},
		{"pr_open", pr.Open, &pr.Open},
		{"pr_draft", pr.Draft, &pr.Draft},
		{"pr_merged", pr.Merged, &pr.Merged},
		{"pr_merge_commit_sha", pr.MergeCommitSHA, &pr.MergeCommitSHA},
		{"pr_mergeable_state", pr.MergeableState, &pr.MergeableState},
		{"pr_mergeable", boolPtrVal{pr.Mergeable}, boolPtrScan{&pr.Mergeable}},
		{"pr_read_at", timeVal(pr.ReadAt), timeScan{&pr.ReadAt}},
		{"state", string(e.State), &e.State},
		{"state_reason", string(e.StateReason), &e.StateReason},
		{"state_reason_detail", e.StateReasonDetail, &e.StateReasonDetail},
		{"state_changed_at", timeVal(e.StateChangedAt), timeScan{&e.StateChangedAt}},
		{"priority_value", e.PriorityValue, &e.PriorityValue},
		{"priority_name", e.PriorityName, &e.PriorityName},
		{"used_default_priority_name", e.UsedDefaultPriorityName, &e.UsedDefaultPriorityName},
		{"no_batch", e.NoBatch, &e.NoBatch},
		{"direct", e.Direct, &e.Direct},
		{"submitter", e.Submitter, &e.Submitter},
		{"source", e.Source, &e.Source},
		{"submitted_at", timeVal(e.SubmittedAt), timeScan{&e.SubmittedAt}},
		{"admitted_at", timeVal(e.AdmittedAt), timeScan{&e.AdmittedAt}},
		{"concluded_at", timeVal(e.ConcludedAt), timeScan{&e.ConcludedAt}},
		{"seq", e.Seq, &e.Seq},
		{"run_id", e.RunID, &e.RunID},
		{"blocked_by", e.BlockedBy, &e.BlockedBy},
		{"merge_intent", e.MergeIntent, &e.MergeIntent},
		{"merge_attempts", e.MergeAttempts, &e.MergeAttempts},
		{"next_attempt_at", timeVal(e.NextAttemptAt), timeScan{&e.NextAttemptAt}},
		{"restarts", e.Restarts, &e.Restarts},
		{"position", e.Position, &e.Position},
		{"vouched", e.Vouched, &e.Vouched},
		{"merge_base", e.MergeBase, &e.MergeBase},
		{"pr_checked_at", timeVal(e.PRCheckedAt), timeScan{&e.PRCheckedAt}},
		{"direct_base", e.DirectBase, &e.DirectBase},
		{"direct_contains", e.DirectContains, &e.DirectContains},
		{"conflict", conflictVal{e.Conflict}, conflictScan{&e.Conflict}},
		{"cancel_reason", string(e.CancelReason), &e.CancelReason},
		{"cancel_detail", e.CancelDetail, &e.CancelDetail},
		{"isolation_run_id", e.IsolationRunID, &e.IsolationRunID},
		{"isolation_failures", e.IsolationFailures, &e.IsolationFailures},
		{"isolation_passed", e.IsolationPassed, &e.IsolationPassed},
		{"flake_retried", e.FlakeRetried, &e.FlakeRetried},
		{"checks_missing", e.ChecksMissing, &e.ChecksMissing},
		{"check_attempts", e.CheckAttempts, &e.CheckAttempts},
		{"check_retry_log", e.CheckRetryLog, &e.CheckRetryLog},
	}
}

// activeEntry is the SQL condition for a non-terminal entry; it matches the
// partial index entries_active.
const activeEntry = "state NOT IN ('merged', 'failed', 'cancelled')"

var (
	entryCols   = entryColumns(&queue.Entry{})
	entrySelect = "SELECT " + selectList(entryCols, "") + ", version FROM entries"
	// entryInsert inserts a new entry at version 1, nothing when its ID
	// exists; entryUpdate replaces an entry at the version its last
	// argument names, moving it to the next (see SaveEntry).
	entryInsert = insertSQL("entries", append(slices.Clone(entryCols), column{name: "version"}), "") + " ON CONFLICT (id) DO NOTHING"
	entryUpdate = strings.Replace(updateSQL("entries", entryCols, "id"), " WHERE ", ", version = version + 1 WHERE ", 1) + " AND version = ?"
	entryByPR   = entrySelect + " WHERE queue_id = ? AND pr_number = ?"
	entryByID   = entrySelect + " WHERE id = ?"
	entryActive = entrySelect + " WHERE queue_id = ? AND " + activeEntry +
		" ORDER BY priority_value, seq, submitted_at NULLS FIRST, pr_number"
	entryCountActive = "SELECT COUNT(*) FROM entries WHERE queue_id = ? AND " + activeEntry
	entryFind        = "SELECT " + selectList(entryCols, "e") + `, e.version FROM entries e JOIN queues q ON q.id = e.queue_id
		WHERE q.host = ? COLLATE NOCASE AND q.owner = ? COLLATE NOCASE AND q.name = ? COLLATE NOCASE AND e.pr_number = ? AND e.` + activeEntry + `
		ORDER BY q.id`
)

func scanEntry(sc interface{ Scan(...any) error }) (*queue.Entry, error) {
	var e queue.Entry
	if err := sc.Scan(append(columnDests(entryColumns(&e)), &e.Version)...); err != nil {
		return nil, err
	}
	return &e, nil
}

// SaveEntry inserts or replaces an entry by ID, compare-and-set on
// e.Version: Version 0 inserts a new entry, any other replaces the stored
// entry only while it is at that version (one statement either way, so
// that two replicas cannot both win); queue.ErrConflict, nothing written,
// otherwise. On success e.Version is the new version. Saving an entry
// with another ID for the same (QueueID, PRNumber) fails with
// queue.ErrExists.
func (o *ops) SaveEntry(ctx context.Context, e *queue.Entry) error {
	if e.ID == "" {
		return fmt.Errorf("failed to save entry for PR #%d: empty ID", e.PRNumber)
	}
	var res sql.Result
	var err error
	if e.Version == 0 {
		res, err = o.wr.ExecContext(ctx, entryInsert, append(columnArgs(entryColumns(e)), int64(1))...)
	} else {
		res, err = o.wr.ExecContext(ctx, entryUpdate, append(updateArgs(entryColumns(e), "id"), e.Version)...)
	}
	if err != nil {
		return fmt.Errorf("failed to save entry %s (queue %d, PR #%d): %w", e.ID, e.QueueID, e.PRNumber, o.existsErr(err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("failed to save entry %s: failed to read rows affected: %w", e.ID, err)
	}
	if n == 0 {
		return fmt.Errorf("failed to save entry %s (queue %d, PR #%d) read at version %d: %w", e.ID, e.QueueID, e.PRNumber, e.Version, queue.ErrConflict)
	}
	e.Version++
	o.changed(e.QueueID)
	return nil
}

// GetEntry returns the entry of a PR in a queue, active or not;
// queue.ErrNotFound if the PR was never submitted to it.
func (o *ops) GetEntry(ctx context.Context, queueID int64, prNumber int) (*queue.Entry, error) {
	e, err := scanEntry(o.rd.QueryRowContext(ctx, entryByPR, queueID, prNumber))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("entry for PR #%d in queue %d: %w", prNumber, queueID, queue.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("failed to get entry for PR #%d in queue %d: %w", prNumber, queueID, err)
	}
	return e, nil
}

// GetEntryByID returns an entry by ID; queue.ErrNotFound if absent.
func (o *ops) GetEntryByID(ctx context.Context, id string) (*queue.Entry, error) {
	e, err := scanEntry(o.rd.QueryRowContext(ctx, entryByID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("entry %s: %w", id, queue.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("failed to get entry %s: %w", id, err)
	}
	return e, nil
}

// ListActiveEntries returns the queue's non-terminal entries ordered by
// (PriorityValue, Seq, SubmittedAt, PRNumber).
func (o *ops) ListActiveEntries(ctx context.Context, queueID int64) ([]*queue.Entry, error) {
	rows, err := o.rd.QueryContext(ctx, entryActive, queueID)
	if err != nil {
		return nil, fmt.Errorf("failed to list active entries of queue %d: %w", queueID, err)
	}
	out, err := collect(rows, scanEntry)
	if err != nil {
		return nil, fmt.Errorf("failed to list active entries of queue %d: %w", queueID, err)
	}
	return out, nil
}

// CountActiveEntries returns the number of the queue's non-terminal
// entries (the partial index entries_active serves it).
func (o *ops) CountActiveEntries(ctx context.Context, queueID int64) (int, error) {
	var n int
	if err := o.rd.QueryRowContext(ctx, entryCountActive, queueID).Scan(&n); err != nil {
		return 0, fmt.Errorf("failed to count active entries of queue %d: %w", queueID, err)
	}
	return n, nil
}

// FindActiveEntries returns the active entries of a PR in every queue of
// the repository, ordered by queue ID.
func (o *ops) FindActiveEntries(ctx context.Context, repo queue.Repo, prNumber int) ([]*queue.Entry, error) {
	rows, err := o.rd.QueryContext(ctx, entryFind, repo.Host, repo.Owner, repo.Name, prNumber)
	if err != nil {
		return nil, fmt.Errorf("failed to find active entries of %s#%d: %w", repo, prNumber, err)
	}
	out, err := collect(rows, scanEntry)
	if err != nil {
		return nil, fmt.Errorf("failed to find active entries of %s#%d: %w", repo, prNumber, err)
	}
	return out, nil
}
