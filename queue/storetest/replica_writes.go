package storetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// replicaWriteTests: the writes that keep replicas sharing a store from
// undoing each other's work.
var replicaWriteTests = append(slices.Clone(entryVersionTests), mergeOnceTests...)

// entryVersionTests: SaveEntry is compare-and-set on Entry.Version, so
// that a replica saving an entry it read before another replica saved it
// changes nothing (queue.ErrConflict) instead of undoing that save.
var entryVersionTests = []testCase{
	{"entry versions/a save sets the version reads return", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		e := pendingEntry("e", q.ID, 1)
		must(t, s.SaveEntry(ctx, e))
		if e.Version == 0 {
			t.Fatal("a saved entry still has Version 0")
		}
		got, err := s.GetEntryByID(ctx, "e")
		must(t, err)
		if got.Version != e.Version {
			t.Errorf("read back at version %d, saved at %d", got.Version, e.Version)
		}
		before := e.Version
		e.State = queue.StateTesting
		must(t, s.SaveEntry(ctx, e))
		if e.Version == before {
			t.Errorf("a second save left the version at %d", before)
		}
		for _, read := range entryReads(t, s, q.ID, 1, "e") {
			if read.Version != e.Version {
				t.Errorf("a read returned version %d, want %d", read.Version, e.Version)
			}
		}
	}},
	{"entry versions/a stale save changes nothing", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		must(t, s.SaveEntry(ctx, pendingEntry("e", q.ID, 1)))
		mine, err := s.GetEntryByID(ctx, "e")
		must(t, err)
		theirs, err := s.GetEntryByID(ctx, "e")
		must(t, err)
		theirs.State, theirs.MergeIntent = queue.StateMerged, false
		must(t, s.SaveEntry(ctx, theirs))
		mine.State, mine.MergeIntent = queue.StateTesting, true
		seen := mine.Version
		if err := s.SaveEntry(ctx, mine); !errors.Is(err, queue.ErrConflict) {
			t.Fatalf("saving a stale entry: %v, want queue.ErrConflict", err)
		}
		if mine.Version != seen {
			t.Errorf("a failed save moved the entry's version %d → %d", seen, mine.Version)
		}
		got, err := s.GetEntryByID(ctx, "e")
		must(t, err)
		if got.State != queue.StateMerged || got.MergeIntent || got.Version != theirs.Version {
			t.Errorf("after a stale save: state %s, merge intent %v, version %d; want merged, false, %d", got.State, got.MergeIntent, got.Version, theirs.Version)
		}
		if err := s.WithTx(ctx, func(tx queue.Store) error { return tx.SaveEntry(ctx, mine) }); !errors.Is(err, queue.ErrConflict) {
			t.Errorf("saving a stale entry in a transaction: %v, want queue.ErrConflict", err)
		}
		// Read again, the change goes through.
		fresh, err := s.GetEntryByID(ctx, "e")
		must(t, err)
		fresh.Restarts = 7
		must(t, s.SaveEntry(ctx, fresh))
	}},
	{"entry versions/a new entry's ID must be new", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		first := pendingEntry("e", q.ID, 1)
		must(t, s.SaveEntry(ctx, first))
		again := pendingEntry("e", q.ID, 1)
		again.State = queue.StateCancelled
		if err := s.SaveEntry(ctx, again); !errors.Is(err, queue.ErrConflict) {
			t.Errorf("inserting an entry whose ID exists: %v, want queue.ErrConflict", err)
		}
		ghost := pendingEntry("ghost", q.ID, 2)
		ghost.Version = 3
		if err := s.SaveEntry(ctx, ghost); !errors.Is(err, queue.ErrConflict) {
			t.Errorf("saving an entry read at version 3 that is not stored: %v, want queue.ErrConflict", err)
		}
		if _, err := s.GetEntryByID(ctx, "ghost"); !errors.Is(err, queue.ErrNotFound) {
			t.Errorf("the failed save stored the entry: %v", err)
		}
		got, err := s.GetEntryByID(ctx, "e")
		must(t, err)
		if got.State != queue.StatePending || got.Version != first.Version {
			t.Errorf("after a conflicting insert: state %s, version %d; want pending, %d", got.State, got.Version, first.Version)
		}
	}},
}

// mergeOnceTests: a PR's queue merge is recorded once in its queue's merge
// log (a PR merges once); recording it again is a no-op.
var mergeOnceTests = []testCase{
	{"merge/a PR's merge is recorded once", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		other := mustQueue(t, s, "dev")
		first := queue.MergeRecord{QueueID: q.ID, EntryID: "e6", PRNumber: 6, RunID: "r1", Before: "h5", After: "h6", At: t0}
		must(t, s.AddMerge(ctx, first))
		again := first
		again.Before, again.After, again.At = "h6", "h6b", at(time.Minute)
		must(t, s.AddMerge(ctx, again))
		must(t, s.WithTx(ctx, func(tx queue.Store) error { return tx.AddMerge(ctx, again) }))
		must(t, s.AddMerge(ctx, queue.MergeRecord{QueueID: other.ID, EntryID: "x6", PRNumber: 6, Before: "d5", After: "d6", At: t0}))
		got, err := s.ListMerges(ctx, q.ID, 0)
		must(t, err)
		assertEqual(t, got, []queue.MergeRecord{first})
		if from, err := s.ListMergesFrom(ctx, q.ID, []string{"h6"}); err != nil || len(from) != 0 {
			t.Errorf("the ignored record's base is known: %v, %v", from, err)
		}
		if got, err := s.ListMerges(ctx, other.ID, 0); err != nil || len(got) != 1 {
			t.Errorf("the same PR number in another queue: %v, %v; want its one record", got, err)
		}
	}},
}

// entryReads reads the entry id (PR pr of queue queueID) by each lookup.
func entryReads(t *testing.T, s queue.Store, queueID int64, pr int, id string) []*queue.Entry {
	t.Helper()
	byPR, err := s.GetEntry(ctx, queueID, pr)
	must(t, err)
	active, err := s.ListActiveEntries(ctx, queueID)
	must(t, err)
	found, err := s.FindActiveEntries(ctx, testRepo, pr)
	must(t, err)
	out := []*queue.Entry{byPR}
	for _, e := range append(active, found...) {
		if e.ID == id {
			out = append(out, e)
		}
	}
	if len(out) != 3 {
		t.Errorf("entry %s found by %d of 3 lookups", id, len(out))
	}
	return out
}
