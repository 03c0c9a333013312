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

// What a PR waits for is told from the settings in force: with autoTune's
// concurrency 4 in force over a configured 1, a pending PR behind one
// testing does not wait for "a test slot: 1 of 1" (the engine would
// start it), in the dashboard's reads and getSubmittedPullRequest's alike.
func TestWaitingUsesTheSettingsInForce(t *testing.T) {
	f := newFixture(t)
	s := queue.DefaultSettings()
	s.AutoTune, s.AutoTuneMaxRuns = true, 4
	q := f.queue("main", s)
	first := f.entry(q, 1, queue.StateTesting, testNow.Add(-time.Hour))
	second := f.entry(q, 2, queue.StatePending, testNow.Add(-time.Hour))
	run := f.run(q, "run-1", queue.RunInProgress, []*queue.Entry{first}, nil)
	first.RunID = run.ID
	if err := f.store.SaveEntry(f.ctx, first); err != nil {
		t.Fatal(err)
	}
	slot := func() bool {
		t.Helper()
		waits, err := f.reads.Waiting(f.ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		sub, err := f.reads.GetSubmitted(f.ctx, q.Key, 2)
		if err != nil {
			t.Fatal(err)
		}
		w := waits[second.ID]
		viaAPI := sub.WaitingFor != nil && sub.WaitingFor.Reason == queue.WaitTestSlot
		if (w != nil && w.Reason == queue.WaitTestSlot) != viaAPI {
			t.Fatalf("the dashboard and the API disagree: %+v, %+v", w, sub.WaitingFor)
		}
		return viaAPI
	}
	if !slot() {
		t.Fatal("with concurrency 1 in force, #2 does not wait for a test slot")
	}
	tuned := queue.TunedValuesOf(q.Settings)
	tuned.Concurrency = 4
	if err := f.store.SaveQueueTuning(f.ctx, queue.QueueTuning{QueueID: q.ID, Values: tuned, Reason: "first observation: concurrency 4", At: testNow}); err != nil {
		t.Fatal(err)
	}
	if slot() {
		t.Error("with autoTune's concurrency 4 in force, #2 still waits for a test slot of 1")
	}
}
