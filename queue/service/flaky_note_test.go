package service_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/service"
	"github.com/mergequeue/mq/queue/sqlite/sqlitetest"
)

// txSpy counts the event-log reads made inside write transactions.
type txSpy struct {
	queue.Store
	inTx *atomic.Int32
}

func (s txSpy) WithTx(ctx context.Context, fn func(tx queue.Store) error) error {
	return s.Store.WithTx(ctx, func(tx queue.Store) error { return fn(txLister{Store: tx, n: s.inTx}) })
}

type txLister struct {
	queue.Store
	n *atomic.Int32
}

func (l txLister) ListEvents(ctx context.Context, queueID int64, since time.Time) ([]queue.Event, error) {
	l.n.Add(1)
	return l.Store.ListEvents(ctx, queueID, since)
}

// The failure comment names the failed check's flake rate of the week,
// read before the write transaction: the transaction that fails the PR
// does not scan the week's events (issue #19: the write lock is held for
// one entry's change, not for a week of history).
func TestFailureCommentReadsTheWeekOutsideTheTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := sqlitetest.Open(t)
	var inTx atomic.Int32
	gh := newOpsGitHub()
	svc := service.NewService(txSpy{Store: store, inTx: &inTx}, gh, service.Options{Now: func() time.Time { return opsNow }})
	s := queue.DefaultSettings()
	s.RequiredStatuses = []string{"ci"}
	q, err := svc.CreateQueue(ctx, opsKey, s)
	if err != nil {
		t.Fatal(err)
	}
	// Yesterday #7's ci failed and passed on retry.
	for _, ev := range []queue.Event{
		{EntryID: "old", PRNumber: 7, From: queue.StateTesting, To: queue.StatePending, Reason: queue.ReasonRetryingFailedCheck,
			Detail: `required check "ci" failed (failure): https://ci.example/1; trying again on a new test commit: attempt 2 of 2`},
		{EntryID: "old", PRNumber: 7, From: queue.StateTesting, To: queue.StateTestsPassed, Reason: queue.ReasonTestsPassed, Detail: "passed"},
	} {
		ev.QueueID, ev.At = q.ID, opsNow.Add(-24*time.Hour)
		if err := store.AddEvent(ctx, &ev); err != nil {
			t.Fatal(err)
		}
	}
	e := &queue.Entry{ID: "e1", QueueID: q.ID, PRNumber: 1, PRSHA: "sha1", State: queue.StateTesting, StateReason: queue.ReasonTesting,
		StateChangedAt: opsNow.Add(-time.Minute), PriorityValue: queue.DefaultPriority, PriorityName: "medium",
		SubmittedAt: opsNow.Add(-time.Hour), AdmittedAt: opsNow.Add(-time.Hour), Seq: 1, Source: "api", RunID: "r1", Position: 1,
		PR: queue.PRFacts{Title: "PR 1", Author: "dev", HeadSHA: "sha1", BaseBranch: "main", Open: true, MergeableState: "clean", ReadAt: opsNow}}
	if err := store.SaveEntry(ctx, e); err != nil {
		t.Fatal(err)
	}
	gh.prs[1] = &queue.PullRequest{Number: 1, HeadRef: "one", PRFacts: e.PR}
	run := &queue.TestRun{ID: "r1", QueueID: q.ID, EntryIDs: []string{"e1"}, PRNumbers: []int{1}, PRSHAs: []string{"sha1"},
		BaseSHA: "base", Branch: "mq-merge/pr-1/r1", SHA: "t1", RequiredChecks: []string{"ci"}, Status: queue.RunInProgress,
		CreatedAt: opsNow.Add(-2 * time.Minute), StartedAt: opsNow.Add(-time.Minute)}
	if err := store.SaveRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	if err := store.RecordCheck(ctx, opsKey.Repo, queue.CheckResult{SHA: "t1", Kind: queue.KindStatus, Name: "ci",
		State: queue.CheckFailure, Raw: "failure", URL: "https://ci.example/2", UpdatedAt: opsNow}); err != nil {
		t.Fatal(err)
	}
	inTx.Store(0)
	if _, err := svc.Sync(ctx, q.ID); err != nil {
		t.Fatal(err)
	}
	got, err := store.GetEntryByID(ctx, "e1")
	if err != nil || got.State != queue.StateFailed {
		t.Fatalf("#1 is %+v, %v; want failed", got, err)
	}
	notices, err := store.DueNotices(ctx, opsNow.Add(time.Hour), 10)
	if err != nil {
		t.Fatal(err)
	}
	const note = "`ci` has passed on retry or been vouched for in 50 % of its failures this week: 1 of 2."
	found := false
	for _, n := range notices {
		found = found || (n.PRNumber == 1 && strings.Contains(n.Body, note))
	}
	if !found {
		t.Errorf("no failure comment on #1 with %q in %+v", note, notices)
	}
	if n := inTx.Load(); n != 0 {
		t.Errorf("the write transactions read the event log %d times; want none (the week is read before)", n)
	}
}
