package service_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// A queue stored in parallel mode with autoTune on (before the setting
// was refused there) is not tuned: the tuning in force is removed, so the
// configured settings apply, one event says why, and no choice is made.
func TestAutoTuneStopsOnAParallelQueue(t *testing.T) {
	ev := &runsEvaluator{}
	f := newTuneFixture(t, ev)
	q, err := f.store.GetQueueByID(f.ctx, f.q.ID)
	if err != nil {
		t.Fatal(err)
	}
	q.Settings.Mode = queue.ModeParallel
	if err := f.store.UpdateQueue(f.ctx, q); err != nil {
		t.Fatal(err)
	}
	v := queue.TunedValuesOf(q.Settings)
	v.Concurrency = 4
	if err := f.store.SaveQueueTuning(f.ctx, queue.QueueTuning{QueueID: q.ID, Values: v, Reason: "first observation: concurrency 4", At: f.clock()}); err != nil {
		t.Fatal(err)
	}
	f.submit(8)
	for i := 0; i < 4; i++ {
		f.sync()
		f.svc.WaitTuning()
		f.advance(2 * time.Minute)
		f.passOldest()
	}
	if _, err := f.store.QueueTuning(f.ctx, q.ID); err == nil {
		t.Error("the tuning is still in force on a parallel-mode queue")
	}
	evs := f.events(queue.ReasonQueueAutoTuned)
	if len(evs) != 1 || !strings.Contains(evs[0].Detail, "autoTune stopped") || !strings.Contains(evs[0].Detail, "single-mode queues only") {
		t.Errorf("autoTune events %v, want one saying it stopped and why", evs)
	}
	if n := ev.calls.Load(); n != 0 {
		t.Errorf("%d estimates for a queue autoTune cannot tune", n)
	}
}
