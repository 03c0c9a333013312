package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mergequeue/mq/queue"
)

// SetTargets stores an entry's impacted targets, replacing earlier ones.
func (o *ops) SetTargets(ctx context.Context, t queue.Targets) error {
	list := t.List
	if list == nil {
		list = []string{}
	}
	_, err := o.wr.ExecContext(ctx, `INSERT INTO targets (entry_id, sha, all_, list, updated_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (entry_id) DO UPDATE SET sha = excluded.sha, all_ = excluded.all_, list = excluded.list, updated_at = excluded.updated_at`,
		t.EntryID, t.SHA, t.All, jsonVal{list}, timeVal(t.UpdatedAt))
	if err != nil {
		return fmt.Errorf("failed to store impacted targets of entry %s: %w", t.EntryID, err)
	}
	return nil
}

// GetTargets returns an entry's impacted targets; queue.ErrNotFound if none
// were stored.
func (o *ops) GetTargets(ctx context.Context, entryID string) (*queue.Targets, error) {
	t := queue.Targets{EntryID: entryID}
	err := o.rd.QueryRowContext(ctx, `SELECT sha, all_, list, updated_at FROM targets WHERE entry_id = ?`, entryID).
		Scan(&t.SHA, &t.All, jsonScan{&t.List}, timeScan{&t.UpdatedAt})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("impacted targets of entry %s: %w", entryID, queue.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read impacted targets of entry %s: %w", entryID, err)
	}
	return &t, nil
}
