package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mergequeue/mq/queue"
)

// queueRow is a queue and the settings document it is stored with.
type queueRow struct {
	q   queue.Queue
	doc settingsDoc
}

// queueColumns lists the queues table's columns, without id.
func queueColumns(r *queueRow) []column {
	q := &r.q
	return []column{
		{"host", q.Key.Repo.Host, &q.Key.Repo.Host},
		{"owner", q.Key.Repo.Owner, &q.Key.Repo.Owner},
		{"name", q.Key.Repo.Name, &q.Key.Repo.Name},
		{"branch", q.Key.Branch, &q.Key.Branch},
		{"state", string(q.State), &q.State},
		{"settings", jsonVal{toSettingsDoc(q.Settings)}, jsonScan{&r.doc}},
		{"created_at", timeVal(q.CreatedAt), timeScan{&q.CreatedAt}},
		{"updated_at", timeVal(q.UpdatedAt), timeScan{&q.UpdatedAt}},
		{"next_seq", q.NextSeq, &q.NextSeq},
		{"paused_reason", q.PausedReason, &q.PausedReason},
		{"pending_mode", string(q.PendingMode), &q.PendingMode},
		{"resume_state", string(q.ResumeState), &q.ResumeState},
	}
}

var (
	queueCols       = queueColumns(&queueRow{})
	queueSelect     = "SELECT id, " + selectList(queueCols, "") + " FROM queues"
	queueInsertStmt = insertSQL("queues", queueCols, "")
	queueByKey      = queueSelect + " WHERE host = ? COLLATE NOCASE AND owner = ? COLLATE NOCASE AND name = ? COLLATE NOCASE AND branch = ?"
	queueByID       = queueSelect + " WHERE id = ?"
	queueList       = queueSelect + " ORDER BY id"
	// queueActive reads the active entries and open runs through their
	// partial indexes (entries_active, runs_open), not every queue.
	queueActive = queueSelect + " WHERE id IN (SELECT queue_id FROM entries WHERE " + activeEntry +
		" UNION SELECT queue_id FROM runs WHERE closed = 0) ORDER BY id"
)

func scanQueue(sc interface{ Scan(...any) error }) (*queue.Queue, error) {
	var r queueRow
	dests := append([]any{&r.q.ID}, columnDests(queueColumns(&r))...)
	if err := sc.Scan(dests...); err != nil {
		return nil, err
	}
	r.q.Settings = fromSettingsDoc(r.doc)
	return &r.q, nil
}

// CreateQueue stores q and sets q.ID; queue.ErrExists if its key is taken.
func (o *ops) CreateQueue(ctx context.Context, q *queue.Queue) error {
	r := queueRow{q: *q}
	var id int64
	if err := scanRow(ctx, o.wr, []any{&id}, queueInsertStmt+" RETURNING id", columnArgs(queueColumns(&r))...); err != nil {
		return fmt.Errorf("failed to create queue %s: %w", q.Key, o.existsErr(err))
	}
	o.changed(0)
	q.ID = id
	return nil
}

// GetQueue finds a queue by key; queue.ErrNotFound if absent.
func (o *ops) GetQueue(ctx context.Context, key queue.QueueKey) (*queue.Queue, error) {
	row := o.rd.QueryRowContext(ctx, queueByKey, key.Repo.Host, key.Repo.Owner, key.Repo.Name, key.Branch)
	q, err := scanQueue(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("queue %s: %w", key, queue.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("failed to get queue %s: %w", key, err)
	}
	return q, nil
}

// GetQueueByID finds a queue by ID; queue.ErrNotFound if absent.
func (o *ops) GetQueueByID(ctx context.Context, id int64) (*queue.Queue, error) {
	q, err := scanQueue(o.rd.QueryRowContext(ctx, queueByID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("queue %d: %w", id, queue.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("failed to get queue %d: %w", id, err)
	}
	return q, nil
}

// ListQueues returns every queue, ordered by ID.
func (o *ops) ListQueues(ctx context.Context) ([]*queue.Queue, error) {
	rows, err := o.rd.QueryContext(ctx, queueList)
	if err != nil {
		return nil, fmt.Errorf("failed to list queues: %w", err)
	}
	out, err := collect(rows, scanQueue)
	if err != nil {
		return nil, fmt.Errorf("failed to list queues: %w", err)
	}
	return out, nil
}

// ListActiveQueues returns the queues with an active entry or an open
// run, ordered by ID.
func (o *ops) ListActiveQueues(ctx context.Context) ([]*queue.Queue, error) {
	rows, err := o.rd.QueryContext(ctx, queueActive)
	if err != nil {
		return nil, fmt.Errorf("failed to list the active queues: %w", err)
	}
	out, err := collect(rows, scanQueue)
	if err != nil {
		return nil, fmt.Errorf("failed to list the active queues: %w", err)
	}
	return out, nil
}

// UpdateQueue saves q's state, settings, NextSeq, PausedReason,
// PendingMode, ResumeState and UpdatedAt; queue.ErrNotFound if q.ID is unknown.
func (o *ops) UpdateQueue(ctx context.Context, q *queue.Queue) error {
	res, err := o.wr.ExecContext(ctx,
		`UPDATE queues SET state = ?, settings = ?, next_seq = ?, paused_reason = ?, pending_mode = ?, resume_state = ?, updated_at = ? WHERE id = ?`,
		string(q.State), jsonVal{toSettingsDoc(q.Settings)}, q.NextSeq, q.PausedReason, string(q.PendingMode), string(q.ResumeState),
		timeVal(q.UpdatedAt), q.ID)
	if err != nil {
		return fmt.Errorf("failed to update queue %s: %w", q.Key, err)
	}
	if err := rowsAffected(res); err != nil {
		return fmt.Errorf("failed to update queue %d (%s): %w", q.ID, q.Key, err)
	}
	o.changed(q.ID)
	return nil
}

// DeleteQueue removes a queue with its entries, runs and merge records (by
// foreign-key cascade). Deleting an absent queue is not an error.
func (o *ops) DeleteQueue(ctx context.Context, id int64) error {
	if _, err := o.wr.ExecContext(ctx, `DELETE FROM queues WHERE id = ?`, id); err != nil {
		return fmt.Errorf("failed to delete queue %d: %w", id, err)
	}
	o.changed(0)
	return nil
}

// collect scans every row with scan and closes rows.
func collect[T any](rows *sql.Rows, scan func(interface{ Scan(...any) error }) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}
