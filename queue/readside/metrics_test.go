package readside_test

import (
	"sort"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
)

func TestQueueMetrics(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	q := f.queue("main", queue.DefaultSettings())
	m := func(n int) time.Time { return testNow.Add(time.Duration(n) * time.Minute) }
	const (
		notReady  = queue.StateNotReady
		pending   = queue.StatePending
		underTest = queue.StateTesting
		passed    = queue.StateTestsPassed
	)

	// #1 merged in the window, submitted before it: wait 10m, test 10m, 60m in queue.
	a := f.entry(q, 1, queue.StateMerged, m(-90))
	f.event(a, m(-90), "", notReady, queue.ReasonSubmitted)
	f.event(a, m(-85), notReady, pending, queue.ReasonAdmitted)
	f.event(a, m(-80), pending, underTest, queue.ReasonTesting)
	f.event(a, m(-70), underTest, passed, queue.ReasonTestsPassed)
	f.event(a, m(-30), passed, queue.StateMerged, queue.ReasonMergedByQueue)

	// #2 restarted once then failed: wait 5m (first testing), test 3m (last), 15m in queue.
	b := f.entry(q, 2, queue.StateFailed, m(-50))
	f.event(b, m(-50), "", notReady, queue.ReasonSubmitted)
	f.event(b, m(-46), notReady, pending, queue.ReasonAdmitted)
	f.event(b, m(-45), pending, underTest, queue.ReasonTesting)
	f.event(b, m(-40), underTest, pending, queue.ReasonRestartedBaseMoved)
	f.event(b, m(-38), pending, underTest, queue.ReasonTesting)
	f.event(b, m(-35), underTest, queue.StateFailed, queue.ReasonTestsFailed)

	// #3 cancelled before testing: 10m in queue only.
	c := f.entry(q, 3, queue.StateCancelled, m(-20))
	f.event(c, m(-20), "", notReady, queue.ReasonSubmitted)
	f.event(c, m(-10), notReady, queue.StateCancelled, queue.ReasonUserRequested)

	// #4 merged before the window: not counted.
	d := f.entry(q, 4, queue.StateMerged, m(-200))
	f.event(d, m(-200), "", notReady, queue.ReasonSubmitted)
	f.event(d, m(-120), passed, queue.StateMerged, queue.ReasonMergedByQueue)

	// #6 submitted beyond the lookback: only its test duration (3m) is known.
	old := f.entry(q, 6, queue.StateMerged, testNow.Add(-10*24*time.Hour))
	f.event(old, m(-20), pending, underTest, queue.ReasonTesting)
	f.event(old, m(-17), underTest, passed, queue.ReasonTestsPassed)
	f.event(old, m(-15), passed, queue.StateMerged, queue.ReasonMergedByQueue)

	// #7 resubmitted after being cancelled in the window: its first life counts.
	r := f.entry(q, 7, queue.StateNotReady, m(-5))
	f.event(r, m(-25), "", notReady, queue.ReasonSubmitted)
	f.event(r, m(-24), notReady, queue.StateCancelled, queue.ReasonPRPushed)
	f.event(r, m(-5), queue.StateCancelled, notReady, queue.ReasonSubmitted)

	// Active entries and runs for the gauges.
	e5 := f.entry(q, 5, queue.StateTesting, m(-5))
	f.entry(q, 8, queue.StatePending, m(-3))
	f.entry(q, 9, queue.StateNotReady, m(-2))
	f.run(q, "main-run", queue.RunInProgress, []*queue.Entry{e5}, nil)
	bis := f.run(q, "bisect-run", queue.RunBuilding, []*queue.Entry{e5}, nil)
	bis.Bisection = true
	if err := f.store.SaveRun(f.ctx, bis); err != nil {
		t.Fatal(err)
	}
	f.run(q, "done-run", queue.RunSucceeded, []*queue.Entry{e5}, nil)

	got, err := f.reads.QueueMetrics(f.ctx, q, time.Hour)
	if err != nil {
		t.Fatalf("QueueMetrics: %v", err)
	}
	equal(t, "depth", got.Depth, 2)
	equal(t, "awaiting mergeability", got.AwaitingMergeability, 2)
	equal(t, "main slots", got.SlotsMain, 1)
	equal(t, "bisection slots", got.SlotsBisection, 1)
	equal(t, "conclusions", got.Conclusions, map[queue.EntryState]int{
		queue.StateMerged: 2, queue.StateFailed: 1, queue.StateCancelled: 2})
	equal(t, "restarts", got.Restarts, 1)
	minutes := func(ds []time.Duration) []float64 {
		out := make([]float64, len(ds))
		for i, d := range ds {
			out[i] = d.Minutes()
		}
		sort.Float64s(out)
		return out
	}
	equal(t, "wait minutes", minutes(got.WaitTimes), []float64{5, 10})
	equal(t, "test minutes", minutes(got.TestTimes), []float64{3, 3, 10})
	equal(t, "in-queue minutes", minutes(got.TimesInQueue), []float64{1, 10, 15, 60})
}

func TestQueueMetricsEmptyQueue(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	q := f.queue("main", queue.DefaultSettings())
	got, err := f.reads.QueueMetrics(f.ctx, q, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "metrics", *got, readside.QueueMetrics{Queue: q,
		Conclusions: map[queue.EntryState]int{queue.StateMerged: 0, queue.StateFailed: 0, queue.StateCancelled: 0}})
}
