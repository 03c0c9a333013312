package storetest

import (
	"testing"

	"github.com/mergequeue/mq/queue"
)

// queueVersions is the port queue/service reads its cached views through:
// every store of the suite implements it.
type queueVersions interface {
	QueueVersion(queueID int64) uint64
}

// versionTests: every committed write that changes what a queue's reads
// return moves that queue's version before the write returns, so that a
// reader who kept what it read at the old version reads again.
var versionTests = []testCase{
	{"QueueVersion moves with every write to a queue's reads", func(t *testing.T, s queue.Store) {
		v, ok := s.(queueVersions)
		if !ok {
			t.Fatalf("%T has no QueueVersion", s)
		}
		q1 := mustQueue(t, s, "main")
		q2 := mustQueue(t, s, "dev")
		e1 := pendingEntry("e1", q1.ID, 1)
		writes := []struct {
			name  string
			write func() error
			other bool // also moves q2 (a write that may touch every queue)
		}{
			{"UpdateQueue", func() error { q1.State = queue.QueuePaused; return s.UpdateQueue(ctx, q1) }, false},
			{"SaveEntry", func() error { return s.SaveEntry(ctx, e1) }, false},
			{"SaveEntry again", func() error {
				e1.State = queue.StateTesting
				return s.SaveEntry(ctx, e1)
			}, false},
			{"SaveRun", func() error { return s.SaveRun(ctx, fullRun("r1", q1.ID)) }, false},
			{"SetTargets", func() error {
				return s.SetTargets(ctx, queue.Targets{QueueID: q1.ID, PRNumber: 1, SHA: "a", List: []string{"//a"}, UpdatedAt: t0})
			}, false},
			{"AddEvent", func() error {
				return s.AddEvent(ctx, &queue.Event{QueueID: q1.ID, EntryID: "e1", PRNumber: 1, At: t0})
			}, false},
			{"SaveQueueTuning", func() error {
				return tunings(t, s).SaveQueueTuning(ctx, queue.QueueTuning{QueueID: q1.ID, Values: queue.TunedValues{Concurrency: 4}, Reason: "r", At: t0})
			}, false},
			{"DeleteQueueTuning", func() error { return tunings(t, s).DeleteQueueTuning(ctx, q1.ID) }, false},
			{"write in a committed transaction", func() error {
				return s.WithTx(ctx, func(tx queue.Store) error { return tx.SaveEntry(ctx, pendingEntry("e2", q1.ID, 2)) })
			}, false},
			{"CreateQueue", func() error { mustQueue(t, s, "release"); return nil }, true},
			{"DeleteQueue", func() error { return s.DeleteQueue(ctx, mustQueue(t, s, "gone").ID) }, true},
		}
		for _, w := range writes {
			before1, before2 := v.QueueVersion(q1.ID), v.QueueVersion(q2.ID)
			if err := w.write(); err != nil {
				t.Fatalf("%s: %v", w.name, err)
			}
			after1, after2 := v.QueueVersion(q1.ID), v.QueueVersion(q2.ID)
			if after1 <= before1 {
				t.Errorf("%s: version of queue %d %d → %d, want it to grow", w.name, q1.ID, before1, after1)
			}
			if w.other && after2 <= before2 {
				t.Errorf("%s: version of queue %d %d → %d, want it to grow (a queue created or deleted)", w.name, q2.ID, before2, after2)
			}
			if !w.other && after2 != before2 {
				t.Errorf("%s on queue %d moved the version of queue %d: %d → %d", w.name, q1.ID, q2.ID, before2, after2)
			}
		}
	}},
	{"QueueVersion stays put without writes to a queue's reads", func(t *testing.T, s queue.Store) {
		v := s.(queueVersions)
		q := mustQueue(t, s, "main")
		before := v.QueueVersion(q.ID)
		if _, err := s.ListActiveEntries(ctx, q.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetQueue(ctx, q.Key); err != nil {
			t.Fatal(err)
		}
		must(t, s.RecordCheck(ctx, testRepo, queue.CheckResult{SHA: "abc", Kind: queue.KindStatus, Name: "ci", State: queue.CheckSuccess, UpdatedAt: t0}))
		if after := v.QueueVersion(q.ID); after != before {
			t.Errorf("reads and a check moved the version: %d → %d", before, after)
		}
	}},
}
