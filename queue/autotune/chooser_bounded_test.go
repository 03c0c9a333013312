package autotune

import (
	"sync"
	"testing"
	"time"
)

// bounded is a table evaluator that can give up, and records the limits
// it was asked for.
type bounded struct {
	table
	mu     sync.Mutex
	limits map[Tuning]time.Duration
}

func (b *bounded) EvaluateWithin(obs Observation, t Tuning, limit time.Duration) (Estimate, error) {
	b.mu.Lock()
	if b.limits == nil {
		b.limits = map[Tuning]time.Duration{}
	}
	b.limits[t] = limit
	b.mu.Unlock()
	e := b.f(t)
	if e.P95 > limit {
		return Estimate{Beyond: true, P95: 1<<63 - 1}, nil
	}
	return e, nil
}

func TestChooseBoundsTheEstimatesOfSlowerCandidates(t *testing.T) {
	t.Parallel()
	// Batches keep up in 100 minutes, speculation falls behind except at
	// MaxRuns with flake absorption (60 minutes).
	ev := &bounded{table: table{f: func(t Tuning) Estimate {
		switch {
		case t.Batch:
			return Estimate{KeptUp: true, P95: 100 * time.Minute, RunsPerMerge: 1}
		case t.Concurrency == 24 && t.Optimistic:
			return Estimate{KeptUp: true, P95: 60 * time.Minute, RunsPerMerge: 1.5}
		}
		return Estimate{KeptUp: true, P95: 20 * time.Hour, RunsPerMerge: 3}
	}}}
	unbounded, err := Choose(ev.table, Observation{}, Bounds{MaxRuns: 24}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := Choose(ev, Observation{}, Bounds{MaxRuns: 24}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Tuning != unbounded.Tuning || ch.Estimate != unbounded.Estimate || ch.Candidates != len(Grid(Bounds{MaxRuns: 24})) {
		t.Errorf("bounded estimates chose %s (%+v, %d candidates), unbounded %s", ch.Tuning, ch.Estimate, ch.Candidates, unbounded.Tuning)
	}
	// The batches of 2..8 are estimated first, without a bound (Evaluate);
	// every other candidate within GiveUpFactor of the best so far.
	giveUp := GiveUpFactor * float64(100*time.Minute)
	for tu, limit := range ev.limits {
		switch {
		case tu.Batch && tu.BatchMax == 8:
			t.Errorf("the first candidate %s was bounded by %v", tu, limit)
		case limit == 0:
			t.Errorf("%s was estimated without a bound", tu)
		case !tu.Batch && limit > time.Duration(giveUp):
			t.Errorf("%s was bounded by %v only", tu, limit)
		}
	}
	if n := len(Grid(Bounds{MaxRuns: 24})) - 1; len(ev.limits) != n {
		t.Errorf("%d candidates estimated with EvaluateWithin, want %d (all but the first)", len(ev.limits), n)
	}
}

func TestChooseWithinATimeBudget(t *testing.T) {
	t.Parallel()
	// Each estimate takes a second of the clock.
	clock := time.Unix(0, 0)
	ev := table{f: func(t Tuning) Estimate {
		clock = clock.Add(time.Second)
		return Estimate{KeptUp: true, P95: time.Duration(200-t.Concurrency) * time.Minute, RunsPerMerge: 1}
	}}
	now := func() time.Time { return clock }
	ch, err := ChooseWithin(ev, Observation{}, Bounds{MaxRuns: 24}, now, 2500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if !ch.Partial || ch.Candidates != 3 || ch.Took != 3*time.Second {
		t.Errorf("a budget of 2.5 s at 1 s an estimate: partial %v, %d candidates in %v", ch.Partial, ch.Candidates, ch.Took)
	}
	if ch.Tuning.Concurrency == 0 {
		t.Error("no choice among the candidates estimated")
	}
	full, _ := ChooseWithin(ev, Observation{}, Bounds{MaxRuns: 24}, now, time.Minute)
	if full.Partial || full.Candidates != len(Grid(Bounds{MaxRuns: 24})) {
		t.Errorf("within a minute: partial %v, %d candidates", full.Partial, full.Candidates)
	}
}
