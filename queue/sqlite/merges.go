package sqlite

import (
	"context"
	"fmt"

	"github.com/mergequeue/mq/queue"
)

// mergeColumns lists the merges table's columns, without id.
func mergeColumns(m *queue.MergeRecord) []column {
	return []column{
		{"queue_id", m.QueueID, &m.QueueID},
		{"entry_id", m.EntryID, &m.EntryID},
		{"pr_number", m.PRNumber, &m.PRNumber},
		{"run_id", m.RunID, &m.RunID},
		{"before_sha", m.Before, &m.Before},
		{"after_sha", m.After, &m.After},
		{"at", timeVal(m.At), timeScan{&m.At}},
	}
}

var (
	mergeCols   = mergeColumns(&queue.MergeRecord{})
	mergeInsert = insertSQL("merges", mergeCols, "")
	// mergeTail selects the last ? records of a queue, then orders them
	// oldest (first appended) first.
	mergeTail = "SELECT " + selectList(mergeCols, "") + " FROM (SELECT * FROM merges WHERE queue_id = ? ORDER BY id DESC LIMIT ?) ORDER BY id"
)

// AddMerge appends m to its queue's merge log.
func (o *ops) AddMerge(ctx context.Context, m queue.MergeRecord) error {
	if _, err := o.wr.ExecContext(ctx, mergeInsert, columnArgs(mergeColumns(&m))...); err != nil {
		return fmt.Errorf("failed to record merge of PR #%d in queue %d: %w", m.PRNumber, m.QueueID, err)
	}
	return nil
}

// ListMerges returns the queue's merge log in the order it was appended,
// limited to the last limit records (0 or less = all).
func (o *ops) ListMerges(ctx context.Context, queueID int64, limit int) ([]queue.MergeRecord, error) {
	rows, err := o.rd.QueryContext(ctx, mergeTail, queueID, sqlLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("failed to list merges of queue %d: %w", queueID, err)
	}
	out, err := collect(rows, func(sc interface{ Scan(...any) error }) (queue.MergeRecord, error) {
		var m queue.MergeRecord
		err := sc.Scan(columnDests(mergeColumns(&m))...)
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("failed to list merges of queue %d: %w", queueID, err)
	}
	return out, nil
}
