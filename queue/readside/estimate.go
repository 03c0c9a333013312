package readside

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/mergequeue/mq/queue"
)

// Estimate is where an admitted entry stands: its 1-based position among
// the admitted entries in queue order (Of of them), and when it is expected
// to merge (zero when unknown).
type Estimate struct {
	Position, Of int
	MergeAt      time.Time
	// RunEndsAt is when the entry's run in progress is expected to finish
	// (zero when it is not testing).
	RunEndsAt time.Time
	// TimesOutAt is when that run times out (zero when it is not testing
	// or the queue has no testing timeout).
	TimesOutAt time.Time
}

// TypicalDuration is the median duration (start to finish) of the given
// successful runs; zero when there are none.
func TypicalDuration(runs []*queue.TestRun) time.Duration {
	var ds []time.Duration
	for _, r := range runs {
		if !r.StartedAt.IsZero() && r.FinishedAt.After(r.StartedAt) {
			ds = append(ds, r.FinishedAt.Sub(r.StartedAt))
		}
	}
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// RecentRunsForETA is how many of a queue's latest successful runs set its
// typical CI duration (TypicalDuration).
const RecentRunsForETA = 20

// EstimateStore is what LoadEstimates reads of a queue: its active
// entries, open runs and recent successful runs (queue.Store's methods).
type EstimateStore interface {
	ListActiveEntries(ctx context.Context, queueID int64) ([]*queue.Entry, error)
	ListOpenRuns(ctx context.Context, queueID int64) ([]*queue.TestRun, error)
	RecentRuns(ctx context.Context, queueID int64, limit int) ([]*queue.TestRun, error)
}

// LoadEstimates reads a queue's active entries, open runs and typical CI
// duration (of its RecentRunsForETA latest successful runs) from store and
// returns Estimates at now. The reconciler (what PRs show on GitHub) and
// Reads (the API, /mq status, the dashboard) both estimate through it.
func LoadEstimates(ctx context.Context, store EstimateStore, q *queue.Queue, now time.Time) (map[string]Estimate, error) {
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
	recent, err := store.RecentRuns(ctx, q.ID, RecentRunsForETA)
	if err != nil {
		return nil, fmt.Errorf("failed to list recent runs of %s: %w", q.Key, err)
	}
	ests := Estimates(q, entries, runs, TypicalDuration(recent), now)
	WithTimeouts(ests, entries, runs, queue.TestingTimeoutFor(q.Settings, recent))
	return ests, nil
}

// WithTimeouts sets, in ests, when the run in progress of each testing
// entry times out under t (queue.TestingTimeoutFor).
func WithTimeouts(ests map[string]Estimate, entries []*queue.Entry, runs []*queue.TestRun, t queue.TestingTimeout) {
	if t.Limit <= 0 {
		return
	}
	byID := make(map[string]*queue.TestRun, len(runs))
	for _, r := range runs {
		byID[r.ID] = r
	}
	for _, e := range entries {
		est, ok := ests[e.ID]
		r := byID[e.RunID]
		if !ok || e.State != queue.StateTesting || r == nil || r.Status != queue.RunInProgress {
			continue
		}
		est.TimesOutAt = t.TimesOutAt(r)
		ests[e.ID] = est
	}
}

// Estimates predicts, for every admitted entry of q among entries (its
// active entries, any order; runs are its open runs), its position and
// when it merges, from the queue's concurrency and its typical CI duration
// d (see docs/eta.md). The model replays the queue in order: a run in progress
// ends at its start plus d (not before now); the entries behind take the
// next free test slot in batches as the queue forms them, each run lasting
// d; an entry merges when its run ends, and not before the entry ahead of
// it (entries merge in order). It assumes every run passes: a failure ahead
// pushes the estimates back, and they are recomputed from the facts every
// time. With d zero (no run finished yet) positions are given without
// times. Entries waiting on a failure or a conflict get no time, and
// neither do the entries behind them.
func Estimates(q *queue.Queue, entries []*queue.Entry, runs []*queue.TestRun, d time.Duration, now time.Time) map[string]Estimate {
	ordered := queue.InQueueOrder(entries)
	out := make(map[string]Estimate, len(ordered))
	for i, e := range ordered {
		out[e.ID] = Estimate{Position: i + 1, Of: len(ordered)}
	}
	if d <= 0 || len(ordered) == 0 {
		return out
	}
	st := q.Settings
	// When each test slot frees up.
	var slots []time.Time
	ends := map[string]time.Time{} // run ID → expected end
	for _, r := range runs {
		if r.Status != queue.RunInProgress && r.Status != queue.RunBuilding {
			continue
		}
		end := now.Add(d)
		if !r.StartedAt.IsZero() {
			end = maxTime(r.StartedAt.Add(d), now)
		}
		ends[r.ID] = end
		if !r.Bisection {
			slots = append(slots, end)
		}
	}
	for len(slots) < max(st.Concurrency, 1) {
		slots = append(slots, now)
	}
	batch := 1
	if st.Batch {
		batch = max(st.EffectiveBatchingMaxSize(), 1)
	}
	var last time.Time // when the entry ahead merges
	var pending []*queue.Entry
	flush := func() {
		if len(pending) == 0 {
			return
		}
		sort.Slice(slots, func(i, j int) bool { return slots[i].Before(slots[j]) })
		end := maxTime(slots[0], now).Add(d)
		slots[0] = end
		for _, e := range pending {
			last = maxTime(last, end)
			est := out[e.ID]
			est.MergeAt = last
			out[e.ID] = est
		}
		pending = pending[:0]
	}
	for _, e := range ordered {
		switch {
		case e.State == queue.StatePendingFailure || e.BlockedBy != "" || e.Conflict != nil:
			return out // undecided: no time for it or anyone behind it
		case e.State == queue.StateTestsPassed:
			flush()
			last = maxTime(last, now)
		case e.RunID != "" && !ends[e.RunID].IsZero():
			flush()
			est := out[e.ID]
			est.RunEndsAt = ends[e.RunID]
			out[e.ID] = est
			last = maxTime(last, ends[e.RunID])
		default:
			if e.NoBatch {
				flush() // tested on its own
			}
			pending = append(pending, e)
			if len(pending) >= batch || e.NoBatch {
				flush()
			}
			continue
		}
		est := out[e.ID]
		est.MergeAt = last
		out[e.ID] = est
	}
	flush()
	return out
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
