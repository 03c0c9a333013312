package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// BenchmarkStoreRound times what a queue's sync asks of the store on a
// queue of 20 entries: the queue, its entries and open runs, a count, and
// a transaction reading and saving an entry, with its event. It runs with
// every statement parsed anew and with the statement cache, in the same
// run (docs/performance.md, "Micro-benchmarks"):
//
//	go test ./queue/sqlite -run XXX -bench StoreRound -count 5
func BenchmarkStoreRound(b *testing.B) {
	for _, c := range []struct {
		name  string
		cache int
	}{{"parsed-each-time", 0}, {"statement-cache", stmtCacheSize}} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			s, err := open(ctx, filepath.Join(b.TempDir(), "mq.db"), c.cache)
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = s.Close() }()
			q := newQueue(testRepo, "main")
			if err := s.CreateQueue(ctx, q); err != nil {
				b.Fatal(err)
			}
			for i := range 20 {
				if err := s.SaveEntry(ctx, pendingEntry(fmt.Sprintf("e%d", i), q.ID, i+1)); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if _, err := s.GetQueueByID(ctx, q.ID); err != nil {
					b.Fatal(err)
				}
				if _, err := s.ListActiveEntries(ctx, q.ID); err != nil {
					b.Fatal(err)
				}
				if _, err := s.ListOpenRuns(ctx, q.ID); err != nil {
					b.Fatal(err)
				}
				if _, err := s.CountActiveEntries(ctx, q.ID); err != nil {
					b.Fatal(err)
				}
				if err := s.WithTx(ctx, func(tx queue.Store) error {
					e, err := tx.GetEntry(ctx, q.ID, 1)
					if err != nil {
						return err
					}
					e.Restarts = i
					if err := tx.SaveEntry(ctx, e); err != nil {
						return err
					}
					return tx.AddEvent(ctx, &queue.Event{QueueID: q.ID, EntryID: e.ID, PRNumber: 1, At: t0, To: queue.StatePending})
				}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
