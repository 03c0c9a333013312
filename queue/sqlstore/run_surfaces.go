package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/mergequeue/mq/queue"
)

// runSurfaceColumns lists the run_surfaces table's columns.
func runSurfaceColumns(s *queue.RunSurface) []column {
	return []column{
		{"run_id", s.RunID, &s.RunID},
		{"queue_id", s.QueueID, &s.QueueID},
		{"want", s.Want, &s.Want},
		{"done", s.Done, &s.Done},
		{"pr_number", s.PRNumber, &s.PRNumber},
		{"pr_hash", s.PRHash, &s.PRHash},
		{"creating", s.Creating, &s.Creating},
		{"closed", s.Closed, &s.Closed},
		{"attempts", s.Attempts, &s.Attempts},
		{"next_attempt_at", timeVal(s.NextAttemptAt), timeScan{&s.NextAttemptAt}},
		{"last_error", s.LastError, &s.LastError},
	}
}

var (
	runSurfaceCols   = runSurfaceColumns(&queue.RunSurface{})
	runSurfaceSelect = "SELECT " + selectList(runSurfaceCols, "") + " FROM run_surfaces"
	// A new surface is the zero one with Want 1.
	runSurfaceTouch = insertSQL("run_surfaces", runSurfaceCols, "") + " ON CONFLICT (run_id) DO UPDATE SET want = run_surfaces.want + 1"
	runSurfaceDue   = runSurfaceSelect + ` WHERE want > done AND (next_attempt_at IS NULL OR next_attempt_at <= ?)
		ORDER BY next_attempt_at NULLS FIRST, run_id LIMIT ?`
	// Saving keeps the queue and Want, which only TouchRunSurface bumps.
	runSurfaceSave = updateSQL("run_surfaces", runSurfaceCols, "run_id", "queue_id", "want")
)

func scanRunSurface(sc interface{ Scan(...any) error }) (queue.RunSurface, error) {
	var s queue.RunSurface
	err := sc.Scan(columnDests(runSurfaceColumns(&s))...)
	return s, err
}

// TouchRunSurface bumps the Want of a run's test-PR surface, creating it.
func (o *ops) TouchRunSurface(ctx context.Context, queueID int64, runID string) error {
	args := columnArgs(runSurfaceColumns(&queue.RunSurface{RunID: runID, QueueID: queueID, Want: 1}))
	if _, err := o.wr.ExecContext(ctx, runSurfaceTouch, args...); err != nil {
		return fmt.Errorf("failed to touch the test PR of run %s: %w", runID, err)
	}
	return nil
}

// GetRunSurface returns a run's test-PR surface.
func (o *ops) GetRunSurface(ctx context.Context, runID string) (*queue.RunSurface, error) {
	s, err := scanRunSurface(o.rd.QueryRowContext(ctx, runSurfaceSelect+" WHERE run_id = ?", runID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("test PR of run %s: %w", runID, queue.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read the test PR of run %s: %w", runID, err)
	}
	return &s, nil
}

// DueRunSurfaces returns due run surfaces, least recently attempted first.
func (o *ops) DueRunSurfaces(ctx context.Context, now time.Time, limit int) ([]queue.RunSurface, error) {
	rows, err := o.rd.QueryContext(ctx, runSurfaceDue, timeVal(now), sqlLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("failed to list due test PRs: %w", err)
	}
	out, err := collect(rows, scanRunSurface)
	if err != nil {
		return nil, fmt.Errorf("failed to list due test PRs: %w", err)
	}
	return out, nil
}

// SaveRunSurface stores everything of s but Want.
func (o *ops) SaveRunSurface(ctx context.Context, s queue.RunSurface) error {
	res, err := o.wr.ExecContext(ctx, runSurfaceSave, updateArgs(runSurfaceColumns(&s), "run_id", "queue_id", "want")...)
	if err != nil {
		return fmt.Errorf("failed to save the test PR of run %s: %w", s.RunID, err)
	}
	if err := rowsAffected(res); err != nil {
		return fmt.Errorf("test PR of run %s: %w", s.RunID, err)
	}
	return nil
}
