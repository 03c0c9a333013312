package readside_test

import (
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// verifiedByTestRun names the run whose result decided an entry, from the
// entry's run while it is active and from its last event once it ended.
func TestVerifiedByTestRun(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	q := f.queue("main", queue.DefaultSettings())
	at := func(m int) time.Time { return testNow.Add(time.Duration(m) * time.Minute) }
	run := func(id string, status queue.RunStatus, reason queue.Reason, e *queue.Entry) {
		r := f.run(q, id, status, []*queue.Entry{e}, nil)
		r.FailureReason = reason
		if err := f.store.SaveRun(f.ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	// ended stores the event that ended e, naming runID.
	ended := func(e *queue.Entry, runID string) {
		ev := &queue.Event{QueueID: q.ID, EntryID: e.ID, PRNumber: e.PRNumber, At: e.ConcludedAt,
			From: queue.StateTestsPassed, To: e.State, Reason: e.StateReason, RunID: runID}
		if err := f.store.AddEvent(f.ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	state := func(st queue.EntryState, reason queue.Reason) func(*queue.Entry) {
		return func(e *queue.Entry) { e.State, e.StateReason = st, reason }
	}
	want := map[int]string{}

	e := f.entry(q, 1, queue.StateTesting, at(-60), func(e *queue.Entry) { e.RunID = "r1" })
	run("r1", queue.RunInProgress, "", e)
	want[1] = "" // still testing

	e = f.entry(q, 2, queue.StateTestsPassed, at(-59), func(e *queue.Entry) { e.RunID = "r2" })
	run("r2", queue.RunSucceeded, "", e)
	want[2] = "r2"

	e = f.entry(q, 3, queue.StateTestsPassed, at(-58), func(e *queue.Entry) { e.RunID, e.Vouched = "r3", true })
	run("r3", queue.RunFailed, queue.ReasonTestsFailed, e)
	want[3] = "" // its own run failed; another run vouched for it

	e = f.entry(q, 4, queue.StatePendingFailure, at(-57), func(e *queue.Entry) { e.RunID = "r4" })
	run("r4", queue.RunFailed, queue.ReasonTestsFailed, e)
	want[4] = "r4"

	e = f.entry(q, 5, queue.StateMerged, at(-56), state(queue.StateMerged, queue.ReasonMergedByQueue))
	run("r5", queue.RunSucceeded, "", e)
	ended(e, "r5")
	want[5] = "r5"

	e = f.entry(q, 6, queue.StateMerged, at(-55), state(queue.StateMerged, queue.ReasonMergedByQueue))
	run("r6", queue.RunFailed, queue.ReasonTestsFailed, e)
	ended(e, "r6")
	want[6] = "" // merged once vouched for: its own run failed

	e = f.entry(q, 7, queue.StateMerged, at(-54), state(queue.StateMerged, queue.ReasonMergedByQueue))
	ended(e, "")
	want[7] = "" // a direct merge: no run

	e = f.entry(q, 8, queue.StateMerged, at(-53), state(queue.StateMerged, queue.ReasonMergedManually))
	run("r8", queue.RunSucceeded, "", e)
	ended(e, "r8")
	want[8] = "" // merged outside the queue

	e = f.entry(q, 9, queue.StateFailed, at(-52), state(queue.StateFailed, queue.ReasonTestTimeout))
	run("r9", queue.RunFailed, queue.ReasonTestTimeout, e)
	ended(e, "r9")
	want[9] = "r9"

	e = f.entry(q, 10, queue.StateFailed, at(-51), state(queue.StateFailed, queue.ReasonMergeConflict))
	ended(e, "")
	want[10] = "" // no run decided a conflict

	e = f.entry(q, 11, queue.StateFailed, at(-50), state(queue.StateFailed, queue.ReasonGitHubAPIFailed))
	run("r11", queue.RunSucceeded, "", e)
	ended(e, "r11")
	want[11] = "" // failed to merge after its run passed

	f.entry(q, 12, queue.StateFailed, at(-49), state(queue.StateFailed, queue.ReasonTestsFailed))
	want[12] = "" // its events are past retention

	e = f.entry(q, 13, queue.StateCancelled, at(-48), state(queue.StateCancelled, queue.ReasonUserRequested))
	run("r13", queue.RunSucceeded, "", e)
	ended(e, "r13")
	want[13] = ""

	e = f.entry(q, 14, queue.StateFailed, at(-47), state(queue.StateFailed, queue.ReasonTestsFailed))
	run("r14", queue.RunFailed, queue.ReasonTestsFailed, e)
	ended(e, "r14")
	e.State = queue.StatePending // resubmitted after: the entry is active again, without a run
	e.ConcludedAt = time.Time{}
	if err := f.store.SaveEntry(f.ctx, e); err != nil {
		t.Fatal(err)
	}
	want[14] = ""

	got, err := f.reads.ListPullRequests(f.ctx, testKey, queue.EntryQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("listed %d entries, want %d", len(got), len(want))
	}
	for _, s := range got {
		if w := want[s.Entry.PRNumber]; s.VerifiedByTestRun != w {
			t.Errorf("#%d (%s, %s): verifiedByTestRun %q, want %q", s.Entry.PRNumber, s.Entry.State, s.Entry.StateReason, s.VerifiedByTestRun, w)
		}
	}
	one, err := f.reads.GetSubmitted(f.ctx, testKey, 9)
	if err != nil {
		t.Fatal(err)
	}
	if one.VerifiedByTestRun != "r9" {
		t.Errorf("GetSubmitted #9: verifiedByTestRun %q, want r9", one.VerifiedByTestRun)
	}
}
