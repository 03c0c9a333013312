package autotune

import (
	"testing"
	"time"
)

// speculation estimates what the estimator cannot tell apart on
// Shopify-like traffic: speculation with and without flake absorption, at
// 12 and 24 runs, within a few percent of each other; batches far slower.
func speculation() table {
	return table{f: func(t Tuning) Estimate {
		switch {
		case t.Batch || t.Isolation:
			return Estimate{KeptUp: true, P95: 200 * time.Minute, RunsPerMerge: 0.8}
		case t.AbsorbsFlakes():
			// 7 % slower than the fastest, no cheaper: on estimates alone
			// neither the margin nor the runs pick it.
			return Estimate{KeptUp: true, P95: 107 * time.Minute, RunsPerMerge: 1.65}
		case t.Concurrency == 24:
			return Estimate{KeptUp: true, P95: 100 * time.Minute, RunsPerMerge: 1.60}
		default:
			return Estimate{KeptUp: true, P95: 104 * time.Minute, RunsPerMerge: 1.55}
		}
	}}
}

// TestChooseAbsorbsFlakesWhenTheEstimatesCannotTell: with flakes observed,
// a candidate that absorbs them within FlakePriorMargin of the fastest
// estimate is kept over faster or cheaper ones without absorption (each
// flaky failure would reject a good PR, whose resubmission costs runs),
// the one with fewer runs at once on a tie; without flakes, or beyond the
// margin, the estimates decide as before.
func TestChooseAbsorbsFlakesWhenTheEstimatesCannotTell(t *testing.T) {
	t.Parallel()
	b := Bounds{MaxRuns: 24}
	ch, err := Choose(speculation(), Observation{FlakeRate: 0.02}, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Tuning{Concurrency: 12, PendingFailureDepth: 1, Optimistic: true}); ch.Tuning != want {
		t.Errorf("2 %% of runs flaky: chose %s, want %s (absorbs flakes, 7 %% slower, fewer runs at once)", ch.Tuning, want)
	}
	// At depth 0 flakes are observed as failures: failures alone call
	// for absorption too.
	ch, _ = Choose(speculation(), Observation{FailRate: 0.08}, b, nil)
	if !ch.Tuning.AbsorbsFlakes() {
		t.Errorf("8 %% of PRs failing, no flake seen: chose %s, want flake absorption", ch.Tuning)
	}
	ch, _ = Choose(speculation(), Observation{}, b, nil)
	if want := (Tuning{Concurrency: 12}); ch.Tuning != want {
		t.Errorf("no failure at all: chose %s, want %s (the cheapest within 5 %%)", ch.Tuning, want)
	}
	slow := table{f: func(t Tuning) Estimate {
		e, _ := speculation().Evaluate(Observation{}, t)
		if t.AbsorbsFlakes() && !t.Batch && !t.Isolation {
			e.P95 = 115 * time.Minute
		}
		return e
	}}
	ch, _ = Choose(slow, Observation{FlakeRate: 0.02}, b, nil)
	if want := (Tuning{Concurrency: 12}); ch.Tuning != want {
		t.Errorf("absorption 15 %% slower: chose %s, want %s", ch.Tuning, want)
	}
	// The runs-per-merge bound still holds.
	ch, _ = Choose(speculation(), Observation{FlakeRate: 0.02}, Bounds{MaxRuns: 24, MaxRunsPerMerge: 1.6}, nil)
	if ch.Tuning.AbsorbsFlakes() || ch.Estimate.RunsPerMerge > 1.6 {
		t.Errorf("at most 1.6 runs per merge: chose %s (%.2f runs)", ch.Tuning, ch.Estimate.RunsPerMerge)
	}
}

// TestTunerTakesFlakeAbsorptionWhenFlakesAppear: a queue speculating
// without flake absorption switches to it once its runs flake, although
// the estimates put it within SwitchMargin of the tuning in force (they
// cannot tell the two apart), and keeps it.
func TestTunerTakesFlakeAbsorptionWhenFlakesAppear(t *testing.T) {
	t.Parallel()
	o := NewObserver(2 * time.Hour)
	start := Tuning{Concurrency: 12}
	tu := NewTuner(o, speculation(), Bounds{MaxRuns: 24}, start)
	feed(o, newRng(), t0, 2, 20, 0.05, 0.05, 20*time.Minute, 0)
	if obs := o.Observe(t0.Add(2 * time.Hour)).Fitted(); obs.FlakeRate == 0 {
		t.Fatalf("no flakes observed: %+v", obs)
	}
	c, ok, err := tu.Retune(t0.Add(2 * time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	want := Tuning{Concurrency: 12, PendingFailureDepth: 1, Optimistic: true}
	if !ok || c.To != want || tu.Current() != want {
		t.Fatalf("flaky runs: changed %v to %s (in force %s), want %s", ok, c.To, tu.Current(), want)
	}
}

// TestTunerDoesNotTakeAFewCleanConclusionsForNoFailures: batches are
// fastest only on traffic without failures; a queue that has concluded
// six PRs, none failing, has not shown it has none, so the tuner does not
// batch on that (Observation.Cautious), and does once many PRs concluded
// without a failure.
func TestTunerDoesNotTakeAFewCleanConclusionsForNoFailures(t *testing.T) {
	t.Parallel()
	batchesIfClean := func(obs Observation, t Tuning) Estimate {
		switch {
		case t.Batch && obs.FailRate == 0:
			return Estimate{KeptUp: true, P95: 30 * time.Minute, RunsPerMerge: 0.6}
		case t.Batch:
			return Estimate{KeptUp: true, P95: 4 * time.Hour, RunsPerMerge: 1.2}
		}
		return Estimate{KeptUp: true, P95: time.Hour, RunsPerMerge: 1.5}
	}
	for _, c := range []struct {
		prs     int
		batches bool
	}{{6, false}, {400, true}} {
		o := NewObserver(100 * time.Hour)
		for i := range c.prs {
			at := t0.Add(time.Duration(i) * 3 * time.Minute)
			o.Arrived(at)
			o.RunFinished(RunResult{Started: at, Finished: at.Add(20 * time.Minute), Passed: true, Tree: []int{i + 1}})
			o.Concluded(at.Add(20*time.Minute), i+1, true)
		}
		tu := NewTuner(o, obsTable(batchesIfClean), Bounds{MaxRuns: 24}, Tuning{Concurrency: 1})
		ch, ok, err := tu.Retune(t0.Add(time.Duration(c.prs)*3*time.Minute + 20*time.Minute))
		if err != nil || !ok {
			t.Fatalf("%d PRs: no change (%v)", c.prs, err)
		}
		if ch.To.Batch != c.batches {
			t.Errorf("%d PRs merged, none failed: chose %s, want batches %v", c.prs, ch.To, c.batches)
		}
	}
}

// obsTable estimates by a function of the observation and the tuning.
type obsTable func(Observation, Tuning) Estimate

func (f obsTable) Evaluate(o Observation, t Tuning) (Estimate, error) { return f(o, t), nil }
