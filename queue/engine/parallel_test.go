package engine

import (
	"reflect"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// targets sets PR n's impacted targets for its head.
func (b *builder) targets(e *queue.Entry, all bool, names ...string) {
	if b.s.Targets == nil {
		b.s.Targets = map[int]*TargetSet{}
	}
	b.s.Targets[e.PRNumber] = NewTargetSet(&queue.Targets{SHA: e.PRSHA, All: all, List: names})
}

// mergedE9 records PR 9 (e9) as merged from H0 to H1, the target's head
// now, touching the given targets.
func (b *builder) mergedE9(names ...string) {
	b.s.TargetHead = "H1"
	b.s.Merges = []queue.MergeRecord{{EntryID: "e9", PRNumber: 9, Before: "H0", After: "H1"}}
	b.targets(&queue.Entry{PRNumber: 9, PRSHA: "sha9"}, false, names...)
}

func parallelSnap() *builder {
	b := newSnap(4)
	b.s.Queue.Settings.Mode = queue.ModeParallel
	return b
}

func TestParallel(t *testing.T) {
	tests := []struct {
		name  string
		build func(b *builder)
		want  Action
	}{
		{"entries wait not_ready for targets of their head", func(b *builder) {
			e := b.entry(1, queue.StateNotReady)
			b.targets(&queue.Entry{PRNumber: 1, PRSHA: "old"}, false, "x")
			_ = e
		}, Transition{EntryID: "e1", To: queue.StateNotReady, Detail: "waiting for impacted targets for head sha1 (setImpactedTargets)"}},
		{"independent entries test side by side without each other", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			b.targets(e1, false, "a")
			b.run(e1, queue.RunInProgress, "H0")
			e2 := b.entry(2, queue.StatePending)
			b.targets(e2, false, "b")
		}, StartRun{Unit: []string{"e2"}, Ahead: []string{}, BaseSHA: "H0", From: "H0", Merge: []string{"e2"}}},
		{"an entry overlapping two independent ones includes both", func(b *builder) {
			e1, e2 := b.entry(1, queue.StateTesting), b.entry(2, queue.StateTesting)
			b.targets(e1, false, "a")
			b.targets(e2, false, "b")
			b.run(e1, queue.RunInProgress, "H0")
			b.run(e2, queue.RunInProgress, "H0")
			e3 := b.entry(3, queue.StatePending)
			b.targets(e3, false, "a", "b")
		}, StartRun{Unit: []string{"e3"}, Ahead: []string{"e1", "e2"}, BaseSHA: "H0", From: "H0", Merge: []string{"e1", "e2", "e3"}}},
		{"parallel batches: consecutive waiting entries, their dependencies united", func(b *builder) {
			b.s.Queue.Settings.Batch, b.s.Queue.Settings.BatchingMinSize = true, 2
			e1, e2 := b.entry(1, queue.StateTesting), b.entry(2, queue.StateTesting)
			b.targets(e1, false, "a")
			b.targets(e2, false, "b")
			b.run(e1, queue.RunInProgress, "H0")
			b.run(e2, queue.RunInProgress, "H0")
			b.targets(b.entry(3, queue.StatePending), false, "a")
			b.targets(b.entry(4, queue.StatePending), false, "b")
		}, StartRun{Unit: []string{"e3", "e4"}, Ahead: []string{"e1", "e2"}, BaseSHA: "H0", From: "H0", Merge: []string{"e1", "e2", "e3", "e4"}}},
		{"a batch is one unit: depending on one member includes all", func(b *builder) {
			e1, e2 := b.entry(1, queue.StateTesting), b.entry(2, queue.StateTesting)
			b.targets(e1, false, "a")
			b.targets(e2, false, "b")
			b.batchRun("batch", []*queue.Entry{e1, e2}, queue.RunInProgress, "H0")
			b.targets(b.entry(3, queue.StatePending), false, "b")
		}, StartRun{Unit: []string{"e3"}, Ahead: []string{"e1", "e2"}, BaseSHA: "H0", From: "t-batch", Merge: []string{"e3"}}},
		{"ALL depends on everything ahead", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			b.targets(e1, false, "a")
			b.run(e1, queue.RunInProgress, "H0")
			e2 := b.entry(2, queue.StatePending)
			b.targets(e2, true)
		}, StartRun{Unit: []string{"e2"}, Ahead: []string{"e1"}, BaseSHA: "H0", From: "t-e1", Merge: []string{"e2"}}},
		{"an independent entry merges before an undecided one ahead", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			b.targets(e1, false, "a")
			b.run(e1, queue.RunInProgress, "H0")
			e2 := b.entry(2, queue.StateTestsPassed)
			b.targets(e2, false, "b")
			b.run(e2, queue.RunSucceeded, "H0")
		}, Merge{EntryID: "e2", RunID: "r-e2", Before: "H0"}},
		{"an independent merge keeps other runs valid", func(b *builder) {
			b.mergedE9("z")
			e1 := b.entry(1, queue.StateTestsPassed)
			b.targets(e1, false, "a")
			b.run(e1, queue.RunSucceeded, "H0")
		}, Merge{EntryID: "e1", RunID: "r-e1", Before: "H1"}},
		{"a dependent merge outside its run restarts it", func(b *builder) {
			b.mergedE9("a")
			e1 := b.entry(1, queue.StateTestsPassed)
			b.targets(e1, false, "a")
			b.run(e1, queue.RunSucceeded, "H0")
		}, Transition{EntryID: "e1", To: queue.StatePending, Reason: queue.ReasonRestartedBaseMoved,
			Detail: "the target branch moved outside the queue; testing again", ClearRun: true}},
		{"a culprit restarts only its dependents", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			b.targets(e1, false, "a")
			r := b.run(e1, queue.RunFailed, "H0")
			r.FailureReason, r.FailureDetail = queue.ReasonTestsFailed, "boom"
			e2 := b.entry(2, queue.StateTesting)
			b.targets(e2, false, "b")
			b.run(e2, queue.RunInProgress, "H0")
		}, Transition{EntryID: "e1", To: queue.StateFailed, Reason: queue.ReasonTestsFailed, Detail: "boom", ClearRun: true}},
		// e3 (ALL) was built on e2's run, which was built on e1's: its
		// sequence is e1, e2, e3, although e1 and e2 are independent.
		{"independent entries of a run's sequence may land out of order", func(b *builder) {
			b.mergedE9("b") // e2, merged first
			e1 := b.entry(1, queue.StateTesting)
			b.targets(e1, false, "a")
			b.run(e1, queue.RunInProgress, "H0")
			e3 := b.entry(3, queue.StateTesting)
			b.targets(e3, true)
			b.run(e3, queue.RunInProgress, "H0", "e1", "e9")
		}, nil},
		{"an entry of a run's sequence landing before one it overlaps restarts the run", func(b *builder) {
			b.mergedE9("a", "b")
			e1 := b.entry(1, queue.StatePending) // its own run restarted already
			b.targets(e1, false, "a")
			e3 := b.entry(3, queue.StateTesting)
			b.targets(e3, true)
			b.run(e3, queue.RunInProgress, "H0", "e1", "e9")
		}, Transition{EntryID: "e3", To: queue.StatePending, Reason: queue.ReasonRestartedBaseMoved,
			Detail: "the target branch moved outside the queue; testing again", ClearRun: true}},
		{"out-of-order landings of a sequence, then the rest in order, keep it valid", func(b *builder) {
			b.s.TargetHead = "H3"
			b.s.Merges = []queue.MergeRecord{
				{EntryID: "e8", PRNumber: 8, Before: "H0", After: "H1"}, // independent of e1
				{EntryID: "e1", PRNumber: 1, Before: "H1", After: "H2"},
				{EntryID: "e7", PRNumber: 7, Before: "H2", After: "H3"},
			}
			b.targets(&queue.Entry{PRNumber: 8, PRSHA: "sha8"}, false, "b")
			b.targets(&queue.Entry{PRNumber: 1, PRSHA: "sha1"}, false, "a")
			b.targets(&queue.Entry{PRNumber: 7, PRSHA: "sha7"}, false, "c")
			e3 := b.entry(3, queue.StateTestsPassed)
			b.targets(e3, true)
			b.run(e3, queue.RunSucceeded, "H0", "e1", "e8", "e7")
		}, Merge{EntryID: "e3", RunID: "r-e3", Before: "H3"}},
		{"in single mode a run's sequence lands in order", func(b *builder) {
			b.s.Queue.Settings.Mode = queue.ModeSingle
			b.s.TargetHead = "H1"
			b.s.Merges = []queue.MergeRecord{{EntryID: "e9", PRNumber: 9, Before: "H0", After: "H1"}}
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunInProgress, "H0")
			e3 := b.entry(3, queue.StateTesting)
			b.run(e3, queue.RunInProgress, "H0", "e1", "e9")
		}, Transition{EntryID: "e1", To: queue.StatePending, Reason: queue.ReasonRestartedBaseMoved,
			Detail: "the target branch moved outside the queue; testing again", ClearRun: true}},
		{"an empty target list depends on nothing", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			b.targets(e1, true)
			b.run(e1, queue.RunInProgress, "H0")
			e2 := b.entry(2, queue.StatePending)
			b.targets(e2, false)
		}, StartRun{Unit: []string{"e2"}, Ahead: []string{}, BaseSHA: "H0", From: "H0", Merge: []string{"e2"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := parallelSnap()
			tc.build(b)
			got, _ := Next(b.s, t0)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Next() =\n  %#v\nwant\n  %#v", got, tc.want)
			}
		})
	}
}

func TestTargetSetOverlaps(t *testing.T) {
	set := func(all bool, names ...string) *TargetSet { return NewTargetSet(&queue.Targets{All: all, List: names}) }
	tests := []struct {
		name string
		a, b *TargetSet
		want bool
	}{
		{"common target", set(false, "a", "b"), set(false, "b", "c"), true},
		{"disjoint", set(false, "a"), set(false, "b"), false},
		{"ALL meets a list", set(true), set(false, "z"), true},
		{"ALL meets ALL", set(true), set(true), true},
		{"empty meets nothing, not even ALL", set(false), set(true), false},
		{"unknown is assumed to overlap", nil, set(false, "a"), true},
	}
	for _, tc := range tests {
		if got := tc.a.Overlaps(tc.b); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
