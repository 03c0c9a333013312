package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mergequeue/mq/queue"
)

// QueueTuning returns the tuning autoTune put in force for a queue
// (queue.ErrNotFound when none is).
func (o *ops) QueueTuning(ctx context.Context, queueID int64) (*queue.QueueTuning, error) {
	t := queue.QueueTuning{QueueID: queueID}
	err := o.rd.QueryRowContext(ctx, `SELECT tuned, tuned_from, reason, changed_at FROM queue_tunings WHERE queue_id = ?`, queueID).
		Scan(jsonScan{&t.Values}, jsonScan{&t.From}, &t.Reason, timeScan{&t.At})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("tuning of queue %d: %w", queueID, queue.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read the tuning of queue %d: %w", queueID, err)
	}
	return &t, nil
}

// SaveQueueTuning stores t as the tuning in force for t.QueueID,
// replacing any other.
func (o *ops) SaveQueueTuning(ctx context.Context, t queue.QueueTuning) error {
	if _, err := o.wr.ExecContext(ctx, `INSERT INTO queue_tunings (queue_id, tuned, tuned_from, reason, changed_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (queue_id) DO UPDATE SET tuned = excluded.tuned, tuned_from = excluded.tuned_from,
		reason = excluded.reason, changed_at = excluded.changed_at`,
		t.QueueID, jsonVal{t.Values}, jsonVal{t.From}, t.Reason, timeVal(t.At)); err != nil {
		return fmt.Errorf("failed to store the tuning of queue %d: %w", t.QueueID, err)
	}
	o.changed(t.QueueID)
	return nil
}

// DeleteQueueTuning removes the tuning of a queue: its configured
// settings apply again. Deleting none is not an error.
func (o *ops) DeleteQueueTuning(ctx context.Context, queueID int64) error {
	if _, err := o.wr.ExecContext(ctx, `DELETE FROM queue_tunings WHERE queue_id = ?`, queueID); err != nil {
		return fmt.Errorf("failed to delete the tuning of queue %d: %w", queueID, err)
	}
	o.changed(queueID)
	return nil
}
