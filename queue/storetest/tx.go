package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/mergequeue/mq/queue"
)

var errBoom = errors.New("boom")

// rollbackCases each write inside a transaction and then fail it.
var rollbackCases = []struct {
	name string
	fn   func(q *queue.Queue) func(queue.Store) error
	want error
}{
	{"error", func(q *queue.Queue) func(queue.Store) error {
		return func(tx queue.Store) error {
			if err := writeEverything(tx, q); err != nil {
				return err
			}
			return errBoom
		}
	}, errBoom},
	{"error from a nested WithTx", func(q *queue.Queue) func(queue.Store) error {
		return func(tx queue.Store) error {
			if err := tx.SaveEntry(ctx, pendingEntry("outer", q.ID, 9)); err != nil {
				return err
			}
			return tx.WithTx(ctx, func(inner queue.Store) error {
				if err := writeEverything(inner, q); err != nil {
					return err
				}
				return errBoom
			})
		}
	}, errBoom},
	{"store error", func(q *queue.Queue) func(queue.Store) error {
		return func(tx queue.Store) error {
			if err := writeEverything(tx, q); err != nil {
				return err
			}
			return tx.CreateQueue(ctx, newQueue(q.Key.Repo, q.Key.Branch))
		}
	}, queue.ErrExists},
}

// writeEverything makes one write of each kind that rollback must undo.
func writeEverything(tx queue.Store, q *queue.Queue) error {
	if err := tx.SaveEntry(ctx, pendingEntry("e", q.ID, 1)); err != nil {
		return err
	}
	if err := tx.AddMerge(ctx, queue.MergeRecord{QueueID: q.ID, At: t0}); err != nil {
		return err
	}
	if err := tx.SaveRun(ctx, &queue.TestRun{ID: "r", QueueID: q.ID, SHA: "x"}); err != nil {
		return err
	}
	if err := tx.AddEvent(ctx, &queue.Event{QueueID: q.ID, At: t0}); err != nil {
		return err
	}
	if err := tx.RecordCheck(ctx, testRepo, queue.CheckResult{SHA: "x", Kind: queue.KindStatus, Name: "ci"}); err != nil {
		return err
	}
	if err := tx.SetTargets(ctx, queue.Targets{QueueID: q.ID, PRNumber: 1, SHA: "x"}); err != nil {
		return err
	}
	u := *q
	u.NextSeq = 99
	if err := tx.UpdateQueue(ctx, &u); err != nil {
		return err
	}
	return tx.CreateQueue(ctx, newQueue(testRepo, "created-in-tx"))
}

// assertNothingWritten checks that none of writeEverything's writes is kept
// and that the store accepts writes again.
func assertNothingWritten(t *testing.T, s queue.Store, q *queue.Queue) {
	t.Helper()
	for _, id := range []string{"e", "outer"} {
		if _, err := s.GetEntryByID(ctx, id); !errors.Is(err, queue.ErrNotFound) {
			t.Errorf("entry %s kept after rollback: %v", id, err)
		}
	}
	if m, err := s.ListMerges(ctx, q.ID, 0); err != nil || len(m) != 0 {
		t.Errorf("merge kept after rollback: %v, %v", m, err)
	}
	if _, err := s.GetRun(ctx, "r"); !errors.Is(err, queue.ErrNotFound) {
		t.Errorf("run kept after rollback: %v", err)
	}
	if evs, err := s.ListEvents(ctx, q.ID, t0); err != nil || len(evs) != 0 {
		t.Errorf("event kept after rollback: %v, %v", evs, err)
	}
	if cs, err := s.ListChecks(ctx, testRepo, "x"); err != nil || len(cs) != 0 {
		t.Errorf("check kept after rollback: %v, %v", cs, err)
	}
	if _, err := s.GetTargets(ctx, q.ID, 1); !errors.Is(err, queue.ErrNotFound) {
		t.Errorf("targets kept after rollback: %v", err)
	}
	if got, err := s.GetQueueByID(ctx, q.ID); err != nil || got.NextSeq != q.NextSeq {
		t.Errorf("queue update kept after rollback: %+v, %v", got, err)
	}
	if _, err := s.GetQueue(ctx, queue.QueueKey{Repo: testRepo, Branch: "created-in-tx"}); !errors.Is(err, queue.ErrNotFound) {
		t.Errorf("queue created in a rolled back tx exists: %v", err)
	}
	if err := s.SaveEntry(ctx, pendingEntry("after", q.ID, 2)); err != nil {
		t.Errorf("write after rollback: %v", err)
	}
}

var txTests = []testCase{
	{"tx/commits and reads its own writes", func(t *testing.T, s queue.Store) {
		var qid int64
		err := s.WithTx(ctx, func(tx queue.Store) error {
			q := newQueue(testRepo, "main")
			if err := tx.CreateQueue(ctx, q); err != nil {
				return err
			}
			qid = q.ID
			if err := tx.SaveEntry(ctx, pendingEntry("e", q.ID, 1)); err != nil {
				return err
			}
			if _, err := tx.GetEntryByID(ctx, "e"); err != nil {
				return err
			}
			got, err := tx.ListActiveEntries(ctx, q.ID)
			if err != nil || len(got) != 1 {
				return errors.Join(err, errors.New("tx does not see its own entry"))
			}
			return nil
		})
		must(t, err)
		if _, err := s.GetQueueByID(ctx, qid); err != nil {
			t.Errorf("queue not committed: %v", err)
		}
		if _, err := s.GetEntryByID(ctx, "e"); err != nil {
			t.Errorf("entry not committed: %v", err)
		}
	}},
	{"tx/rolls back every kind of write", func(t *testing.T, s queue.Store) {
		for _, tc := range rollbackCases {
			q := mustQueue(t, s, "main-"+tc.name)
			if err := s.WithTx(ctx, tc.fn(q)); !errors.Is(err, tc.want) {
				t.Fatalf("%s: WithTx = %v, want %v", tc.name, err, tc.want)
			}
			assertNothingWritten(t, s, q)
			must(t, s.DeleteQueue(ctx, q.ID)) // frees the probe entry's IDs for the next case
		}
	}},
	{"tx/rolls back replaced and deleted values", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		e := fullEntry("e", q.ID, 1)
		must(t, s.SaveEntry(ctx, e))
		r := fullRun("r", q.ID)
		must(t, s.SaveRun(ctx, r))
		c := queue.CheckResult{SHA: "x", Kind: queue.KindStatus, Name: "ci", State: queue.CheckSuccess, UpdatedAt: t0}
		must(t, s.RecordCheck(ctx, testRepo, c))
		must(t, s.AddMerge(ctx, queue.MergeRecord{QueueID: q.ID, PRNumber: 1, At: t0}))
		err := s.WithTx(ctx, func(tx queue.Store) error {
			changed := *e
			changed.State, changed.PRNumber = queue.StateMerged, 7
			if err := tx.SaveEntry(ctx, &changed); err != nil {
				return err
			}
			rr := *r
			rr.SHA, rr.Closed = "moved", false
			if err := tx.SaveRun(ctx, &rr); err != nil {
				return err
			}
			cc := c
			cc.State, cc.UpdatedAt = queue.CheckFailure, at(1)
			if err := tx.RecordCheck(ctx, testRepo, cc); err != nil {
				return err
			}
			if err := tx.DeleteQueue(ctx, q.ID); err != nil {
				return err
			}
			return errBoom
		})
		if !errors.Is(err, errBoom) {
			t.Fatalf("WithTx = %v", err)
		}
		got, err := s.GetEntry(ctx, q.ID, 1)
		must(t, err)
		assertEqual(t, got, e)
		if _, err := s.GetEntry(ctx, q.ID, 7); !errors.Is(err, queue.ErrNotFound) {
			t.Errorf("renumbered entry kept: %v", err)
		}
		gotRun, err := s.GetRun(ctx, "r")
		must(t, err)
		assertEqual(t, gotRun, r)
		if runs, err := s.FindRunsBySHA(ctx, testRepo, "moved"); err != nil || len(runs) != 0 {
			t.Errorf("run found under its rolled back SHA: %v, %v", runIDs(runs), err)
		}
		cs, err := s.ListChecks(ctx, testRepo, "x")
		must(t, err)
		assertEqual(t, cs, []queue.CheckResult{c})
		if m, err := s.ListMerges(ctx, q.ID, 0); err != nil || len(m) != 1 {
			t.Errorf("merges after a rolled back delete: %v, %v", m, err)
		}
		if _, err := s.GetQueue(ctx, q.Key); err != nil {
			t.Errorf("queue after a rolled back delete: %v", err)
		}
	}},
	{"tx/rolls back on panic", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		func() {
			defer func() {
				if recover() == nil {
					t.Error("panic did not propagate")
				}
			}()
			_ = s.WithTx(ctx, func(tx queue.Store) error {
				if err := writeEverything(tx, q); err != nil {
					return err
				}
				panic("boom")
			})
		}()
		assertNothingWritten(t, s, q)
	}},
	{"tx/nested shares the transaction", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		err := s.WithTx(ctx, func(tx queue.Store) error {
			if err := tx.WithTx(ctx, func(inner queue.Store) error {
				return inner.SaveEntry(ctx, pendingEntry("e", q.ID, 1))
			}); err != nil {
				return err
			}
			_, err := tx.GetEntryByID(ctx, "e")
			return err
		})
		must(t, err)
		if _, err := s.GetEntryByID(ctx, "e"); err != nil {
			t.Errorf("entry not committed: %v", err)
		}
	}},
	{"tx/honours a cancelled context", func(t *testing.T, s queue.Store) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		called := false
		err := s.WithTx(cctx, func(queue.Store) error { called = true; return nil })
		if err == nil || called {
			t.Errorf("WithTx on a cancelled context = %v (fn called %v), want an error before fn", err, called)
		}
	}},
}
