package engine

import (
	"reflect"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// isolationRun adds e's isolation run on base with the given status.
func (b *builder) isolationRun(e *queue.Entry, status queue.RunStatus, base string) *queue.TestRun {
	r := &queue.TestRun{ID: "i-" + e.ID, QueueID: 1, EntryIDs: []string{e.ID}, PRNumbers: []int{e.PRNumber}, PRSHAs: []string{e.PRSHA},
		Ahead: []string{}, BaseSHA: base, SHA: "ti-" + e.ID, Branch: "mq-merge/i", RequiredChecks: []string{"ci"}, Status: status,
		StartedAt: t0, Isolation: true}
	e.IsolationRunID = r.ID
	b.s.Runs = append(b.s.Runs, r)
	return r
}

// TestIsolationRuns: with isolationRuns on, each admitted PR is also
// tested alone on the target head; a PR failing alone twice leaves before
// its chain run fails; a PR that passed alone has a chain failure retested
// once instead of failing; nothing merges on an isolation run's word.
func TestIsolationRuns(t *testing.T) {
	const flakyFailure = "required check \"ci\" failed (failure)"
	const ownIsolationDetail = "tested alone on the target branch first: joins the test runs of the queue once that run passed"
	tests := []struct {
		name  string
		build func(b *builder)
		want  Action
	}{
		{"off by default: no isolation run", func(b *builder) {
			b.s.Queue.Settings.IsolationRuns = false
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunInProgress, "H0")
		}, nil},
		{"an admitted PR is tested alone on the target head, beside its chain run", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunInProgress, "H0")
		}, StartRun{Unit: []string{"e1"}, Ahead: []string{}, BaseSHA: "H0", From: "H0", Merge: []string{"e1"}, Isolation: true}},
		{"a PR that has not passed alone yet does not join the chain: it says why", func(b *builder) {
			b.entry(1, queue.StatePending)
		}, Transition{EntryID: "e1", To: queue.StatePending, Quiet: true, Detail: ownIsolationDetail}},
		{"it is tested alone first", func(b *builder) {
			e1 := b.entry(1, queue.StatePending)
			e1.StateReasonDetail = ownIsolationDetail
		}, StartRun{Unit: []string{"e1"}, Ahead: []string{}, BaseSHA: "H0", From: "H0", Merge: []string{"e1"}, Isolation: true}},
		{"once it passed alone, it joins the chain", func(b *builder) {
			e1 := b.entry(1, queue.StatePending)
			e1.IsolationPassed = true
		}, StartRun{Unit: []string{"e1"}, Ahead: []string{}, BaseSHA: "H0", From: "H0", Merge: []string{"e1"}}},
		{"a PR that passed alone joins the chain past one still tested alone (its run leaves it out)", func(b *builder) {
			e1 := b.entry(1, queue.StatePending)
			e1.StateReasonDetail = ownIsolationDetail
			b.isolationRun(e1, queue.RunInProgress, "H0")
			b.entry(2, queue.StatePending).IsolationPassed = true
		}, StartRun{Unit: []string{"e2"}, Ahead: []string{}, BaseSHA: "H0", From: "H0", Merge: []string{"e2"}}},
		{"a batch goes on past a PR still tested alone", func(b *builder) {
			b.s.Queue.Settings.Batch, b.s.Queue.Settings.BatchingMinSize, b.s.Queue.Settings.BatchingMaxSize = true, 2, 8
			b.entry(1, queue.StatePending).IsolationPassed = true
			b.entry(2, queue.StatePending).IsolationPassed = true
			e3 := b.entry(3, queue.StatePending)
			e3.StateReasonDetail = ownIsolationDetail
			b.isolationRun(e3, queue.RunInProgress, "H0")
			b.entry(4, queue.StatePending).IsolationPassed = true
		}, StartRun{Unit: []string{"e1", "e2", "e4"}, Ahead: []string{}, BaseSHA: "H0", From: "H0", Merge: []string{"e1", "e2", "e4"}}},
		{"an urgent PR still tested alone pre-empts nobody", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			e1.Position, e1.IsolationPassed = 1, true
			b.run(e1, queue.RunInProgress, "H0")
			e2 := b.entry(2, queue.StatePending)
			e2.PriorityValue, e2.StateReasonDetail = queue.PriorityUrgent, ownIsolationDetail
		}, StartRun{Unit: []string{"e2"}, Ahead: []string{}, BaseSHA: "H0", From: "H0", Merge: []string{"e2"}, Isolation: true}},
		{"once it passed alone it pre-empts", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			e1.Position, e1.IsolationPassed = 1, true
			b.run(e1, queue.RunInProgress, "H0")
			e2 := b.entry(2, queue.StatePending)
			e2.PriorityValue, e2.IsolationPassed = queue.PriorityUrgent, true
		}, Transition{EntryID: "e1", To: queue.StatePending, Reason: queue.ReasonRestartedPreempted, ClearRun: true,
			Detail: "the urgent #2 goes first; testing again behind it"}},
		{"a PR that failed alone once waits for its retry before joining the chain", func(b *builder) {
			e1 := b.entry(1, queue.StatePending)
			e1.IsolationFailures = 1
			b.isolationRun(e1, queue.RunInProgress, "H0")
		}, Transition{EntryID: "e1", To: queue.StatePending, Quiet: true, Detail: ownIsolationDetail}},
		{"a PR that failed alone twice leaves without ever joining the chain", func(b *builder) {
			e1 := b.entry(1, queue.StatePending)
			e1.PRCheckedAt = t0
			e1.IsolationFailures = 2
		}, Transition{EntryID: "e1", To: queue.StateFailed, Reason: queue.ReasonTestsFailed, ClearRun: true,
			Detail: "tested alone on main, its tests failed 2 times: it would fail every test run it is part of, so it leaves the queue before it does"}},
		{"a failed batch of PRs that passed alone is bet to be a flake: runs behind it go on", func(b *builder) {
			b.s.Queue.Settings.PendingFailureDepth, b.s.Queue.Settings.CanOptimisticallyMerge = 1, true
			b.s.Queue.Settings.Batch, b.s.Queue.Settings.BatchingMinSize, b.s.Queue.Settings.BatchingMaxSize = true, 1, 2
			e1, e2 := b.entry(1, queue.StatePendingFailure), b.entry(2, queue.StatePendingFailure)
			e1.IsolationPassed, e2.IsolationPassed = true, true
			e1.StateReason, e2.StateReason = queue.ReasonTestsFailed, queue.ReasonTestsFailed
			e1.StateReasonDetail = "tests failed (" + flakyFailure + "); waiting for 1 more run(s) behind it before deciding"
			e2.StateReasonDetail = e1.StateReasonDetail
			r := b.run(e1, queue.RunFailed, "H0")
			r.EntryIDs, r.PRNumbers, r.PRSHAs, e2.RunID = []string{"e1", "e2"}, []int{1, 2}, []string{e1.PRSHA, e2.PRSHA}, r.ID
			r.FailureReason, r.FailureDetail = queue.ReasonTestsFailed, flakyFailure
			e3 := b.entry(3, queue.StateTesting)
			e3.IsolationPassed = true
			b.run(e3, queue.RunInProgress, "H0", "e1", "e2")
			b.entry(4, queue.StatePending).IsolationPassed = true
		}, StartRun{Unit: []string{"e4"}, Ahead: []string{"e1", "e2", "e3"}, BaseSHA: "H0", From: "t-e3", Merge: []string{"e4"}}},
		{"isolation runs share bisectionConcurrency's slots", func(b *builder) {
			b.s.Queue.Settings.BisectionConcurrency = 1
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunInProgress, "H0")
			b.isolationRun(e1, queue.RunInProgress, "H0")
			e2 := b.entry(2, queue.StateTesting)
			b.run(e2, queue.RunInProgress, "H0", "e1")
		}, nil},
		{"a passed isolation run is recorded on its entry", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunInProgress, "H0")
			b.isolationRun(e1, queue.RunSucceeded, "H0")
		}, IsolationResult{EntryID: "e1", RunID: "i-e1", Passed: true}},
		{"a failed isolation run is recorded, then retried once", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunInProgress, "H0")
			b.isolationRun(e1, queue.RunFailed, "H0")
		}, IsolationResult{EntryID: "e1", RunID: "i-e1", Passed: false}},
		{"after one failure alone it is tested alone again", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunInProgress, "H0")
			e1.IsolationFailures = 1
		}, StartRun{Unit: []string{"e1"}, Ahead: []string{}, BaseSHA: "H0", From: "H0", Merge: []string{"e1"}, Isolation: true}},
		{"after two failures alone it leaves before its chain run fails", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			e1.PRCheckedAt = t0
			b.run(e1, queue.RunInProgress, "H0")
			e1.IsolationFailures = 2
			e2 := b.entry(2, queue.StateTesting)
			b.run(e2, queue.RunInProgress, "H0", "e1")
		}, Transition{EntryID: "e1", To: queue.StateFailed, Reason: queue.ReasonTestsFailed, ClearRun: true,
			Detail: "tested alone on main, its tests failed 2 times: it would fail every test run it is part of, so it leaves the queue before it does"}},
		{"leaving is final: the PR is read first", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			e1.PRCheckedAt = t0.Add(-PRFreshness - 1)
			b.run(e1, queue.RunInProgress, "H0")
			e1.IsolationFailures = 2
		}, RefreshPR{EntryID: "e1"}},
		{"a PR whose chain tests passed stays whatever it did alone", func(b *builder) {
			e1 := b.entry(1, queue.StateTestsPassed)
			b.run(e1, queue.RunSucceeded, "H0")
			e1.IsolationFailures = 2
		}, Merge{EntryID: "e1", RunID: "r-e1", Before: "H0"}},
		{"the isolation run of an entry that left is closed", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunInProgress, "H0")
			b.isolationRun(e1, queue.RunInProgress, "H0")
			e1.IsolationRunID = ""
		}, CloseRun{RunID: "i-e1"}},
		{"a paused queue switching modes merges nothing while an isolation run ends", func(b *builder) {
			b.s.Queue.State, b.s.Queue.ResumeState, b.s.Queue.PendingMode = queue.QueueSwitchingModes, queue.QueuePaused, queue.ModeParallel
			e1 := b.entry(1, queue.StateTestsPassed)
			b.run(e1, queue.RunSucceeded, "H0")
			b.isolationRun(e1, queue.RunInProgress, "H0")
		}, nil},
		{"a chain failure waits for the isolation run in progress", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			r := b.run(e1, queue.RunFailed, "H0")
			r.FailureReason, r.FailureDetail = queue.ReasonTestsFailed, flakyFailure
			b.isolationRun(e1, queue.RunInProgress, "H0")
		}, Transition{EntryID: "e1", To: queue.StatePendingFailure, Reason: queue.ReasonTestsFailed,
			Detail: "tests failed (" + flakyFailure + "); waiting for its isolation run to tell a flake from a broken pull request"}},
		{"a chain failure of a PR that passed alone is retested once", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			r := b.run(e1, queue.RunFailed, "H0")
			r.FailureReason, r.FailureDetail = queue.ReasonTestsFailed, flakyFailure
			e1.IsolationPassed = true
		}, Transition{EntryID: "e1", To: queue.StatePending, Reason: queue.ReasonTestsFailed, ClearRun: true, FlakeRetry: true,
			Detail: "its tests failed in the queue (" + flakyFailure + ") but passed alone on main: treated as a flake, testing again once"}},
		{"failing in the queue after failing alone once fails it at once", func(b *builder) {
			b.s.Queue.Settings.PendingFailureDepth = 1
			e1 := b.entry(1, queue.StateTesting)
			r := b.run(e1, queue.RunFailed, "H0")
			r.FailureReason, r.FailureDetail, r.FinishedAt = queue.ReasonTestsFailed, flakyFailure, t0
			e1.IsolationFailures = 1
			b.entry(2, queue.StatePending) // a successor could still start
		}, Transition{EntryID: "e1", To: queue.StateFailed, Reason: queue.ReasonTestsFailed, ClearRun: true,
			Detail: flakyFailure + "; it also failed alone on main"}},
		{"runs still start behind a PR that failed alone once (holding them costs more throughput than it saves)", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunInProgress, "H0")
			e1.IsolationFailures = 1
			b.isolationRun(e1, queue.RunInProgress, "H0")
			b.entry(2, queue.StatePending).IsolationPassed = true
		}, StartRun{Unit: []string{"e2"}, Ahead: []string{"e1"}, BaseSHA: "H0", From: "t-e1", Merge: []string{"e2"}}},
		{"a second chain failure fails it", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			r := b.run(e1, queue.RunFailed, "H0")
			r.FailureReason, r.FailureDetail, r.FinishedAt = queue.ReasonTestsFailed, flakyFailure, t0
			e1.IsolationPassed, e1.FlakeRetried = true, true
		}, Transition{EntryID: "e1", To: queue.StateFailed, Reason: queue.ReasonTestsFailed, Detail: flakyFailure, ClearRun: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newSnap(4)
			b.s.Queue.Settings.IsolationRuns = true
			tc.build(b)
			got, _ := Next(b.s, t0)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Next() =\n  %#v\nwant\n  %#v", got, tc.want)
			}
		})
	}
}
