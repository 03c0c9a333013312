package autotune

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestGridRespectsTheBoundsAndIsValid(t *testing.T) {
	t.Parallel()
	for m := 1; m <= 80; m++ {
		grid := Grid(Bounds{MaxRuns: m})
		if len(grid) == 0 {
			t.Fatalf("no candidate for %d runs", m)
		}
		for _, tu := range grid {
			if tu.Runs() > m {
				t.Errorf("bound %d: %s has %d runs at once", m, tu, tu.Runs())
			}
			if err := tu.Validate(); err != nil {
				t.Errorf("bound %d: %v", m, err)
			}
			if got := FromSettings(tu.Apply(defaultsForTest())); got != tu {
				t.Errorf("bound %d: %s applied reads back as %s", m, tu, got)
			}
		}
	}
	if err := (Bounds{}).Validate(); err == nil {
		t.Error("no run at once was accepted")
	}
	if _, err := Choose(table{}, Observation{}, Bounds{MaxRuns: 4, MaxRunsPerMerge: -1}, nil); err == nil {
		t.Error("a negative runs-per-merge bound was accepted")
	}
}

// table estimates by a function of the tuning.
type table struct {
	f func(Tuning) Estimate
}

func (tb table) Evaluate(_ Observation, t Tuning) (Estimate, error) { return tb.f(t), nil }

func TestChooseKeepsTheLowestP95WithinTheRunsBound(t *testing.T) {
	t.Parallel()
	// Speculation is faster the more runs it has; batches are cheap.
	ev := table{f: func(t Tuning) Estimate {
		e := Estimate{KeptUp: true, P95: time.Duration(300-10*t.Concurrency) * time.Minute, RunsPerMerge: 1.6}
		if t.Batch {
			e.P95, e.RunsPerMerge = 190*time.Minute, 0.7
		}
		if t.PendingFailureDepth > 0 {
			e.RunsPerMerge += 0.2
		}
		return e
	}}
	ch, err := Choose(ev, Observation{}, Bounds{MaxRuns: 24}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The most runs at once in one chain is no candidate (Grid): the
	// middle step, 18.
	if want := (Tuning{Concurrency: 18, PendingFailureDepth: 1, Optimistic: true}); ch.Tuning != want {
		t.Errorf("unbounded: chose %s, want %s", ch.Tuning, want)
	}
	ch, _ = Choose(ev, Observation{}, Bounds{MaxRuns: 24, MaxRunsPerMerge: 1}, nil)
	if !ch.Tuning.Batch || ch.Estimate.RunsPerMerge > 1 {
		t.Errorf("at most 1 run per merge: chose %s (%.2f runs)", ch.Tuning, ch.Estimate.RunsPerMerge)
	}
	// Within ChoiceMargin of the best p95, the one with clearly fewer
	// runs per merge (beyond RunsNoise), however many runs at once.
	ev2 := table{f: func(t Tuning) Estimate {
		if t.Batch && t.BatchMax == 8 {
			return Estimate{KeptUp: true, P95: 103 * time.Minute, RunsPerMerge: 0.6}
		}
		return Estimate{KeptUp: true, P95: 100 * time.Minute, RunsPerMerge: 1.5}
	}}
	if ch, _ := Choose(ev2, Observation{}, Bounds{MaxRuns: 24}, nil); ch.Tuning.BatchMax != 8 {
		t.Errorf("chose %s, want the batches of 2..8 (3 %% slower, 60 %% cheaper)", ch.Tuning)
	}
	// Nothing keeps up: the cheapest.
	ev3 := table{f: func(t Tuning) Estimate { return Estimate{RunsPerMerge: float64(t.Runs())} }}
	if ch, _ := Choose(ev3, Observation{}, Bounds{MaxRuns: 24}, nil); ch.Tuning.Runs() != 12 {
		t.Errorf("chose %s when nothing keeps up, want one of the fewest runs", ch.Tuning)
	}
}

func TestTunerExplainsEachChange(t *testing.T) {
	t.Parallel()
	o := NewObserver(2 * time.Hour)
	// Batches while runs rarely flake; no batches and depth 2 in a storm.
	ev := table{f: func(t Tuning) Estimate { return Estimate{KeptUp: true, P95: time.Hour, RunsPerMerge: 1} }}
	storm := false
	ev.f = func(t Tuning) Estimate {
		good := t.Batch && t.BatchMax == 8
		if storm {
			good = !t.Batch && t.PendingFailureDepth == 1 && t.Concurrency == 18
		}
		if good {
			return Estimate{KeptUp: true, P95: time.Hour, RunsPerMerge: 1}
		}
		return Estimate{KeptUp: true, P95: 2 * time.Hour, RunsPerMerge: 1}
	}
	tu := NewTuner(o, ev, Bounds{MaxRuns: 24}, Tuning{Concurrency: 1})
	rng := newRng()
	if _, ok, _ := tu.Retune(t0); ok {
		t.Fatal("retuned without evidence")
	}
	last := feed(o, rng, t0, 2, 20, 0.05, 0.01, 20*time.Minute, 0)
	c, ok, err := tu.Retune(t0.Add(2 * time.Hour))
	if err != nil || !ok || !c.To.Batch || !strings.HasPrefix(c.Reason, "first observation") {
		t.Fatalf("first retune: %+v %v %v", c, ok, err)
	}
	if _, ok, _ := tu.Retune(t0.Add(2*time.Hour + time.Minute)); ok {
		t.Fatal("retuned without a change in the traffic")
	}
	storm = true
	feed(o, rng, t0.Add(2*time.Hour), 2, 20, 0.05, 0.25, 20*time.Minute, last)
	c, ok, err = tu.Retune(t0.Add(4 * time.Hour))
	if err != nil || !ok {
		t.Fatalf("no retune in a flake storm: %v", err)
	}
	if !strings.HasPrefix(c.Reason, "flake rate rose to ") || !strings.Contains(c.Reason, "batches off") || !strings.Contains(c.Reason, "concurrency 18") {
		t.Errorf("reason %q", c.Reason)
	}
	if tu.Current() != c.To {
		t.Error("the change is not in force")
	}
}

func TestTunerKeepsATuningNearlyAsFast(t *testing.T) {
	t.Parallel()
	o := NewObserver(2 * time.Hour)
	margin := 0.05
	ev := table{f: func(t Tuning) Estimate {
		p95 := 100 * time.Minute
		if t.Batch && t.BatchMax == 8 {
			p95 = time.Duration(float64(p95) * (1 - margin)) // the best, by margin
		}
		return Estimate{KeptUp: true, P95: p95, RunsPerMerge: 1}
	}}
	// In force: the leanest candidate (12 runs at once, flakes absorbed),
	// so that only the margin decides.
	start := Tuning{Concurrency: 12, PendingFailureDepth: 1, Optimistic: true}
	tu := NewTuner(o, ev, Bounds{MaxRuns: 24}, start)
	feed(o, newRng(), t0, 2, 20, 0.05, 0.01, 20*time.Minute, 0)
	if c, ok, _ := tu.Retune(t0.Add(2 * time.Hour)); ok {
		t.Fatalf("switched to %s for 5 %% (reason %q)", c.To, c.Reason)
	}
	if tu.Current() != start {
		t.Fatalf("in force: %s", tu.Current())
	}
	// 20 % faster is within what the chooser leaves to the leaner one;
	// 30 % faster is worth a switch.
	margin = 0.20
	tu = NewTuner(o, ev, Bounds{MaxRuns: 24}, start)
	if c, ok, _ := tu.Retune(t0.Add(2 * time.Hour)); ok {
		t.Fatalf("switched to %s for 20 %% (reason %q)", c.To, c.Reason)
	}
	margin = 0.30
	tu = NewTuner(o, ev, Bounds{MaxRuns: 24}, start)
	if c, ok, _ := tu.Retune(t0.Add(2 * time.Hour)); !ok || c.To.BatchMax != 8 {
		t.Fatalf("no switch for 30 %%: %+v", c)
	}
	// A tuning in force beyond the bounds is replaced whatever the margin.
	margin = 0
	tu = NewTuner(o, ev, Bounds{MaxRuns: 8}, start)
	if c, ok, _ := tu.Retune(t0.Add(2 * time.Hour)); !ok || c.To.Runs() > 8 {
		t.Fatalf("kept %s beyond 8 runs at once: %+v", start, c)
	}
}

// TestTunerChoosesEarlyFromTheDefaults: the defaults (one run at once)
// may be far too few for the traffic, so the first choice comes as soon
// as FirstRuns runs finished and FirstArrivals PRs arrived; none before.
func TestTunerChoosesEarlyFromTheDefaults(t *testing.T) {
	t.Parallel()
	o := NewObserver(4 * time.Hour)
	ev := table{f: func(t Tuning) Estimate {
		return Estimate{KeptUp: t.Concurrency >= 12, P95: time.Hour, RunsPerMerge: 1}
	}}
	tu := NewTuner(o, ev, Bounds{MaxRuns: 24}, Tuning{Concurrency: 1})
	// Ten arrivals and FirstRuns runs in the first half hour: enough for a
	// first choice, not for a second.
	for i := range 10 {
		o.Arrived(t0.Add(time.Duration(i) * 3 * time.Minute))
	}
	if c, ok, err := tu.Retune(t0.Add(10 * time.Minute)); err != nil || ok {
		t.Fatalf("a choice before any run finished: %+v %v", c, err)
	}
	for i := range FirstRuns {
		o.RunFinished(RunResult{Started: t0, Finished: t0.Add(time.Duration(10+i) * time.Minute), Passed: true, Tree: []int{i + 1}})
	}
	c, ok, err := tu.Retune(t0.Add(30 * time.Minute))
	if err != nil || !ok || c.To.Concurrency < 12 {
		t.Fatalf("first choice: %+v %v %v", c, ok, err)
	}
}

// TestAFewMergesAreNoEvidenceThatNoPRFails: the first choice comes after
// a few conclusions, all merges here; taken at its word (no PR fails) the
// traffic calls for large batches, which fall behind once the first
// broken PRs come (Chromium-like traffic). The failure rate the first
// choice is made on is shrunk toward PriorFailRate (WithPrior; on hundreds
// of conclusions it is the observed one), without making the prior's rate
// a failure seen (MayFlake).
func TestAFewMergesAreNoEvidenceThatNoPRFails(t *testing.T) {
	t.Parallel()
	few := Observation{Concluded: 3, FailRate: 0}
	if got := few.WithPrior().FailRate; got < 0.04 || got > PriorFailRate {
		t.Errorf("3 merges: failure rate %.3f, want about the prior %.2f", got, PriorFailRate)
	}
	if few.WithPrior().MayFlake() {
		t.Errorf("3 merges: the prior's failure rate counts as failures seen (MayFlake)")
	}
	if one := (Observation{Concluded: 3, FailRate: 1.0 / 3}).WithPrior(); !one.MayFlake() || !one.Fitted().MayFlake() {
		t.Errorf("a failure seen in 3 conclusions: MayFlake false")
	}
	many := Observation{Concluded: 400, FailRate: 0.085}
	if got := many.WithPrior().FailRate; math.Abs(got-0.085) > 0.003 {
		t.Errorf("400 conclusions at 8.5 %%: failure rate %.4f, want about 0.085", got)
	}
	// Batches only pay when no PR fails.
	var seen []float64
	ev := byObservation(func(o Observation, tu Tuning) Estimate {
		seen = append(seen, o.FailRate)
		e := Estimate{KeptUp: true, P95: 100 * time.Minute, RunsPerMerge: 1.6}
		switch {
		case tu.Batch && o.FailRate < 0.02:
			e.P95, e.RunsPerMerge = 60*time.Minute, 0.5
		case tu.Batch:
			e.KeptUp = false
		case tu.Concurrency < 12:
			e.KeptUp = false
		}
		return e
	})
	o := NewObserver(4 * time.Hour)
	for i := range 10 {
		o.Arrived(t0.Add(time.Duration(i) * 3 * time.Minute))
	}
	for pr := 1; pr <= 3; pr++ {
		at := t0.Add(time.Duration(10*pr) * time.Minute)
		o.RunFinished(RunResult{Started: at.Add(-10 * time.Minute), Finished: at, Passed: true, Tree: []int{pr}})
		o.Concluded(at, pr, true)
	}
	tu := NewTuner(o, ev, Bounds{MaxRuns: 24}, Tuning{Concurrency: 1})
	c, ok, err := tu.Retune(t0.Add(30 * time.Minute))
	if err != nil || !ok {
		t.Fatalf("no first choice: %+v %v", c, err)
	}
	if c.To.Batch {
		t.Errorf("three merges: chose %s, batches that fall behind at the first failures", c.To)
	}
	if !strings.Contains(c.Reason, "0 % of PRs failing") {
		t.Errorf("the reason %q should say what was observed (no failure yet)", c.Reason)
	}
	for _, r := range seen {
		if r < 0.03 {
			t.Fatalf("an estimate was made at a failure rate of %.3f", r)
		}
	}
}
