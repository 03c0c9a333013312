package engine

import (
	"reflect"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// TestCancelDoomed: with pendingFailureDepth 0, a run in progress that
// contains a failed unit not decided yet is cancelled (issue #20): nothing
// can vouch for that unit, so the run was built on what leaves the queue.
func TestCancelDoomed(t *testing.T) {
	const waiting = "tests failed; waiting for #1 ahead to decide whether it caused the failure"
	cancelled := Transition{EntryID: "e3", To: queue.StatePending, Reason: queue.ReasonRestartedDependencyRemoved, ClearRun: true,
		Detail: "the tests of #2 ahead failed: this run contains it, so it is cancelled; testing again once #2 is decided"}
	// e1 testing, e2 failed behind it (waiting for e1), e3 testing on both.
	layout := func(b *builder) {
		b.s.Queue.Settings.Concurrency = 3
		e1 := b.entry(1, queue.StateTesting)
		b.run(e1, queue.RunInProgress, "H0")
		e2 := b.entry(2, queue.StatePendingFailure)
		e2.StateReason, e2.StateReasonDetail = queue.ReasonTestsFailed, waiting
		b.run(e2, queue.RunFailed, "H0", "e1").FailureReason = queue.ReasonTestsFailed
		b.run(b.entry(3, queue.StateTesting), queue.RunInProgress, "H0", "e1", "e2")
	}
	tests := []struct {
		name  string
		build func(b *builder)
		want  Action
	}{
		{"a run behind an undecided failure is cancelled", layout, cancelled},
		{"every entry of a batch behind it restarts with the reason", func(b *builder) {
			layout(b)
			b.s.Runs = b.s.Runs[:2]
			e3, e4 := b.s.Entries[2], b.entry(4, queue.StateTesting)
			b.batchRun("r34", []*queue.Entry{e3, e4}, queue.RunInProgress, "H0", "e1", "e2")
			e3.RunID, e3.State = "", queue.StatePending // the first one already restarted
		}, Transition{EntryID: "e4", To: queue.StatePending, Reason: queue.ReasonRestartedDependencyRemoved, ClearRun: true,
			Detail: "the tests of #2 ahead failed: this run contains it, so it is cancelled; testing again once #2 is decided"}},
		{"pendingFailureDepth 1: the run behind is the evidence waited for", func(b *builder) {
			layout(b)
			b.s.Queue.Settings.PendingFailureDepth = 1
		}, nil},
		{"optimistic merging: the run behind may vouch", func(b *builder) {
			layout(b)
			b.s.Queue.Settings.CanOptimisticallyMerge = true
		}, nil},
		{"a run ahead of the failure goes on", func(b *builder) {
			layout(b)
			b.s.Runs = b.s.Runs[:2]
			b.s.Entries = b.s.Entries[:2]
		}, nil},
		{"a vouched failure dooms nothing", func(b *builder) {
			layout(b)
			b.s.Entries[1].Vouched = true
			b.s.Entries[1].State = queue.StateTestsPassed
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
