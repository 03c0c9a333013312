package engine

import (
	"reflect"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// TestSpeculationDepthCap: concurrency caps how deep runs start, not only
// how many are in progress (issue #20). A run that passed behind a head
// still testing frees no slot for a run further back.
func TestSpeculationDepthCap(t *testing.T) {
	tests := []struct {
		name  string
		build func(b *builder)
		want  Action
	}{
		{"no run starts k units deep while the ones ahead passed", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunInProgress, "H0")
			e2 := b.entry(2, queue.StateTestsPassed)
			b.run(e2, queue.RunSucceeded, "H0", "e1")
			b.entry(3, queue.StatePending)
		}, nil},
		{"a run starts within k units of the head", func(b *builder) {
			b.s.Queue.Settings.Concurrency = 3
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunInProgress, "H0")
			e2 := b.entry(2, queue.StateTestsPassed)
			b.run(e2, queue.RunSucceeded, "H0", "e1")
			b.entry(3, queue.StatePending)
		}, StartRun{Unit: []string{"e3"}, Ahead: []string{"e1", "e2"}, BaseSHA: "H0", From: "t-e2", Merge: []string{"e3"}}},
		{"a batch counts as one unit of depth", func(b *builder) {
			e1, e2 := b.entry(1, queue.StateTesting), b.entry(2, queue.StateTesting)
			b.batchRun("r", []*queue.Entry{e1, e2}, queue.RunInProgress, "H0")
			b.entry(3, queue.StatePending)
		}, StartRun{Unit: []string{"e3"}, Ahead: []string{"e1", "e2"}, BaseSHA: "H0", From: "t-r", Merge: []string{"e3"}}},
		{"parallel: no run starts k units deep in its lane", func(b *builder) {
			b.s.Queue.Settings.Mode, b.s.Queue.Settings.Concurrency = queue.ModeParallel, 2
			e1, e2, e3 := b.entry(1, queue.StateTesting), b.entry(2, queue.StateTestsPassed), b.entry(3, queue.StatePending)
			for _, e := range []*queue.Entry{e1, e2, e3} {
				b.targets(e, false, "a")
			}
			b.run(e1, queue.RunInProgress, "H0")
			b.run(e2, queue.RunSucceeded, "H0", "e1")
		}, nil},
		{"parallel: a shallower lane behind a deep one starts", func(b *builder) {
			b.s.Queue.Settings.Mode, b.s.Queue.Settings.Concurrency = queue.ModeParallel, 2
			e1, e2, e3, e4 := b.entry(1, queue.StateTesting), b.entry(2, queue.StateTestsPassed), b.entry(3, queue.StatePending), b.entry(4, queue.StatePending)
			for _, e := range []*queue.Entry{e1, e2, e3} {
				b.targets(e, false, "a")
			}
			b.targets(e4, false, "b")
			b.run(e1, queue.RunInProgress, "H0")
			b.run(e2, queue.RunSucceeded, "H0", "e1")
		}, StartRun{Unit: []string{"e4"}, Ahead: []string{}, BaseSHA: "H0", From: "H0", Merge: []string{"e4"}}},
		{"a successor run a failure waits for starts past the cap", func(b *builder) {
			b.s.Queue.Settings.Concurrency, b.s.Queue.Settings.PendingFailureDepth = 1, 1
			waitingFailed(b.entry(1, queue.StatePendingFailure))
			b.run(b.s.Entries[0], queue.RunFailed, "H0").FailureReason = queue.ReasonTestsFailed
			b.entry(2, queue.StatePending)
		}, StartRun{Unit: []string{"e2"}, Ahead: []string{"e1"}, BaseSHA: "H0", From: "t-e1", Merge: []string{"e2"}}},
		{"parallel: a successor does not start past a unit passed over", func(b *builder) {
			b.s.Queue.Settings.Mode, b.s.Queue.Settings.Concurrency, b.s.Queue.Settings.PendingFailureDepth = queue.ModeParallel, 2, 1
			e1, e2, e3 := b.entry(1, queue.StateTesting), b.entry(2, queue.StateTestsPassed), b.entry(3, queue.StatePending)
			e4, e5 := waitingFailed(b.entry(4, queue.StatePendingFailure)), b.entry(5, queue.StatePending)
			for _, e := range []*queue.Entry{e1, e2, e3} {
				b.targets(e, false, "b") // e3 is two deep in lane b: passed over
			}
			b.targets(e4, false, "c")
			b.targets(e5, false, "b", "c") // a successor of e4, but behind e3
			b.run(e1, queue.RunInProgress, "H0")
			b.run(e2, queue.RunSucceeded, "H0", "e1")
			b.run(e4, queue.RunFailed, "H0").FailureReason = queue.ReasonTestsFailed
			_ = e5
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newSnap(2)
			tc.build(b)
			got, _ := Next(b.s, t0)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Next() =\n  %#v\nwant\n  %#v", got, tc.want)
			}
		})
	}
}

// waitingFailed sets a failed entry's state detail to the one it has
// while it waits for one successor run.
func waitingFailed(e *queue.Entry) *queue.Entry {
	e.StateReason, e.StateReasonDetail = queue.ReasonTestsFailed, "tests failed (); waiting for 1 more run(s) behind it before deciding"
	return e
}
