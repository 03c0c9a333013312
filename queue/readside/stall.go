package readside

import (
	"context"
	"fmt"
	"time"

	"github.com/mergequeue/mq/queue"
)

// Stall is a queue in which nothing has happened for its stallAlertMinutes
// while PRs wait in it.
type Stall struct {
	// Since is the last thing that happened (a state change, a run, a
	// check report, a settings change).
	Since time.Time
	// Detail says so, and what the first waiting PRs wait for.
	Detail string
	// Waiting is what each active entry waits for, by entry ID.
	Waiting map[string]*queue.Waiting
}

// stallShown is how many waiting PRs a stall's detail names.
const stallShown = 3

// Stalled reports whether q, running or draining with admitted entries,
// has seen nothing happen for its stallAlertMinutes at now (nil when not,
// or when the alert is off). A paused queue is not stalled: it says why
// it waits.
func (r *Reads) Stalled(ctx context.Context, q *queue.Queue) (*Stall, error) {
	limit := time.Duration(q.Settings.StallAlertMinutes) * time.Minute
	if q.Settings.StallAlertMinutes <= 0 || (q.State != queue.QueueRunning && q.State != queue.QueueDraining) {
		return nil, nil
	}
	now := r.now()
	entries, err := r.store.ListActiveEntries(ctx, q.ID)
	if err != nil {
		return nil, fmt.Errorf("failed to list entries of %s: %w", q.Key, err)
	}
	last, admitted := q.UpdatedAt, false
	for _, e := range entries {
		admitted = admitted || e.Admitted()
		last = latest(last, e.StateChangedAt, e.SubmittedAt)
	}
	if !admitted || now.Sub(last) < limit {
		return nil, nil
	}
	runs, err := r.store.ListOpenRuns(ctx, q.ID)
	if err != nil {
		return nil, fmt.Errorf("failed to list runs of %s: %w", q.Key, err)
	}
	waits, err := waitingOf(ctx, r.store, q, entries, runs, now, r.budget)
	if err != nil {
		return nil, err
	}
	for _, run := range runs {
		last = latest(last, run.CreatedAt, run.StartedAt, run.FinishedAt)
		if run.SHA == "" {
			continue
		}
		checks, err := r.store.ListChecks(ctx, q.Key.Repo, run.SHA)
		if err != nil {
			return nil, fmt.Errorf("failed to list the checks of run %s: %w", run.ID, err)
		}
		for _, c := range checks {
			last = latest(last, c.UpdatedAt)
		}
	}
	if now.Sub(last) < limit {
		return nil, nil
	}
	events, err := r.store.ListEvents(ctx, q.ID, now.Add(-limit))
	if err != nil {
		return nil, fmt.Errorf("failed to list events of %s: %w", q.Key, err)
	}
	for _, ev := range events {
		_, _, alert := ev.Alert()
		_, tuned := ev.Tuning()
		if !alert && !tuned { // the alert itself, or autoTune's choice, is no activity
			return nil, nil
		}
	}
	detail := fmt.Sprintf("nothing has happened in the queue for %s", queue.Count(int(now.Sub(last)/time.Minute), "minute"))
	shown := 0
	for _, e := range queue.InQueueOrder(entries) {
		if w := waits[e.ID]; w != nil && shown < stallShown {
			detail += fmt.Sprintf("; #%d waits for %s", e.PRNumber, w.Detail)
			shown++
		}
	}
	return &Stall{Since: last, Detail: detail, Waiting: waits}, nil
}

func latest(t time.Time, more ...time.Time) time.Time {
	for _, m := range more {
		if m.After(t) {
			t = m
		}
	}
	return t
}
