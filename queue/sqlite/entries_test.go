package sqlite

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

func TestEntryRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	q := mustQueue(t, s, "main")
	cases := []struct {
		name  string
		entry *queue.Entry
	}{
		{"every field", fullEntry("full", q.ID, 1)},
		{"mergeable nil", func() *queue.Entry { e := fullEntry("nil", q.ID, 2); e.PR.Mergeable = nil; return e }()},
		{"mergeable false", func() *queue.Entry { e := fullEntry("false", q.ID, 3); e.PR.Mergeable = boolp(false); return e }()},
		{"zero values", &queue.Entry{ID: "zero", QueueID: q.ID, PRNumber: 4}},
		{"millisecond time", func() *queue.Entry {
			e := pendingEntry("ms", q.ID, 5)
			e.SubmittedAt = time.Date(2026, 7, 23, 1, 32, 50, 0, time.UTC).Add(7 * time.Millisecond)
			return e
		}()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.SaveEntry(ctx, tc.entry); err != nil {
				t.Fatalf("SaveEntry: %v", err)
			}
			got, err := s.GetEntryByID(ctx, tc.entry.ID)
			if err != nil {
				t.Fatalf("GetEntryByID: %v", err)
			}
			assertEqual(t, got, tc.entry)
			if (got.PR.Mergeable == nil) != (tc.entry.PR.Mergeable == nil) {
				t.Errorf("Mergeable nil-ness changed")
			}
			got, err = s.GetEntry(ctx, q.ID, tc.entry.PRNumber)
			if err != nil {
				t.Fatalf("GetEntry: %v", err)
			}
			assertEqual(t, got, tc.entry)
		})
	}
}

func TestEntryTimesAreUTC(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	q := mustQueue(t, s, "main")
	zone := time.FixedZone("CEST", 2*60*60)
	local := time.Date(2026, 7, 23, 3, 32, 50, 123456789, zone)
	e := pendingEntry("e", q.ID, 1)
	e.SubmittedAt = local.Round(time.Hour) // carries no monotonic reading anyway
	e.StateChangedAt = time.Now().In(zone) // carries a monotonic reading
	if err := s.SaveEntry(ctx, e); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetEntryByID(ctx, "e")
	if err != nil {
		t.Fatal(err)
	}
	for name, pair := range map[string][2]time.Time{
		"SubmittedAt":    {got.SubmittedAt, e.SubmittedAt},
		"StateChangedAt": {got.StateChangedAt, e.StateChangedAt},
	} {
		if !pair[0].Equal(pair[1]) || pair[0].Location() != time.UTC {
			t.Errorf("%s = %v (%v), want %v in UTC", name, pair[0], pair[0].Location(), pair[1])
		}
	}
	if !got.AdmittedAt.IsZero() {
		t.Errorf("zero AdmittedAt came back as %v", got.AdmittedAt)
	}
}

func TestSaveEntryRejectsOutOfRangeTime(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	q := mustQueue(t, s, "main")
	e := pendingEntry("e", q.ID, 1)
	e.SubmittedAt = time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := s.SaveEntry(context.Background(), e); err == nil {
		t.Error("SaveEntry with a year-3000 time succeeded, want error")
	}
}

func TestSaveEntryReplacesByID(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	q := mustQueue(t, s, "main")
	e := fullEntry("e", q.ID, 1)
	if err := s.SaveEntry(ctx, e); err != nil {
		t.Fatal(err)
	}
	e.State = queue.StateCancelled
	e.StateReason = queue.ReasonPRClosed
	e.PR.Mergeable = nil
	e.ConcludedAt = time.Time{}
	e.RunID = ""
	if err := s.SaveEntry(ctx, e); err != nil {
		t.Fatalf("second SaveEntry: %v", err)
	}
	got, err := s.GetEntryByID(ctx, "e")
	if err != nil {
		t.Fatal(err)
	}
	assertEqual(t, got, e)
}

func TestSaveEntryUniquePerQueueAndPR(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	q := mustQueue(t, s, "main")
	other := mustQueue(t, s, "dev")
	if err := s.SaveEntry(ctx, pendingEntry("a", q.ID, 1)); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveEntry(ctx, pendingEntry("b", q.ID, 1)); !errors.Is(err, queue.ErrExists) {
		t.Errorf("second ID for the same PR = %v, want ErrExists", err)
	}
	if err := s.SaveEntry(ctx, pendingEntry("c", other.ID, 1)); err != nil {
		t.Errorf("same PR in another queue: %v", err)
	}
	if err := s.SaveEntry(ctx, &queue.Entry{QueueID: q.ID, PRNumber: 9}); err == nil {
		t.Error("SaveEntry with an empty ID succeeded")
	}
	if err := s.SaveEntry(ctx, pendingEntry("orphan", 9999, 1)); err == nil {
		t.Error("SaveEntry for an unknown queue succeeded, want a foreign-key error")
	}
}

func TestEntryNotFound(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	q := mustQueue(t, s, "main")
	if _, err := s.GetEntry(ctx, q.ID, 1); !errors.Is(err, queue.ErrNotFound) {
		t.Errorf("GetEntry = %v, want ErrNotFound", err)
	}
	if _, err := s.GetEntryByID(ctx, "nope"); !errors.Is(err, queue.ErrNotFound) {
		t.Errorf("GetEntryByID = %v, want ErrNotFound", err)
	}
}

func TestListActiveEntriesOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	q := mustQueue(t, s, "main")
	other := mustQueue(t, s, "dev")
	mk := func(id string, pr, prio int, seq int64, sub time.Duration, state queue.EntryState) *queue.Entry {
		e := pendingEntry(id, q.ID, pr)
		e.PriorityValue, e.Seq, e.SubmittedAt, e.State = prio, seq, at(sub), state
		return e
	}
	entries := []*queue.Entry{
		mk("low-prio", 1, 200, 1, 0, queue.StatePending),
		mk("urgent", 2, 0, 9, 0, queue.StateTesting),
		mk("seq2", 3, 100, 2, 0, queue.StateTestsPassed),
		mk("seq1", 4, 100, 1, 0, queue.StatePendingFailure),
		mk("notready-late", 5, 100, 0, 2*time.Second, queue.StateNotReady),
		mk("notready-early-pr7", 7, 100, 0, time.Second, queue.StateNotReady),
		mk("notready-early-pr6", 6, 100, 0, time.Second, queue.StateNotReady),
		mk("merged", 8, 0, 0, 0, queue.StateMerged),
		mk("failed", 9, 0, 0, 0, queue.StateFailed),
		mk("cancelled", 10, 0, 0, 0, queue.StateCancelled),
	}
	for _, e := range entries {
		if err := s.SaveEntry(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SaveEntry(ctx, pendingEntry("other-queue", other.ID, 1)); err != nil {
		t.Fatal(err)
	}
	got, err := s.ListActiveEntries(ctx, q.ID)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range got {
		ids = append(ids, e.ID)
	}
	assertEqual(t, ids, []string{"urgent", "notready-early-pr6", "notready-early-pr7", "notready-late", "seq1", "seq2", "low-prio"})
}

func TestFindActiveEntries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	mainQ := mustQueue(t, s, "main")
	dev := mustQueue(t, s, "dev")
	rel := mustQueue(t, s, "release")
	otherRepo := newQueue(queue.Repo{Host: "github.com", Owner: "acme", Name: "gadgets"}, "main")
	if err := s.CreateQueue(ctx, otherRepo); err != nil {
		t.Fatal(err)
	}
	merged := pendingEntry("rel-7", rel.ID, 7)
	merged.State = queue.StateMerged
	for _, e := range []*queue.Entry{
		pendingEntry("main-7", mainQ.ID, 7),
		pendingEntry("dev-7", dev.ID, 7),
		merged,
		pendingEntry("main-8", mainQ.ID, 8),
		pendingEntry("gadgets-7", otherRepo.ID, 7),
	} {
		if err := s.SaveEntry(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.FindActiveEntries(ctx, testRepo, 7)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range got {
		ids = append(ids, e.ID)
	}
	assertEqual(t, ids, []string{"main-7", "dev-7"})

	if got, err := s.FindActiveEntries(ctx, testRepo, 99); err != nil || len(got) != 0 {
		t.Errorf("FindActiveEntries for an unknown PR = %v, %v", got, err)
	}
}
