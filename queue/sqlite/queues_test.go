package sqlite

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

func TestCreateAndGetQueue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	q := mustQueue(t, s, "main")
	if q.ID == 0 {
		t.Fatal("CreateQueue did not set ID")
	}
	got, err := s.GetQueue(ctx, q.Key)
	if err != nil {
		t.Fatalf("GetQueue: %v", err)
	}
	assertEqual(t, got, q)
	got, err = s.GetQueueByID(ctx, q.ID)
	if err != nil {
		t.Fatalf("GetQueueByID: %v", err)
	}
	assertEqual(t, got, q)

	dup := newQueue(testRepo, "main")
	if err := s.CreateQueue(ctx, dup); !errors.Is(err, queue.ErrExists) {
		t.Errorf("duplicate CreateQueue = %v, want ErrExists", err)
	}
}

func TestQueueNotFound(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	q := mustQueue(t, s, "main")
	cases := []struct {
		name string
		call func() error
	}{
		{"other branch", func() error { _, err := s.GetQueue(ctx, queue.QueueKey{Repo: testRepo, Branch: "dev"}); return err }},
		{"other host", func() error {
			_, err := s.GetQueue(ctx, queue.QueueKey{Repo: queue.Repo{Host: "ghe.example", Owner: "acme", Name: "widgets"}, Branch: "main"})
			return err
		}},
		{"by id", func() error { _, err := s.GetQueueByID(ctx, q.ID+100); return err }},
		{"update", func() error { u := *q; u.ID = q.ID + 100; return s.UpdateQueue(ctx, &u) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, queue.ErrNotFound) {
				t.Errorf("got %v, want ErrNotFound", err)
			}
		})
	}
}

func TestQueueSettingsRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	every := queue.Settings{
		Mode: queue.ModeParallel, Concurrency: 3, TestingTimeoutMinutes: 45,
		CanOptimisticallyMerge: true, PendingFailureDepth: 2, Batch: true,
		BatchingMaxWaitTimeMinutes: 7, BatchingMinSize: 2, BatchingMaxSize: 9,
		CreatePrsForTestingBranches: true, CommentsEnabled: true, CommandsEnabled: true,
		StatusCheckEnabled: true, BisectionConcurrency: 4,
		RequiredStatuses: []string{"ci/test", "lint"}, DirectMergeMode: queue.DirectMergeAlways,
		OptimizationMode: queue.OptimizationBisectionSkipTests, MergeMethod: queue.Rebase,
		EnqueueingLabel: "ship-it", LabelCommandsEnabled: true, StateLabelsEnabled: true,
		ExtensionEnabled: true, NotReadyTimeoutHours: 12,
	}
	cases := []struct {
		name     string
		settings queue.Settings
	}{
		{"defaults", queue.DefaultSettings()},
		{"every field set", every},
		{"required statuses nil", func() queue.Settings { s := every; s.RequiredStatuses = nil; return s }()},
		{"required statuses empty", func() queue.Settings { s := every; s.RequiredStatuses = []string{}; return s }()},
		{"all zero", queue.Settings{}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := newQueue(testRepo, "branch-"+string(rune('a'+i)))
			q.Settings = tc.settings
			if err := s.CreateQueue(ctx, q); err != nil {
				t.Fatal(err)
			}
			got, err := s.GetQueueByID(ctx, q.ID)
			if err != nil {
				t.Fatal(err)
			}
			assertEqual(t, got.Settings, tc.settings)
			if (got.Settings.RequiredStatuses == nil) != (tc.settings.RequiredStatuses == nil) {
				t.Errorf("RequiredStatuses nil-ness changed: got %#v, want %#v", got.Settings.RequiredStatuses, tc.settings.RequiredStatuses)
			}

			// The same through UpdateQueue, flipping nil and empty.
			flipped := tc.settings
			if flipped.RequiredStatuses == nil {
				flipped.RequiredStatuses = []string{}
			} else {
				flipped.RequiredStatuses = nil
			}
			got.Settings = flipped
			if err := s.UpdateQueue(ctx, got); err != nil {
				t.Fatal(err)
			}
			again, err := s.GetQueueByID(ctx, q.ID)
			if err != nil {
				t.Fatal(err)
			}
			if (again.Settings.RequiredStatuses == nil) != (flipped.RequiredStatuses == nil) {
				t.Errorf("after update RequiredStatuses = %#v, want %#v", again.Settings.RequiredStatuses, flipped.RequiredStatuses)
			}
			assertEqual(t, again.Settings, flipped)
		})
	}
}

func TestUpdateQueue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	q := mustQueue(t, s, "main")
	q.State = queue.QueuePaused
	q.PausedReason = "landed tree differs"
	q.NextSeq = 17
	q.Settings.Concurrency = 5
	q.UpdatedAt = t0.Add(time.Hour)
	if err := s.UpdateQueue(ctx, q); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetQueueByID(ctx, q.ID)
	if err != nil {
		t.Fatal(err)
	}
	assertEqual(t, got, q)
}

func TestListQueuesOrderedByID(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	if got, err := s.ListQueues(ctx); err != nil || len(got) != 0 {
		t.Fatalf("ListQueues on empty store = %v, %v", got, err)
	}
	var want []*queue.Queue
	for _, b := range []string{"zeta", "alpha", "main"} {
		want = append(want, mustQueue(t, s, b))
	}
	got, err := s.ListQueues(ctx)
	if err != nil {
		t.Fatal(err)
	}
	assertEqual(t, got, want)
}

func TestDeleteQueueCascades(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	q := mustQueue(t, s, "main")
	other := mustQueue(t, s, "dev")
	for _, qq := range []*queue.Queue{q, other} {
		if err := s.SaveEntry(ctx, pendingEntry("e"+qq.Key.Branch, qq.ID, 1)); err != nil {
			t.Fatal(err)
		}
		if err := s.SaveRun(ctx, &queue.TestRun{ID: "r" + qq.Key.Branch, QueueID: qq.ID, SHA: "s" + qq.Key.Branch}); err != nil {
			t.Fatal(err)
		}
		if err := s.AddMerge(ctx, queue.MergeRecord{QueueID: qq.ID, EntryID: "e" + qq.Key.Branch}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteQueue(ctx, q.ID); err != nil {
		t.Fatalf("DeleteQueue: %v", err)
	}
	if err := s.DeleteQueue(ctx, q.ID); err != nil {
		t.Errorf("deleting an absent queue = %v, want nil", err)
	}
	if _, err := s.GetQueueByID(ctx, q.ID); !errors.Is(err, queue.ErrNotFound) {
		t.Errorf("GetQueueByID after delete = %v", err)
	}
	if _, err := s.GetEntryByID(ctx, "emain"); !errors.Is(err, queue.ErrNotFound) {
		t.Errorf("entry survived its queue: %v", err)
	}
	if _, err := s.GetRun(ctx, "rmain"); !errors.Is(err, queue.ErrNotFound) {
		t.Errorf("run survived its queue: %v", err)
	}
	if m, err := s.ListMerges(ctx, q.ID, 0); err != nil || len(m) != 0 {
		t.Errorf("merges survived their queue: %v, %v", m, err)
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
	// IDs are not reused after a delete.
	again := mustQueue(t, s, "main")
	if again.ID <= other.ID {
		t.Errorf("re-created queue got ID %d, want > %d", again.ID, other.ID)
	}
}
