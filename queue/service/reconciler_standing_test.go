package service_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// testRun saves a run of the given entries, in progress on branch.
func (w *recWorld) testRun(id, branch string, started time.Time, es ...*queue.Entry) *queue.TestRun {
	w.t.Helper()
	r := &queue.TestRun{ID: id, QueueID: w.q.ID, Branch: branch, SHA: "sha-" + id, BaseSHA: "base",
		Status: queue.RunInProgress, CreatedAt: started, StartedAt: started}
	for _, e := range es {
		r.EntryIDs = append(r.EntryIDs, e.ID)
		r.PRNumbers = append(r.PRNumbers, e.PRNumber)
		r.PRSHAs = append(r.PRSHAs, e.PRSHA)
		e.RunID = id
		if err := w.store.SaveEntry(w.ctx, e); err != nil {
			w.t.Fatal(err)
		}
	}
	if err := w.store.SaveRun(w.ctx, r); err != nil {
		w.t.Fatal(err)
	}
	return r
}

// The check run says where an entry stands: its
// position while queued (and the ETA once a run of the queue finished),
// the expected finish while testing; a change of position alone is shown
// within the refresh interval, not at every move.
func TestReconcilerShowsPositionAndETA(t *testing.T) {
	t.Parallel()
	w := newRecWorld(t, nil)
	// A finished run sets the queue's typical CI duration: 20 minutes.
	done := &queue.TestRun{ID: "old", QueueID: w.q.ID, Status: queue.RunSucceeded, Closed: true,
		StartedAt: w.now.Add(-time.Hour), FinishedAt: w.now.Add(-40 * time.Minute)}
	if err := w.store.SaveRun(w.ctx, done); err != nil {
		t.Fatal(err)
	}
	e1 := w.set(1, "h1", queue.StateTesting, queue.ReasonTesting)
	w.testRun("r1", "mq-merge/pr-1/r1", w.now, e1)
	e2 := w.set(2, "h2", queue.StatePending, queue.ReasonAdmitted)
	e2.Seq = 2
	if err := w.store.SaveEntry(w.ctx, e2); err != nil {
		t.Fatal(err)
	}
	w.mustPass()
	run1 := w.gh.checkRunsOn("h1")
	if len(run1) != 1 || !strings.Contains(run1[0].Title, "expected to finish around 10:20 UTC") {
		t.Fatalf("check run of the testing entry %+v, want its expected finish", run1)
	}
	run2 := w.gh.checkRunsOn("h2")
	if len(run2) != 1 || run2[0].Status != "queued" || !strings.Contains(run2[0].Title, "2 of 2") ||
		!strings.Contains(run2[0].Title, "merge around 10:40 UTC") {
		t.Fatalf("check run of the queued entry %+v, want position 2 of 2 and its ETA", run2)
	}
	if c := w.gh.commentsOn(2); len(c) != 0 {
		t.Fatalf("comment %q, want none: the check run says where a queued PR stands", c)
	}

	// #1 leaves: #2 is first now. No state change of #2: it is shown
	// within the refresh interval, not at once.
	w.set(1, "h1", queue.StateCancelled, queue.ReasonUserRequested)
	w.mustPass()
	if got := w.gh.checkRunsOn("h2")[0].Title; !strings.Contains(got, "2 of 2") {
		t.Fatalf("position rewritten at once: %q", got)
	}
	w.now = w.now.Add(6 * time.Minute)
	w.mustPass()
	if got := w.gh.checkRunsOn("h2")[0].Title; !strings.Contains(got, "1 of 1") {
		t.Fatalf("after the refresh interval the check run says %q, want 1 of 1", got)
	}
}

// A run of a queue with createPrsForTestingBranches gets one draft test PR
// (head: its branch; base: the target), titled after the PRs it tests,
// closed when the run ends; an open whose answer was lost is found by its
// branch rather than opened twice.
func TestReconcilerTestPRs(t *testing.T) {
	t.Parallel()
	w := newRecWorld(t, func(s *queue.Settings) { s.CreatePrsForTestingBranches = true })
	var es []*queue.Entry
	for n := 11; n <= 14; n++ {
		es = append(es, w.set(n, "h", queue.StateTesting, queue.ReasonTesting))
	}
	run := w.testRun("r1", "mq-merge/pr-11/r1", w.now, es...)
	if err := w.store.TouchRunSurface(w.ctx, w.q.ID, run.ID); err != nil {
		t.Fatal(err)
	}
	w.gh.applyThenFail["OpenDraftPR"] = 1
	if err := w.pass(); !errors.Is(err, queue.ErrTransient) {
		t.Fatalf("pass = %v, want the lost answer", err)
	}
	w.mustPass()
	pulls := w.gh.pullsOf(run.Branch)
	if len(pulls) != 1 {
		t.Fatalf("%d test PRs for the run, want 1", len(pulls))
	}
	p := pulls[0]
	if !p.draft || p.base != "main" || p.title != "merge queue: #11, #12 (+2)" || p.closed {
		t.Fatalf("test PR %+v, want an open draft into main titled after the PRs", p)
	}
	for _, want := range []string{"- #11", "- #14", "Do not merge it", run.ID} {
		if !strings.Contains(p.body, want) {
			t.Errorf("test PR body lacks %q:\n%s", want, p.body)
		}
	}
	rs, err := w.store.GetRunSurface(w.ctx, run.ID)
	if err != nil || rs.PRNumber == 0 || rs.Due() {
		t.Fatalf("run surface %+v, %v", rs, err)
	}

	run.Closed, run.Status = true, queue.RunSucceeded
	if err := w.store.SaveRun(w.ctx, run); err != nil {
		t.Fatal(err)
	}
	if err := w.store.TouchRunSurface(w.ctx, w.q.ID, run.ID); err != nil {
		t.Fatal(err)
	}
	w.mustPass()
	if pulls := w.gh.pullsOf(run.Branch); len(pulls) != 1 || !pulls[0].closed {
		t.Fatalf("test PRs after the run ended %+v, want the one closed", pulls)
	}
}

// With the write budget short, a position or an ETA alone is not written:
// the budget goes to merges and to what a reader must know.
func TestReconcilerSkipsPositionsWhenTheBudgetIsShort(t *testing.T) {
	t.Parallel()
	w := newRecWorld(t, nil)
	e1 := w.set(1, "h1", queue.StateTesting, queue.ReasonTesting)
	w.testRun("r1", "mq-merge/pr-1/r1", w.now, e1)
	w.set(2, "h2", queue.StatePending, queue.ReasonAdmitted)
	w.mustPass()
	short := 0.2
	w.gh.headroom = &short
	w.set(1, "h1", queue.StateCancelled, queue.ReasonUserRequested)
	w.mustPass()
	w.now = w.now.Add(6 * time.Minute)
	w.mustPass()
	if got := w.gh.checkRunsOn("h2")[0].Title; !strings.Contains(got, "2 of 2") {
		t.Fatalf("position rewritten with the budget short: %q", got)
	}
	if got := w.gh.checkRunsOn("h1")[0]; got.Conclusion != "cancelled" {
		t.Fatalf("the cancelled entry's check run %+v, want it completed regardless of the budget", got)
	}
}
