package engine

import (
	"reflect"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// batchRun attaches one run to several entries.
func (b *builder) batchRun(id string, es []*queue.Entry, status queue.RunStatus, base string, ahead ...string) *queue.TestRun {
	r := &queue.TestRun{ID: id, QueueID: 1, BaseSHA: base, Ahead: ahead, SHA: "t-" + id, Branch: "mq-merge/x",
		RequiredChecks: []string{"ci"}, Status: status, StartedAt: t0}
	for _, e := range es {
		r.EntryIDs = append(r.EntryIDs, e.ID)
		r.PRNumbers = append(r.PRNumbers, e.PRNumber)
		e.RunID = id
	}
	b.s.Runs = append(b.s.Runs, r)
	return r
}

func admittedAt(e *queue.Entry, t time.Time) *queue.Entry { e.AdmittedAt = t; return e }

func TestStrategies(t *testing.T) {
	tests := []struct {
		name  string
		build func(b *builder)
		now   time.Time
		want  Action
	}{
		// Batching (SPEC §5.4).
		{"batch waits for batchingMinSize", func(b *builder) {
			b.s.Queue.Settings.Batch, b.s.Queue.Settings.BatchingMinSize = true, 3
			admittedAt(b.entry(1, queue.StatePending), t0)
			admittedAt(b.entry(2, queue.StatePending), t0)
		}, t0.Add(time.Minute), nil},
		{"batch starts once the oldest waited batchingMaxWaitTimeMinutes", func(b *builder) {
			b.s.Queue.Settings.Batch, b.s.Queue.Settings.BatchingMinSize = true, 3
			admittedAt(b.entry(1, queue.StatePending), t0)
			admittedAt(b.entry(2, queue.StatePending), t0)
		}, t0.Add(5 * time.Minute), StartRun{Unit: []string{"e1", "e2"}, Ahead: []string{}, BaseSHA: "H0", From: "H0", Merge: []string{"e1", "e2"}}},
		{"batch holds at most batchingMaxSize", func(b *builder) {
			b.s.Queue.Settings.Batch, b.s.Queue.Settings.BatchingMinSize, b.s.Queue.Settings.BatchingMaxSize = true, 2, 3
			for n := 1; n <= 5; n++ {
				b.entry(n, queue.StatePending)
			}
		}, t0, StartRun{Unit: []string{"e1", "e2", "e3"}, Ahead: []string{}, BaseSHA: "H0", From: "H0", Merge: []string{"e1", "e2", "e3"}}},
		{"noBatch entries are tested alone and end a batch", func(b *builder) {
			b.s.Queue.Settings.Batch, b.s.Queue.Settings.BatchingMinSize = true, 1
			b.entry(1, queue.StatePending)
			b.entry(2, queue.StatePending).NoBatch = true
			b.entry(3, queue.StatePending)
		}, t0, StartRun{Unit: []string{"e1"}, Ahead: []string{}, BaseSHA: "H0", From: "H0", Merge: []string{"e1"}}},
		{"batches do not mix priorities", func(b *builder) {
			b.s.Queue.Settings.Batch, b.s.Queue.Settings.BatchingMinSize = true, 1
			b.entry(1, queue.StatePending).PriorityValue = queue.PriorityHigh
			b.entry(2, queue.StatePending)
		}, t0, StartRun{Unit: []string{"e1"}, Ahead: []string{}, BaseSHA: "H0", From: "H0", Merge: []string{"e1"}}},
		{"a passing batch passes every entry", func(b *builder) {
			e1, e2 := b.entry(1, queue.StateTesting), b.entry(2, queue.StateTesting)
			b.batchRun("r", []*queue.Entry{e1, e2}, queue.RunSucceeded, "H0")
			e1.State = queue.StateTestsPassed
		}, t0, Transition{EntryID: "e2", To: queue.StateTestsPassed, Reason: queue.ReasonTestsPassed}},
		{"second entry of a merged batch merges on the batch's run", func(b *builder) {
			b.s.TargetHead = "H1"
			b.s.Merges = []queue.MergeRecord{{EntryID: "e1", Before: "H0", After: "H1"}}
			e2 := b.entry(2, queue.StateTestsPassed)
			r := b.batchRun("r", []*queue.Entry{e2}, queue.RunSucceeded, "H0")
			r.EntryIDs, r.PRNumbers = []string{"e1", "e2"}, []int{1, 2}
		}, t0, Merge{EntryID: "e2", RunID: "r", Before: "H1"}},

		// Bisection.
		{"a failed batch is bisected: first half on the batch's base", func(b *builder) {
			es := []*queue.Entry{b.entry(1, queue.StateTesting), b.entry(2, queue.StateTesting), b.entry(3, queue.StateTesting), b.entry(4, queue.StateTesting)}
			b.batchRun("r", es, queue.RunFailed, "H0").FailureReason = queue.ReasonTestsFailed
		}, t0, StartRun{Unit: []string{"e1", "e2"}, Ahead: []string{}, BaseSHA: "H0", From: "H0", Merge: []string{"e1", "e2"}, Bisection: true, Parent: "r"}},
		{"the second half is retested on top of the first", func(b *builder) {
			e1, e2, e3, e4 := b.entry(1, queue.StateTesting), b.entry(2, queue.StateTesting), b.entry(3, queue.StatePendingFailure), b.entry(4, queue.StatePendingFailure)
			b.batchRun("r", []*queue.Entry{e1, e2, e3, e4}, queue.RunFailed, "H0").FailureReason = queue.ReasonTestsFailed
			h1 := b.batchRun("h1", []*queue.Entry{e1, e2}, queue.RunInProgress, "H0")
			h1.Bisection = true
		}, t0, StartRun{Unit: []string{"e3", "e4"}, Ahead: []string{"e1", "e2"}, BaseSHA: "H0", From: "t-h1", Merge: []string{"e3", "e4"}, Bisection: true, Parent: "r"}},
		{"bisectionParts 4: a failed batch of 4 is split into single entries", func(b *builder) {
			b.s.Queue.Settings.BisectionParts = 4
			es := []*queue.Entry{b.entry(1, queue.StateTesting), b.entry(2, queue.StateTesting), b.entry(3, queue.StateTesting), b.entry(4, queue.StateTesting)}
			b.batchRun("r", es, queue.RunFailed, "H0").FailureReason = queue.ReasonTestsFailed
		}, t0, StartRun{Unit: []string{"e1"}, Ahead: []string{}, BaseSHA: "H0", From: "H0", Merge: []string{"e1"}, Bisection: true, Parent: "r"}},
		{"bisectionParts 4: the next part is tested at once on top of the first", func(b *builder) {
			b.s.Queue.Settings.BisectionParts = 4
			e1, e2, e3, e4 := b.entry(1, queue.StateTesting), b.entry(2, queue.StatePendingFailure), b.entry(3, queue.StatePendingFailure), b.entry(4, queue.StatePendingFailure)
			b.batchRun("r", []*queue.Entry{e1, e2, e3, e4}, queue.RunFailed, "H0").FailureReason = queue.ReasonTestsFailed
			b.batchRun("p1", []*queue.Entry{e1}, queue.RunInProgress, "H0").Bisection = true
		}, t0, StartRun{Unit: []string{"e2"}, Ahead: []string{"e1"}, BaseSHA: "H0", From: "t-p1", Merge: []string{"e2"}, Bisection: true, Parent: "r"}},
		{"skip-redundant: the second half waits for the first instead of a retest", func(b *builder) {
			b.s.Queue.Settings.OptimizationMode = queue.OptimizationBisectionSkipTests
			e1, e2, e3, e4 := b.entry(1, queue.StateTesting), b.entry(2, queue.StateTesting), b.entry(3, queue.StateTesting), b.entry(4, queue.StateTesting)
			b.batchRun("r", []*queue.Entry{e1, e2, e3, e4}, queue.RunFailed, "H0").FailureReason = queue.ReasonTestsFailed
			b.batchRun("h1", []*queue.Entry{e1, e2}, queue.RunInProgress, "H0").Bisection = true
		}, t0, Transition{EntryID: "e3", To: queue.StatePendingFailure, Reason: queue.ReasonTestsFailed,
			Detail: "tests failed; waiting for #1 ahead to decide whether it caused the failure"}},
		{"skip-redundant: once the first half passed, the last entry is the culprit untested", func(b *builder) {
			b.s.Queue.Settings.OptimizationMode = queue.OptimizationBisectionSkipTests
			e1, e2 := b.entry(1, queue.StateTestsPassed), b.entry(2, queue.StatePendingFailure)
			r := b.batchRun("r", []*queue.Entry{e1, e2}, queue.RunFailed, "H0")
			r.FailureReason, r.FailureDetail = queue.ReasonTestsFailed, "ci failed"
			b.batchRun("h1", []*queue.Entry{e1}, queue.RunSucceeded, "H0").Bisection = true
		}, t0, Transition{EntryID: "e2", To: queue.StateFailed, Reason: queue.ReasonTestsFailed, Detail: "ci failed", ClearRun: true}},
		{"a failed batch waits for pendingFailureDepth successors before bisecting", func(b *builder) {
			b.s.Queue.Settings.PendingFailureDepth = 1
			e1, e2 := b.entry(1, queue.StateTesting), b.entry(2, queue.StateTesting)
			r := b.batchRun("r", []*queue.Entry{e1, e2}, queue.RunFailed, "H0")
			r.FailureReason, r.FailureDetail = queue.ReasonTestsFailed, "ci failed"
			b.run(b.entry(3, queue.StateTesting), queue.RunInProgress, "H0", "e1", "e2")
		}, t0, Transition{EntryID: "e1", To: queue.StatePendingFailure, Reason: queue.ReasonTestsFailed,
			Detail: "tests failed (ci failed); waiting for 1 more run(s) behind it before deciding"}},
		{"a failed batch is vouched for by a passing successor (optimistic merging)", func(b *builder) {
			b.s.Queue.Settings.PendingFailureDepth, b.s.Queue.Settings.CanOptimisticallyMerge = 1, true
			e1, e2 := b.entry(1, queue.StateTestsPassed), b.entry(2, queue.StatePendingFailure)
			r := b.batchRun("r", []*queue.Entry{e1, e2}, queue.RunFailed, "H0")
			r.FailureReason, r.FailureDetail = queue.ReasonTestsFailed, "ci failed"
			e1.Vouched = true // the first entry is vouched already: the second follows
			b.run(b.entry(3, queue.StateTestsPassed), queue.RunSucceeded, "H0", "e1", "e2").PRNumbers = []int{3}
		}, t0, Transition{EntryID: "e2", To: queue.StateTestsPassed, Reason: queue.ReasonVouched,
			Detail: "its own run failed (ci failed), but a later run containing it passed (#3): treated as a flake"}},
		{"bisection runs wait for a bisection slot", func(b *builder) {
			b.s.Queue.Settings.BisectionConcurrency = 1
			e1, e2 := b.entry(1, queue.StateTesting), b.entry(2, queue.StateTesting)
			b.batchRun("r", []*queue.Entry{e1, e2}, queue.RunFailed, "H0").FailureReason = queue.ReasonTestsFailed
			b.batchRun("other", nil, queue.RunInProgress, "H0").Bisection = true
		}, t0, Transition{EntryID: "e1", To: queue.StatePendingFailure, Reason: queue.ReasonTestsFailed,
			Detail: "the batch failed; waiting for a bisection slot to find the culprit"}},

		// Pending failure depth and optimistic merging (SPEC §5.3).
		{"pendingFailureDepth waits for successors", func(b *builder) {
			b.s.Queue.Settings.PendingFailureDepth = 1
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunFailed, "H0").FailureDetail = "ci failed"
			b.run(b.entry(2, queue.StateTesting), queue.RunInProgress, "H0", "e1")
		}, t0, Transition{EntryID: "e1", To: queue.StatePendingFailure, Detail: "tests failed (ci failed); waiting for 1 more run(s) behind it before deciding"}},
		{"a passing successor vouches with optimistic merging", func(b *builder) {
			b.s.Queue.Settings.CanOptimisticallyMerge = true
			e1 := b.entry(1, queue.StatePendingFailure)
			b.run(e1, queue.RunFailed, "H0").FailureDetail = "flaky"
			b.run(b.entry(2, queue.StateTestsPassed), queue.RunSucceeded, "H0", "e1")
		}, t0, Transition{EntryID: "e1", To: queue.StateTestsPassed, Reason: queue.ReasonVouched,
			Detail: "its own run failed (flaky), but a later run containing it passed (#2): treated as a flake"}},
		{"without optimistic merging a passing successor does not vouch", func(b *builder) {
			e1 := b.entry(1, queue.StatePendingFailure)
			r := b.run(e1, queue.RunFailed, "H0")
			r.FailureReason, r.FailureDetail = queue.ReasonTestsFailed, "ci failed"
			b.run(b.entry(2, queue.StateTestsPassed), queue.RunSucceeded, "H0", "e1")
		}, t0, Transition{EntryID: "e1", To: queue.StateFailed, Reason: queue.ReasonTestsFailed, Detail: "ci failed", ClearRun: true}},
		{"a vouched entry merges on its failed run", func(b *builder) {
			e1 := b.entry(1, queue.StateTestsPassed)
			e1.Vouched = true
			b.run(e1, queue.RunFailed, "H0")
		}, t0, Merge{EntryID: "e1", RunID: "r-e1", Before: "H0"}},
		{"depth wait ends when nothing behind can run", func(b *builder) {
			b.s.Queue.Settings.PendingFailureDepth = 2
			e1 := b.entry(1, queue.StatePendingFailure)
			r := b.run(e1, queue.RunFailed, "H0")
			r.FailureReason, r.FailureDetail = queue.ReasonTestsFailed, "ci failed"
		}, t0, Transition{EntryID: "e1", To: queue.StateFailed, Reason: queue.ReasonTestsFailed, Detail: "ci failed", ClearRun: true}},

		// Priorities (SPEC §5.1).
		{"a higher priority does not overtake entries already testing", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			e1.Position = 1
			b.run(e1, queue.RunInProgress, "H0")
			b.entry(2, queue.StatePending).PriorityValue = queue.PriorityHigh
		}, t0, StartRun{Unit: []string{"e2"}, Ahead: []string{"e1"}, BaseSHA: "H0", From: "t-e1", Merge: []string{"e2"}}},
		{"urgent pre-empts runs in progress", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			e1.Position = 1
			b.run(e1, queue.RunInProgress, "H0")
			b.entry(2, queue.StatePending).PriorityValue = queue.PriorityUrgent
		}, t0, Transition{EntryID: "e1", To: queue.StatePending, Reason: queue.ReasonRestartedPreempted,
			Detail: "the urgent #2 goes first; testing again behind it", ClearRun: true}},
		{"urgent does not pre-empt an entry whose tests passed", func(b *builder) {
			b.s.Queue.State = queue.QueueRunning
			e1 := b.entry(1, queue.StateTestsPassed)
			e1.Position = 1
			b.run(e1, queue.RunSucceeded, "H0")
			b.s.Queue.State = queue.QueuePaused // nothing merges or starts: only pre-emption could act
			b.entry(2, queue.StatePending).PriorityValue = queue.PriorityUrgent
		}, t0, nil},

		// Queue states (SPEC §4).
		{"switching_modes applies once nothing is testing", func(b *builder) {
			b.s.Queue.State, b.s.Queue.PendingMode, b.s.Queue.ResumeState = queue.QueueSwitchingModes, queue.ModeParallel, queue.QueueRunning
		}, t0, ApplyMode{}},
		{"switching_modes waits for runs in progress and starts none", func(b *builder) {
			b.s.Queue.State, b.s.Queue.PendingMode = queue.QueueSwitchingModes, queue.ModeParallel
			b.run(b.entry(1, queue.StateTesting), queue.RunInProgress, "H0")
			b.entry(2, queue.StatePending)
		}, t0, nil},
		{"draining admits nothing but still tests", func(b *builder) {
			b.s.Queue.State = queue.QueueDraining
			e := b.entry(1, queue.StateNotReady)
			e.StateReasonDetail = "the queue is draining"
			b.entry(2, queue.StatePending)
		}, t0, StartRun{Unit: []string{"e2"}, Ahead: []string{}, BaseSHA: "H0", From: "H0", Merge: []string{"e2"}}},
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

func TestDirectMergeProposal(t *testing.T) {
	b := newSnap(1)
	b.s.Queue.Settings.DirectMergeMode = queue.DirectMergeAlways
	e1 := b.entry(1, queue.StatePending)
	b.entry(2, queue.StatePending)
	run := StartRun{Unit: []string{"e1"}, Ahead: []string{}, BaseSHA: "H0", From: "H0", Merge: []string{"e1"}}
	steps := []struct {
		name string
		edit func()
		want Action
	}{
		{"never checked: check on the target head", func() {}, CheckDirect{EntryID: "e1", Before: "H0"}},
		{"its head lacks the target head: a test run", func() { e1.DirectBase = "H0" }, run},
		{"contains it, checks pending: a test run", func() { e1.DirectContains = true }, run},
		{"contains it, required check passed: merge directly", func() { b.check("sha1", queue.CheckSuccess) },
			Merge{EntryID: "e1", Before: "H0"}},
		{"nothing required by protection: a test run (and no_required_statuses)", func() {
			b.s.Required = &RequiredChecks{Unset: true}
		}, Transition{EntryID: "e1", To: queue.StateFailed, Reason: queue.ReasonNoRequiredStatuses, ClearRun: true,
			Detail: "branch protection of main requires no status checks and the queue sets no requiredStatuses: refusing to merge untested code"}},
		{"an explicit empty override: merge directly", func() { b.s.Required = &RequiredChecks{Names: []string{}} },
			Merge{EntryID: "e1", Before: "H0"}},
		{"the target moved: check again", func() { b.s.TargetHead = "H1" }, CheckDirect{EntryID: "e1", Before: "H1"}},
	}
	for _, st := range steps {
		st.edit()
		if got, _ := Next(b.s, t0); !reflect.DeepEqual(got, st.want) {
			t.Fatalf("%s: Next() =\n  %#v\nwant\n  %#v", st.name, got, st.want)
		}
	}
}
