package readside_test

import (
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// autoTune's events are no activity of the queue: a queue where nothing
// else happened for its stallAlertMinutes is stalled, however often
// autoTune changed its settings or abandoned a choice meanwhile.
func TestAutoTuneEventsDoNotHideAStall(t *testing.T) {
	f := newFixture(t)
	s := queue.DefaultSettings()
	s.StallAlertMinutes = 60
	q := f.queue("main", s)
	q.UpdatedAt = testNow.Add(-3 * time.Hour)
	if err := f.store.UpdateQueue(f.ctx, q); err != nil {
		t.Fatal(err)
	}
	f.entry(q, 1, queue.StatePending, testNow.Add(-3*time.Hour))
	for _, r := range []queue.Reason{queue.ReasonQueueAutoTuned, queue.ReasonQueueAutoTuneAbandoned} {
		ev := queue.QueueTuningEvent(q.ID, r, "autoTune", testNow.Add(-10*time.Minute))
		if err := f.store.AddEvent(f.ctx, &ev); err != nil {
			t.Fatal(err)
		}
	}
	stall, err := f.reads.Stalled(f.ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if stall == nil {
		t.Fatal("autoTune's events hid a stall of three hours")
	}
}
