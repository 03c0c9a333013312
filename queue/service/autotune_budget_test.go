package service_test

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/autotune"
	"github.com/mergequeue/mq/queue/service"
)

// slowEvaluator is runsEvaluator taking a minute of the wall clock the
// test injects per estimate.
type slowEvaluator struct {
	runsEvaluator
	wall *atomic.Int64 // nanoseconds
}

func (e *slowEvaluator) Evaluate(o autotune.Observation, t autotune.Tuning) (autotune.Estimate, error) {
	e.wall.Add(int64(time.Minute))
	return e.runsEvaluator.Evaluate(o, t)
}

// A choice stops at its budget with the best candidate estimated so far:
// the change says it was partial, the choice is not abandoned, and it
// ends (releasing the process's one choice at a time) instead of
// estimating every candidate.
func TestAutoTuneChoiceStopsAtItsBudget(t *testing.T) {
	var wall atomic.Int64
	wall.Store(time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC).UnixNano())
	ev := &slowEvaluator{wall: &wall}
	var mu sync.Mutex
	var took []time.Duration
	var abandoned int
	f := newTuneFixtureWith(t, service.TuneOptions{Evaluator: ev, Budget: 2 * time.Minute,
		Clock: func() time.Time { return time.Unix(0, wall.Load()).UTC() },
		OnChoice: func(_ queue.QueueKey, d time.Duration, ab bool) {
			mu.Lock()
			defer mu.Unlock()
			took = append(took, d)
			if ab {
				abandoned++
			}
		}})
	f.submit(8)
	for i := 0; i < autotune.FirstRuns; i++ {
		f.sync()
		f.svc.WaitTuning()
		f.advance(2 * time.Minute)
		f.passOldest()
	}
	f.sync()
	done := make(chan struct{})
	go func() { f.svc.WaitTuning(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the choice did not end at its budget")
	}
	grid := len(autotune.Grid(service.BoundsOf(f.q.Settings)))
	// Two estimates spend the budget; the tuning in force is estimated too.
	if calls := ev.calls.Load(); calls > 3 || int(calls) >= grid {
		t.Errorf("the choice estimated %d of %d candidates; it stops at its budget after 2 (and the tuning in force)", calls, grid)
	}
	changes := f.events(queue.ReasonQueueAutoTuned)
	if len(changes) != 1 || !strings.Contains(changes[0].Detail, "partial choice: the budget of 2m0s ran out after 2 candidates") {
		t.Fatalf("autoTune events %v, want one change saying the choice was partial", changes)
	}
	if evs := f.events(queue.ReasonQueueAutoTuneAbandoned); len(evs) != 0 {
		t.Errorf("a choice stopped at its budget was abandoned: %v", evs)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(took) != 1 || abandoned != 0 || took[0] != 3*time.Minute {
		t.Errorf("choices measured %v (%d abandoned), want one of 3m0s (two candidates and the tuning in force)", took, abandoned)
	}
}

// gateEvaluator is runsEvaluator whose first estimate waits for release,
// saying on entered that a choice started.
type gateEvaluator struct {
	runsEvaluator
	entered chan struct{}
	once    sync.Once
	release chan struct{}
}

func (e *gateEvaluator) Evaluate(o autotune.Observation, t autotune.Tuning) (autotune.Estimate, error) {
	e.once.Do(func() {
		close(e.entered)
		<-e.release
	})
	return e.runsEvaluator.Evaluate(o, t)
}

// At shutdown a choice in progress stops after the estimate it is making
// and applies nothing, and the process waits for it (bounded) before its
// store closes; no choice starts after.
func TestAutoTuneStopsChoosingAtShutdown(t *testing.T) {
	ev := &gateEvaluator{entered: make(chan struct{}), release: make(chan struct{})}
	f := newTuneFixture(t, ev)
	f.submit(8)
	for i := 0; i < autotune.FirstRuns; i++ {
		f.sync()
		f.svc.WaitTuning()
		f.advance(2 * time.Minute)
		f.passOldest()
	}
	f.sync()
	select {
	case <-ev.entered:
	case <-time.After(30 * time.Second):
		t.Fatal("no choice started")
	}
	f.svc.StopTuning()
	if f.svc.WaitTuningFor(time.Millisecond) {
		t.Fatal("WaitTuningFor reported the blocked choice ended")
	}
	close(ev.release)
	if !f.svc.WaitTuningFor(30 * time.Second) {
		t.Fatal("the choice did not stop at shutdown")
	}
	if n := ev.calls.Load(); n != 1 {
		t.Errorf("the choice made %d estimates after the shutdown began; want it to stop after the one in progress", n)
	}
	f.advance(time.Hour)
	f.sync()
	f.svc.WaitTuning()
	if evs := f.events(queue.ReasonQueueAutoTuned); len(evs) != 0 {
		t.Errorf("a choice was applied at or after shutdown: %v", evs)
	}
	if n := ev.calls.Load(); n != 1 {
		t.Errorf("%d estimates: a choice started after the shutdown", n)
	}
}
