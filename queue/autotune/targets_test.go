package autotune

import (
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// TestObserverMeasuresHowPRsOverlap: of five PRs, one impacts every target
// and four list theirs ({a,b}, {b}, {c}, {d,e,a}: 2 targets on average,
// duplicates counted once); of their six pairs three share a target.
func TestObserverMeasuresHowPRsOverlap(t *testing.T) {
	t.Parallel()
	o := NewObserver(time.Hour)
	o.Arrived(t0)
	o.Targeted(1, false, []string{"b", "a"})
	o.Targeted(2, false, []string{"b", "b"})
	o.Targeted(3, true, nil)
	o.Targeted(4, false, []string{"c"})
	o.Targeted(1, false, []string{"x"}) // #1 again: counted once
	o.Targeted(5, false, []string{"d", "e", "a"})
	if !o.HasTargets(1) || o.HasTargets(6) {
		t.Errorf("HasTargets(1) %v, HasTargets(6) %v; want true, false", o.HasTargets(1), o.HasTargets(6))
	}
	obs := o.Observe(t0)
	if obs.TargetedPRs != 5 || obs.AllShare != 0.2 || obs.TargetsPerPR != 1.75 || math.Abs(obs.Overlap-1.0/3) > 1e-9 {
		t.Errorf("targeted %d, ALL %.2f, per PR %.2f, overlap %.3f; want 5, 0.20, 1.75, 0.333",
			obs.TargetedPRs, obs.AllShare, obs.TargetsPerPR, obs.Overlap)
	}
}

// TestObserverKeepsTheLatestTargets: the figures are those of the latest
// TargetsKept PRs, however old: after TargetsKept PRs of one target each
// come TargetsKept PRs of every target, and only those are seen.
func TestObserverKeepsTheLatestTargets(t *testing.T) {
	t.Parallel()
	o := NewObserver(time.Hour)
	o.Arrived(t0)
	for i := range TargetsKept {
		o.Targeted(i, false, []string{fmt.Sprint(i)})
	}
	if obs := o.Observe(t0); obs.AllShare != 0 || obs.Overlap != 0 || obs.TargetsPerPR != 1 {
		t.Fatalf("disjoint PRs: ALL %.2f, overlap %.2f, per PR %.2f", obs.AllShare, obs.Overlap, obs.TargetsPerPR)
	}
	for i := range TargetsKept {
		o.Targeted(TargetsKept+i, true, nil)
	}
	if obs := o.Observe(t0.Add(48 * time.Hour)); obs.TargetedPRs != TargetsKept || obs.AllShare != 1 {
		t.Errorf("after %d ALL PRs: %d kept, ALL share %.2f, want %d and 1", TargetsKept, obs.TargetedPRs, obs.AllShare, TargetsKept)
	}
}

// TestParallelGridTunesTheConcurrencyOnly: a parallel queue's candidates
// are its own settings at half of MaxRuns, halfway to it and MaxRuns, and
// applying one changes nothing but the concurrency (not the queue's depth,
// its optimistic merging or its mode).
func TestParallelGridTunesTheConcurrencyOnly(t *testing.T) {
	t.Parallel()
	s := queue.DefaultSettings()
	s.Mode, s.Concurrency, s.PendingFailureDepth, s.CanOptimisticallyMerge = queue.ModeParallel, 50, 2, true
	cur := FromSettings(s)
	if !cur.Parallel {
		t.Fatalf("FromSettings of a parallel queue: %s", cur)
	}
	grid := GridFor(Bounds{MaxRuns: 400}, cur)
	var ks []int
	for _, c := range grid {
		if !c.Parallel || c.PendingFailureDepth != 2 || !c.Optimistic || c.Batch || c.Isolation {
			t.Errorf("candidate %s is not the queue's own settings at another concurrency", c)
		}
		ks = append(ks, c.Concurrency)
	}
	if fmt.Sprint(ks) != "[200 300 400]" {
		t.Errorf("concurrencies %v, want [200 300 400]", ks)
	}
	got := grid[0].Apply(s)
	want := s
	want.Concurrency = 200
	if !reflect.DeepEqual(got, want) {
		t.Errorf("applying %s: %+v, want %+v", grid[0], got, want)
	}
	if single := GridFor(Bounds{MaxRuns: 400}, Tuning{Concurrency: 1}); len(single) != len(Grid(Bounds{MaxRuns: 400})) {
		t.Errorf("single mode: %d candidates, want Grid's", len(single))
	}
}

// TestTunerWaitsForTheTargetsOfAParallelQueue: a parallel queue is not
// tuned before the targets of MinTargeted PRs were seen (its estimates
// would not know its lanes); then the tuner takes the leanest concurrency
// the estimates cannot tell from the fastest, as in single mode, and the
// estimates are asked for parallel tunings only.
func TestTunerWaitsForTheTargetsOfAParallelQueue(t *testing.T) {
	t.Parallel()
	o := NewObserver(4 * time.Hour)
	feed(o, newRng(), t0, 4, 17, 0.05, 0, 20*time.Minute, 0)
	ev := table{f: func(tu Tuning) Estimate {
		if !tu.Parallel {
			t.Errorf("estimate asked for a single-mode tuning %s", tu)
		}
		if tu.Concurrency < 20 {
			return Estimate{KeptUp: false, P95: time.Duration(1 << 62), RunsPerMerge: 1.2}
		}
		return Estimate{KeptUp: true, P95: time.Duration(100+10-tu.Concurrency/10) * time.Minute, RunsPerMerge: 1.2}
	}}
	cur := Tuning{Parallel: true, Concurrency: 8}
	tu := NewTuner(o, ev, Bounds{MaxRuns: 80}, cur)
	now := t0.Add(4 * time.Hour)
	if _, ok, err := tu.Retune(now); ok || err != nil {
		t.Fatalf("tuned without targets: %s (%v)", tu.Current(), err)
	}
	for i := range MinTargeted {
		o.Targeted(i, false, []string{fmt.Sprint(i % 7)})
	}
	c, ok, err := tu.Retune(now.Add(time.Minute))
	if want := (Tuning{Parallel: true, Concurrency: 40}); err != nil || !ok || c.To != want {
		t.Fatalf("choice %s (%v, %v), want %s", c.To, ok, err, want)
	}
	if c.Reason == "" || c.To.String() != "parallel, k=40, batches off, depth 0" {
		t.Errorf("reason %q, tuning %q", c.Reason, c.To)
	}
}

// TestParallelGridKeepsRoomOutsideTheChain: a parallel queue with its own
// batches (bisections beside the chain, "as many as the chain" when 0)
// gets candidates that keep room outside the chain, each with at most
// MaxRuns runs at once, and applying one sets the bisection concurrency
// so that the queue's runs stay within the bound. With MaxRuns 1 there is
// no candidate.
func TestParallelGridKeepsRoomOutsideTheChain(t *testing.T) {
	t.Parallel()
	s := queue.DefaultSettings()
	s.Mode, s.Concurrency, s.Batch, s.BatchingMinSize, s.BisectionConcurrency = queue.ModeParallel, 6, true, 2, 0
	cur := FromSettings(s)
	if cur.Runs() != 12 {
		t.Fatalf("a queue of 6 runs and as many bisections: %d runs at once, want 12", cur.Runs())
	}
	for _, c := range GridFor(Bounds{MaxRuns: 8}, cur) {
		applied := c.Apply(s)
		if c.Runs() > 8 || c.BisectionConcurrency < 1 || applied.Concurrency+applied.EffectiveBisectionConcurrency() > 8 || !applied.Batch {
			t.Errorf("candidate %s: %d runs at once, applied %d + %d", c, c.Runs(), applied.Concurrency, applied.EffectiveBisectionConcurrency())
		}
	}
	if g := GridFor(Bounds{MaxRuns: 1}, cur); len(g) != 0 {
		t.Errorf("MaxRuns 1 with batches: candidates %v", g)
	}
}
