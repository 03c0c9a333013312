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
}

// Evaluator estimates how a tuning would fare on the observed traffic. It
// must be deterministic and safe for concurrent use.
type Evaluator interface {
	Evaluate(obs Observation, t Tuning) (Estimate, error)
}

// Grid is the candidate tunings within b, in order of preference on a tie:
// with h = half of MaxRuns,
//   - plain speculation at h and at MaxRuns runs;
//   - flake absorption (depth 1, optimistic merging) at h and MaxRuns;
//   - flake absorption with batches of 2, and of 2..8 split into single
//     entries on failure, at h in the chain and h outside it;
//   - isolation runs with batches of 2..8, 3/8 of MaxRuns in the chain and
//     the rest outside it (from 32 runs up: a queue with fewer runs at
//     once keeps up with less).
//
// Every candidate has at most MaxRuns runs at once.
func Grid(b Bounds) []Tuning {
	m := max(b.MaxRuns, 1)
	h := max(m/2, 1)
	plain := func(k int) Tuning { return Tuning{Concurrency: k} }
	flakes := func(k int) Tuning { return Tuning{Concurrency: k, PendingFailureDepth: 1, Optimistic: true} }
	var out []Tuning
	add := func(t Tuning) {
		if !slices.Contains(out, t) && t.Runs() <= m {
			out = append(out, t)
		}
	}
	add(plain(h))
	add(plain(m))
	add(flakes(h))
	add(flakes(m))
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

// Choice is what Choose picked.
type Choice struct {
	Tuning   Tuning
	Estimate Estimate
	// Candidates is how many tunings were estimated; Took how long it took.
	Candidates int
	Took       time.Duration
}

// Choose estimates every candidate of Grid(b) and keeps the one with the
// lowest p95 among those that keep up within b.MaxRunsPerMerge; of those
// within 5 % of that p95, the one with the fewest runs per merge. When
// none keeps up within the bound, it keeps the cheapest that keeps up,
// else the cheapest of all. now measures the time taken (nil = no
// measure).
func Choose(ev Evaluator, obs Observation, b Bounds, now func() time.Time) (Choice, error) {
	if err := b.Validate(); err != nil {
		return Choice{}, err
	}
	start := time.Time{}
	if now != nil {
		start = now()
	}
	grid := Grid(b)
	type cand struct {
		t Tuning
		e Estimate
	}
	cands := make([]cand, 0, len(grid))
	for _, t := range grid {
		e, err := ev.Evaluate(obs, t)
		if err != nil {
			return Choice{}, fmt.Errorf("failed to estimate %s: %w", t, err)
		}
		cands = append(cands, cand{t, e})
	}
	within := func(c cand) bool {
		return c.e.KeptUp && (b.MaxRunsPerMerge == 0 || c.e.RunsPerMerge <= b.MaxRunsPerMerge)
	}
	var pick *cand
	var best time.Duration = math.MaxInt64
	for _, c := range cands {
		if within(c) {
			best = min(best, c.e.P95)
		}
	}
	cheaper := func(a, b cand) int { return cmp.Compare(a.e.RunsPerMerge, b.e.RunsPerMerge) }
	for i, c := range cands {
		if within(c) && float64(c.e.P95) <= 1.05*float64(best) && (pick == nil || cheaper(c, *pick) < 0) {
			pick = &cands[i]
		}
	}
	if pick == nil {
		for i, c := range cands {
			if c.e.KeptUp && (pick == nil || cheaper(c, *pick) < 0) {
				pick = &cands[i]
			}
		}
	}
	if pick == nil {
		for i, c := range cands {
			if pick == nil || cheaper(c, *pick) < 0 {
				pick = &cands[i]
			}
		}
	}
	ch := Choice{Candidates: len(cands)}
	if pick != nil {
		ch.Tuning, ch.Estimate = pick.t, pick.e
	}
	if now != nil {
		ch.Took = now().Sub(start)
	}
	return ch, nil
}
