package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mergequeue/mq/queue"
)

// runColumns lists the runs table's columns. Lists are JSON, keeping nil
// ("null") distinct from empty ("[]").
func runColumns(r *queue.TestRun) []column {
	return []column{
		{"id", r.ID, &r.ID},
		{"queue_id", r.QueueID, &r.QueueID},
		{"entry_ids", jsonVal{r.EntryIDs}, jsonScan{&r.EntryIDs}},
		{"pr_numbers", jsonVal{r.PRNumbers}, jsonScan{&r.PRNumbers}},
		{"pr_shas", jsonVal{r.PRSHAs}, jsonScan{&r.PRSHAs}},
		{"ahead", jsonVal{r.Ahead}, jsonScan{&r.Ahead}},
		{"base_sha", r.BaseSHA, &r.BaseSHA},
		{"branch", r.Branch, &r.Branch},
		{"sha", r.SHA, &r.SHA},
		{"required_checks", jsonVal{r.RequiredChecks}, jsonScan{&r.RequiredChecks}},
		{"bisection", r.Bisection, &r.Bisection},
		{"status", string(r.Status), &r.Status},
		{"failure_reason", string(r.FailureReason), &r.FailureReason},
		{"failure_detail", r.FailureDetail, &r.FailureDetail},
		{"created_at", timeVal(r.CreatedAt), timeScan{&r.CreatedAt}},
		{"started_at", timeVal(r.StartedAt), timeScan{&r.StartedAt}},
		{"finished_at", timeVal(r.FinishedAt), timeScan{&r.FinishedAt}},
		{"closed", r.Closed, &r.Closed},
		{"parent", r.Parent, &r.Parent},
		{"required_source", string(r.RequiredSource), &r.RequiredSource},
		{"isolation", r.Isolation, &r.Isolation},
		{"rerun_check_ids", jsonVal{r.RerunChecks}, jsonScan{&r.RerunChecks}},
	}
}

var (
	runCols   = runColumns(&queue.TestRun{})
	runSelect = "SELECT " + selectList(runCols, "") + " FROM runs"
	runUpsert = insertSQL("runs", runCols, "id")
	runByID   = runSelect + " WHERE id = ?"
	runOpen   = runSelect + " WHERE queue_id = ? AND closed = 0 ORDER BY created_at NULLS FIRST, id"
	runRecent = runSelect + " WHERE queue_id = ? AND status = 'succeeded' ORDER BY finished_at DESC NULLS LAST, id LIMIT ?"
	runBySHA  = "SELECT " + selectList(runCols, "r") + ` FROM runs r JOIN queues q ON q.id = r.queue_id
		WHERE r.sha = ? AND r.closed = 0 AND q.host = ? COLLATE NOCASE AND q.owner = ? COLLATE NOCASE AND q.name = ? COLLATE NOCASE
		ORDER BY r.created_at NULLS FIRST, r.id`
)

func scanRun(sc interface{ Scan(...any) error }) (*queue.TestRun, error) {
	var r queue.TestRun
	if err := sc.Scan(columnDests(runColumns(&r))...); err != nil {
		return nil, err
	}
	return &r, nil
}

// SaveRun inserts or replaces a test run by ID.
func (o *ops) SaveRun(ctx context.Context, r *queue.TestRun) error {
	if r.ID == "" {
		return fmt.Errorf("failed to save run of queue %d: empty ID", r.QueueID)
	}
	if _, err := o.wr.ExecContext(ctx, runUpsert, columnArgs(runColumns(r))...); err != nil {
		return fmt.Errorf("failed to save run %s: %w", r.ID, err)
	}
	o.changed(r.QueueID)
	return nil
}

// GetRun returns a run by ID; queue.ErrNotFound if absent.
func (o *ops) GetRun(ctx context.Context, id string) (*queue.TestRun, error) {
	r, err := scanRun(o.rd.QueryRowContext(ctx, runByID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("run %s: %w", id, queue.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("failed to get run %s: %w", id, err)
	}
	return r, nil
}

// ListOpenRuns returns the queue's runs that are not Closed, oldest
// CreatedAt first.
func (o *ops) ListOpenRuns(ctx context.Context, queueID int64) ([]*queue.TestRun, error) {
	rows, err := o.rd.QueryContext(ctx, runOpen, queueID)
	if err != nil {
		return nil, fmt.Errorf("failed to list open runs of queue %d: %w", queueID, err)
	}
	out, err := collect(rows, scanRun)
	if err != nil {
		return nil, fmt.Errorf("failed to list open runs of queue %d: %w", queueID, err)
	}
	return out, nil
}

// FindRunsBySHA returns the open runs, in any queue of repo, whose test
// commit is sha, oldest first. An empty sha (a run still building) matches
// nothing.
func (o *ops) FindRunsBySHA(ctx context.Context, repo queue.Repo, sha string) ([]*queue.TestRun, error) {
	if sha == "" {
		return nil, nil
	}
	rows, err := o.rd.QueryContext(ctx, runBySHA, sha, repo.Host, repo.Owner, repo.Name)
	if err != nil {
		return nil, fmt.Errorf("failed to find runs of %s at %s: %w", repo, sha, err)
	}
	out, err := collect(rows, scanRun)
	if err != nil {
		return nil, fmt.Errorf("failed to find runs of %s at %s: %w", repo, sha, err)
	}
	return out, nil
}

// RecentRuns returns the queue's succeeded runs, most recently finished
// first (then by ID), at most limit (0 = all).
func (o *ops) RecentRuns(ctx context.Context, queueID int64, limit int) ([]*queue.TestRun, error) {
	rows, err := o.rd.QueryContext(ctx, runRecent, queueID, sqlLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("failed to list recent runs of queue %d: %w", queueID, err)
	}
	out, err := collect(rows, scanRun)
	if err != nil {
		return nil, fmt.Errorf("failed to list recent runs of queue %d: %w", queueID, err)
	}
	return out, nil
}
