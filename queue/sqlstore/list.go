package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/mergequeue/mq/queue"
)

// activityAt is the SQL form of queue.Entry.ActivityAt.
const activityAt = "coalesce(concluded_at, submitted_at)"

// ListEntries lists a queue's entries newest first by activity time, then
// ID, filtered by state, author and time range, continuing after a keyset position.
func (o *ops) ListEntries(ctx context.Context, q queue.EntryQuery) ([]*queue.Entry, error) {
	where := []string{"queue_id = ?"}
	args := []any{q.QueueID}
	if len(q.States) > 0 {
		marks := make([]string, len(q.States))
		for i, st := range q.States {
			marks[i] = "?"
			args = append(args, string(st))
		}
		where = append(where, "state IN ("+strings.Join(marks, ", ")+")")
	}
	if q.Author != "" {
		where = append(where, "pr_author = ? COLLATE NOCASE")
		args = append(args, q.Author)
	}
	if !q.Since.IsZero() {
		where = append(where, activityAt+" >= ?")
		args = append(args, timeVal(q.Since))
	}
	if !q.Until.IsZero() {
		where = append(where, activityAt+" < ?")
		args = append(args, timeVal(q.Until))
	}
	if q.AfterID != "" {
		where = append(where, "("+activityAt+" < ? OR ("+activityAt+" = ? AND id < ?))")
		args = append(args, timeVal(q.AfterAt), timeVal(q.AfterAt), q.AfterID)
	}
	query := entrySelect + " WHERE " + strings.Join(where, " AND ") +
		" ORDER BY " + activityAt + " DESC NULLS LAST, id DESC LIMIT ?"
	args = append(args, sqlLimit(q.Limit))
	rows, err := o.rd.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("failed to list entries of queue %d: %w", q.QueueID, err)
	}
	out, err := collect(rows, scanEntry)
	if err != nil {
		return nil, fmt.Errorf("failed to list entries of queue %d: %w", q.QueueID, err)
	}
	return out, nil
}
