package autotune

import (
	"math"
	"slices"
	"sync"
	"time"
)

// RunResult is one finished CI run of the queue: when it started and
// finished, whether it passed, and the PRs of the tree it tested (the PRs
// ahead whose changes it included and its own).
type RunResult struct {
	Started, Finished time.Time
	Passed            bool
	Tree              []int
}

// Observation is what an Observer saw over its window.
type Observation struct {
	// Window is the span the arrivals cover: the Observer's window (less
	// until that much time has passed since the first event), or longer
	// when it keeps older arrivals to have MinKept.
	Window time.Duration
	// Arrivals, Runs and Concluded count the events behind the figures:
	// the arrivals of Window; the runs and conclusions of the observer's
	// window and, when it holds fewer than RateKept, older ones up to the
	// latest RateKept of the last RateMaxAge (the rates below are
	// measured on them).
	Arrivals, Runs, Concluded int
	// ArrivalsPerHour is the rate at which PRs were submitted.
	ArrivalsPerHour float64
	// CIMedian and CISigma fit a log-normal to the durations of the runs
	// that finished (σ from the ratio of the 90th percentile to the
	// median); zero without runs.
	CIMedian time.Duration
	CISigma  float64
	// FailRate is the share of the PRs concluded (Concluded) that the
	// queue rejected (a PR rejected and then merged at the same head,
	// ConcludedHead, counts once, merged).
	FailRate float64
	// FlakeRate is the share of runs of good trees that failed: a failed
	// run is a flake once every PR of its tree proved good (merged, or in
	// a tree that passed); a run whose tree holds a PR that neither proved
	// good nor was rejected is left out until it does.
	FlakeRate float64
	// FlakeRuns is the number of runs of good trees behind FlakeRate.
	FlakeRuns int
	// Queued is the number of PRs in the queue when observed (waiting or
	// being tested), set by the Tuner from Tuner.Queued (the Observer does
	// not know which PRs are still queued). An estimate starts from this
	// backlog: a setting that drains a release rush's backlog slowly shows
	// it, where a simulation from an empty queue does not.
	Queued int
	// PriorOnly is set by WithPrior when no PR was seen failing: the
	// failure rate is the prior's, and MayFlake ignores it.
	PriorOnly bool
	// TargetedPRs is the number of PRs whose impacted targets the
	// Observer kept (Targeted: a parallel-mode queue's, the latest
	// TargetsKept), AllShare the share of them that impact every target,
	// TargetsPerPR the mean number of targets of the others (at least 1)
	// and Overlap the share of pairs of those others that share a target:
	// how often two PRs fall in one lane.
	TargetedPRs                     int
	AllShare, TargetsPerPR, Overlap float64
}

// Observer keeps the queue's recent traffic over a sliding window. It is
// safe for concurrent use; each method is cheap (amortized O(events in
// the window)).
type Observer struct {
	mu       sync.Mutex
	window   time.Duration
	first    time.Time
	arrivals []time.Time
	runs     []RunResult
	// concluded are the PRs' conclusions, in order of report.
	concluded []conclusion
	// good is when each PR last proved good; bad the PRs rejected.
	good map[int]time.Time
	bad  map[int]time.Time
	// rejectedAt is the head each PR in bad was rejected at, if known.
	rejectedAt map[int]string
	// fixed are the PRs rejected at one head and merged at another, with
	// when they were rejected: their runs that finished by then failed on
	// the old head, so a later merge proves none of those runs good.
	fixed map[int]time.Time
	// targeted are the latest PRs' impacted targets (targets.go), and
	// targetPRs their PR numbers.
	targeted  []targetSet
	targetPRs map[int]bool
}

type conclusion struct {
	at     time.Time
	pr     int
	merged bool
}

// MayFlake reports whether the observation holds failures or flakes: at
// depth 0 a flake is seen as a failure, so either may be flakes that a
// tuning absorbing them (Tuning.AbsorbsFlakes) would spare. A failure
// rate that is only WithPrior's (PriorOnly) is no failure seen.
func (o Observation) MayFlake() bool { return (o.FailRate > 0 && !o.PriorOnly) || o.FlakeRate > 0 }

// NewObserver returns an observer over the given window (at least a minute).
func NewObserver(window time.Duration) *Observer {
	return &Observer{window: max(window, time.Minute), good: map[int]time.Time{}, bad: map[int]time.Time{},
		rejectedAt: map[int]string{}, fixed: map[int]time.Time{}}
}

// Window is the span the observer keeps.
func (o *Observer) Window() time.Duration { return o.window }

func (o *Observer) start(at time.Time) {
	if o.first.IsZero() || at.Before(o.first) {
		o.first = at
	}
}

// Arrived records a PR submitted to the queue at at.
func (o *Observer) Arrived(at time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.start(at)
	o.arrivals = append(o.arrivals, at)
}

// RunFinished records a finished run (not a cancelled one: it says nothing
// about CI durations or flakes).
func (o *Observer) RunFinished(r RunResult) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.start(r.Finished)
	r.Tree = slices.Clone(r.Tree)
	o.runs = append(o.runs, r)
	if r.Passed {
		for _, pr := range r.Tree {
			o.good[pr] = r.Finished
		}
	}
}

// Concluded records a PR's conclusion: merged, or rejected by the queue
// (a PR removed by its author is no conclusion of the queue's: do not
// report it). It is ConcludedHead without the PR's head: a PR rejected and
// later merged then counts as one rejection and one merge.
func (o *Observer) Concluded(at time.Time, pr int, merged bool) {
	o.ConcludedHead(at, pr, "", merged)
}

// ConcludedHead records a PR's conclusion with the head commit it
// concluded at (""  = unknown). A PR rejected at a head and later merged at
// the same head (submitted again unchanged) was rejected by a flake: the
// rejection no longer counts as a failure of a PR and the failed runs of
// trees holding it count as flakes, so a queue that absorbs no flakes
// (depth 0), where every flake rejects a PR, still sees its flake rate
// once PRs come back. A PR merged at another head (fixed after the
// rejection) keeps both conclusions, and the runs that failed on its old
// head (those finished by its rejection) are no flakes.
func (o *Observer) ConcludedHead(at time.Time, pr int, head string, merged bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.start(at)
	if was, ok := o.rejectedAt[pr]; merged && head != "" && ok {
		if was == head {
			delete(o.bad, pr)
			o.concluded = slices.DeleteFunc(o.concluded, func(c conclusion) bool { return c.pr == pr && !c.merged })
		} else {
			o.fixed[pr] = o.bad[pr]
		}
	}
	delete(o.rejectedAt, pr)
	o.concluded = append(o.concluded, conclusion{at: at, pr: pr, merged: merged})
	if merged {
		o.good[pr] = at
	} else {
		o.bad[pr] = at
		if head != "" {
			o.rejectedAt[pr] = head
		}
	}
}

// MinKept is how many of the latest arrivals, runs and conclusions the
// observer keeps even when they are older than its window: a quiet queue's
// window holds too few to estimate a rate.
const MinKept = 40

// RateKept and RateMaxAge widen the evidence of the rates (failure, flake,
// CI durations): the observer keeps the latest RateKept runs and
// conclusions younger than RateMaxAge even when they are older than its
// window. A rate of 1 % is 0 in most windows of 70 conclusions (four hours
// at 17 PRs an hour), and the estimates on a rate of 0 put batches level
// with plain speculation where one failure in a batch of eight costs its
// bisection: on PR-head CI traffic (1 % of PRs failing) ours(auto) spent
// hours in batches. The arrival rate stays the window's: it is what moves
// first (docs/performance.md, "rates on more than the window").
const (
	RateKept   = 200
	RateMaxAge = 24 * time.Hour
)

// prune forgets what ended before the window, but for the latest MinKept
// of each kind and, of runs and conclusions, the latest RateKept younger
// than RateMaxAge (a PR's proof is kept for a window past the oldest run
// kept, and at least two windows: a run's tree may hold a PR concluded a
// little before the run finished).
func (o *Observer) prune(now time.Time) {
	from, rateFrom := now.Add(-o.window), now.Add(-RateMaxAge)
	// forRate keeps what is older than the window for the rates.
	forRate := func(at time.Time, rest int) bool { return rest <= RateKept && !at.Before(rateFrom) }
	o.arrivals = dropBefore(o.arrivals, func(t time.Time, _ int) bool { return t.Before(from) })
	o.runs = dropBefore(o.runs, func(r RunResult, rest int) bool {
		return r.Finished.Before(from) && !forRate(r.Finished, rest)
	})
	o.concluded = dropBefore(o.concluded, func(c conclusion, rest int) bool {
		return c.at.Before(from) && !forRate(c.at, rest)
	})
	old := now.Add(-2 * max(o.window, o.span(now)))
	if len(o.runs) > 0 {
		old = minTime(old, o.runs[0].Finished.Add(-o.window))
	}
	for _, m := range []map[int]time.Time{o.good, o.bad, o.fixed} {
		for pr, at := range m {
			if at.Before(old) {
				delete(m, pr)
				delete(o.rejectedAt, pr)
			}
		}
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// span is how far back the arrivals kept reach (the window, or more for
// the latest MinKept).
func (o *Observer) span(now time.Time) time.Duration {
	s := min(o.window, now.Sub(o.first))
	if len(o.arrivals) > 0 {
		s = max(s, now.Sub(o.arrivals[0]))
	}
	return s
}

// dropBefore removes the leading elements for which old is true, keeping
// the last MinKept (the elements are in about time order; a late report
// stays until it is at the front). old is given an element and how many
// elements it and those after it are.
func dropBefore[T any](xs []T, old func(x T, rest int) bool) []T {
	i := 0
	for i < len(xs)-MinKept && old(xs[i], len(xs)-i) {
		i++
	}
	if i == 0 {
		return xs
	}
	return append(xs[:0], xs[i:]...)
}

// Observe returns the figures of the window ending at now.
func (o *Observer) Observe(now time.Time) Observation {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.prune(now)
	var obs Observation
	if o.first.IsZero() {
		return obs
	}
	obs.Window = o.span(now)
	obs.Arrivals, obs.Runs, obs.Concluded = len(o.arrivals), len(o.runs), len(o.concluded)
	if obs.Window > 0 {
		obs.ArrivalsPerHour = float64(len(o.arrivals)) / obs.Window.Hours()
	}
	if len(o.runs) > 0 {
		ds := make([]float64, 0, len(o.runs))
		for _, r := range o.runs {
			ds = append(ds, float64(max(r.Finished.Sub(r.Started), time.Second)))
		}
		slices.Sort(ds)
		med, p90 := quantile(ds, 0.5), quantile(ds, 0.9)
		obs.CIMedian = time.Duration(med)
		obs.CISigma = math.Log(p90/med) / 1.2816 // z of the 90th percentile
	}
	failed := 0
	for _, c := range o.concluded {
		if !c.merged {
			failed++
		}
	}
	if len(o.concluded) > 0 {
		obs.FailRate = float64(failed) / float64(len(o.concluded))
	}
	flaky := 0
	for _, r := range o.runs {
		switch {
		case r.Passed:
			obs.FlakeRuns++
		case o.provedGood(r):
			obs.FlakeRuns++
			flaky++
		}
	}
	if obs.FlakeRuns > 0 {
		obs.FlakeRate = float64(flaky) / float64(obs.FlakeRuns)
	}
	o.observeTargets(&obs)
	return obs
}

// provedGood reports whether every PR of r's tree proved good, at the head
// r tested (a PR fixed after r finished did not).
func (o *Observer) provedGood(r RunResult) bool {
	for _, pr := range r.Tree {
		if _, ok := o.good[pr]; !ok {
			return false
		}
		if at, ok := o.fixed[pr]; ok && !r.Finished.After(at) {
			return false
		}
	}
	return len(r.Tree) > 0
}

// quantile is the q-quantile of sorted values (linear interpolation).
func quantile(sorted []float64, q float64) float64 {
	h := float64(len(sorted)-1) * q
	lo := int(h)
	if lo+1 >= len(sorted) {
		return sorted[lo]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}
