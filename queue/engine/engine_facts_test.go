package engine

import (
	"reflect"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// Decisions the executor used to take on its own (reading the PR before
// failing it, blaming a conflict, refusing to test without required
// checks, holding a cancellation while a merge is in flight) are engine
// decisions over durable facts.
func TestEngineFacts(t *testing.T) {
	failedRun := func(b *builder) *queue.Entry {
		e := b.entry(1, queue.StateTesting)
		r := b.run(e, queue.RunFailed, "H0")
		r.FailureReason, r.FailureDetail = queue.ReasonTestsFailed, `required check "ci" failed`
		return e
	}
	tests := []struct {
		name  string
		build func(b *builder)
		now   time.Time
		want  Action
	}{
		{"a culprit fails on a fresh read of its PR", func(b *builder) { failedRun(b) }, t0,
			Transition{EntryID: "e1", To: queue.StateFailed, Reason: queue.ReasonTestsFailed, Detail: `required check "ci" failed`, ClearRun: true}},
		{"a read before the run failed does not count, however recent", func(b *builder) {
			failedRun(b)
			b.s.Runs[0].FinishedAt = t0.Add(time.Second)
		}, t0.Add(time.Second), RefreshPR{EntryID: "e1"}},
		{"a read after the run failed does", func(b *builder) {
			failedRun(b)
			b.s.Runs[0].FinishedAt = t0.Add(-time.Second)
		}, t0.Add(time.Second), Transition{EntryID: "e1", To: queue.StateFailed, Reason: queue.ReasonTestsFailed, Detail: `required check "ci" failed`, ClearRun: true}},
		{"a culprit whose PR was read long ago is read again first", func(b *builder) {
			failedRun(b).PRCheckedAt = t0.Add(-time.Minute)
		}, t0, RefreshPR{EntryID: "e1"}},
		{"a culprit never read by the queue is read first", func(b *builder) {
			failedRun(b).PRCheckedAt = time.Time{}
		}, t0, RefreshPR{EntryID: "e1"}},
		{"the fresh read shows the PR merged by hand: merged_manually, not failed", func(b *builder) {
			e := failedRun(b)
			e.PR.Merged = true
		}, t0, Transition{EntryID: "e1", To: queue.StateMerged, Reason: queue.ReasonMergedManually,
			Detail: "the pull request was merged outside the queue", ClearRun: true}},

		{"required checks unknown: nothing starts", func(b *builder) {
			b.s.Required = nil
			b.entry(1, queue.StatePending)
		}, t0, nil},
		{"nothing required anywhere: no_required_statuses", func(b *builder) {
			b.s.Required = &RequiredChecks{Unset: true}
			b.entry(1, queue.StatePending)
		}, t0, Transition{EntryID: "e1", To: queue.StateFailed, Reason: queue.ReasonNoRequiredStatuses, ClearRun: true,
			Detail: "branch protection of main requires no status checks and the queue sets no requiredStatuses: refusing to merge untested code"}},
		{"an explicit empty override tests", func(b *builder) {
			b.s.Required = &RequiredChecks{Names: []string{}}
			b.entry(1, queue.StatePending)
		}, t0, StartRun{Unit: []string{"e1"}, Ahead: []string{}, BaseSHA: "H0", From: "H0", Merge: []string{"e1"}}},

		{"a conflict is probed first", func(b *builder) {
			b.entry(1, queue.StateTesting)
			e := b.entry(2, queue.StatePending)
			e.Conflict = &queue.Conflict{Base: "H0", Before: []string{"e1"}}
		}, t0, ProbeConflict{EntryID: "e2", Base: "H0", Before: []string{"e1"}}},
		{"a conflict with the target alone fails the entry", func(b *builder) {
			e := b.entry(2, queue.StatePending)
			e.Conflict = &queue.Conflict{Base: "H0", Probed: true, Alone: true}
		}, t0, Transition{EntryID: "e2", To: queue.StateFailed, Reason: queue.ReasonMergeConflict, ClearRun: true,
			Detail: "the pull request conflicts with main; rebase it and submit again"}},
		{"a conflict with an entry ahead waits for it", func(b *builder) {
			b.entry(1, queue.StateTesting)
			b.entry(3, queue.StateTesting)
			e := b.entry(4, queue.StatePending)
			e.StateReason = queue.ReasonAdmitted
			e.Conflict = &queue.Conflict{Base: "H0", Before: []string{"e1", "e3"}, Probed: true, With: "e1"}
		}, t0, Transition{EntryID: "e4", To: queue.StatePending, Reason: queue.ReasonAdmitted, BlockedBy: "e1", ClearConflict: true,
			Detail: "conflicts with #1 ahead in the queue; waiting for it to merge or leave"}},
		{"no single culprit found: waits for the nearest entry it was built on", func(b *builder) {
			b.entry(1, queue.StateTesting)
			b.entry(3, queue.StateTesting)
			e := b.entry(4, queue.StatePending)
			e.Conflict = &queue.Conflict{Base: "H0", Before: []string{"e1", "e3"}, Probed: true}
		}, t0, Transition{EntryID: "e4", To: queue.StatePending, BlockedBy: "e3", ClearConflict: true,
			Detail: "conflicts with #3 ahead in the queue; waiting for it to merge or leave"}},
		{"everything it was built on left: tested again", func(b *builder) {
			e := b.entry(4, queue.StatePending)
			e.Conflict = &queue.Conflict{Base: "H0", Before: []string{"e1", "e3"}, Probed: true, With: "e1"}
		}, t0, Transition{EntryID: "e4", To: queue.StatePending, ClearConflict: true,
			Detail: "the pull requests it conflicted with left the queue; testing again"}},

		{"a cancellation waits while a merge is in flight", func(b *builder) {
			e := b.entry(1, queue.StateTestsPassed)
			b.run(e, queue.RunSucceeded, "H0")
			e.MergeIntent, e.MergeBase = true, "H0"
			e.CancelReason, e.CancelDetail = queue.ReasonUserRequested, "cancelled by @alice"
		}, t0, ResolveMerge{EntryID: "e1", RunID: "r-e1", Before: "H0"}},
		{"then applies", func(b *builder) {
			e := b.entry(1, queue.StateTestsPassed)
			b.run(e, queue.RunSucceeded, "H0")
			e.CancelReason, e.CancelDetail = queue.ReasonUserRequested, "cancelled by @alice"
		}, t0, Transition{EntryID: "e1", To: queue.StateCancelled, Reason: queue.ReasonUserRequested, Detail: "cancelled by @alice", ClearRun: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newSnap(2)
			tc.build(b)
			got, _ := Next(b.s, tc.now)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Next() =\n  %#v\nwant\n  %#v", got, tc.want)
			}
		})
	}
}
