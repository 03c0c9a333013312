package engine

import (
	"reflect"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// TestHoldBehindFailures: runs that would be built on an undecided failed
// unit mostly contain its culprit, so only the successor runs that the
// failure handling waits for start (SPEC §5.3); the rest wait.
func TestHoldBehindFailures(t *testing.T) {
	const waiting = "tests failed; waiting for #1 ahead to decide whether it caused the failure"
	// e1 testing; e2's run (on top of e1) failed and waits for e1.
	failedBehindTesting := func(b *builder) (e1, e2 *queue.Entry) {
		e1 = b.entry(1, queue.StateTesting)
		b.run(e1, queue.RunInProgress, "H0")
		e2 = b.entry(2, queue.StatePendingFailure)
		e2.StateReason, e2.StateReasonDetail = queue.ReasonTestsFailed, waiting
		b.run(e2, queue.RunFailed, "H0", "e1").FailureReason = queue.ReasonTestsFailed
		return e1, e2
	}
	tests := []struct {
		name  string
		build func(b *builder)
		want  Action
	}{
		{"nothing starts on top of an undecided failure, and the entry says why", func(b *builder) {
			failedBehindTesting(b)
			b.entry(3, queue.StatePending).StateReason = queue.ReasonAdmitted
		}, Transition{EntryID: "e3", To: queue.StatePending, Reason: queue.ReasonAdmitted, Detail: heldDetail(&queue.Entry{PRNumber: 2}), Quiet: true}},
		{"a held entry that says why waits", func(b *builder) {
			failedBehindTesting(b)
			b.entry(3, queue.StatePending).StateReasonDetail = heldDetail(&queue.Entry{PRNumber: 2})
		}, nil},
		{"pendingFailureDepth successors start", func(b *builder) {
			b.s.Queue.Settings.PendingFailureDepth = 1
			failedBehindTesting(b)
			b.entry(3, queue.StatePending)
		}, StartRun{Unit: []string{"e3"}, Ahead: []string{"e1", "e2"}, BaseSHA: "H0", From: "t-e2", Merge: []string{"e3"}}},
		{"no more than pendingFailureDepth successors", func(b *builder) {
			b.s.Queue.Settings.PendingFailureDepth = 1
			failedBehindTesting(b)
			b.run(b.entry(3, queue.StateTesting), queue.RunInProgress, "H0", "e1", "e2")
			b.entry(4, queue.StatePending).StateReasonDetail = heldDetail(&queue.Entry{PRNumber: 2})
		}, nil},
		{"with optimistic merging a lone failure is bet to be a flake", func(b *builder) {
			b.s.Queue.Settings.CanOptimisticallyMerge = true
			failedBehindTesting(b)
			b.entry(3, queue.StatePending)
		}, StartRun{Unit: []string{"e3"}, Ahead: []string{"e1", "e2"}, BaseSHA: "H0", From: "t-e2", Merge: []string{"e3"}}},
		{"nothing starts on top of a batch being bisected", func(b *builder) {
			b.s.Queue.Settings.CanOptimisticallyMerge = true
			e1, e2 := b.entry(1, queue.StateTesting), b.entry(2, queue.StateTesting)
			parent := b.batchRun("batch", []*queue.Entry{e1, e2}, queue.RunFailed, "H0")
			for _, half := range []struct {
				e     *queue.Entry
				ahead []string
			}{{e1, nil}, {e2, []string{"e1"}}} {
				r := b.run(half.e, queue.RunInProgress, "H0", half.ahead...)
				r.Bisection, r.Parent = true, parent.ID
			}
			b.entry(3, queue.StatePending)
		}, Transition{EntryID: "e3", To: queue.StatePending, Detail: heldDetail(&queue.Entry{PRNumber: 1}), Quiet: true}},
		{"entries not behind the failure start (parallel mode)", func(b *builder) {
			b.s.Queue.Settings.Mode = queue.ModeParallel
			e1, e2 := failedBehindTesting(b)
			b.targets(e1, false, "a")
			b.targets(e2, false, "a")
			b.targets(b.entry(3, queue.StatePending), false, "b")
		}, StartRun{Unit: []string{"e3"}, Ahead: []string{}, BaseSHA: "H0", From: "H0", Merge: []string{"e3"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newSnap(4)
			tc.build(b)
			got, _ := Next(b.s, t0)
			if sr, ok := got.(StartRun); ok && sr.Ahead == nil {
				sr.Ahead = []string{}
				got = sr
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Next = %#v\nwant %#v", got, tc.want)
			}
		})
	}
}
