package sim

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mergequeue/mq/queue"
)

// TracePhases splits where the time of a traced run went, from its event
// log: for each merged PR, the wait before the run that passed (arrival →
// its last start: held behind undecided failures, restarted when a PR it
// was tested with left), that run, and the wait after it passed (for the
// PRs it depends on to merge); for each culprit (a PR that ended failed),
// how long after arrival it was decided, how many runs that took and how
// long it waited in pending_failure for the PRs ahead of it to be decided.
// Durations are in the order p50, p95 (nearest rank); zero without PRs.
type TracePhases struct {
	Merged                             int
	BeforeLastRun, LastRun, AfterPass  [2]time.Duration
	Culprits                           int
	CulpritDecided, CulpritPendingFail [2]time.Duration
	// CulpritRuns counts the culprits by the number of runs they had.
	CulpritRuns map[int]int
}

// tracePhases reads the phases from an event log in time order.
func tracePhases(evs []queue.Event) TracePhases {
	type life struct {
		arrival, lastStart, passed, end time.Duration
		pendingSince, pendingFail       time.Duration
		inPendingFail                   bool
		runs                            int
		to                              queue.EntryState
	}
	lives := map[int]*life{}
	var order []int
	for _, e := range evs {
		at := e.At.Sub(Epoch)
		l := lives[e.PRNumber]
		if l == nil {
			l = &life{arrival: at}
			lives[e.PRNumber] = l
			order = append(order, e.PRNumber)
		}
		if l.inPendingFail && e.To != queue.StatePendingFailure {
			l.pendingFail += at - l.pendingSince
			l.inPendingFail = false
		}
		switch e.To {
		case queue.StateTesting:
			l.runs++
			l.lastStart = at
		case queue.StateTestsPassed:
			l.passed = at
		case queue.StatePendingFailure:
			if !l.inPendingFail {
				l.pendingSince, l.inPendingFail = at, true
			}
		}
		if e.To.Terminal() {
			l.end, l.to = at, e.To
		}
	}
	ph := TracePhases{CulpritRuns: map[int]int{}}
	var before, run, after, decided, pending []time.Duration
	for _, n := range order {
		l := lives[n]
		switch l.to {
		case queue.StateMerged:
			if l.runs == 0 { // merged without a run of ours (directly)
				continue
			}
			ph.Merged++
			before = append(before, l.lastStart-l.arrival)
			run = append(run, l.passed-l.lastStart)
			after = append(after, l.end-l.passed)
		case queue.StateFailed:
			ph.Culprits++
			decided = append(decided, l.end-l.arrival)
			pending = append(pending, l.pendingFail)
			ph.CulpritRuns[l.runs]++
		}
	}
	ph.BeforeLastRun, ph.LastRun, ph.AfterPass = p50p95(before), p50p95(run), p50p95(after)
	ph.CulpritDecided, ph.CulpritPendingFail = p50p95(decided), p50p95(pending)
	return ph
}

// p50p95 returns the nearest-rank median and 95th percentile of ds.
func p50p95(ds []time.Duration) [2]time.Duration {
	if len(ds) == 0 {
		return [2]time.Duration{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := func(q float64) time.Duration {
		i := int(q*float64(len(s))+0.999999) - 1
		return s[max(0, min(i, len(s)-1))]
	}
	return [2]time.Duration{rank(0.50), rank(0.95)}
}

// Text prints the phases for a reader (minutes).
func (ph TracePhases) Text() string {
	var b strings.Builder
	m := func(d [2]time.Duration) string {
		return fmt.Sprintf("p50 %.0f, p95 %.0f", d[0].Minutes(), d[1].Minutes())
	}
	fmt.Fprintf(&b, "merged PRs (%d), minutes: before the run that passed %s; that run %s; after it passed %s\n",
		ph.Merged, m(ph.BeforeLastRun), m(ph.LastRun), m(ph.AfterPass))
	runs := make([]int, 0, len(ph.CulpritRuns))
	for k := range ph.CulpritRuns {
		runs = append(runs, k)
	}
	slices.Sort(runs)
	var byRuns []string
	for _, k := range runs {
		byRuns = append(byRuns, fmt.Sprintf("%d: %d", k, ph.CulpritRuns[k]))
	}
	fmt.Fprintf(&b, "culprits (%d), minutes: decided after arrival %s; in pending_failure %s; by runs {%s}\n",
		ph.Culprits, m(ph.CulpritDecided), m(ph.CulpritPendingFail), strings.Join(byRuns, ", "))
	return b.String()
}
