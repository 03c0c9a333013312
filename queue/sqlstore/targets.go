package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mergequeue/mq/queue"
)

// SetTargets stores a PR's impacted targets in a queue, with their source,
// replacing earlier ones.
func (o *ops) SetTargets(ctx context.Context, t queue.Targets) error {
	list := t.List
	if list == nil {
		list = []string{}
	}
	_, err := o.wr.ExecContext(ctx, `INSERT INTO targets (queue_id, pr_number, sha, all_, list, updated_at, source) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (queue_id, pr_number) DO UPDATE SET sha = excluded.sha, all_ = excluded.all_, list = excluded.list,
			updated_at = excluded.updated_at, source = excluded.source`,
		t.QueueID, t.PRNumber, t.SHA, t.All, jsonVal{list}, timeVal(t.UpdatedAt), string(t.Source))
	if err != nil {
		return fmt.Errorf("failed to store impacted targets of #%d in queue %d: %w", t.PRNumber, t.QueueID, err)
	}
	o.changed(t.QueueID)
	return nil
}

// GetTargets returns a PR's impacted targets in a queue; queue.ErrNotFound
// if none were stored.
func (o *ops) GetTargets(ctx context.Context, queueID int64, prNumber int) (*queue.Targets, error) {
	t := queue.Targets{QueueID: queueID, PRNumber: prNumber}
	err := o.rd.QueryRowContext(ctx, `SELECT sha, all_, list, updated_at, source FROM targets WHERE queue_id = ? AND pr_number = ?`, queueID, prNumber).
		Scan(&t.SHA, &t.All, jsonScan{&t.List}, timeScan{&t.UpdatedAt}, &t.Source)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("impacted targets of #%d in queue %d: %w", prNumber, queueID, queue.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read impacted targets of #%d in queue %d: %w", prNumber, queueID, err)
	}
	return &t, nil
}
