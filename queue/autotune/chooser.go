package autotune

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"
)

// Bounds are the user's limits on what autoTune may choose.
type Bounds struct {
	// MaxRuns is the most CI runs at once (≥ 1): the chain's concurrency
	// plus the runs outside it (bisections, isolation runs).
	MaxRuns int
	// MaxRunsPerMerge is the most CI runs per merged PR a candidate may be
	// estimated to spend (0 = no limit).
	MaxRunsPerMerge float64
}

// Validate reports unusable bounds.
func (b Bounds) Validate() error {
	if b.MaxRuns < 1 {
		return fmt.Errorf("autoTune bounds: maxRuns must be at least 1, got %d", b.MaxRuns)
	}
	if b.MaxRunsPerMerge < 0 || math.IsNaN(b.MaxRunsPerMerge) {
		return fmt.Errorf("autoTune bounds: maxRunsPerMerge must not be negative")
	}
	return nil
}

// Estimate is an Evaluator's prediction for one tuning.
type Estimate struct {
	// KeptUp is false when the queue would fall behind the arrivals.
	KeptUp bool
	// P95 is the 95th percentile of time-to-merge (meaningless unless KeptUp).
	P95 time.Duration
	// RunsPerMerge is the CI runs per merged PR.
	RunsPerMerge float64
	// Beyond is set when a BoundedEvaluator gave up: the p95 exceeds the
	// limit it was given (KeptUp is then false).
	Beyond bool
}

// Evaluator estimates how a tuning would fare on the observed traffic. It
// must be deterministic and safe for concurrent use.
type Evaluator interface {
	Evaluate(obs Observation, t Tuning) (Estimate, error)
}

// Grid is the candidate tunings within b, in order of preference on a tie:
// with h = half of MaxRuns and g = halfway between h and MaxRuns,
//   - flake absorption (depth 1, optimistic merging) at h and g runs: g
//     lets a rush or a backlog take more runs at once than h without
//     every failure restarting MaxRuns of them. A chain of MaxRuns runs
//     is no candidate: the estimates put it ahead in most rushes, but
//     the spans of burst traffic at k=32 spent 2.30 runs per merge
//     against 1.83 at k=16 for little gain in time-to-merge
//     (docs/performance.md);
//   - flake absorption with batches of 2, and of 2..8 split into single
//     entries on failure, at h in the chain and h outside it;
//   - isolation runs with batches of 2..8, 3/8 of MaxRuns in the chain and
//     the rest outside it (from 32 runs up: a queue with fewer runs at
//     once keeps up with less).
//
// There is no candidate at depth 0: a flaky run there rejects a good PR,
// which its author must queue again (its wait and its runs start over),
// and at depth 0 the observer sees flakes as failures, so it cannot tell
// a queue without flakes from one whose flakes it keeps rejecting. Depth
// 1 with optimistic merging costs a failure of a broken PR one run behind
// it before the rejection, and spends no more runs per merge in the long
// run (docs/performance.md, "no candidate at depth 0").
//
// Every candidate has at most MaxRuns runs at once.
func Grid(b Bounds) []Tuning {
	m := max(b.MaxRuns, 1)
	h := max(m/2, 1)
	flakes := func(k int) Tuning { return Tuning{Concurrency: k, PendingFailureDepth: 1, Optimistic: true} }
	var out []Tuning
	add := func(t Tuning) {
		if !slices.Contains(out, t) && t.Runs() <= m {
			out = append(out, t)
		}
	}
	add(flakes(h))
	add(flakes((h + m) / 2))
	if m >= 2 {
		b2 := flakes(h)
		b2.Batch, b2.BatchMin, b2.BatchMax, b2.BisectionConcurrency = true, 2, 2, m-h
		add(b2)
		b8 := b2
		b8.BatchMax, b8.BisectionParts = 8, 8
		add(b8)
	}
	if m >= 32 {
		k := m * 3 / 8
		iso := flakes(k)
		iso.Batch, iso.BatchMin, iso.BatchMax, iso.BisectionConcurrency, iso.Isolation = true, 2, 8, m-k, true
		add(iso)
	}
	return out
}

// GridFor is the candidate tunings within b for a queue whose tuning in
// force is current: Grid(b) in single mode. In parallel mode
// (current.Parallel) only the concurrency is tuned, to half of MaxRuns,
// halfway between that and MaxRuns, and MaxRuns, with the queue's own
// flake handling: a lane is a chain of the PRs that overlap, so more runs
// at once are spent only where lanes are deep enough to need them (on the
// monorepo preset 200, 300 and 400 run alike, docs/performance.md), and
// the single-mode grid's batches and isolation runs are not offered (a
// batch's targets are the union of its members', which merges lanes).
// With the queue's own batches or isolation runs, each candidate keeps
// room outside the chain for as many runs as the queue had there, within
// MaxRuns (at least one), so that every candidate has at most MaxRuns
// runs at once: with MaxRuns 1 there is none, and the Tuner keeps the
// tuning in force.
func GridFor(b Bounds, current Tuning) []Tuning {
	if !current.Parallel {
		return Grid(b)
	}
	m := max(b.MaxRuns, 1)
	h := max(m/2, 1)
	var out []Tuning
	for _, k := range []int{h, (h + m) / 2, m} {
		t := current
		t.Concurrency = k
		if t.Batch || t.Isolation {
			// Room outside the chain for the queue's bisections or
			// isolation runs: as many as it has, within MaxRuns.
			t.Concurrency = max(min(k, m-1), 1)
			t.BisectionConcurrency = max(min(current.BisectionConcurrency, m-t.Concurrency), 1)
		}
		if !slices.Contains(out, t) && t.Runs() <= m {
			out = append(out, t)
		}
	}
	return out
}

// Choice is what Choose picked.
type Choice struct {
	Tuning   Tuning
	Estimate Estimate
	// Candidates is how many tunings were estimated; Took how long it took.
	Candidates int
	Took       time.Duration
	// Partial is set when the time budget ran out before every candidate
	// was estimated: the choice is the best of those that were.
	Partial bool
}

// BoundedEvaluator is an Evaluator that can stop estimating a tuning once
// its p95 is sure to exceed a limit, which costs less than estimating it
// to the end when the tuning falls behind.
type BoundedEvaluator interface {
	Evaluator
	// EvaluateWithin estimates t as Evaluate does, or gives up once its
	// p95 is sure to exceed limit (> 0): the estimate then has Beyond set
	// and KeptUp false. It must be deterministic too.
	EvaluateWithin(obs Observation, t Tuning, limit time.Duration) (Estimate, error)
}

// GiveUpFactor bounds the estimates Choose asks for: once a candidate
// within the bounds kept up with a p95 P, a BoundedEvaluator may give up
// on the others beyond GiveUpFactor × P. Choose keeps the lowest p95 or
// one within ChoiceMargin of it, so a slower candidate's exact p95 does not
// matter (GiveUpFactor is 1 + ChoiceMargin: a candidate given up on is
// never one Choose could keep).
const GiveUpFactor = 1 + ChoiceMargin

// ChoiceMargin is how far above the lowest estimated p95 a candidate may
// be and still be chosen (ChooseWithin says which). The estimates (three
// simulations of 160 PRs, sim.MinEvalPRs) spread settings that fare alike
// in the long run by 10-40 % (k=12 against k=24, depth 0 against depth 1 on
// Shopify-like traffic, where the fixed k=12 with depth 1 is faster than
// k=24 and spends fewer runs), so a leaner setting is kept unless a
// costlier one is clearly faster. 5 % spent 0.03-0.18 more runs per merge
// than the fixed setting; 15 % still took depth 0 or k=24 on noise; 35 %
// met the drifting preset's acceptance but lost the flake storm's
// (docs/performance.md, "a wider choice margin").
const ChoiceMargin = 0.25

// RunsNoise is how far apart two estimates of runs per merge must be for
// the chooser to rank candidates by them rather than by what their
// settings tell (Leaner): batches spend a third fewer runs than
// speculation, clearly; k=12 and k=24 are estimated within a few percent
// of each other either way.
const RunsNoise = 0.15

// estimate asks ev for t's estimate, bounded by limit when ev can give up
// (limit 0: no bound).
func estimate(ev Evaluator, obs Observation, t Tuning, limit time.Duration) (Estimate, error) {
	if be, ok := ev.(BoundedEvaluator); ok && limit > 0 {
		return be.EvaluateWithin(obs, t, limit)
	}
	return ev.Evaluate(obs, t)
}

// evaluationOrder is the order Choose estimates grid in: from the last
// candidate to the first, i.e. batches and isolation runs before plain
// speculation. Batches rarely fall behind, so their estimate bounds the
// others' early (GiveUpFactor) and a BoundedEvaluator gives up on
// speculation that falls behind instead of simulating its backlog to the
// end (Chromium-like traffic).
func evaluationOrder(grid []Tuning) []int {
	out := make([]int, len(grid))
	for i := range grid {
		out[i] = len(grid) - 1 - i
	}
	return out
}

// Choose is ChooseWithin without a time budget.
func Choose(ev Evaluator, obs Observation, b Bounds, now func() time.Time) (Choice, error) {
	return ChooseWithin(ev, obs, b, now, 0)
}

// ChooseWithin estimates the candidates of Grid(b) and finds the lowest
// p95 among those that keep up within b.MaxRunsPerMerge; of those within
// ChoiceMargin of that p95 it keeps the first by rank: the one with the
// fewest estimated runs per merge where they differ by more than
// RunsNoise, else the leanest (Leaner: every candidate of the grid absorbs
// flakes, so the one with fewer runs at once), else the one with the
// fewest estimated runs per merge. When none keeps up within
// the bound, it keeps the cheapest that keeps up, else the cheapest of
// all. now measures the time taken (nil =
// no measure). With a budget (> 0, and now set), it stops estimating once
// the budget is spent and chooses among the candidates estimated so far
// (Choice.Partial): a retuning then never takes much longer than the
// budget plus one estimate. Candidates slower than GiveUpFactor times the
// best so far are estimated only as far as needed to know it, when ev is
// a BoundedEvaluator.
func ChooseWithin(ev Evaluator, obs Observation, b Bounds, now func() time.Time, budget time.Duration) (Choice, error) {
	return chooseAmong(ev, obs, b, Grid(b), now, budget)
}

// chooseAmong is ChooseWithin over the candidates of grid.
func chooseAmong(ev Evaluator, obs Observation, b Bounds, grid []Tuning, now func() time.Time, budget time.Duration) (Choice, error) {
	if err := b.Validate(); err != nil {
		return Choice{}, err
	}
	start := time.Time{}
	if now != nil {
		start = now()
	}
	type cand struct {
		t Tuning
		e Estimate
		// done: estimated (the budget may stop before).
		done bool
	}
	cands := make([]cand, len(grid))
	within := func(c cand) bool {
		return c.done && c.e.KeptUp && (b.MaxRunsPerMerge == 0 || c.e.RunsPerMerge <= b.MaxRunsPerMerge)
	}
	var best time.Duration = math.MaxInt64
	partial := false
	estimated := 0
	for _, i := range evaluationOrder(grid) {
		if budget > 0 && now != nil && estimated > 0 && now().Sub(start) >= budget {
			partial = true
			break
		}
		limit := time.Duration(0)
		if best < math.MaxInt64/2 {
			limit = time.Duration(GiveUpFactor * float64(best))
		}
		e, err := estimate(ev, obs, grid[i], limit)
		if err != nil {
			return Choice{}, fmt.Errorf("failed to estimate %s: %w", grid[i], err)
		}
		cands[i] = cand{t: grid[i], e: e, done: true}
		estimated++
		if within(cands[i]) {
			best = min(best, e.P95)
		}
	}
	var pick *cand
	cheaper := func(a, b cand) int { return cmp.Compare(a.e.RunsPerMerge, b.e.RunsPerMerge) }
	mayFlake := obs.MayFlake()
	leaner := func(a, b cand) int { return rank(a.t, a.e, b.t, b.e, mayFlake) }
	for i, c := range cands {
		if within(c) && float64(c.e.P95) <= (1+ChoiceMargin)*float64(best) && (pick == nil || leaner(c, *pick) < 0) {
			pick = &cands[i]
		}
	}
	if pick == nil {
		for i, c := range cands {
			if c.done && c.e.KeptUp && (pick == nil || cheaper(c, *pick) < 0) {
				pick = &cands[i]
			}
		}
	}
	if pick == nil {
		for i, c := range cands {
			if c.done && (pick == nil || cheaper(c, *pick) < 0) {
				pick = &cands[i]
			}
		}
	}
	ch := Choice{Candidates: estimated, Partial: partial}
	if pick != nil {
		ch.Tuning, ch.Estimate = pick.t, pick.e
	}
	if now != nil {
		ch.Took = now().Sub(start)
	}
	return ch, nil
}

// rank orders tuning a with estimate ae before b with be (-1) when the
// estimates put a clearly lower in runs per merge (beyond RunsNoise), or
// cannot tell them apart and a is Leaner, or neither and a's estimate is
// lower; +1 the other way round. The chooser keeps the first by rank of
// the candidates within ChoiceMargin; the tuner goes back from the tuning
// in force to a choice ranked before it as the chooser would pick it.
func rank(a Tuning, ae Estimate, b Tuning, be Estimate, mayFlake bool) int {
	cheaper := cmp.Compare(ae.RunsPerMerge, be.RunsPerMerge)
	if ra, rb := ae.RunsPerMerge, be.RunsPerMerge; math.Abs(ra-rb) > RunsNoise*min(ra, rb) {
		return cheaper
	}
	return cmp.Or(leanness(a, b, mayFlake), cheaper)
}
