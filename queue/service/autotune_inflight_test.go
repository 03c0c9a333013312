package service_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/autotune"
	"github.com/mergequeue/mq/queue/service"
)

// chainEvaluator prefers the longest plain speculative chain, clearly
// (beyond autotune.ChoiceMargin): p95 = 10 h / concurrency², five hours
// more with isolation runs or batches.
type chainEvaluator struct{}

func (chainEvaluator) Evaluate(_ autotune.Observation, t autotune.Tuning) (autotune.Estimate, error) {
	k := time.Duration(max(t.Concurrency, 1))
	p95 := 10 * time.Hour / (k * k)
	if t.Isolation || t.Batch {
		p95 += 5 * time.Hour
	}
	return autotune.Estimate{KeptUp: true, P95: p95, RunsPerMerge: 1}, nil
}

// inProgress counts the queue's runs in progress (building or running).
func (f *tuneFixture) inProgress() (chain, outside int) {
	f.t.Helper()
	runs, err := f.store.ListOpenRuns(f.ctx, f.q.ID)
	if err != nil {
		f.t.Fatal(err)
	}
	for _, r := range runs {
		switch {
		case r.Status != queue.RunInProgress && r.Status != queue.RunBuilding:
		case r.Bisection || r.Isolation:
			outside++
		default:
			chain++
		}
	}
	return chain, outside
}

// passRuns reports a pass for the CI of the queue's runs in progress that
// keep (isolation runs, or chain runs).
func (f *tuneFixture) passRuns(isolation bool) int {
	f.t.Helper()
	runs, err := f.store.ListOpenRuns(f.ctx, f.q.ID)
	if err != nil {
		f.t.Fatal(err)
	}
	n := 0
	for _, r := range runs {
		if r.Status != queue.RunInProgress || r.Isolation != isolation || r.SHA == "" {
			continue
		}
		for _, c := range f.world.ReportCI(r.SHA, true) {
			if err := f.svc.OnCheck(f.ctx, f.q.Key.Repo, c); err != nil {
				f.t.Fatal(err)
			}
		}
		n++
	}
	return n
}

// A change that moves the room of the runs outside the chain into it
// (isolation runs off, a longer chain) while isolation runs are in
// progress never takes the queue above autoTuneMaxRuns: it is applied as
// far as they leave room, and completed at a later retune once they end.
func TestAutoTuneChangeKeepsTheRunsInProgressWithinTheBound(t *testing.T) {
	f := newTuneFixture(t, chainEvaluator{})
	two, on := 2, true
	if _, err := f.svc.UpdateQueue(f.ctx, f.q.Key, queue.QueueUpdate{Concurrency: &two, IsolationRuns: &on, BisectionConcurrency: &two}); err != nil {
		t.Fatal(err)
	}
	const bound = 4
	check := func(when string) {
		t.Helper()
		if chain, outside := f.inProgress(); chain+outside > bound {
			t.Fatalf("%s: %d runs in progress in the chain and %d outside it, above autoTuneMaxRuns %d", when, chain, outside, bound)
		}
	}
	f.submit(10)
	f.sync()
	f.svc.WaitTuning()
	check("first sync")
	// The isolation runs of the first two pass: their chain runs start
	// beside the isolation runs of the next two, and pass. With the
	// evidence in, the tuner chooses k=3 (the middle step of 4 runs at
	// once) without isolation runs while the isolation runs of the next
	// two are in progress.
	f.advance(2 * time.Minute)
	if n := f.passRuns(true); n != 2 {
		t.Fatalf("%d isolation runs passed, want 2", n)
	}
	f.sync()
	f.svc.WaitTuning()
	check("after the isolation runs passed")
	f.advance(2 * time.Minute)
	if n := f.passRuns(false); n != 2 {
		t.Fatalf("%d chain runs passed, want 2", n)
	}
	for i := 0; i < 3; i++ {
		f.sync()
		f.svc.WaitTuning()
		check("after the chain runs passed")
	}
	changes := f.events(queue.ReasonQueueAutoTuned)
	if len(changes) != 1 {
		t.Fatalf("autoTune events %v, want the first change", changes)
	}
	if chain, outside := f.inProgress(); outside == 0 || chain == 0 {
		t.Fatalf("%d chain and %d isolation runs in progress: the test needs both at the change", chain, outside)
	}
	if d := changes[0].Detail; !strings.Contains(d, "as the runs in progress end") {
		t.Errorf("the change %q does not say it completes as the runs in progress end", d)
	}
	// The isolation runs end; the retune a minute later completes the change.
	f.advance(2 * time.Minute)
	f.passRuns(true)
	for i := 0; i < 3; i++ {
		f.sync()
		f.svc.WaitTuning()
		check("after the isolation runs ended")
		f.advance(service.DefaultTuneFirst)
	}
	tuning, err := f.store.QueueTuning(f.ctx, f.q.ID)
	if err != nil {
		t.Fatal(err)
	}
	if v := tuning.Values; v.Concurrency != 3 || v.IsolationRuns {
		t.Fatalf("tuning in force %+v, want the change completed to k=3 without isolation runs", v)
	}
	if evs := f.events(queue.ReasonQueueAutoTuned); len(evs) != 2 || !strings.Contains(evs[1].Detail, "completing the change") {
		t.Errorf("autoTune events %v, want the second completing the change", evs)
	}
	f.sync()
	check("with the change completed")
	if chain, _ := f.inProgress(); chain != 3 {
		t.Errorf("%d chain runs in progress with the change completed, want 3", chain)
	}
}
