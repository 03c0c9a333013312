package sqlstore

import (
	"context"
	"fmt"
	"strings"

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
	mergeCols = mergeColumns(&queue.MergeRecord{})
	// mergeInsert adds nothing for a PR the queue's log has (the unique
	// index merges_once, migration 0019).
	mergeInsert = insertSQL("merges", mergeCols, "") + " ON CONFLICT DO NOTHING"
	// mergeTail selects the last ? records of a queue, then orders them
	// oldest (first appended) first.
	mergeTail = "SELECT " + selectList(mergeCols, "") + " FROM (SELECT * FROM merges WHERE queue_id = ? ORDER BY id DESC LIMIT ?) AS tail ORDER BY id"
	// mergeFrom selects a queue's records from the first whose before_sha
	// is in a list (%s: its placeholders) on, oldest first; the inner
	// lookup uses merges_before (migration 0011).
	mergeFrom = "SELECT " + selectList(mergeCols, "") + " FROM merges WHERE queue_id = ? AND id >= " +
		"(SELECT MIN(id) FROM merges WHERE queue_id = ? AND before_sha IN (%s)) ORDER BY id"
)

// AddMerge appends m to its queue's merge log; a merge of a PR the log
// has (PRNumber > 0) is not appended again.
func (o *ops) AddMerge(ctx context.Context, m queue.MergeRecord) error {
	if _, err := o.wr.ExecContext(ctx, mergeInsert, columnArgs(mergeColumns(&m))...); err != nil {
		return fmt.Errorf("failed to record merge of PR #%d in queue %d: %w", m.PRNumber, m.QueueID, err)
	}
	return nil
}

// ListMerges returns the queue's merge log in the order it was appended,
// limited to the last limit records (0 or less = all).
func (o *ops) ListMerges(ctx context.Context, queueID int64, limit int) ([]queue.MergeRecord, error) {
	return o.queryMerges(ctx, queueID, mergeTail, queueID, sqlLimit(limit))
}

// ListMergesFrom returns the queue's merge log from its oldest record
// whose Before is one of befores through its last, oldest first (nil when
// none is a recorded Before).
func (o *ops) ListMergesFrom(ctx context.Context, queueID int64, befores []string) ([]queue.MergeRecord, error) {
	if len(befores) == 0 {
		return nil, nil
	}
	args := make([]any, 0, len(befores)+2)
	args = append(args, queueID, queueID)
	for _, b := range befores {
		args = append(args, b)
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(befores)), ", ")
	return o.queryMerges(ctx, queueID, fmt.Sprintf(mergeFrom, marks), args...)
}

// queryMerges runs a query selecting merge records of queue queueID.
func (o *ops) queryMerges(ctx context.Context, queueID int64, query string, args ...any) ([]queue.MergeRecord, error) {
	rows, err := o.rd.QueryContext(ctx, query, args...)
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
