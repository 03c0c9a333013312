package postgres_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/postgres"
	"github.com/mergequeue/mq/queue/postgres/pgtest"
)

var epoch = time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)

// replicas opens two stores on one schema, as two replicas would (Shared:
// the leases, not the schema's writer lock, say who decides), with one
// queue.
func replicas(t *testing.T) (a, b *postgres.Store, q *queue.Queue, url string) {
	t.Helper()
	url = pgtest.URL(t)
	a, err := postgres.Open(context.Background(), url, postgres.NoWriterLock())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	b, err = postgres.Open(context.Background(), url, postgres.NoWriterLock())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	q = &queue.Queue{Key: queue.QueueKey{Repo: queue.Repo{Host: queue.DefaultHost, Owner: "acme", Name: "widgets"}, Branch: "main"},
		State: queue.QueueRunning, Settings: queue.DefaultSettings(), NextSeq: 1, CreatedAt: epoch, UpdatedAt: epoch}
	if err := a.CreateQueue(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	return a, b, q, url
}

// One holder at a time; a lease taken over after it expired carries a
// higher token, and the former holder can neither renew it nor write with
// it: its fenced write changes nothing. The new holder's write lands.
func TestLeaseTakeOverFencesTheFormerHolder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, q, _ := replicas(t)
	la, ok, err := a.AcquireLease(ctx, q.ID, "replica-a", epoch, 10*time.Second)
	if err != nil || !ok || la.Token != 1 {
		t.Fatalf("a acquires = %+v, %v, %v; want token 1", la, ok, err)
	}
	if _, ok, err := b.AcquireLease(ctx, q.ID, "replica-b", epoch.Add(9*time.Second), 10*time.Second); err != nil || ok {
		t.Fatalf("b acquires a live lease: %v, %v", ok, err)
	}
	// a renews its own lease: same token, later expiry.
	if again, ok, err := a.AcquireLease(ctx, q.ID, "replica-a", epoch.Add(5*time.Second), 10*time.Second); err != nil || !ok ||
		again.Token != 1 || !again.ExpiresAt.Equal(epoch.Add(15*time.Second)) {
		t.Fatalf("a re-acquires its lease = %+v, %v, %v; want token 1 until +15s", again, ok, err)
	}
	// a is frozen past its lease; b takes the queue over.
	lb, ok, err := b.AcquireLease(ctx, q.ID, "replica-b", epoch.Add(15*time.Second), 10*time.Second)
	if err != nil || !ok || lb.Token != 2 {
		t.Fatalf("b takes over = %+v, %v, %v; want token 2", lb, ok, err)
	}
	// a resumes: it cannot renew, and its writes change nothing.
	if _, err := a.RenewLease(ctx, la, epoch.Add(16*time.Second), 10*time.Second); !errors.Is(err, postgres.ErrLeaseLost) {
		t.Errorf("a renews a lost lease: %v, want ErrLeaseLost", err)
	}
	ran := false
	err = a.Fenced(ctx, la, func(tx queue.Store) error {
		ran = true
		return tx.AddEvent(ctx, &queue.Event{QueueID: q.ID, EntryID: "e", PRNumber: 1, At: epoch, To: queue.StateMerged})
	})
	if !errors.Is(err, postgres.ErrLeaseLost) || ran {
		t.Errorf("a's fenced write after losing the lease: %v (ran %v), want ErrLeaseLost without running", err, ran)
	}
	if evs, err := b.ListEvents(ctx, q.ID, epoch.Add(-time.Hour)); err != nil || len(evs) != 0 {
		t.Errorf("a stale write changed the queue: events %+v, %v", evs, err)
	}
	err = b.Fenced(ctx, lb, func(tx queue.Store) error {
		return tx.AddEvent(ctx, &queue.Event{QueueID: q.ID, EntryID: "e", PRNumber: 1, At: epoch, To: queue.StateTesting})
	})
	if err != nil {
		t.Fatalf("the holder's fenced write: %v", err)
	}
	if evs, err := a.ListEvents(ctx, q.ID, epoch.Add(-time.Hour)); err != nil || len(evs) != 1 || evs[0].To != queue.StateTesting {
		t.Errorf("events %+v, %v; want the holder's one", evs, err)
	}
	// A released lease is free at once, with the next token.
	if err := b.ReleaseLease(ctx, lb); err != nil {
		t.Fatal(err)
	}
	if l, ok, err := a.AcquireLease(ctx, q.ID, "replica-a", epoch.Add(16*time.Second), 10*time.Second); err != nil || !ok || l.Token != 3 {
		t.Errorf("a acquires a released lease = %+v, %v, %v; want token 3", l, ok, err)
	}
}

// A fenced transaction in progress holds the lease: a replica taking it
// over waits for it to commit, so the former holder's last write lands
// before the new holder starts, never after.
func TestFencedWriteHoldsOffTheTakeOver(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, q, url := replicas(t)
	to := takeOverDuringFencedWrite(t, a, b, q, url)
	select {
	case r := <-to.took:
		t.Fatalf("b took the lease while a's fenced write was in progress: %+v", r)
	default:
	}
	to.resume()
	if err := <-to.fenced; err != nil {
		t.Fatalf("a's fenced write: %v", err)
	}
	r := <-to.took
	if r.err != nil || !r.ok || r.l.Token != 2 {
		t.Fatalf("b's takeover after a's write = %+v", r)
	}
	if evs, err := b.ListEvents(ctx, q.ID, epoch.Add(-time.Hour)); err != nil || len(evs) != 1 {
		t.Errorf("events %+v, %v; want a's write, committed before the takeover", evs, err)
	}
}

// waitForLockWait waits until a backend of the test server waits for a
// lock (a row lock of queue_leases here).
func waitForLockWait(t *testing.T, url string) {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		err := db.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%queue_leases%'`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting for the takeover to wait on the lease's lock")
		}
		time.Sleep(10 * time.Millisecond) // polling interval
	}
}

// A former holder frozen inside a fenced transaction (SIGSTOP, a
// partition) holds the lease row's lock: the server ends its transaction
// once idle for a few seconds, so another replica takes the expired lease
// then, not when the frozen process resumes; the frozen write changes
// nothing.
func TestAFrozenHoldersTransactionDoesNotBlockTheTakeOver(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, q, url := replicas(t)
	to := takeOverDuringFencedWrite(t, a, b, q, url) // a is frozen in its transaction
	select {
	case r := <-to.took:
		if r.err != nil || !r.ok || r.l.Token != 2 {
			t.Fatalf("b's takeover = %+v", r)
		}
		t.Logf("taken over %v after the frozen transaction began to wait", time.Since(to.began).Round(time.Millisecond))
	case <-time.After(30 * time.Second):
		t.Fatal("b's takeover still waits on the frozen holder's transaction after 30 s")
	}
	to.resume()
	if err := <-to.fenced; err == nil {
		t.Error("the frozen holder's fenced write succeeded after the takeover")
	}
	if evs, err := b.ListEvents(ctx, q.ID, epoch.Add(-time.Hour)); err != nil || len(evs) != 0 {
		t.Errorf("events %+v, %v; want none: the frozen write changes nothing", evs, err)
	}
}
