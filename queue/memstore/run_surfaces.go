package memstore

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/mergequeue/mq/queue"
)

// TouchRunSurface bumps the Want of a run's test-PR surface, creating it.
func (o *ops) TouchRunSurface(ctx context.Context, queueID int64, runID string) error {
	unlock, err := o.begin(ctx)
	if err != nil {
		return fmt.Errorf("failed to touch the test PR of run %s: %w", runID, err)
	}
	defer unlock()
	d := o.d
	if err := d.queueExists(queueID); err != nil {
		return fmt.Errorf("failed to touch the test PR of run %s: %w", runID, err)
	}
	old, existed := d.runSurfaces[runID]
	s := old
	if !existed {
		s = queue.RunSurface{RunID: runID, QueueID: queueID}
	}
	s.Want++
	d.runSurfaces[runID] = s
	o.tx.add(func() {
		if existed {
			d.runSurfaces[runID] = old
		} else {
			delete(d.runSurfaces, runID)
		}
	})
	return nil
}

// GetRunSurface returns a run's test-PR surface.
func (o *ops) GetRunSurface(ctx context.Context, runID string) (*queue.RunSurface, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to read the test PR of run %s: %w", runID, err)
	}
	defer unlock()
	s, ok := o.d.runSurfaces[runID]
	if !ok {
		return nil, fmt.Errorf("test PR of run %s: %w", runID, queue.ErrNotFound)
	}
	return &s, nil
}

// DueRunSurfaces returns due run surfaces, least recently attempted first.
func (o *ops) DueRunSurfaces(ctx context.Context, now time.Time, limit int) ([]queue.RunSurface, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to list due test PRs: %w", err)
	}
	defer unlock()
	var out []queue.RunSurface
	for _, s := range o.d.runSurfaces {
		if s.Due() && !s.NextAttemptAt.After(now) {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].NextAttemptAt.Equal(out[j].NextAttemptAt) {
			return out[i].NextAttemptAt.Before(out[j].NextAttemptAt)
		}
		return out[i].RunID < out[j].RunID
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// SaveRunSurface stores everything of s but Want.
func (o *ops) SaveRunSurface(ctx context.Context, s queue.RunSurface) error {
	unlock, err := o.begin(ctx)
	if err != nil {
		return fmt.Errorf("failed to save the test PR of run %s: %w", s.RunID, err)
	}
	defer unlock()
	d := o.d
	old, ok := d.runSurfaces[s.RunID]
	if !ok {
		return fmt.Errorf("test PR of run %s: %w", s.RunID, queue.ErrNotFound)
	}
	if err := normTimes(&s.NextAttemptAt); err != nil {
		return fmt.Errorf("failed to save the test PR of run %s: %w", s.RunID, err)
	}
	s.Want, s.QueueID = old.Want, old.QueueID
	d.runSurfaces[s.RunID] = s
	o.tx.add(func() { d.runSurfaces[s.RunID] = old })
	return nil
}
