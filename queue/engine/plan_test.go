package engine

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// builder makes snapshots for engine tests.
type builder struct{ s *Snapshot }

func newSnap(concurrency int) *builder {
	st := queue.DefaultSettings()
	st.Concurrency = concurrency
	st.RequiredStatuses = []string{"ci"}
	st.ChecksStartTimeoutMinutes = 0 // runs here report when the test says (checks_start_test.go sets it)
	q := &queue.Queue{ID: 1, Key: queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: "o", Name: "r"}, Branch: "main"}, State: queue.QueueRunning, Settings: st}
	return &builder{s: &Snapshot{Queue: q, TargetHead: "H0", Checks: map[string][]queue.CheckResult{},
		Required: &RequiredChecks{Names: []string{"ci"}}}}
}

func openFacts(n int) queue.PRFacts {
	return queue.PRFacts{HeadSHA: fmt.Sprintf("sha%d", n), BaseBranch: "main", Open: true, MergeableState: "clean", ReadAt: t0}
}

// entry adds an entry for PR n in state st with sequence n.
func (b *builder) entry(n int, st queue.EntryState) *queue.Entry {
	e := &queue.Entry{ID: fmt.Sprintf("e%d", n), QueueID: 1, PRNumber: n, PRSHA: fmt.Sprintf("sha%d", n), PR: openFacts(n),
		State: st, PriorityValue: queue.DefaultPriority, Seq: int64(n), SubmittedAt: t0, PRCheckedAt: t0}
	b.s.Entries = append(b.s.Entries, e)
	return e
}

// run attaches a run to entry e built on base with the given ahead entries.
func (b *builder) run(e *queue.Entry, status queue.RunStatus, base string, ahead ...string) *queue.TestRun {
	r := &queue.TestRun{ID: "r-" + e.ID, QueueID: 1, EntryIDs: []string{e.ID}, PRNumbers: []int{e.PRNumber}, Ahead: ahead, BaseSHA: base,
		SHA: "t-" + e.ID, Branch: "mq-merge/x", RequiredChecks: []string{"ci"}, Status: status, StartedAt: t0}
	e.RunID = r.ID
	b.s.Runs = append(b.s.Runs, r)
	return r
}

func (b *builder) check(sha string, st queue.CheckState) {
	b.s.Checks[sha] = append(b.s.Checks[sha], queue.CheckResult{SHA: sha, Name: "ci", State: st, Raw: string(st)})
}

func TestNext(t *testing.T) {
	tests := []struct {
		name  string
		build func(b *builder)
		now   time.Time
		want  Action
	}{
		{"empty queue is settled", func(b *builder) {}, t0, nil},
		{"ready entry is admitted", func(b *builder) { b.entry(1, queue.StateNotReady) }, t0,
			Transition{EntryID: "e1", To: queue.StatePending, Reason: queue.ReasonAdmitted, Detail: "admitted to the queue"}},
		{"paused queue admits nothing", func(b *builder) {
			b.s.Queue.State = queue.QueuePaused
			e := b.entry(1, queue.StateNotReady)
			e.StateReasonDetail = "the queue is paused"
		}, t0, nil},
		{"conflicting PR stays not_ready with a reason", func(b *builder) {
			e := b.entry(1, queue.StateNotReady)
			e.PR.MergeableState = "dirty"
		}, t0, Transition{EntryID: "e1", To: queue.StateNotReady, Detail: "the pull request conflicts with main"}},
		{"first pending entry starts on the target head", func(b *builder) { b.entry(1, queue.StatePending) }, t0,
			StartRun{Unit: []string{"e1"}, Ahead: []string{}, BaseSHA: "H0", From: "H0", Merge: []string{"e1"}}},
		{"second entry builds on the first run", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunInProgress, "H0")
			b.entry(2, queue.StatePending)
		}, t0, StartRun{Unit: []string{"e2"}, Ahead: []string{"e1"}, BaseSHA: "H0", From: "t-e1", Merge: []string{"e2"}}},
		{"concurrency bounds runs in progress", func(b *builder) {
			b.s.Queue.Settings.Concurrency = 1
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunInProgress, "H0")
			b.entry(2, queue.StatePending)
		}, t0, nil},
		{"passing checks finish the run", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunInProgress, "H0")
			b.check("t-e1", queue.CheckSuccess)
		}, t0, FinishRun{RunID: "r-e1", Status: queue.RunSucceeded, Detail: "all required checks passed"}},
		{"missing required check never passes", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunInProgress, "H0")
			b.s.Checks["t-e1"] = []queue.CheckResult{{SHA: "t-e1", Name: "other", State: queue.CheckSuccess}}
		}, t0, nil},
		{"timeout fails the run", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunInProgress, "H0")
		}, t0.Add(61 * time.Minute), FinishRun{RunID: "r-e1", Status: queue.RunFailed, Reason: queue.ReasonTestTimeout, Detail: "tests did not finish within 60 minutes"}},
		{"passed head of chain merges", func(b *builder) {
			e1 := b.entry(1, queue.StateTestsPassed)
			b.run(e1, queue.RunSucceeded, "H0")
		}, t0, Merge{EntryID: "e1", RunID: "r-e1", Before: "H0"}},
		{"paused queue does not merge", func(b *builder) {
			b.s.Queue.State = queue.QueuePaused
			e1 := b.entry(1, queue.StateTestsPassed)
			b.run(e1, queue.RunSucceeded, "H0")
		}, t0, nil},
		{"passed second entry waits for the first", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunInProgress, "H0")
			e2 := b.entry(2, queue.StateTestsPassed)
			b.run(e2, queue.RunSucceeded, "H0", "e1")
		}, t0, nil},
		{"failure behind an undecided entry waits", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunInProgress, "H0")
			e2 := b.entry(2, queue.StateTesting)
			r := b.run(e2, queue.RunFailed, "H0", "e1")
			r.FailureReason = queue.ReasonTestsFailed
		}, t0, Transition{EntryID: "e2", To: queue.StatePendingFailure, Reason: queue.ReasonTestsFailed,
			Detail: "tests failed; waiting for #1 ahead to decide whether it caused the failure"}},
		{"failure at the head of the chain is the culprit", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			r := b.run(e1, queue.RunFailed, "H0")
			r.FailureReason, r.FailureDetail = queue.ReasonTestsFailed, "ci failed"
		}, t0, Transition{EntryID: "e1", To: queue.StateFailed, Reason: queue.ReasonTestsFailed, Detail: "ci failed", ClearRun: true}},
		{"run built on a removed entry restarts", func(b *builder) {
			e2 := b.entry(2, queue.StateTesting)
			b.run(e2, queue.RunInProgress, "H0", "e1")
		}, t0, Transition{EntryID: "e2", To: queue.StatePending, Reason: queue.ReasonRestartedDependencyRemoved,
			Detail: "the pull requests tested with or ahead of it changed; testing again", ClearRun: true}},
		{"external push restarts runs", func(b *builder) {
			b.s.TargetHead = "X"
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunInProgress, "H0")
		}, t0, Transition{EntryID: "e1", To: queue.StatePending, Reason: queue.ReasonRestartedBaseMoved,
			Detail: "the target branch moved outside the queue; testing again", ClearRun: true}},
		{"queue merges keep runs valid", func(b *builder) {
			b.s.TargetHead = "H1"
			b.s.Merges = []queue.MergeRecord{{EntryID: "e1", Before: "H0", After: "H1"}}
			e2 := b.entry(2, queue.StateTestsPassed)
			b.run(e2, queue.RunSucceeded, "H0", "e1")
		}, t0, Merge{EntryID: "e2", RunID: "r-e2", Before: "H1"}},
		{"force-push cancels", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunInProgress, "H0")
			e1.PR.HeadSHA = "new"
		}, t0, Transition{EntryID: "e1", To: queue.StateCancelled, Reason: queue.ReasonPRPushed,
			Detail: "new commits were pushed (head new, submitted sha1); submit again to test them", ClearRun: true}},
		{"merged outside the queue", func(b *builder) {
			e1 := b.entry(1, queue.StatePending)
			e1.PR.Merged, e1.PR.Open = true, false
		}, t0, Transition{EntryID: "e1", To: queue.StateMerged, Reason: queue.ReasonMergedManually,
			Detail: "the pull request was merged outside the queue", ClearRun: true}},
		{"merge intent is resolved first", func(b *builder) {
			e1 := b.entry(1, queue.StateTestsPassed)
			b.run(e1, queue.RunSucceeded, "H0")
			e1.MergeIntent, e1.MergeBase = true, "H0"
			b.s.TargetHead = "M1"
		}, t0, ResolveMerge{EntryID: "e1", RunID: "r-e1", Before: "H0"}},
		{"blocked entry waits for its blocker", func(b *builder) {
			e1 := b.entry(1, queue.StateTesting)
			b.run(e1, queue.RunInProgress, "H0")
			e2 := b.entry(2, queue.StatePending)
			e2.BlockedBy = "e1"
		}, t0, nil},
		{"urgent entry goes first", func(b *builder) {
			b.entry(1, queue.StatePending)
			e2 := b.entry(2, queue.StatePending)
			e2.PriorityValue = queue.PriorityUrgent
		}, t0, StartRun{Unit: []string{"e2"}, Ahead: []string{}, BaseSHA: "H0", From: "H0", Merge: []string{"e2"}}},
		{"not-ready timeout cancels", func(b *builder) {
			b.s.Queue.Settings.NotReadyTimeoutHours = 1
			e := b.entry(1, queue.StateNotReady)
			e.PR.Draft = true
			e.StateReasonDetail = "the pull request is a draft"
		}, t0.Add(2 * time.Hour), Transition{EntryID: "e1", To: queue.StateCancelled, Reason: queue.ReasonNotReadyTimeout,
			Detail: "not ready within 1 hour: the pull request is a draft"}},
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

func TestEvaluateChecks(t *testing.T) {
	res := func(name string, st queue.CheckState) queue.CheckResult {
		return queue.CheckResult{Name: name, State: st, Raw: string(st)}
	}
	tests := []struct {
		name     string
		required []string
		results  []queue.CheckResult
		want     queue.RunStatus
	}{
		{"none required passes", []string{}, nil, queue.RunSucceeded},
		{"missing is pending", []string{"a"}, nil, queue.RunInProgress},
		{"all pass", []string{"a", "b"}, []queue.CheckResult{res("a", queue.CheckSuccess), res("b", queue.CheckSuccess)}, queue.RunSucceeded},
		{"one fails", []string{"a", "b"}, []queue.CheckResult{res("a", queue.CheckPending), res("b", queue.CheckFailure)}, queue.RunFailed},
		{"status and check run of the same name both must pass", []string{"a"}, []queue.CheckResult{res("a", queue.CheckSuccess), res("a", queue.CheckPending)}, queue.RunInProgress},
		{"unrequired failure ignored", []string{"a"}, []queue.CheckResult{res("a", queue.CheckSuccess), res("z", queue.CheckFailure)}, queue.RunSucceeded},
	}
	for _, tc := range tests {
		if got, _ := EvaluateChecks(tc.required, tc.results); got != tc.want {
			t.Errorf("%s: got %s want %s", tc.name, got, tc.want)
		}
	}
}
