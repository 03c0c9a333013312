package service_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/memstore"
	"github.com/mergequeue/mq/queue/service"
)

// recWorld is a reconciler over a memstore and a surfaceGitHub, with a
// clock the test moves.
type recWorld struct {
	t     *testing.T
	ctx   context.Context
	store *memstore.Store
	gh    *surfaceGitHub
	rec   *service.Reconciler
	now   time.Time
	q     *queue.Queue
}

func newRecWorld(t *testing.T, edit func(*queue.Settings)) *recWorld {
	t.Helper()
	w := &recWorld{t: t, ctx: context.Background(), store: memstore.New(), gh: newSurfaceGitHub(),
		now: time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)}
	svc := service.NewService(w.store, w.gh, service.Options{Now: func() time.Time { return w.now }, ReconcileEvery: time.Minute})
	w.rec = svc.Reconciler()
	s := queue.DefaultSettings()
	if edit != nil {
		edit(&s)
	}
	q, err := svc.CreateQueue(w.ctx, opsKey, s)
	if err != nil {
		t.Fatal(err)
	}
	w.q = q
	return w
}

// set saves an entry of PR n in state st on head sha and makes its
// surfaces due, as a state change does.
func (w *recWorld) set(n int, sha string, st queue.EntryState, reason queue.Reason) *queue.Entry {
	w.t.Helper()
	e, err := w.store.GetEntry(w.ctx, w.q.ID, n)
	if errors.Is(err, queue.ErrNotFound) {
		e = &queue.Entry{ID: fmt.Sprintf("entry-%d", n), QueueID: w.q.ID, PRNumber: n, SubmittedAt: w.now,
			PriorityName: "medium", PriorityValue: 100, Source: "comment"}
	} else if err != nil {
		w.t.Fatal(err)
	}
	e.PRSHA, e.State, e.StateReason, e.StateReasonDetail = sha, st, reason, "detail of "+string(st)
	if err := w.store.SaveEntry(w.ctx, e); err != nil {
		w.t.Fatal(err)
	}
	if err := w.store.TouchSurface(w.ctx, w.q.ID, e.ID); err != nil {
		w.t.Fatal(err)
	}
	return e
}

// pass runs one reconciliation pass and returns its error.
func (w *recWorld) pass() error {
	w.t.Helper()
	_, err := w.rec.Pass(w.ctx)
	return err
}

func (w *recWorld) mustPass() {
	w.t.Helper()
	if err := w.pass(); err != nil {
		w.t.Fatalf("pass: %v", err)
	}
}

func (w *recWorld) surface(e *queue.Entry) *queue.Surface {
	w.t.Helper()
	sf, err := w.store.GetSurface(w.ctx, e.ID)
	if err != nil {
		w.t.Fatal(err)
	}
	return sf
}

func TestReconcilerSurfacesFollowTheEntry(t *testing.T) {
	t.Parallel()
	w := newRecWorld(t, func(s *queue.Settings) { s.StateLabelsEnabled = true })
	e := w.set(1, "head1", queue.StatePending, queue.ReasonAdmitted)
	w.mustPass()
	if comments := w.gh.commentsOn(1); len(comments) != 0 {
		t.Fatalf("comments %q, want none: a queued PR has nothing to explain", comments)
	}
	runs := w.gh.checkRunsOn("head1")
	if len(runs) != 1 || runs[0].Status != "queued" || runs[0].ExternalID != e.ID || runs[0].Name != "Merge Queue (main)" {
		t.Fatalf("check runs %+v, want one queued run for the entry", runs)
	}
	if got := w.gh.labels[1]; len(got) != 1 || got[0] != "mq:pending" {
		t.Fatalf("labels %v, want [mq:pending]", got)
	}
	if sf := w.surface(e); sf.Due() || sf.CommentCreating || sf.CheckRunCreating {
		t.Fatalf("surface after a pass: %+v", sf)
	}

	calls := w.gh.count("UpsertComment") + w.gh.count("UpsertCheckRun")
	w.mustPass() // nothing due: nothing written
	if got := w.gh.count("UpsertComment") + w.gh.count("UpsertCheckRun"); got != calls {
		t.Fatalf("a pass with nothing due wrote %d times", got-calls)
	}

	// A failure held pending needs explaining: the sticky comment appears.
	w.set(1, "head1", queue.StatePendingFailure, queue.ReasonTestsFailed)
	w.mustPass()
	comments := w.gh.commentsOn(1)
	if len(comments) != 1 || !strings.Contains(comments[0], service.StatusMarker(w.q)) || !strings.Contains(comments[0], "Tests failed") {
		t.Fatalf("comments %q, want one sticky comment explaining the pending failure", comments)
	}

	w.set(1, "head1", queue.StateMerged, queue.ReasonMergedByQueue)
	w.mustPass()
	comments = w.gh.commentsOn(1)
	if len(comments) != 1 || !strings.Contains(comments[0], "Merged") {
		t.Fatalf("comments %q, want the one sticky comment edited to Merged", comments)
	}
	runs = w.gh.checkRunsOn("head1")
	if len(runs) != 1 || runs[0].Status != "completed" || runs[0].Conclusion != "success" {
		t.Fatalf("check runs %+v, want the one run completed with success", runs)
	}
	if got := w.gh.labels[1]; len(got) != 1 || got[0] != "mq:merged" {
		t.Fatalf("labels %v, want [mq:merged]", got)
	}
}

// A PR that goes through the queue without a hitch costs two writes of its
// surfaces: the check run created, and completed. Testing having started
// is informational: written only when the write budget has room, and five
// minutes after the last write at the earliest.
func TestReconcilerHappyPathWritesTwice(t *testing.T) {
	t.Parallel()
	for _, room := range []float64{1, 0.1} {
		w := newRecWorld(t, nil)
		w.gh.headroom = &room
		for _, st := range []queue.EntryState{queue.StatePending, queue.StateTesting, queue.StateTestsPassed} {
			w.set(1, "head1", st, queue.ReasonAdmitted)
			w.mustPass()
			w.now = w.now.Add(5 * time.Minute) // an informational edit at most every five minutes
		}
		w.set(1, "head1", queue.StateMerged, queue.ReasonMergedByQueue)
		w.mustPass()
		want := 2
		if room >= queue.InformationalHeadroom {
			want = 4
		}
		if got := w.gh.count("UpsertCheckRun"); got != want {
			t.Errorf("headroom %.1f: %d check run writes, want %d", room, got, want)
		}
		if got := w.gh.count("UpsertComment"); got != 0 {
			t.Errorf("headroom %.1f: %d comment writes, want none", room, got)
		}
		if runs := w.gh.checkRunsOn("head1"); len(runs) != 1 || runs[0].Conclusion != "success" {
			t.Errorf("headroom %.1f: check runs %+v, want one, completed with success", room, runs)
		}
	}
}

// A PR waiting to be ready gets its explaining comment once it has waited
// a reconcile interval, not at the moment of its submission.
func TestReconcilerExplainsANotReadyPRAfterAWhile(t *testing.T) {
	t.Parallel()
	w := newRecWorld(t, nil)
	e := w.set(1, "head1", queue.StateNotReady, queue.ReasonSubmitted)
	e.StateChangedAt = w.now
	if err := w.store.SaveEntry(w.ctx, e); err != nil {
		t.Fatal(err)
	}
	w.mustPass()
	if got := w.gh.commentsOn(1); len(got) != 0 {
		t.Fatalf("comments %q right after submission, want none yet", got)
	}
	w.now = w.now.Add(time.Minute)
	w.mustPass()
	if got := w.gh.commentsOn(1); len(got) != 1 || !strings.Contains(got[0], "Waiting to be ready") {
		t.Fatalf("comments %q after a minute not ready, want the explaining comment", got)
	}
}

// A write that reached GitHub but whose answer was lost (a crash, an
// ambiguous 502) is found again before anything is created twice.
func TestReconcilerLooksBeforeCreatingAgain(t *testing.T) {
	t.Parallel()
	w := newRecWorld(t, nil)
	e := w.set(1, "head1", queue.StatePendingFailure, queue.ReasonTestsFailed)
	w.gh.applyThenFail["UpsertComment"] = 1
	w.gh.applyThenFail["UpsertCheckRun"] = 1
	if err := w.pass(); !errors.Is(err, queue.ErrTransient) {
		t.Fatalf("pass = %v, want the transient failure", err)
	}
	if sf := w.surface(e); !sf.Due() || !sf.CommentCreating || !sf.CheckRunCreating {
		t.Fatalf("surface after lost answers: %+v, want due with both creates unconfirmed", sf)
	}
	w.set(1, "head1", queue.StateFailed, queue.ReasonTestsFailed)
	w.mustPass()
	if got := w.gh.commentsOn(1); len(got) != 1 || !strings.Contains(got[0], "Failed") {
		t.Fatalf("comments %q, want one sticky comment, edited", got)
	}
	if got := w.gh.checkRunsOn("head1"); len(got) != 1 || got[0].Conclusion != "failure" {
		t.Fatalf("check runs %+v, want one, completed", got)
	}
	if w.gh.count("FindComment") != 1 || w.gh.count("FindCheckRun") != 1 {
		t.Fatalf("looked up %d comments and %d check runs, want one each", w.gh.count("FindComment"), w.gh.count("FindCheckRun"))
	}
}

// A check run left open on an older head is completed when the entry moves
// to a new head, so none stays queued or in progress.
func TestReconcilerCompletesTheCheckRunOfAnOldHead(t *testing.T) {
	t.Parallel()
	w := newRecWorld(t, nil)
	w.set(1, "old", queue.StateTesting, queue.ReasonTesting)
	w.mustPass()
	w.set(1, "new", queue.StateNotReady, queue.ReasonSubmitted) // pushed and submitted again
	w.mustPass()
	old := w.gh.checkRunsOn("old")
	if len(old) != 1 || old[0].Status != "completed" || old[0].Conclusion != "cancelled" {
		t.Fatalf("check runs on the old head %+v, want one completed as cancelled", old)
	}
	if got := w.gh.checkRunsOn("new"); len(got) != 1 || got[0].Status != "queued" {
		t.Fatalf("check runs on the new head %+v, want one queued", got)
	}
}

// Failures back a surface off in the store (so a restart keeps the
// schedule); a transient one ends the pass, a refusal gives up after
// maxSurfaceAttempts.
func TestReconcilerBacksOffAndGivesUp(t *testing.T) {
	t.Parallel()
	w := newRecWorld(t, func(s *queue.Settings) { s.StatusCheckEnabled = false })
	e := w.set(1, "head1", queue.StatePendingFailure, queue.ReasonTestsFailed)
	refused := errors.New("422 locked conversation")
	for range 20 {
		w.gh.fail["UpsertComment"] = append(w.gh.fail["UpsertComment"], refused)
	}
	w.mustPass()
	sf := w.surface(e)
	if !sf.Due() || sf.Attempts != 1 || !sf.NextAttemptAt.After(w.now) || !strings.Contains(sf.LastError, "locked") {
		t.Fatalf("surface after a refusal: %+v, want due, one attempt, backing off", sf)
	}
	calls := w.gh.count("UpsertComment")
	w.mustPass() // still backing off
	if w.gh.count("UpsertComment") != calls {
		t.Fatal("retried before the backoff was over")
	}
	for i := 2; i <= 10; i++ {
		w.now = w.now.Add(2 * time.Minute)
		w.mustPass()
	}
	sf = w.surface(e)
	if sf.Due() || sf.Attempts != 10 {
		t.Fatalf("surface after 10 refusals: %+v, want given up", sf)
	}
	if len(w.gh.commentsOn(1)) != 0 {
		t.Fatal("a refused comment was created")
	}
}

// Notices are delivered once: a comment whose answer was lost is looked
// for by its marker before it is posted again.
func TestReconcilerDeliversNoticesOnce(t *testing.T) {
	t.Parallel()
	w := newRecWorld(t, nil)
	add := func(n queue.Notice) {
		t.Helper()
		n.Repo, n.CreatedAt = opsKey.Repo, w.now
		if _, err := w.store.AddNotice(w.ctx, &n); err != nil {
			t.Fatal(err)
		}
	}
	add(queue.Notice{Key: "reply:1", PRNumber: 3, Kind: queue.NoticeComment, Body: "@alice done"})
	add(queue.Notice{Key: "react:1", PRNumber: 3, Kind: queue.NoticeReaction, Body: "+1", CommentID: 9})
	add(queue.Notice{Key: "unlabel:1", PRNumber: 3, Kind: queue.NoticeRemoveLabel, Body: "merge-queue"})
	w.gh.labels[3] = []string{"merge-queue", "bug"}
	w.gh.applyThenFail["UpsertComment"] = 1
	if err := w.pass(); !errors.Is(err, queue.ErrTransient) {
		t.Fatalf("pass = %v, want the transient failure", err)
	}
	w.mustPass()
	got := w.gh.commentsOn(3)
	if len(got) != 1 || !strings.Contains(got[0], "@alice done") || !strings.Contains(got[0], queue.NoticeMarker("reply:1")) {
		t.Fatalf("comments %q, want the reply once, with its marker", got)
	}
	if w.gh.count("AddReaction") != 1 || len(w.gh.labels[3]) != 1 || w.gh.labels[3][0] != "bug" {
		t.Fatalf("reactions %d, labels %v", w.gh.count("AddReaction"), w.gh.labels[3])
	}
	due, err := w.store.DueNotices(w.ctx, w.now.Add(time.Hour), 10)
	if err != nil || len(due) != 0 {
		t.Fatalf("due notices after delivery: %v, %v", due, err)
	}
	w.mustPass()
	if len(w.gh.commentsOn(3)) != 1 || w.gh.count("AddReaction") != 1 {
		t.Fatal("a delivered notice was written again")
	}
}

// Branches: a recorded branch no live run owns is deleted and forgotten;
// an unrecorded mq- branch is swept; a branch in flight, a started run's
// branch and other branches stay.
func TestReconcilerDeletesBranchesNoRunOwns(t *testing.T) {
	t.Parallel()
	w := newRecWorld(t, nil)
	repo := opsKey.Repo
	for _, b := range []string{"mq-merge/pr-1/open", "mq-merge/pr-2/closed", "mq-temp/orphan", "mq-temp/crashed", "feature", "mq-tempting"} {
		w.gh.branches[b] = true
	}
	save := func(r *queue.TestRun) {
		t.Helper()
		if err := w.store.SaveRun(w.ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	save(&queue.TestRun{ID: "open", QueueID: w.q.ID, Branch: "mq-merge/pr-1/open", Status: queue.RunInProgress})
	save(&queue.TestRun{ID: "closed", QueueID: w.q.ID, Branch: "mq-merge/pr-2/closed", Status: queue.RunCancelled, Closed: true})
	record := func(name, run string) {
		t.Helper()
		if err := w.store.RecordRef(w.ctx, queue.Ref{Repo: repo, Name: name, QueueID: w.q.ID, RunID: run, CreatedAt: w.now}); err != nil {
			t.Fatal(err)
		}
	}
	record("mq-merge/pr-1/open", "open")
	record("mq-merge/pr-2/closed", "closed")
	record("mq-temp/crashed", "open") // a run's scratch branch outlives its build only after a crash
	w.mustPass()
	// A dead branch waits a reconcile interval for a publish to delete it
	// with; then the reconciler deletes every dead one, in one request.
	if got, _ := w.gh.ListBranches(w.ctx, repo, "mq-merge/pr-2/"); len(got) != 1 {
		t.Fatalf("the closed run's branch went at once: %v", got)
	}
	w.now = w.now.Add(time.Minute)
	w.mustPass()
	if got := w.gh.count("DeleteBranches"); got != 2 {
		t.Errorf("%d batch deletions, want 2 (the unrecorded ones swept at once, then the dead ones)", got)
	}
	want := []string{"feature", "mq-merge/pr-1/open", "mq-tempting"}
	got, _ := w.gh.ListBranches(w.ctx, repo, "")
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("branches %v, want %v", got, want)
	}
	refs, err := w.store.ListRefs(w.ctx, repo)
	if err != nil || len(refs) != 1 || refs[0].Name != "mq-merge/pr-1/open" {
		t.Fatalf("records %+v, %v; want only the open run's branch", refs, err)
	}
}

// A state label added just before a crash (so never recorded) does not
// stay beside the next one: the PR's labels are read when the label
// changes, and every other state label removed.
func TestReconcilerStateLabelAfterALostWrite(t *testing.T) {
	t.Parallel()
	w := newRecWorld(t, func(s *queue.Settings) { s.StateLabelsEnabled = true })
	w.gh.labels[1] = []string{"bug", "mq:not-ready"} // on GitHub, not in the store
	w.set(1, "head1", queue.StatePending, queue.ReasonAdmitted)
	w.mustPass()
	if got := strings.Join(w.gh.labels[1], " "); got != "bug mq:pending" {
		t.Fatalf("labels %q, want the other label and the one state label", got)
	}
}

// A queue with its own test branch prefix has its branches swept under
// that prefix, and only there.
func TestReconcilerSweepsACustomTestBranchPrefix(t *testing.T) {
	t.Parallel()
	w := newRecWorld(t, func(s *queue.Settings) { s.TestBranchPrefix = "ci/merge-queue/" })
	for _, b := range []string{"ci/merge-queue/pr-1/x", "ci/merge-queue/notes", "ci/other", "mq-merge/pr-2/y", "mq-temp/z"} {
		w.gh.branches[b] = true
	}
	w.mustPass()
	got, _ := w.gh.ListBranches(w.ctx, opsKey.Repo, "")
	// mq-merge/ is not this queue's prefix; ci/merge-queue/notes is not
	// shaped like a test branch.
	if want := "ci/merge-queue/notes ci/other mq-merge/pr-2/y"; strings.Join(got, " ") != want {
		t.Fatalf("branches %v, want %s", got, want)
	}
}

// An informational edit waits five minutes after the surface's last write:
// a PR tested and merged within minutes has its check run written twice.
func TestReconcilerInformationWaitsFiveMinutes(t *testing.T) {
	t.Parallel()
	w := newRecWorld(t, nil)
	w.set(1, "head1", queue.StatePending, queue.ReasonAdmitted)
	w.mustPass()
	w.now = w.now.Add(4 * time.Minute)
	w.set(1, "head1", queue.StateTesting, queue.ReasonTesting)
	w.mustPass()
	if got := w.gh.checkRunsOn("head1")[0].Status; got != "queued" {
		t.Fatalf("check run %s four minutes after its creation, want still queued", got)
	}
	w.now = w.now.Add(time.Minute)
	w.set(1, "head1", queue.StateTesting, queue.ReasonTesting) // the next change makes it due again
	w.mustPass()
	if got := w.gh.checkRunsOn("head1")[0].Status; got != "in_progress" {
		t.Fatalf("check run %s five minutes after its creation, want in_progress", got)
	}
}
