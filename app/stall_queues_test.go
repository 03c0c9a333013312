package app

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/memstore"
	"github.com/mergequeue/mq/queue/readside"
)

// The stall watch reads every queue once (an alert an earlier process
// left raised on a queue idle since is cleared), then only the queues
// with work, and once more each queue that went idle, so that its stall
// ends; a deleted queue is not read again.
func TestStallWatchReadsTheQueuesWithWork(t *testing.T) {
	ctx := context.Background()
	store := memstore.New()
	t0 := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	mk := func(branch string, active bool) *queue.Queue {
		t.Helper()
		q := &queue.Queue{Key: queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}, Branch: branch},
			State: queue.QueueRunning, Settings: queue.DefaultSettings(), CreatedAt: t0, UpdatedAt: t0, NextSeq: 1}
		if err := store.CreateQueue(ctx, q); err != nil {
			t.Fatal(err)
		}
		if active {
			e := &queue.Entry{ID: "e-" + branch, QueueID: q.ID, PRNumber: 1, State: queue.StatePending, SubmittedAt: t0}
			if err := store.SaveEntry(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		return q
	}
	busy, idle, emptied, deleted := mk("busy", true), mk("idle", false), mk("emptied", true), mk("deleted", true)
	r := &activeStallReads{store: store, reads: readside.New(store, readside.Options{Now: func() time.Time { return t0 }})}
	listed := func() []int64 {
		t.Helper()
		qs, err := r.ListQueues(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, q := range qs {
			ids = append(ids, q.ID)
		}
		return ids
	}
	if got, want := listed(), []int64{busy.ID, idle.ID, emptied.ID, deleted.ID}; !slices.Equal(got, want) {
		t.Fatalf("first pass read %v, want every queue %v", got, want)
	}
	if got, want := listed(), []int64{busy.ID, emptied.ID, deleted.ID}; !slices.Equal(got, want) {
		t.Fatalf("second pass read %v, want the queues with work %v", got, want)
	}
	e, err := store.GetEntry(ctx, emptied.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	e.State = queue.StateMerged
	if err := store.SaveEntry(ctx, e); err != nil {
		t.Fatal(err)
	}
	if err := store.DeleteQueue(ctx, deleted.ID); err != nil {
		t.Fatal(err)
	}
	if got, want := listed(), []int64{busy.ID, emptied.ID}; !slices.Equal(got, want) {
		t.Fatalf("after a queue went idle and one was deleted, the pass read %v, want %v (the idle one once more)", got, want)
	}
	if got, want := listed(), []int64{busy.ID}; !slices.Equal(got, want) {
		t.Fatalf("the next pass read %v, want %v", got, want)
	}
}
