package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/mergequeue/mq/queue"
)

// eventColumns lists the events table's columns, without id.
func eventColumns(ev *queue.Event) []column {
	return []column{
		{"queue_id", ev.QueueID, &ev.QueueID},
		{"entry_id", ev.EntryID, &ev.EntryID},
		{"pr_number", ev.PRNumber, &ev.PRNumber},
		{"at", timeVal(ev.At), timeScan{&ev.At}},
		{"from_", string(ev.From), &ev.From},
		{"to_", string(ev.To), &ev.To},
		{"reason", string(ev.Reason), &ev.Reason},
		{"detail", ev.Detail, &ev.Detail},
		{"run_id", ev.RunID, &ev.RunID},
	}
}

var (
	eventCols   = eventColumns(&queue.Event{})
	eventInsert = insertSQL("events", eventCols, "")
	eventSince  = "SELECT id, " + selectList(eventCols, "") + " FROM events WHERE queue_id = ? AND at >= ? ORDER BY at NULLS FIRST, id"
	eventLast   = "SELECT id, " + selectList(eventCols, "") + " FROM events WHERE entry_id = ? AND queue_id = ? ORDER BY id DESC LIMIT 1"
)

// AddEvent appends ev to its queue's event log and sets ev.ID.
func (o *ops) AddEvent(ctx context.Context, ev *queue.Event) error {
	var id int64
	if err := scanRow(ctx, o.wr, []any{&id}, eventInsert+" RETURNING id", columnArgs(eventColumns(ev))...); err != nil {
		return fmt.Errorf("failed to record event of entry %s: %w", ev.EntryID, err)
	}
	o.changed(ev.QueueID)
	ev.ID = id
	return nil
}

// ListEvents returns the queue's events at or after since, oldest first.
func (o *ops) ListEvents(ctx context.Context, queueID int64, since time.Time) ([]queue.Event, error) {
	rows, err := o.rd.QueryContext(ctx, eventSince, queueID, timeVal(since))
	if err != nil {
		return nil, fmt.Errorf("failed to list events of queue %d: %w", queueID, err)
	}
	out, err := collect(rows, func(sc interface{ Scan(...any) error }) (queue.Event, error) {
		var ev queue.Event
		err := sc.Scan(append([]any{&ev.ID}, columnDests(eventColumns(&ev))...)...)
		return ev, err
	})
	if err != nil {
		return nil, fmt.Errorf("failed to list events of queue %d: %w", queueID, err)
	}
	return out, nil
}

// LastEvent returns the latest kept event of an entry of the queue;
// queue.ErrNotFound if none is.
func (o *ops) LastEvent(ctx context.Context, queueID int64, entryID string) (*queue.Event, error) {
	var ev queue.Event
	err := o.rd.QueryRowContext(ctx, eventLast, entryID, queueID).
		Scan(append([]any{&ev.ID}, columnDests(eventColumns(&ev))...)...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("no event of entry %s: %w", entryID, queue.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read the last event of entry %s: %w", entryID, err)
	}
	return &ev, nil
}
