package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/postgres"
)

// acquired is what an AcquireLease answered.
type acquired struct {
	l   postgres.Lease
	ok  bool
	err error
}

// takeover is replica b taking q's lease over while its holder, replica a,
// is inside a fenced transaction.
type takeover struct {
	// resume lets a's transaction go on to its write (an event of q);
	// it is called at the end of the test if the test did not.
	resume func()
	// fenced is a's fenced transaction's result.
	fenced <-chan error
	// took is b's takeover's answer.
	took <-chan acquired
	// began is when b began to take the lease over.
	began time.Time
}

// takeOverDuringFencedWrite makes a hold q's lease (10 s from epoch) and
// enter a fenced transaction, then b try to take the lease a minute later
// (expired); it returns once b's takeover waits on the lease row's lock.
func takeOverDuringFencedWrite(t *testing.T, a, b *postgres.Store, q *queue.Queue, url string) *takeover {
	t.Helper()
	ctx := context.Background()
	la, ok, err := a.AcquireLease(ctx, q.ID, "replica-a", epoch, 10*time.Second)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	inTx, proceed := make(chan struct{}), make(chan struct{})
	var once sync.Once
	resume := func() { once.Do(func() { close(proceed) }) }
	t.Cleanup(resume)
	fenced := make(chan error, 1)
	go func() {
		fenced <- a.Fenced(ctx, la, func(tx queue.Store) error {
			close(inTx)
			<-proceed
			return tx.AddEvent(ctx, &queue.Event{QueueID: q.ID, EntryID: "e", PRNumber: 1, At: epoch, To: queue.StateTesting})
		})
	}()
	<-inTx
	took := make(chan acquired, 1)
	began := time.Now()
	go func() {
		l, ok, err := b.AcquireLease(ctx, q.ID, "replica-b", epoch.Add(time.Minute), 10*time.Second)
		took <- acquired{l, ok, err}
	}()
	waitForLockWait(t, url)
	return &takeover{resume: resume, fenced: fenced, took: took, began: began}
}
