package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

var entryTests = []testCase{
	{"entry/round trip", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		cases := []*queue.Entry{
			fullEntry("full", q.ID, 1),
			func() *queue.Entry { e := fullEntry("nil", q.ID, 2); e.PR.Mergeable = nil; return e }(),
			func() *queue.Entry { e := fullEntry("false", q.ID, 3); e.PR.Mergeable = boolp(false); return e }(),
			{ID: "zero", QueueID: q.ID, PRNumber: 4},
		}
		for _, e := range cases {
			must(t, s.SaveEntry(ctx, e))
			got, err := s.GetEntryByID(ctx, e.ID)
			must(t, err)
			assertEqual(t, got, e)
			got, err = s.GetEntry(ctx, q.ID, e.PRNumber)
			must(t, err)
			assertEqual(t, got, e)
		}
	}},
	{"entry/times come back in UTC", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		zone := time.FixedZone("CEST", 2*60*60)
		e := pendingEntry("e", q.ID, 1)
		e.SubmittedAt = time.Date(2026, 7, 23, 3, 32, 50, 123456789, zone)
		e.StateChangedAt = time.Now().In(zone) // carries a monotonic reading
		must(t, s.SaveEntry(ctx, e))
		got, err := s.GetEntryByID(ctx, "e")
		must(t, err)
		for name, pair := range map[string][2]time.Time{
			"SubmittedAt":    {got.SubmittedAt, e.SubmittedAt},
			"StateChangedAt": {got.StateChangedAt, e.StateChangedAt},
		} {
			if !pair[0].Equal(pair[1]) || pair[0].Location() != time.UTC || pair[0] != pair[0].Round(0) {
				t.Errorf("%s = %v, want %v in UTC without a monotonic reading", name, pair[0], pair[1])
			}
		}
		if !got.AdmittedAt.IsZero() {
			t.Errorf("zero AdmittedAt came back as %v", got.AdmittedAt)
		}
		e.SubmittedAt = time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)
		if err := s.SaveEntry(ctx, e); err == nil {
			t.Error("SaveEntry with a year-3000 time succeeded, want error")
		}
	}},
	{"entry/save replaces by id", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		e := fullEntry("e", q.ID, 1)
		must(t, s.SaveEntry(ctx, e))
		e.State, e.StateReason, e.PR.Mergeable, e.ConcludedAt, e.RunID = queue.StateCancelled, queue.ReasonPRClosed, nil, time.Time{}, ""
		must(t, s.SaveEntry(ctx, e))
		got, err := s.GetEntryByID(ctx, "e")
		must(t, err)
		assertEqual(t, got, e)
		if active, err := s.ListActiveEntries(ctx, q.ID); err != nil || len(active) != 0 {
			t.Errorf("cancelled entry still active: %v, %v", entryIDs(active), err)
		}
	}},
	{"entry/unique per queue and PR", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		other := mustQueue(t, s, "dev")
		must(t, s.SaveEntry(ctx, pendingEntry("a", q.ID, 1)))
		if err := s.SaveEntry(ctx, pendingEntry("b", q.ID, 1)); !errors.Is(err, queue.ErrExists) {
			t.Errorf("second ID for the same PR = %v, want ErrExists", err)
		}
		if _, err := s.GetEntryByID(ctx, "b"); !errors.Is(err, queue.ErrNotFound) {
			t.Errorf("refused entry was stored: %v", err)
		}
		if err := s.SaveEntry(ctx, pendingEntry("c", other.ID, 1)); err != nil {
			t.Errorf("same PR in another queue: %v", err)
		}
		if err := s.SaveEntry(ctx, &queue.Entry{QueueID: q.ID, PRNumber: 9}); err == nil {
			t.Error("SaveEntry with an empty ID succeeded")
		}
	}},
	{"entry/not found", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		if _, err := s.GetEntry(ctx, q.ID, 1); !errors.Is(err, queue.ErrNotFound) {
			t.Errorf("GetEntry = %v, want ErrNotFound", err)
		}
		if _, err := s.GetEntryByID(ctx, "nope"); !errors.Is(err, queue.ErrNotFound) {
			t.Errorf("GetEntryByID = %v, want ErrNotFound", err)
		}
	}},
	{"entry/active order", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		other := mustQueue(t, s, "dev")
		mk := func(id string, pr, prio int, seq int64, sub time.Duration, state queue.EntryState) *queue.Entry {
			e := pendingEntry(id, q.ID, pr)
			e.PriorityValue, e.Seq, e.SubmittedAt, e.State = prio, seq, at(sub), state
			return e
		}
		for _, e := range []*queue.Entry{
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
		} {
			must(t, s.SaveEntry(ctx, e))
		}
		must(t, s.SaveEntry(ctx, pendingEntry("other-queue", other.ID, 1)))
		got, err := s.ListActiveEntries(ctx, q.ID)
		must(t, err)
		assertEqual(t, entryIDs(got), []string{"urgent", "notready-early-pr6", "notready-early-pr7", "notready-late", "seq1", "seq2", "low-prio"})
		if got, err := s.ListActiveEntries(ctx, q.ID+100); err != nil || len(got) != 0 {
			t.Errorf("ListActiveEntries(unknown queue) = %v, %v", got, err)
		}
		for id, want := range map[int64]int{q.ID: 7, other.ID: 1, q.ID + 100: 0} {
			if n, err := s.CountActiveEntries(ctx, id); err != nil || n != want {
				t.Errorf("CountActiveEntries(queue %d) = %d, %v; want %d", id, n, err, want)
			}
		}
	}},
	{"entry/find active in every queue of the repo", func(t *testing.T, s queue.Store) {
		mainQ := mustQueue(t, s, "main")
		dev := mustQueue(t, s, "dev")
		rel := mustQueue(t, s, "release")
		gadgets := mustQueueIn(t, s, otherRepo, "main")
		merged := pendingEntry("rel-7", rel.ID, 7)
		merged.State = queue.StateMerged
		for _, e := range []*queue.Entry{pendingEntry("main-7", mainQ.ID, 7), pendingEntry("dev-7", dev.ID, 7), merged,
			pendingEntry("main-8", mainQ.ID, 8), pendingEntry("gadgets-7", gadgets.ID, 7)} {
			must(t, s.SaveEntry(ctx, e))
		}
		got, err := s.FindActiveEntries(ctx, testRepo, 7)
		must(t, err)
		assertEqual(t, entryIDs(got), []string{"main-7", "dev-7"})
		if got, err := s.FindActiveEntries(ctx, testRepo, 99); err != nil || len(got) != 0 {
			t.Errorf("FindActiveEntries for an unknown PR = %v, %v", got, err)
		}
	}},
	{"entry/list filters and pages", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		other := mustQueue(t, s, "dev")
		// Entries 1..6: odd ones merged at t0+n min+30s, even ones active, submitted at t0+n min;
		// by Alice (1, 3, 4, 6) or bob (2, 5).
		for n := 1; n <= 6; n++ {
			e := &queue.Entry{ID: fmt.Sprintf("e%d", n), QueueID: q.ID, PRNumber: n, State: queue.StatePending,
				SubmittedAt: at(time.Duration(n) * time.Minute), PR: queue.PRFacts{Author: []string{"Alice", "bob"}[n%3/2]}}
			if n%2 == 1 {
				e.State, e.ConcludedAt = queue.StateMerged, at(time.Duration(n)*time.Minute+30*time.Second)
			}
			must(t, s.SaveEntry(ctx, e))
		}
		// Same activity time as e6: ordered by ID descending.
		must(t, s.SaveEntry(ctx, &queue.Entry{ID: "e6b", QueueID: q.ID, PRNumber: 60, State: queue.StatePending, SubmittedAt: at(6 * time.Minute)}))
		// No activity time at all (NULL in SQL): listed last, excluded by any bound.
		must(t, s.SaveEntry(ctx, &queue.Entry{ID: "z-null", QueueID: q.ID, PRNumber: 99, State: queue.StatePending}))
		must(t, s.SaveEntry(ctx, &queue.Entry{ID: "x", QueueID: other.ID, PRNumber: 1, State: queue.StatePending, SubmittedAt: t0}))
		cases := []struct {
			name string
			q    queue.EntryQuery
			want []string
		}{
			{"all newest first", queue.EntryQuery{QueueID: q.ID}, []string{"e6b", "e6", "e5", "e4", "e3", "e2", "e1", "z-null"}},
			{"one state", queue.EntryQuery{QueueID: q.ID, States: []queue.EntryState{queue.StateMerged}}, []string{"e5", "e3", "e1"}},
			{"several states and a limit", queue.EntryQuery{QueueID: q.ID, States: []queue.EntryState{queue.StateMerged, queue.StatePending}, Limit: 2}, []string{"e6b", "e6"}},
			{"since and until", queue.EntryQuery{QueueID: q.ID, Since: at(2 * time.Minute), Until: at(4 * time.Minute)}, []string{"e3", "e2"}},
			{"after a position", queue.EntryQuery{QueueID: q.ID, AfterAt: at(4 * time.Minute), AfterID: "e4", Limit: 2}, []string{"e3", "e2"}},
			{"after a tie", queue.EntryQuery{QueueID: q.ID, AfterAt: at(6 * time.Minute), AfterID: "e6b", Limit: 2}, []string{"e6", "e5"}},
			{"one author, any case", queue.EntryQuery{QueueID: q.ID, Author: "ALICE"}, []string{"e6", "e4", "e3", "e1"}},
			{"author, state and time", queue.EntryQuery{QueueID: q.ID, Author: "bob", States: []queue.EntryState{queue.StateMerged}, Since: at(time.Minute)}, []string{"e5"}},
			{"unknown author", queue.EntryQuery{QueueID: q.ID, Author: "carol"}, []string{}},
			{"unknown queue", queue.EntryQuery{QueueID: q.ID + 100}, []string{}},
		}
		for _, tc := range cases {
			got, err := s.ListEntries(ctx, tc.q)
			must(t, err)
			if ids := entryIDs(got); fmt.Sprint(ids) != fmt.Sprint(tc.want) {
				t.Errorf("%s: got %v, want %v", tc.name, ids, tc.want)
			}
		}
	}},
}
