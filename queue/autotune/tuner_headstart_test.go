package autotune

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestParallelQueueGetsAHeadStartBeforeItsFirstChoice: a parallel queue
// at the defaults (one run at once) whose backlog outgrows its runs at
// once before any run finished takes the fewest runs at once of its
// candidates (half its bound) without an estimate, and goes on looking
// soon (Soon); the first choice, once a run finished and the targets of
// MinTargeted PRs were seen, is made from there. A backlog within
// RushFactor times the runs at once, or a single-mode queue, waits for the
// first choice.
func TestParallelQueueGetsAHeadStartBeforeItsFirstChoice(t *testing.T) {
	t.Parallel()
	estimated := 0
	ev := table{f: func(tu Tuning) Estimate {
		estimated++
		return Estimate{KeptUp: true, P95: time.Duration(100-tu.Concurrency/10) * time.Minute, RunsPerMerge: 1.2}
	}}
	arrivals := func(o *Observer) {
		for i := range FirstArrivals {
			o.Arrived(t0.Add(time.Duration(i) * time.Second))
		}
	}
	for _, tc := range []struct {
		name     string
		parallel bool
		queued   int
		want     int
	}{
		{"parallel, backlog outgrew the run at once", true, 3, 200},
		{"parallel, backlog within RushFactor", true, 2, 1},
		{"single mode", false, 50, 1},
	} {
		o := NewObserver(4 * time.Hour)
		arrivals(o)
		tu := NewTuner(o, ev, Bounds{MaxRuns: 400}, Tuning{Parallel: tc.parallel, Concurrency: 1})
		tu.Queued = func() (int, error) { return tc.queued, nil }
		tu.InFlight = func() (int, int) { return 1, 0 }
		c, ok, err := tu.Retune(t0.Add(time.Minute))
		if err != nil || tu.Current().Concurrency != tc.want || ok != (tc.want != 1) {
			t.Fatalf("%s: %s in force (change %v, %v), want k=%d", tc.name, tu.Current(), ok, err, tc.want)
		}
		if ok && (!strings.Contains(c.Reason, "backlog of 3 PRs") || c.To.Concurrency != 200 || !c.At.Equal(t0.Add(time.Minute))) {
			t.Errorf("%s: change %+v", tc.name, c)
		}
		if !tu.Soon() || estimated != 0 {
			t.Fatalf("%s: Soon %v, %d estimates before any run finished", tc.name, tu.Soon(), estimated)
		}
	}

	// The first choice, from the head start: the fastest estimate is the
	// whole bound, clearly (SwitchMargin) faster than half of it.
	ev = table{f: func(tu Tuning) Estimate {
		estimated++
		return Estimate{KeptUp: true, P95: time.Duration(100*200/tu.Concurrency) * time.Minute, RunsPerMerge: 1.2}
	}}
	o := NewObserver(4 * time.Hour)
	arrivals(o)
	tu := NewTuner(o, ev, Bounds{MaxRuns: 400}, Tuning{Parallel: true, Concurrency: 1})
	tu.Queued = func() (int, error) { return 30, nil }
	if _, ok, _ := tu.Retune(t0.Add(time.Minute)); !ok || tu.Current().Concurrency != 200 {
		t.Fatalf("no head start: %s", tu.Current())
	}
	o.RunFinished(RunResult{Started: t0, Finished: t0.Add(30 * time.Minute), Passed: true, Tree: []int{1}})
	for i := range MinTargeted {
		o.Targeted(i, false, []string{fmt.Sprint(i % 7)})
	}
	c, ok, err := tu.Retune(t0.Add(31 * time.Minute))
	if err != nil || !ok || c.From.Concurrency != 200 || c.To.Concurrency != 400 || estimated == 0 {
		t.Fatalf("first choice %+v (%v, %v), want from k=200 to k=400", c, ok, err)
	}
	if tu.Soon() {
		t.Error("still looking soon after the first choice")
	}
}
