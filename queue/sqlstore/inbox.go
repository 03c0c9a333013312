package sqlstore

import (
	"context"
	"fmt"

	"github.com/mergequeue/mq/queue/record"
)

// deliveryColumns lists the deliveries table's columns.
func deliveryColumns(d *record.Delivery) []column {
	return []column{
		{"id", d.ID, &d.ID},
		{"event", d.Event, &d.Event},
		{"payload", d.Payload, &d.Payload},
		{"received_at", timeVal(d.ReceivedAt), timeScan{&d.ReceivedAt}},
		{"attempts", d.Attempts, &d.Attempts},
		{"done", d.Done, &d.Done},
		{"error", d.Error, &d.Error},
	}
}

var (
	deliveryCols   = deliveryColumns(&record.Delivery{})
	deliveryInsert = insertSQL("deliveries", deliveryCols, "") + " ON CONFLICT (id) DO NOTHING" //nolint:gosec // G202: constant column names; the values are bound parameters
	// deliveryPending lists undone deliveries oldest first; rowid (arrival
	// order) breaks ties between equal receive times.
	deliveryPending = "SELECT " + selectList(deliveryCols, "") +
		" FROM deliveries WHERE done = 0 ORDER BY received_at, rowid LIMIT ?"
)

// PutDelivery stores d unless a delivery with its ID exists, and reports
// whether d was new. A known ID changes nothing.
func (o *ops) PutDelivery(ctx context.Context, d record.Delivery) (bool, error) {
	if d.ID == "" {
		return false, fmt.Errorf("failed to store %s delivery: empty delivery ID", d.Event)
	}
	res, err := o.wr.ExecContext(ctx, deliveryInsert, columnArgs(deliveryColumns(&d))...)
	if err != nil {
		return false, fmt.Errorf("failed to store delivery %s: %w", d.ID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("failed to store delivery %s: %w", d.ID, err)
	}
	return n == 1, nil
}

// PendingDeliveries returns up to limit deliveries not yet Done, oldest
// first (limit 0 or less = all).
func (o *ops) PendingDeliveries(ctx context.Context, limit int) ([]record.Delivery, error) {
	rows, err := o.rd.QueryContext(ctx, deliveryPending, sqlLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("failed to list pending deliveries: %w", err)
	}
	out, err := collect(rows, func(sc interface{ Scan(...any) error }) (record.Delivery, error) {
		var d record.Delivery
		err := sc.Scan(columnDests(deliveryColumns(&d))...)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("failed to list pending deliveries: %w", err)
	}
	return out, nil
}

// FinishDelivery counts one processing attempt and records errText as the
// last error; done marks the delivery processed (a done delivery stays
// done). queue.ErrNotFound if the ID is unknown.
func (o *ops) FinishDelivery(ctx context.Context, id string, done bool, errText string) error {
	res, err := o.wr.ExecContext(ctx,
		`UPDATE deliveries SET attempts = attempts + 1, done = done | ?, error = ? WHERE id = ?`,
		done, errText, id)
	if err != nil {
		return fmt.Errorf("failed to finish delivery %s: %w", id, err)
	}
	if err := rowsAffected(res); err != nil {
		return fmt.Errorf("failed to finish delivery %s: %w", id, err)
	}
	return nil
}
