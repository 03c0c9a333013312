package sqlstore

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/record"
)

func (b *deliveryBatcher) counts() (waiting, batches int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.waiting), b.batches
}

// waitUntil polls cond every millisecond, failing after 30 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond) // polling interval
	}
}

// Deliveries that arrive while the writer is busy are committed together,
// in one transaction, and no caller hears back before its delivery is
// committed; each is then visible to readers.
func TestPutDeliveryCommitsConcurrentCallsTogether(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	_, before := s.deliveries.counts()

	hold, held := make(chan struct{}), make(chan struct{})
	go func() {
		_ = s.WithTx(ctx, func(queue.Store) error { close(held); <-hold; return nil })
	}()
	<-held // the writer connection is busy until hold is closed

	const n = 20
	type result struct {
		id    string
		isNew bool
		err   error
	}
	results := make(chan result, n)
	for i := range n {
		go func() {
			id := fmt.Sprintf("d%02d", i)
			isNew, err := s.PutDelivery(ctx, record.Delivery{ID: id, Event: "status", Payload: []byte(`{}`), ReceivedAt: t0})
			results <- result{id, isNew, err}
		}()
	}
	// One caller leads a commit of its own delivery and waits for the
	// writer; the others wait for the next commit.
	waitUntil(t, "19 deliveries waiting", func() bool { w, _ := s.deliveries.counts(); return w == n-1 })
	select {
	case r := <-results:
		t.Fatalf("PutDelivery(%s) returned before any commit: %+v", r.id, r)
	default:
	}
	close(hold)
	for range n {
		r := <-results
		if r.err != nil || !r.isNew {
			t.Fatalf("PutDelivery(%s) = %v, %v", r.id, r.isNew, r.err)
		}
		if pending, err := s.PendingDeliveries(ctx, 0); err != nil || !hasDelivery(pending, r.id) {
			t.Fatalf("acknowledged delivery %s not visible to readers: %v", r.id, err)
		}
	}
	if _, after := s.deliveries.counts(); after-before != 2 {
		t.Errorf("%d deliveries took %d transactions, want 2 (the leader's, then the 19 waiting)", n, after-before)
	}
}

func hasDelivery(ds []record.Delivery, id string) bool {
	for _, d := range ds {
		if d.ID == id {
			return true
		}
	}
	return false
}

// Concurrent deliveries of one ID: exactly one is new, whether they share a
// transaction or not.
func TestPutDeliveryDedupesConcurrentDuplicates(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	news := map[string]int{}
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("dup-%d", i%4)
			isNew, err := s.PutDelivery(ctx, record.Delivery{ID: id, Event: "status", Payload: []byte(`{}`), ReceivedAt: t0})
			if err != nil {
				t.Errorf("PutDelivery: %v", err)
				return
			}
			if isNew {
				mu.Lock()
				news[id]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for i := range 4 {
		if id := fmt.Sprintf("dup-%d", i); news[id] != 1 {
			t.Errorf("%s reported new %d times, want once", id, news[id])
		}
	}
}

// A transaction that fails acknowledges none of its deliveries, and the
// next one works.
func TestPutDeliveryFailureAcknowledgesNothing(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if _, err := s.writer.ExecContext(ctx, "PRAGMA query_only = 1"); err != nil {
		t.Fatal(err)
	}
	if isNew, err := s.PutDelivery(ctx, record.Delivery{ID: "lost", Event: "status", ReceivedAt: t0}); err == nil || isNew {
		t.Fatalf("PutDelivery on a read-only writer = %v, %v; want an error", isNew, err)
	}
	if _, err := s.writer.ExecContext(ctx, "PRAGMA query_only = 0"); err != nil {
		t.Fatal(err)
	}
	if pending, _ := s.PendingDeliveries(ctx, 0); hasDelivery(pending, "lost") {
		t.Error("a failed delivery was stored")
	}
	if isNew, err := s.PutDelivery(ctx, record.Delivery{ID: "lost", Event: "status", ReceivedAt: t0}); err != nil || !isNew {
		t.Errorf("after the failure: %v, %v", isNew, err)
	}
	if _, err := s.PutDelivery(ctx, record.Delivery{Event: "status"}); err == nil {
		t.Error("a delivery without an ID was stored")
	}
}
