package queue

import (
	"fmt"
	"slices"
	"time"
)

// The testing timeout from history (Settings.TestingTimeoutFromHistory):
// the p95 of the durations of the queue's last HistoryTimeoutRuns
// successful runs, plus half of it (at least HistoryTimeoutMinMargin),
// never below HistoryTimeoutFloor, once HistoryTimeoutMinRuns runs
// succeeded.
const (
	HistoryTimeoutRuns      = 20
	HistoryTimeoutMinRuns   = 5
	HistoryTimeoutMinMargin = 5 * time.Minute
	HistoryTimeoutFloor     = 10 * time.Minute
)

// TestingTimeout is the timeout of a queue's test runs.
type TestingTimeout struct {
	// Limit is how long a run may test (0: no timeout).
	Limit time.Duration
	// FromHistory is set when Limit comes from the recent runs; P95 is
	// then their p95 duration.
	FromHistory bool
	P95         time.Duration
}

// TestingTimeoutFor is the testing timeout of a queue with settings s whose
// latest successful runs are recent (any order; only their durations,
// start to finish, count): TestingTimeoutMinutes, or with
// TestingTimeoutFromHistory and at least HistoryTimeoutMinRuns durations
// among the latest HistoryTimeoutRuns, their p95 (nearest rank) plus a
// margin, in whole minutes, never below the floor.
func TestingTimeoutFor(s Settings, recent []*TestRun) TestingTimeout {
	fixed := TestingTimeout{Limit: s.TestingTimeout()}
	if !s.TestingTimeoutFromHistory {
		return fixed
	}
	runs := slices.Clone(recent)
	slices.SortFunc(runs, func(a, b *TestRun) int { return b.FinishedAt.Compare(a.FinishedAt) })
	var ds []time.Duration
	for _, r := range runs {
		if len(ds) == HistoryTimeoutRuns {
			break
		}
		if r.Status == RunSucceeded && !r.StartedAt.IsZero() && r.FinishedAt.After(r.StartedAt) {
			ds = append(ds, r.FinishedAt.Sub(r.StartedAt))
		}
	}
	if len(ds) < HistoryTimeoutMinRuns {
		return fixed
	}
	slices.Sort(ds)
	rank := (95*len(ds) + 99) / 100 // nearest rank: ⌈0.95 n⌉
	p95 := ds[rank-1]
	limit := max(p95+max(p95/2, HistoryTimeoutMinMargin), HistoryTimeoutFloor)
	if r := limit.Truncate(time.Minute); r < limit {
		limit = r + time.Minute
	}
	return TestingTimeout{Limit: limit, FromHistory: true, P95: p95}
}

// Minutes is Limit in whole minutes (rounded up).
func (t TestingTimeout) Minutes() int {
	return int((t.Limit + time.Minute - 1) / time.Minute)
}

// Describe says what the timeout is, for a run's failure detail: "60
// minutes", or "23 minutes (the p95 of the queue's recent successful runs,
// 15 minutes, plus a margin)".
func (t TestingTimeout) Describe() string {
	s := Count(t.Minutes(), "minute")
	if t.FromHistory {
		s += fmt.Sprintf(" (the p95 of the queue's recent successful runs, %s, plus a margin)",
			Count(int((t.P95+time.Minute-1)/time.Minute), "minute"))
	}
	return s
}

// TimesOutAt is when run r times out under t (zero: never, or not started).
func (t TestingTimeout) TimesOutAt(r *TestRun) time.Time {
	if t.Limit <= 0 || r == nil || r.StartedAt.IsZero() {
		return time.Time{}
	}
	return r.StartedAt.Add(t.Limit)
}
