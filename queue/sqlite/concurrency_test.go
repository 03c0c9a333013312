package sqlite

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// TestConcurrentWritersNeverBusy hammers one store from many goroutines:
// entry saves, check records, transactions and reads at once. No call may
// fail (in particular with SQLITE_BUSY) and every write must be kept.
func TestConcurrentWritersNeverBusy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	q := mustQueue(t, s, "main")
	const workers, perWorker = 8, 15

	var wg sync.WaitGroup
	errs := make(chan error, workers*perWorker*5)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < perWorker; i++ {
				pr := w*perWorker + i + 1
				e := pendingEntry(fmt.Sprintf("e-%d", pr), q.ID, pr)
				if err := s.SaveEntry(ctx, e); err != nil {
					errs <- err
				}
				c := queue.CheckResult{SHA: "sha", Kind: queue.KindCheckRun, Name: fmt.Sprintf("check-%d", w),
					State: queue.CheckSuccess, UpdatedAt: at(time.Duration(i) * time.Millisecond)}
				if err := s.RecordCheck(ctx, testRepo, c); err != nil {
					errs <- err
				}
				if err := s.WithTx(ctx, func(tx queue.Store) error {
					got, err := tx.GetEntryByID(ctx, e.ID)
					if err != nil {
						return err
					}
					got.Restarts++
					return tx.SaveEntry(ctx, got)
				}); err != nil {
					errs <- err
				}
				if _, err := s.GetEntry(ctx, q.ID, pr); err != nil {
					errs <- err
				}
				if _, err := s.ListChecks(ctx, testRepo, "sha"); err != nil {
					errs <- err
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent call failed: %v", err)
	}

	got, err := s.ListActiveEntries(ctx, q.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != workers*perWorker {
		t.Errorf("%d entries, want %d", len(got), workers*perWorker)
	}
	for _, e := range got {
		if e.Restarts != 1 {
			t.Errorf("entry %s: Restarts %d, want 1 (lost update)", e.ID, e.Restarts)
		}
	}
	checks, err := s.ListChecks(ctx, testRepo, "sha")
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != workers {
		t.Errorf("%d checks, want %d", len(checks), workers)
	}
	for _, c := range checks {
		if want := at(time.Duration(perWorker-1) * time.Millisecond); !c.UpdatedAt.Equal(want) {
			t.Errorf("check %s: UpdatedAt %v, want the newest %v", c.Name, c.UpdatedAt, want)
		}
	}
}

// TestTwoStoresOnOneFile opens the same file twice (as two processes
// would); writes from both succeed thanks to BEGIN IMMEDIATE and the busy
// timeout.
func TestTwoStoresOnOneFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := openTest(t)
	b := openAt(t, a.Path())
	q := mustQueue(t, a, "main")
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for i, s := range []*Store{a, b} {
		wg.Add(1)
		go func(i int, s *Store) {
			defer wg.Done()
			for j := 0; j < 25; j++ {
				pr := i*100 + j + 1
				if err := s.WithTx(ctx, func(tx queue.Store) error {
					return tx.SaveEntry(ctx, pendingEntry(fmt.Sprintf("e-%d", pr), q.ID, pr))
				}); err != nil {
					errs <- err
				}
			}
		}(i, s)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("write failed: %v", err)
	}
	got, err := b.ListActiveEntries(ctx, q.ID)
	if err != nil || len(got) != 50 {
		t.Errorf("ListActiveEntries = %d entries, %v; want 50", len(got), err)
	}
}
