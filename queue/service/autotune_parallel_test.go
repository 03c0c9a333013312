package service_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/autotune"
	"github.com/mergequeue/mq/queue/sim"
)

// seenEvaluator is runsEvaluator that records what it was asked.
type seenEvaluator struct {
	runsEvaluator
	mu      sync.Mutex
	obs     []autotune.Observation
	tunings []autotune.Tuning
}

func (e *seenEvaluator) Evaluate(o autotune.Observation, t autotune.Tuning) (autotune.Estimate, error) {
	e.mu.Lock()
	e.obs, e.tunings = append(e.obs, o), append(e.tunings, t)
	e.mu.Unlock()
	return e.runsEvaluator.Evaluate(o, t)
}

// newParallelTuneFixture is newTuneFixture with the queue in parallel mode.
func newParallelTuneFixture(t *testing.T, ev autotune.Evaluator) *tuneFixture {
	t.Helper()
	f := newTuneFixture(t, ev)
	parallel := queue.ModeParallel
	if _, err := f.svc.UpdateQueue(f.ctx, f.q.Key, queue.QueueUpdate{Mode: &parallel}); err != nil {
		t.Fatal(err)
	}
	f.world.SetParallel(true)
	return f
}

// submitWithTargets opens and submits a PR impacting targets, stored
// for its head first when stored is set (else it has none).
func (f *tuneFixture) submitWithTargets(stored bool, targets ...string) {
	f.t.Helper()
	pr := f.world.OpenPR(sim.PRSpec{Title: "a change", Targets: targets})
	if stored {
		head, err := f.world.GetPullRequest(f.ctx, f.q.Key.Repo, pr)
		if err != nil {
			f.t.Fatal(err)
		}
		if err := f.store.SetTargets(f.ctx, queue.Targets{QueueID: f.q.ID, PRNumber: pr, SHA: head.HeadSHA,
			List: targets, UpdatedAt: f.clock()}); err != nil {
			f.t.Fatal(err)
		}
	}
	if _, err := f.svc.Submit(f.ctx, queue.SubmitRequest{Key: f.q.Key, PRNumber: pr, Submitter: "dev", Source: "api"}); err != nil {
		f.t.Fatal(err)
	}
}

// rounds syncs and waits for the tuner n times, each followed by step of
// time and a pass of the oldest run, then syncs and waits once more.
func (f *tuneFixture) rounds(n int, step time.Duration) {
	f.t.Helper()
	for range n {
		f.sync()
		f.svc.WaitTuning()
		f.advance(step)
		f.passOldest()
	}
	f.sync()
	f.svc.WaitTuning()
}

// A parallel-mode queue with autoTune on is tuned from its own traffic,
// the impacted targets of its PRs included: once the targets of
// autotune.MinTargeted PRs are known, the tuner estimates parallel
// tunings on an observation holding how the PRs overlap, and the tuning
// it puts in force changes the concurrency and nothing else. PRs whose
// targets were never stored are not enough.
func TestAutoTuneTunesAParallelQueue(t *testing.T) {
	for _, withTargets := range []bool{false, true} {
		t.Run(fmt.Sprintf("targets stored %v", withTargets), func(t *testing.T) {
			ev := &seenEvaluator{}
			f := newParallelTuneFixture(t, ev)
			for i := range autotune.MinTargeted + 2 {
				f.submitWithTargets(withTargets, fmt.Sprint("t", i%4))
			}
			f.rounds(3, 2*time.Minute)
			changes := f.events(queue.ReasonQueueAutoTuned)
			// The backlog of 12 PRs outgrew the one run at once: a head
			// start at half the bound, without an estimate.
			if len(changes) == 0 || !isHeadStart(changes[0], 2) {
				t.Fatalf("autoTune events %v, want a head start to concurrency 2 first", changes)
			}
			changes = changes[1:]
			if !withTargets {
				if len(changes) != 0 || len(ev.tunings) != 0 {
					t.Fatalf("tuned without targets: %v, %d estimates", changes, len(ev.tunings))
				}
				return
			}
			if len(changes) != 1 || !strings.Contains(changes[0].Detail, "concurrency 4") {
				t.Fatalf("autoTune events %v, want one change to concurrency 4", changes)
			}
			for i, tu := range ev.tunings {
				if !tu.Parallel {
					t.Errorf("estimate of a single-mode tuning %s for a parallel queue", tu)
				}
				if o := ev.obs[i]; o.Overlap <= 0 || o.TargetsPerPR != 1 {
					t.Errorf("estimated on %+v: no overlap of the PRs' targets", o)
				}
			}
			tuning, err := f.store.QueueTuning(f.ctx, f.q.ID)
			if err != nil {
				t.Fatal(err)
			}
			q, err := f.store.GetQueueByID(f.ctx, f.q.ID)
			if err != nil {
				t.Fatal(err)
			}
			want := queue.TunedValuesOf(q.Settings)
			want.Concurrency = 4
			if tuning.Values != want {
				t.Errorf("tuning in force %+v, want the configured values with concurrency 4 %+v", tuning.Values, want)
			}
			if eff := queue.EffectiveSettings(q.Settings, tuning); eff.Mode != queue.ModeParallel || eff.Concurrency != 4 {
				t.Errorf("effective settings: mode %s, concurrency %d", eff.Mode, eff.Concurrency)
			}
		})
	}
}

// A parallel queue with the evidence of runs but the targets of fewer than
// autotune.MinTargeted PRs is looked at again within a minute
// (TuneOptions.First), not at the 15-minute cadence of a queue already
// tuned: once enough PRs with targets were submitted, the sync two minutes
// later makes the first choice.
func TestAutoTuneLooksSoonForAParallelQueuesTargets(t *testing.T) {
	ev := &seenEvaluator{}
	f := newParallelTuneFixture(t, ev)
	// Three PRs with targets (tested: their runs are the evidence), then
	// some without (not tested in parallel mode until they have targets).
	for range 3 {
		f.submitWithTargets(true, "a")
	}
	for range autotune.FirstArrivals {
		f.submitWithTargets(false, "a")
	}
	f.rounds(3, 2*time.Minute)
	if changes := f.events(queue.ReasonQueueAutoTuned); len(changes) != 1 || !isHeadStart(changes[0], 2) || len(ev.tunings) != 0 {
		t.Fatalf("tuned on the targets of 3 PRs: %v, %d estimates (want only a head start)", changes, len(ev.tunings))
	}
	for range autotune.MinTargeted {
		f.submitWithTargets(true, "a")
	}
	f.advance(2 * time.Minute)
	f.sync()
	f.svc.WaitTuning()
	if changes := f.events(queue.ReasonQueueAutoTuned); len(changes) != 2 || len(ev.tunings) == 0 {
		t.Fatalf("two minutes after the targets came: autoTune events %v, want the first choice", changes)
	}
}

// isHeadStart reports whether ev is the Tuner's head start to concurrency
// k (autotune's headStart: a backlog before the first choice).
func isHeadStart(ev queue.Event, k int) bool {
	return strings.HasPrefix(ev.Detail, "backlog of") && strings.Contains(ev.Detail, fmt.Sprintf("concurrency %d until the first choice", k))
}
