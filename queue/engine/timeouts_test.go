package engine

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// Settings stored before their upper bounds existed (or written straight
// into the store) may be large enough that minutes or hours × their unit
// overflow a time.Duration. Such a value is a very long wait, never a
// negative one: notReadyTimeoutHours 2562048 (the value, whose
// hours wrap past math.MaxInt64 nanoseconds) cancels no waiting entry,
// and huge testing and batching waits neither fail a run nor start an
// unfilled batch.
func TestHugeStoredDurationsDoNotOverflow(t *testing.T) {
	t.Parallel()
	later := t0.Add(24 * time.Hour)
	tests := []struct {
		name  string
		build func(b *builder)
		want  Action
	}{
		{"notReadyTimeoutHours 2562048 cancels nothing", func(b *builder) {
			b.s.Queue.Settings.NotReadyTimeoutHours = 2562048
			e := b.entry(1, queue.StateNotReady)
			e.PR.MergeableState = "dirty"
			e.StateReasonDetail = "the pull request conflicts with main"
		}, nil},
		{"notReadyTimeoutHours MaxInt cancels nothing", func(b *builder) {
			b.s.Queue.Settings.NotReadyTimeoutHours = math.MaxInt
			e := b.entry(1, queue.StateNotReady)
			e.PR.MergeableState = "dirty"
			e.StateReasonDetail = "the pull request conflicts with main"
		}, nil},
		{"testingTimeoutMinutes past the overflow does not fail the run", func(b *builder) {
			// × time.Minute wraps around to about 26 seconds.
			b.s.Queue.Settings.TestingTimeoutMinutes = 307445735
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunInProgress, "H0")
		}, nil},
		{"batchingMaxWaitTimeMinutes wrapping negative keeps the batch waiting", func(b *builder) {
			b.s.Queue.Settings.Batch = true
			b.s.Queue.Settings.BatchingMaxWaitTimeMinutes = 153722868
			e := b.entry(1, queue.StatePending)
			e.AdmittedAt = t0
		}, nil},
		{"batchingMaxWaitTimeMinutes wrapping to seconds keeps the batch waiting", func(b *builder) {
			b.s.Queue.Settings.Batch = true
			b.s.Queue.Settings.BatchingMaxWaitTimeMinutes = 307445735
			e := b.entry(1, queue.StatePending)
			e.AdmittedAt = t0
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newSnap(2)
			tc.build(b)
			got, wake := Next(b.s, later)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Next() = %#v, want %#v", got, tc.want)
			}
			if !wake.IsZero() && wake.Before(later) {
				t.Errorf("Next() asks to wake at %v, before now %v", wake, later)
			}
		})
	}
}

// Timeout details count in words a reader expects: "1 minute", "1 hour",
// never "1 minutes" (issue #19).
func TestTimeoutDetailsSayOneMinuteAndOneHour(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		build func(b *builder)
		want  string
	}{
		{"testingTimeoutMinutes 1", func(b *builder) {
			b.s.Queue.Settings.TestingTimeoutMinutes = 1
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunInProgress, "H0")
		}, "tests did not finish within 1 minute"},
		{"testingTimeoutMinutes 2", func(b *builder) {
			b.s.Queue.Settings.TestingTimeoutMinutes = 2
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunInProgress, "H0")
		}, "tests did not finish within 2 minutes"},
		{"notReadyTimeoutHours 1", func(b *builder) {
			b.s.Queue.Settings.NotReadyTimeoutHours = 1
			e := b.entry(1, queue.StateNotReady)
			e.PR.MergeableState = "dirty"
			e.StateReasonDetail = "the pull request conflicts with main"
		}, "not ready within 1 hour: the pull request conflicts with main"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newSnap(2)
			tc.build(b)
			got, _ := Next(b.s, t0.Add(3*time.Hour))
			var detail string
			switch a := got.(type) {
			case FinishRun:
				detail = a.Detail
			case Transition:
				detail = a.Detail
			}
			if detail != tc.want {
				t.Errorf("Next() = %#v; want detail %q", got, tc.want)
			}
		})
	}
}

// With testingTimeoutFromHistory, a run times out after the p95 of the
// queue's recent successful runs plus a margin, not after
// testingTimeoutMinutes, and the detail says so (issue #19 item 2).
func TestTestingTimeoutFromHistory(t *testing.T) {
	t.Parallel()
	b := newSnap(2)
	b.s.Queue.Settings.TestingTimeoutMinutes = 60
	b.s.Queue.Settings.TestingTimeoutFromHistory = true
	for i := 0; i < 5; i++ {
		end := t0.Add(-time.Duration(i) * time.Hour)
		b.s.Recent = append(b.s.Recent, &queue.TestRun{Status: queue.RunSucceeded, StartedAt: end.Add(-10 * time.Minute), FinishedAt: end})
	}
	b.run(b.entry(1, queue.StateTesting), queue.RunInProgress, "H0")
	// p95 10 minutes + a 5-minute margin: 15 minutes.
	if got, wake := Next(b.s, t0.Add(14*time.Minute)); got != nil || !wake.Equal(t0.Add(15*time.Minute)) {
		t.Fatalf("Next() at 14 min = %#v (wake %v), want nothing until 15 min", got, wake)
	}
	got, _ := Next(b.s, t0.Add(15*time.Minute))
	want := FinishRun{RunID: "r-e1", Status: queue.RunFailed, Reason: queue.ReasonTestTimeout,
		Detail: "tests did not finish within 15 minutes (the p95 of the queue's recent successful runs, 10 minutes, plus a margin)"}
	if got != any(want) {
		t.Errorf("Next() at 15 min = %#v, want %#v", got, want)
	}
}
