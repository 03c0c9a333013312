package readside

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mergequeue/mq/queue"
)

// WaitingFor says what the active entry e of q waits for at now: entries
// are q's active entries (any order), runs its open runs, checks the
// recorded checks by commit (of the runs in progress). nil when e ended.
func WaitingFor(q *queue.Queue, e *queue.Entry, entries []*queue.Entry, runs []*queue.TestRun,
	checks map[string][]queue.CheckResult, now time.Time) *queue.Waiting {
	if !e.Active() {
		return nil
	}
	at := func(t time.Time) string { return moment(t, now) }
	if e.State == queue.StateNotReady {
		w := &queue.Waiting{Reason: queue.WaitReadiness, Detail: e.StateReasonDetail, Since: e.StateChangedAt}
		if !q.Admits() {
			w.Reason, w.Detail = queue.WaitQueueState, fmt.Sprintf("the queue to admit PRs (it is %s)", q.State)
			if q.State == queue.QueuePaused {
				w.Reason = queue.WaitQueuePaused
			}
		}
		return w
	}
	if !q.Merges() || (!q.StartsRuns() && e.State == queue.StatePending) {
		w := &queue.Waiting{Reason: queue.WaitQueuePaused, Detail: "the queue to run again (it is paused)", Since: q.UpdatedAt}
		if q.State != queue.QueuePaused {
			w.Reason, w.Detail = queue.WaitQueueState, fmt.Sprintf("the queue to start runs again (it is %s)", q.State)
		}
		if q.PausedReason != "" {
			w.Detail += ": " + q.PausedReason
		}
		return w
	}
	byID := map[string]*queue.Entry{}
	for _, o := range entries {
		byID[o.ID] = o
	}
	var run *queue.TestRun
	for _, r := range runs {
		if r.ID == e.RunID {
			run = r
		}
	}
	switch e.State {
	case queue.StatePending:
		if b := byID[e.BlockedBy]; b != nil {
			return &queue.Waiting{Reason: queue.WaitConflict, PRs: []int{b.PRNumber}, Since: e.StateChangedAt,
				Detail: fmt.Sprintf("#%d ahead, which it conflicts with, to leave the queue", b.PRNumber)}
		}
		for _, r := range runs {
			// Its run is recorded and its branch being built (the entry
			// joins the run once it is published).
			if r.Status == queue.RunBuilding && !r.Isolation && slices.Contains(r.EntryIDs, e.ID) {
				return &queue.Waiting{Reason: queue.WaitBuild, Detail: "its test branch to be built", Since: r.CreatedAt}
			}
		}
		var testing []int
		n := 0
		for _, r := range runs {
			if !r.Bisection && !r.Isolation && (r.Status == queue.RunInProgress || r.Status == queue.RunBuilding) {
				n++
				testing = append(testing, r.PRNumbers...)
			}
		}
		if n >= max(q.Settings.Concurrency, 1) {
			return &queue.Waiting{Reason: queue.WaitTestSlot, PRs: testing, Since: e.StateChangedAt,
				Detail: fmt.Sprintf("a test slot: %d of %d are taken (testing %s)", n, max(q.Settings.Concurrency, 1), queue.PRList(testing))}
		}
		if q.Settings.Batch && !e.NoBatch {
			return &queue.Waiting{Reason: queue.WaitBatch, Since: e.StateChangedAt,
				Detail: fmt.Sprintf("%d PRs to fill a batch, or %s of waiting", q.Settings.BatchingMinSize,
					queue.Count(q.Settings.BatchingMaxWaitTimeMinutes, "minute"))}
		}
		return &queue.Waiting{Reason: queue.WaitRunStart, Detail: "its test run to start", Since: e.StateChangedAt}
	case queue.StateTesting:
		if run == nil || run.Status == queue.RunBuilding || run.SHA == "" {
			return &queue.Waiting{Reason: queue.WaitBuild, Detail: "its test branch to be built", Since: e.StateChangedAt}
		}
		results := checks[run.SHA]
		for _, name := range run.RequiredChecks {
			i := slices.IndexFunc(results, func(c queue.CheckResult) bool { return c.Name == name })
			if i < 0 {
				return &queue.Waiting{Reason: queue.WaitChecksStart, Check: name, Commit: run.SHA, Since: run.StartedAt,
					Detail: fmt.Sprintf("required check %q to start on %s (%s), since %s", name, run.Branch,
						queue.ShortSHA(run.SHA), at(run.StartedAt))}
			}
			if c := results[i]; c.State == queue.CheckPending {
				state := c.Raw
				if state == "" {
					state = string(c.State)
				}
				since := c.UpdatedAt
				if since.IsZero() {
					since = run.StartedAt
				}
				return &queue.Waiting{Reason: queue.WaitChecks, Check: name, Commit: run.SHA, Since: since,
					Detail: fmt.Sprintf("required check %q (%s) on %s since %s", name, state, queue.ShortSHA(run.SHA), at(since))}
			}
		}
		return &queue.Waiting{Reason: queue.WaitRunStart, Detail: "its run's result to be recorded", Since: e.StateChangedAt}
	case queue.StatePendingFailure:
		return &queue.Waiting{Reason: queue.WaitFailureDecision, Since: e.StateChangedAt,
			Detail: "a decision on its failed run: " + e.StateReasonDetail}
	case queue.StateTestsPassed:
		var ahead []int
		for _, o := range queue.InQueueOrder(entries) {
			if o.ID == e.ID {
				break
			}
			if run != nil && slices.Contains(run.Ahead, o.ID) {
				ahead = append(ahead, o.PRNumber)
			}
		}
		if len(ahead) > 0 {
			return &queue.Waiting{Reason: queue.WaitPRsAhead, PRs: ahead, Since: e.StateChangedAt,
				Detail: queue.PRList(ahead) + " ahead to merge first"}
		}
		if e.NextAttemptAt.After(now) {
			return &queue.Waiting{Reason: queue.WaitMerge, Since: e.StateChangedAt,
				Detail: "a retry of its merge at " + at(e.NextAttemptAt)}
		}
		return &queue.Waiting{Reason: queue.WaitMerge, Detail: "its merge", Since: e.StateChangedAt}
	}
	return nil
}

// WithWriteBudget is w, unless w's next step is a GitHub write (its run to
// start, its test branch to be built, its merge) that repo's write budget
// (nil: none) holds back now: then the entry waits for the budget, "the
// GitHub write budget of this installation: next write in ~40 s (for its
// merge)", since when it waited for that step.
func WithWriteBudget(w *queue.Waiting, budget queue.WriteBudget, repo queue.Repo, now time.Time) *queue.Waiting {
	if w == nil || budget == nil || (w.Reason != queue.WaitRunStart && w.Reason != queue.WaitBuild && w.Reason != queue.WaitMerge) {
		return w
	}
	at, held := budget.NextWriteAt(repo)
	if !held || !at.After(now) {
		return w
	}
	return &queue.Waiting{Reason: queue.WaitWriteBudget, Since: w.Since,
		Detail: fmt.Sprintf("the GitHub write budget of this installation: next write in ~%s (for %s)", approx(at.Sub(now)), w.Detail)}
}

// approx says a short wait for people: "40 s", "3 min", "2 h".
func approx(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d s", max(int((d+time.Second-1)/time.Second), 1))
	case d < time.Hour:
		return fmt.Sprintf("%d min", int((d+time.Minute-1)/time.Minute))
	}
	return fmt.Sprintf("%d h", int((d+time.Hour-1)/time.Hour))
}

// moment formats a time for people, to the minute: "10:05 UTC", with the
// day when it is not now's.
func moment(t, now time.Time) string {
	t = t.UTC()
	if y, m, d := t.Date(); y == now.UTC().Year() && m == now.UTC().Month() && d == now.UTC().Day() {
		return t.Format("15:04 UTC")
	}
	return t.Format("Mon 2 Jan 15:04 UTC")
}

// WaitingStore is what LoadWaiting reads (queue.Store's methods).
type WaitingStore interface {
	ListActiveEntries(ctx context.Context, queueID int64) ([]*queue.Entry, error)
	ListOpenRuns(ctx context.Context, queueID int64) ([]*queue.TestRun, error)
	ListChecks(ctx context.Context, repo queue.Repo, sha string) ([]queue.CheckResult, error)
}

// LoadWaiting reads q's active entries, open runs and their checks from
// store and says what each active entry waits for at now (WaitingFor, then
// WithWriteBudget with budget, which may be nil), by entry ID.
func LoadWaiting(ctx context.Context, store WaitingStore, q *queue.Queue, now time.Time, budget queue.WriteBudget) (map[string]*queue.Waiting, error) {
	q, err := effectiveOf(ctx, store, q) // the concurrency and batches in force
	if err != nil {
		return nil, err
	}
	entries, err := store.ListActiveEntries(ctx, q.ID)
	if err != nil {
		return nil, fmt.Errorf("failed to list entries of %s: %w", q.Key, err)
	}
	runs, err := store.ListOpenRuns(ctx, q.ID)
	if err != nil {
		return nil, fmt.Errorf("failed to list runs of %s: %w", q.Key, err)
	}
	return waitingOf(ctx, store, q, entries, runs, now, budget)
}

func waitingOf(ctx context.Context, store WaitingStore, q *queue.Queue, entries []*queue.Entry, runs []*queue.TestRun,
	now time.Time, budget queue.WriteBudget) (map[string]*queue.Waiting, error) {
	checks := map[string][]queue.CheckResult{}
	for _, r := range runs {
		if r.Status != queue.RunInProgress || r.SHA == "" {
			continue
		}
		if _, done := checks[r.SHA]; done {
			continue
		}
		cs, err := store.ListChecks(ctx, q.Key.Repo, r.SHA)
		if err != nil {
			return nil, fmt.Errorf("failed to list the checks of run %s: %w", r.ID, err)
		}
		checks[r.SHA] = queue.ChecksOfAttempt(r, cs)
	}
	out := make(map[string]*queue.Waiting, len(entries))
	for _, e := range entries {
		if w := WithWriteBudget(WaitingFor(q, e, entries, runs, checks, now), budget, q.Key.Repo, now); w != nil {
			out[e.ID] = w
		}
	}
	return out, nil
}
