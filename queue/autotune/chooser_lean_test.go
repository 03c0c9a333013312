package autotune

import (
	"testing"
	"time"
)

// shopifyLike estimates as the simulator does on Shopify-like traffic:
// k=18 or 24 within its noise of k=12 (15 % faster, as many runs per
// merge), depth 1 as fast as depth 0, batches far slower.
func shopifyLike(t Tuning) Estimate {
	e := Estimate{KeptUp: true, P95: 100 * time.Minute, RunsPerMerge: 1.6}
	if t.Concurrency > 12 {
		e.P95 = 85 * time.Minute
	}
	if t.Batch {
		e.P95, e.RunsPerMerge = 200*time.Minute, 0.9
	}
	if t.PendingFailureDepth > 0 {
		e.RunsPerMerge += 0.05
	}
	return e
}

// TestChooseTheLeanerOfWhatTheEstimatesCannotTellApart: within
// ChoiceMargin of the fastest estimate and RunsNoise of its runs per
// merge, the chooser keeps fewer runs at once, absorbing flakes whether
// failures or flakes were seen or not (there is no candidate at depth 0).
// A candidate clearly faster than the margin is still taken.
func TestChooseTheLeanerOfWhatTheEstimatesCannotTellApart(t *testing.T) {
	t.Parallel()
	b := Bounds{MaxRuns: 24}
	flaky := Observation{FailRate: 0.05, FlakeRate: 0.02}
	ch, err := Choose(table{f: shopifyLike}, flaky, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Tuning{Concurrency: 12, PendingFailureDepth: 1, Optimistic: true}); ch.Tuning != want {
		t.Errorf("failures and flakes seen: chose %s, want %s", ch.Tuning, want)
	}
	ch, _ = Choose(table{f: shopifyLike}, Observation{}, b, nil)
	if want := (Tuning{Concurrency: 12, PendingFailureDepth: 1, Optimistic: true}); ch.Tuning != want {
		t.Errorf("nothing failed: chose %s, want %s", ch.Tuning, want)
	}
	clearly := func(t Tuning) Estimate {
		e := shopifyLike(t)
		if t.Concurrency > 12 {
			e.P95 = 60 * time.Minute
		}
		return e
	}
	ch, _ = Choose(table{f: clearly}, flaky, b, nil)
	if want := (Tuning{Concurrency: 18, PendingFailureDepth: 1, Optimistic: true}); ch.Tuning != want {
		t.Errorf("k=18 40 %% faster: chose %s, want %s", ch.Tuning, want)
	}
}

// TestTunerReturnsToALeanerTuning: k=24 was chosen during a rush; once the
// estimates put k=12 within ChoiceMargin of it, the tuner goes back to 12
// runs at once, though k=12 is not faster (SwitchMargin is for costlier
// changes).
func TestTunerReturnsToALeanerTuning(t *testing.T) {
	t.Parallel()
	o := NewObserver(2 * time.Hour)
	feed(o, newRng(), t0, 2, 20, 0.05, 0.02, 20*time.Minute, 0)
	rush := Tuning{Concurrency: 24, PendingFailureDepth: 1, Optimistic: true}
	tu := NewTuner(o, table{f: shopifyLike}, Bounds{MaxRuns: 24}, rush)
	c, ok, err := tu.Retune(t0.Add(2 * time.Hour))
	if err != nil || !ok {
		t.Fatalf("kept %s: %v", rush, err)
	}
	if want := (Tuning{Concurrency: 12, PendingFailureDepth: 1, Optimistic: true}); c.To != want || tu.Current() != want {
		t.Errorf("changed to %s (in force %s), want %s", c.To, tu.Current(), want)
	}
}

// TestGridHasNoDepthZeroAndAMiddleConcurrency: every candidate absorbs
// flakes; plain speculation runs at half the runs at once and at a middle
// step between half and all of them, never more: a failure restarts the
// runs behind it, and a chain of all the runs at once spent the most runs
// per merge in a rush (docs/performance.md).
func TestGridHasNoDepthZeroAndAMiddleConcurrency(t *testing.T) {
	t.Parallel()
	for m := 1; m <= 80; m++ {
		ks := map[int]bool{}
		for _, tu := range Grid(Bounds{MaxRuns: m}) {
			if !tu.AbsorbsFlakes() {
				t.Errorf("bound %d: %s does not absorb flakes", m, tu)
			}
			if !tu.Batch && !tu.Isolation {
				ks[tu.Concurrency] = true
			}
		}
		h := max(m/2, 1)
		for _, k := range []int{h, (h + m) / 2} {
			if !ks[k] {
				t.Errorf("bound %d: no speculation at k=%d (has %v)", m, k, ks)
			}
		}
		if len(ks) != len(map[int]bool{h: true, (h + m) / 2: true}) {
			t.Errorf("bound %d: speculation at %v, want only %d and %d", m, ks, h, (h+m)/2)
		}
	}
}

// TestChooseTheMiddleConcurrencyInARush: in a rush the middle step is the
// fastest (the most runs at once would be faster still, but it is no
// candidate) and half the runs at once is beyond ChoiceMargin of it: the
// middle is chosen, though it spends more runs per merge.
func TestChooseTheMiddleConcurrencyInARush(t *testing.T) {
	t.Parallel()
	margin := ChoiceMargin // computed at run time: any margin converts
	beyond := time.Duration((1 + margin + 0.05) * float64(262*time.Minute))
	rush := func(t Tuning) Estimate {
		switch {
		case t.Batch || t.Isolation:
			return Estimate{KeptUp: true, P95: 540 * time.Minute, RunsPerMerge: 1.05}
		case t.Concurrency == 24:
			return Estimate{KeptUp: true, P95: 230 * time.Minute, RunsPerMerge: 2.66}
		case t.Concurrency == 18:
			return Estimate{KeptUp: true, P95: 262 * time.Minute, RunsPerMerge: 2.25}
		}
		return Estimate{KeptUp: true, P95: beyond, RunsPerMerge: 1.87}
	}
	ch, err := Choose(table{f: rush}, Observation{FailRate: 0.05, FlakeRate: 0.02}, Bounds{MaxRuns: 24}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Tuning{Concurrency: 18, PendingFailureDepth: 1, Optimistic: true}); ch.Tuning != want {
		t.Errorf("chose %s, want %s", ch.Tuning, want)
	}
}
