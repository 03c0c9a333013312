package storetest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

var surfaceTests = []testCase{
	{"surface/touch creates and bumps; save keeps Want", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		must(t, s.SaveEntry(ctx, pendingEntry("e1", q.ID, 1)))
		if _, err := s.GetSurface(ctx, "e1"); !errors.Is(err, queue.ErrNotFound) {
			t.Fatalf("GetSurface before any touch: %v, want ErrNotFound", err)
		}
		must(t, s.TouchSurface(ctx, q.ID, "e1"))
		must(t, s.TouchSurface(ctx, q.ID, "e1"))
		got, err := s.GetSurface(ctx, "e1")
		must(t, err)
		assertEqual(t, *got, queue.Surface{EntryID: "e1", QueueID: q.ID, Want: 2})
		full := queue.Surface{EntryID: "e1", QueueID: q.ID, Want: 99, Done: 2,
			CommentID: 1 << 40, CommentHash: "c0ffee", CheckRunID: 1<<40 + 1, CheckRunSHA: "abc",
			CheckRunHash: "beef", CheckRunOpen: true, StateLabel: "mq:testing", CommentCreating: true,
			CheckRunCreating: true, Attempts: 3, NextAttemptAt: at(time.Second), LastError: "boom", WrittenAt: at(2 * time.Second)}
		must(t, s.SaveSurface(ctx, full))
		got, err = s.GetSurface(ctx, "e1")
		must(t, err)
		want := full
		want.Want = 2 // only TouchSurface moves Want
		assertEqual(t, *got, want)
		if err := s.SaveSurface(ctx, queue.Surface{EntryID: "nope"}); !errors.Is(err, queue.ErrNotFound) {
			t.Errorf("SaveSurface of an unknown entry: %v, want ErrNotFound", err)
		}
	}},
	{"surface/due while Want > Done and the backoff is over", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		for i, id := range []string{"a", "b", "c", "d"} {
			must(t, s.SaveEntry(ctx, pendingEntry(id, q.ID, i+1)))
			must(t, s.TouchSurface(ctx, q.ID, id))
		}
		b, _ := s.GetSurface(ctx, "b")
		b.Done = b.Want // caught up
		must(t, s.SaveSurface(ctx, *b))
		c, _ := s.GetSurface(ctx, "c")
		c.NextAttemptAt = at(time.Minute) // backing off
		must(t, s.SaveSurface(ctx, *c))
		d, _ := s.GetSurface(ctx, "d")
		d.NextAttemptAt = at(-time.Minute) // backed off, due again
		must(t, s.SaveSurface(ctx, *d))
		due, err := s.DueSurfaces(ctx, t0, 10)
		must(t, err)
		assertEqual(t, surfaceIDs(due), []string{"a", "d"})
		due, err = s.DueSurfaces(ctx, at(time.Hour), 10)
		must(t, err)
		assertEqual(t, surfaceIDs(due), []string{"a", "d", "c"})
		due, err = s.DueSurfaces(ctx, at(time.Hour), 1)
		must(t, err)
		assertEqual(t, len(due), 1)
		must(t, s.TouchSurface(ctx, q.ID, "b")) // a new change: due again
		due, err = s.DueSurfaces(ctx, t0, 10)
		must(t, err)
		assertEqual(t, surfaceIDs(due), []string{"a", "b", "d"})
	}},
	{"surface/touch in a failed transaction is undone", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		must(t, s.SaveEntry(ctx, pendingEntry("e1", q.ID, 1)))
		boom := errors.New("boom")
		err := s.WithTx(ctx, func(tx queue.Store) error {
			must(t, tx.TouchSurface(ctx, q.ID, "e1"))
			_, err := tx.AddNotice(ctx, &queue.Notice{Key: "k", Repo: testRepo, PRNumber: 1, Kind: queue.NoticeComment})
			must(t, err)
			must(t, tx.RecordRef(ctx, queue.Ref{Repo: testRepo, Name: "mq-temp/x", QueueID: q.ID}))
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("WithTx = %v", err)
		}
		if _, err := s.GetSurface(ctx, "e1"); !errors.Is(err, queue.ErrNotFound) {
			t.Errorf("surface after rollback: %v", err)
		}
		ns, err := s.DueNotices(ctx, at(time.Hour), 10)
		must(t, err)
		refs, err := s.ListRefs(ctx, testRepo)
		must(t, err)
		if len(ns) != 0 || len(refs) != 0 {
			t.Errorf("after rollback: %d notices, %d refs", len(ns), len(refs))
		}
	}},
	{"run surface/touch, due, save keeps Want", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		for _, id := range []string{"r1", "r2"} {
			must(t, s.SaveRun(ctx, &queue.TestRun{ID: id, QueueID: q.ID, Status: queue.RunInProgress, CreatedAt: t0}))
		}
		if _, err := s.GetRunSurface(ctx, "r1"); !errors.Is(err, queue.ErrNotFound) {
			t.Fatalf("GetRunSurface before any touch: %v, want ErrNotFound", err)
		}
		must(t, s.TouchRunSurface(ctx, q.ID, "r1"))
		must(t, s.TouchRunSurface(ctx, q.ID, "r2"))
		must(t, s.TouchRunSurface(ctx, q.ID, "r1"))
		got, err := s.GetRunSurface(ctx, "r1")
		must(t, err)
		assertEqual(t, *got, queue.RunSurface{RunID: "r1", QueueID: q.ID, Want: 2})
		full := queue.RunSurface{RunID: "r1", QueueID: q.ID, Want: 40, Done: 2, PRNumber: 1 << 30, PRHash: "abc",
			Creating: true, Closed: true, Attempts: 2, NextAttemptAt: at(time.Minute), LastError: "422"}
		must(t, s.SaveRunSurface(ctx, full))
		got, err = s.GetRunSurface(ctx, "r1")
		must(t, err)
		want := full
		want.Want = 2
		assertEqual(t, *got, want)
		due, err := s.DueRunSurfaces(ctx, t0, 10)
		must(t, err)
		if len(due) != 1 || due[0].RunID != "r2" {
			t.Fatalf("due run surfaces %+v, want r2 only (r1 is caught up)", due)
		}
		if err := s.SaveRunSurface(ctx, queue.RunSurface{RunID: "nope"}); !errors.Is(err, queue.ErrNotFound) {
			t.Errorf("SaveRunSurface of an unknown run: %v, want ErrNotFound", err)
		}
	}},
	{"runs/recent succeeded ones, latest finished first", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		other := mustQueue(t, s, "dev")
		for i, r := range []struct {
			id     string
			queue  int64
			status queue.RunStatus
			done   time.Duration
		}{{"a", q.ID, queue.RunSucceeded, time.Minute}, {"b", q.ID, queue.RunFailed, 2 * time.Minute},
			{"c", q.ID, queue.RunSucceeded, 3 * time.Minute}, {"d", other.ID, queue.RunSucceeded, 4 * time.Minute},
			{"e", q.ID, queue.RunInProgress, 0}, {"f", q.ID, queue.RunSucceeded, 30 * time.Second}} {
			run := &queue.TestRun{ID: r.id, QueueID: r.queue, Status: r.status, CreatedAt: at(time.Duration(i) * time.Second)}
			if r.done != 0 {
				run.FinishedAt = at(r.done)
			}
			must(t, s.SaveRun(ctx, run))
		}
		got, err := s.RecentRuns(ctx, q.ID, 2)
		must(t, err)
		if len(got) != 2 || got[0].ID != "c" || got[1].ID != "a" {
			t.Fatalf("RecentRuns(2) = %v, want c, a", runIDs(got))
		}
		got, err = s.RecentRuns(ctx, q.ID, 0)
		must(t, err)
		assertEqual(t, runIDs(got), []string{"c", "a", "f"})
	}},
	{"runs/recent with a limit is the head of the whole list", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		rng := rand.New(rand.NewPCG(7, 11)) //nolint:gosec // a fixed test sequence, not a secret
		statuses := []queue.RunStatus{queue.RunSucceeded, queue.RunSucceeded, queue.RunFailed, queue.RunInProgress}
		for i := range 60 {
			st := statuses[rng.IntN(len(statuses))]
			run := &queue.TestRun{ID: fmt.Sprintf("r%05d", rng.IntN(1000)*100+i), QueueID: q.ID, Status: st, CreatedAt: at(time.Duration(i) * time.Second)}
			if st != queue.RunInProgress {
				// Few distinct times: ties are ordered by ID (fixed width,
				// so every collation orders them alike).
				run.FinishedAt = at(time.Duration(rng.IntN(8)) * time.Minute)
			}
			must(t, s.SaveRun(ctx, run))
		}
		all, err := s.RecentRuns(ctx, q.ID, 0)
		must(t, err)
		for _, limit := range []int{1, 2, 5, 17, len(all), len(all) + 3} {
			got, err := s.RecentRuns(ctx, q.ID, limit)
			must(t, err)
			assertEqual(t, runIDs(got), runIDs(all[:min(limit, len(all))]))
		}
	}},
	{"notice/added once per key, due until done", func(t *testing.T, s queue.Store) {
		n := &queue.Notice{Key: "reply:1", Repo: testRepo, PRNumber: 7, Kind: queue.NoticeReaction, Body: "+1",
			CommentID: 1 << 40, CreatedAt: t0}
		added, err := s.AddNotice(ctx, n)
		must(t, err)
		if !added || n.ID == 0 {
			t.Fatalf("AddNotice = %v, id %d", added, n.ID)
		}
		again := &queue.Notice{Key: "reply:1", Repo: otherRepo, PRNumber: 8, Kind: queue.NoticeComment, Body: "other"}
		added, err = s.AddNotice(ctx, again)
		must(t, err)
		if added {
			t.Fatal("second AddNotice with the same key was added")
		}
		second := &queue.Notice{Key: "reply:2", Repo: testRepo, PRNumber: 7, Kind: queue.NoticeComment, Body: "hi", CreatedAt: t0}
		_, err = s.AddNotice(ctx, second)
		must(t, err)
		due, err := s.DueNotices(ctx, t0, 10)
		must(t, err)
		assertEqual(t, due, []queue.Notice{*n, *second})

		n.Attempted, n.Attempts, n.NextAttemptAt, n.LastError = true, 2, at(time.Minute), "502"
		must(t, s.SaveNotice(ctx, *n))
		due, err = s.DueNotices(ctx, t0, 10)
		must(t, err)
		assertEqual(t, due, []queue.Notice{*second})
		due, err = s.DueNotices(ctx, at(time.Hour), 1)
		must(t, err)
		assertEqual(t, due, []queue.Notice{*n})

		n.DoneAt = at(2 * time.Minute)
		must(t, s.SaveNotice(ctx, *n))
		due, err = s.DueNotices(ctx, at(time.Hour), 10)
		must(t, err)
		assertEqual(t, due, []queue.Notice{*second})
		if err := s.SaveNotice(ctx, queue.Notice{ID: 12345}); !errors.Is(err, queue.ErrNotFound) {
			t.Errorf("SaveNotice of an unknown notice: %v, want ErrNotFound", err)
		}
	}},
	{"ref/record, list by repository in any case, forget", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		other := mustQueueIn(t, s, otherRepo, "main")
		a := queue.Ref{Repo: testRepo, Name: "mq-temp/a", QueueID: q.ID, RunID: "r1", CreatedAt: t0}
		b := queue.Ref{Repo: testRepo, Name: "mq-merge/pr-1/r1", QueueID: q.ID, RunID: "r1", CreatedAt: at(time.Second)}
		c := queue.Ref{Repo: otherRepo, Name: "mq-temp/c", QueueID: other.ID, CreatedAt: t0}
		for _, r := range []queue.Ref{a, b, c, a} {
			must(t, s.RecordRef(ctx, r))
		}
		upper := queue.Repo{Host: "GitHub.com", Owner: "ACME", Name: "Widgets"}
		got, err := s.ListRefs(ctx, upper)
		must(t, err)
		assertEqual(t, got, []queue.Ref{b, a})
		must(t, s.ForgetRef(ctx, upper, "mq-temp/a"))
		must(t, s.ForgetRef(ctx, testRepo, "mq-temp/never"))
		got, err = s.ListRefs(ctx, testRepo)
		must(t, err)
		assertEqual(t, got, []queue.Ref{b})
		must(t, s.DeleteQueue(ctx, q.ID))
		got, err = s.ListRefs(ctx, testRepo)
		must(t, err)
		assertEqual(t, len(got), 0)
		got, err = s.ListRefs(ctx, otherRepo)
		must(t, err)
		assertEqual(t, got, []queue.Ref{c})
	}},
	{"ref/queues with run branches: a run's recorded branch counts, a lane does not", func(t *testing.T, s queue.Store) {
		ids := func() []int64 { t.Helper(); return queueIDs(t, s.ListQueuesWithRunRefs) }
		if got := ids(); len(got) != 0 {
			t.Fatalf("ListQueuesWithRunRefs on an empty store = %v", got)
		}
		mustQueue(t, s, "none")
		lane := mustQueue(t, s, "lane")
		runs := mustQueue(t, s, "runs")
		other := mustQueueIn(t, s, otherRepo, "main")
		must(t, s.RecordRef(ctx, queue.Ref{Repo: testRepo, Name: "mq-temp/lane-2", QueueID: lane.ID, CreatedAt: t0}))
		must(t, s.RecordRef(ctx, queue.Ref{Repo: testRepo, Name: "mq-merge/pr-1/r1", QueueID: runs.ID, RunID: "r1", CreatedAt: t0}))
		must(t, s.RecordRef(ctx, queue.Ref{Repo: testRepo, Name: "mq-merge/pr-2/r2", QueueID: runs.ID, RunID: "r2", CreatedAt: t0}))
		must(t, s.RecordRef(ctx, queue.Ref{Repo: otherRepo, Name: "mq-merge/pr-3/r3", QueueID: other.ID, RunID: "r3", CreatedAt: t0}))
		assertEqual(t, ids(), []int64{runs.ID, other.ID})
		full, err := s.ListQueuesWithRunRefs(ctx)
		must(t, err)
		want, err := s.GetQueueByID(ctx, runs.ID)
		must(t, err)
		assertEqual(t, full[0], want)
		// Its branches forgotten (deleted on GitHub), a queue leaves the
		// list; a deleted queue takes its records with it.
		must(t, s.ForgetRef(ctx, testRepo, "mq-merge/pr-1/r1"))
		assertEqual(t, ids(), []int64{runs.ID, other.ID})
		must(t, s.ForgetRef(ctx, testRepo, "mq-merge/pr-2/r2"))
		assertEqual(t, ids(), []int64{other.ID})
		must(t, s.DeleteQueue(ctx, other.ID))
		if got := ids(); len(got) != 0 {
			t.Fatalf("ListQueuesWithRunRefs after the last run branch went = %v", got)
		}
	}},
}

func surfaceIDs(ss []queue.Surface) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.EntryID
	}
	return out
}
