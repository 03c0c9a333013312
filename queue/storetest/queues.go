package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

var queueTests = []testCase{
	{"queue/create and get", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		if q.ID == 0 {
			t.Fatal("CreateQueue did not set ID")
		}
		got, err := s.GetQueue(ctx, q.Key)
		must(t, err)
		assertEqual(t, got, q)
		got, err = s.GetQueueByID(ctx, q.ID)
		must(t, err)
		assertEqual(t, got, q)
		if err := s.CreateQueue(ctx, newQueue(testRepo, "main")); !errors.Is(err, queue.ErrExists) {
			t.Errorf("duplicate CreateQueue = %v, want ErrExists", err)
		}
	}},
	{"queue/not found", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		calls := map[string]func() error{
			"other branch": func() error { _, err := s.GetQueue(ctx, queue.QueueKey{Repo: testRepo, Branch: "dev"}); return err },
			"other repo":   func() error { _, err := s.GetQueue(ctx, queue.QueueKey{Repo: otherRepo, Branch: "main"}); return err },
			"by id":        func() error { _, err := s.GetQueueByID(ctx, q.ID+100); return err },
			"update":       func() error { u := *q; u.ID = q.ID + 100; return s.UpdateQueue(ctx, &u) },
		}
		for name, call := range calls {
			if err := call(); !errors.Is(err, queue.ErrNotFound) {
				t.Errorf("%s: got %v, want ErrNotFound", name, err)
			}
		}
	}},
	{"queue/settings keep nil and empty required statuses", func(t *testing.T, s queue.Store) {
		for i, statuses := range [][]string{nil, {}, {"ci", "lint"}} {
			q := newQueue(testRepo, string(rune('a'+i)))
			q.Settings.RequiredStatuses = statuses
			q.Settings.Batch, q.Settings.BatchingMaxSize, q.Settings.Mode, q.Settings.BisectionParts = true, 9, queue.ModeParallel, 5
			q.Settings.TestBranchConstructionMode = queue.RenameTempBranch
			q.Settings.AllowedBotSubmitters = []string{"renovate[bot]", "release-bot"}
			q.Settings.TestBranchPrefix = "ci/mq/"
			must(t, s.CreateQueue(ctx, q))
			got, err := s.GetQueueByID(ctx, q.ID)
			must(t, err)
			assertEqual(t, got.Settings, q.Settings)
			if (got.Settings.RequiredStatuses == nil) != (statuses == nil) {
				t.Errorf("RequiredStatuses %#v came back as %#v", statuses, got.Settings.RequiredStatuses)
			}
		}
	}},
	{"queue/update saves state but not key or creation", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		u := *q
		u.State, u.PausedReason, u.NextSeq = queue.QueueSwitchingModes, "tree differs", 17
		u.PendingMode, u.ResumeState = queue.ModeParallel, queue.QueuePaused
		u.Settings.Concurrency = 5
		u.UpdatedAt = t0.Add(time.Hour)
		u.Key.Branch, u.CreatedAt = "renamed", t0.Add(time.Minute)
		must(t, s.UpdateQueue(ctx, &u))
		got, err := s.GetQueueByID(ctx, q.ID)
		must(t, err)
		want := u
		want.Key, want.CreatedAt = q.Key, q.CreatedAt
		assertEqual(t, got, &want)
	}},
	{"queue/list ordered by id", func(t *testing.T, s queue.Store) {
		if got, err := s.ListQueues(ctx); err != nil || len(got) != 0 {
			t.Fatalf("ListQueues on an empty store = %v, %v", got, err)
		}
		var want []*queue.Queue
		for _, b := range []string{"zeta", "alpha", "main"} {
			want = append(want, mustQueue(t, s, b))
		}
		got, err := s.ListQueues(ctx)
		must(t, err)
		assertEqual(t, got, want)
	}},
	{"queue/list active: an active entry or an open run, by id", func(t *testing.T, s queue.Store) {
		ids := func() []int64 { t.Helper(); return queueIDs(t, s.ListActiveQueues) }
		if got := ids(); len(got) != 0 {
			t.Fatalf("ListActiveQueues on an empty store = %v", got)
		}
		mustQueue(t, s, "empty")
		done := mustQueue(t, s, "done")
		waiting := mustQueue(t, s, "waiting")
		running := mustQueue(t, s, "running")
		both := mustQueue(t, s, "both")
		merged := pendingEntry("merged", done.ID, 1)
		merged.State = queue.StateMerged
		must(t, s.SaveEntry(ctx, merged))
		must(t, s.SaveRun(ctx, &queue.TestRun{ID: "closed", QueueID: done.ID, SHA: "c", Closed: true}))
		must(t, s.SaveEntry(ctx, pendingEntry("w", waiting.ID, 2)))
		must(t, s.SaveRun(ctx, &queue.TestRun{ID: "open", QueueID: running.ID, SHA: "o"}))
		must(t, s.SaveEntry(ctx, pendingEntry("b1", both.ID, 3)))
		must(t, s.SaveEntry(ctx, pendingEntry("b2", both.ID, 4)))
		must(t, s.SaveRun(ctx, &queue.TestRun{ID: "bopen", QueueID: both.ID, SHA: "b"}))
		assertEqual(t, ids(), []int64{waiting.ID, running.ID, both.ID})
		full, err := s.ListActiveQueues(ctx)
		must(t, err)
		want, err := s.GetQueueByID(ctx, waiting.ID)
		must(t, err)
		assertEqual(t, full[0], want)
		// The entry ends: its queue is idle again; the empty queue never
		// was active.
		w, err := s.GetEntry(ctx, waiting.ID, 2)
		must(t, err)
		w.State = queue.StateCancelled
		must(t, s.SaveEntry(ctx, w))
		assertEqual(t, ids(), []int64{running.ID, both.ID})
	}},
	{"queue/delete cascades", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		other := mustQueue(t, s, "dev")
		for _, qq := range []*queue.Queue{q, other} {
			b := qq.Key.Branch
			must(t, s.SaveEntry(ctx, pendingEntry("e"+b, qq.ID, 1)))
			must(t, s.SaveRun(ctx, &queue.TestRun{ID: "r" + b, QueueID: qq.ID, SHA: "s" + b}))
			must(t, s.AddMerge(ctx, queue.MergeRecord{QueueID: qq.ID, EntryID: "e" + b, At: t0}))
			must(t, s.SetTargets(ctx, queue.Targets{QueueID: qq.ID, PRNumber: 1, SHA: "a", All: true}))
			must(t, s.AddEvent(ctx, &queue.Event{QueueID: qq.ID, EntryID: "e" + b, At: t0}))
		}
		must(t, s.RecordCheck(ctx, testRepo, queue.CheckResult{SHA: "smain", Kind: queue.KindStatus, Name: "ci"}))
		must(t, s.DeleteQueue(ctx, q.ID))
		if err := s.DeleteQueue(ctx, q.ID); err != nil {
			t.Errorf("deleting an absent queue = %v, want nil", err)
		}
		if _, err := s.GetQueueByID(ctx, q.ID); !errors.Is(err, queue.ErrNotFound) {
			t.Errorf("GetQueueByID after delete = %v", err)
		}
		if _, err := s.GetQueue(ctx, q.Key); !errors.Is(err, queue.ErrNotFound) {
			t.Errorf("GetQueue after delete = %v", err)
		}
		if _, err := s.GetEntryByID(ctx, "emain"); !errors.Is(err, queue.ErrNotFound) {
			t.Errorf("entry survived its queue: %v", err)
		}
		if _, err := s.GetRun(ctx, "rmain"); !errors.Is(err, queue.ErrNotFound) {
			t.Errorf("run survived its queue: %v", err)
		}
		if runs, err := s.FindRunsBySHA(ctx, testRepo, "smain"); err != nil || len(runs) != 0 {
			t.Errorf("run still found by SHA: %v, %v", runs, err)
		}
		if m, err := s.ListMerges(ctx, q.ID, 0); err != nil || len(m) != 0 {
			t.Errorf("merges survived their queue: %v, %v", m, err)
		}
		if _, err := s.GetTargets(ctx, q.ID, 1); !errors.Is(err, queue.ErrNotFound) {
			t.Errorf("targets survived their queue: %v", err)
		}
		if evs, err := s.ListEvents(ctx, q.ID, t0.Add(-time.Hour)); err != nil || len(evs) != 0 {
			t.Errorf("events survived their queue: %v, %v", evs, err)
		}
		if cs, err := s.ListChecks(ctx, testRepo, "smain"); err != nil || len(cs) != 1 {
			t.Errorf("checks belong to the repository and stay: %v, %v", cs, err)
		}
		// The other queue is untouched.
		if _, err := s.GetEntryByID(ctx, "edev"); err != nil {
			t.Errorf("other queue's entry: %v", err)
		}
		if _, err := s.GetRun(ctx, "rdev"); err != nil {
			t.Errorf("other queue's run: %v", err)
		}
		if m, err := s.ListMerges(ctx, other.ID, 0); err != nil || len(m) != 1 {
			t.Errorf("other queue's merges: %v, %v", m, err)
		}
		// The key is free again and IDs are not reused.
		again := mustQueue(t, s, "main")
		if again.ID <= other.ID {
			t.Errorf("re-created queue got ID %d, want > %d", again.ID, other.ID)
		}
		if _, err := s.GetEntry(ctx, again.ID, 1); !errors.Is(err, queue.ErrNotFound) {
			t.Errorf("re-created queue inherited an entry: %v", err)
		}
	}},
	{"queue/writes need an existing queue", func(t *testing.T, s queue.Store) {
		const unknown = 9999
		writes := map[string]error{
			"entry":   s.SaveEntry(ctx, pendingEntry("orphan", unknown, 1)),
			"run":     s.SaveRun(ctx, &queue.TestRun{ID: "orphan", QueueID: unknown}),
			"merge":   s.AddMerge(ctx, queue.MergeRecord{QueueID: unknown}),
			"event":   s.AddEvent(ctx, &queue.Event{QueueID: unknown, At: t0}),
			"targets": s.SetTargets(ctx, queue.Targets{QueueID: unknown, PRNumber: 1}),
		}
		for name, err := range writes {
			if err == nil {
				t.Errorf("%s for an unknown queue succeeded, want a foreign-key error", name)
			}
		}
	}},
}

// queueIDs lists queues with list and returns their IDs in its order.
func queueIDs(t *testing.T, list func(context.Context) ([]*queue.Queue, error)) []int64 {
	t.Helper()
	got, err := list(ctx)
	must(t, err)
	var out []int64
	for _, q := range got {
		out = append(out, q.ID)
	}
	return out
}
