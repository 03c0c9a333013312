package postgres_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/postgres"
)

// RenewLeases renews all of a replica's leases in one statement, with the
// fencing of RenewLease: a lease taken over (a higher token) or released
// is not renewed, and so not returned; one that expired and that nobody
// took is renewed with its token.
func TestRenewLeasesInOneStatement(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, q1, _ := replicas(t)
	ids := []int64{q1.ID}
	for _, branch := range []string{"dev", "rel", "old"} {
		q := &queue.Queue{Key: queue.QueueKey{Repo: q1.Key.Repo, Branch: branch},
			State: queue.QueueRunning, Settings: queue.DefaultSettings(), NextSeq: 1, CreatedAt: epoch, UpdatedAt: epoch}
		if err := a.CreateQueue(ctx, q); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, q.ID)
	}
	const ttl = 10 * time.Second
	var held []postgres.Lease
	for _, id := range ids {
		l, ok, err := a.AcquireLease(ctx, id, "replica-a", epoch, ttl)
		if err != nil || !ok {
			t.Fatalf("a acquires queue %d: %v, %v", id, ok, err)
		}
		held = append(held, l)
	}
	later := epoch.Add(11 * time.Second) // every lease expired
	// b takes the second queue over; a releases the third; nobody takes
	// the first and the fourth.
	if _, ok, err := b.AcquireLease(ctx, ids[1], "replica-b", later, ttl); err != nil || !ok {
		t.Fatalf("b takes over: %v, %v", ok, err)
	}
	if err := a.ReleaseLease(ctx, held[2]); err != nil {
		t.Fatal(err)
	}
	before := a.Statements()
	renewed, err := a.RenewLeases(ctx, "replica-a", held, later, ttl)
	if err != nil {
		t.Fatal(err)
	}
	if n := a.Statements() - before; n != 1 {
		t.Errorf("renewing %d leases took %d statements, want 1", len(held), n)
	}
	var got []int64
	for _, l := range renewed {
		got = append(got, l.QueueID)
		if l.Token != 1 || l.Holder != "replica-a" || !l.ExpiresAt.Equal(later.Add(ttl)) {
			t.Errorf("renewed %+v; want token 1 of replica-a until %v", l, later.Add(ttl))
		}
	}
	slices.Sort(got)
	if want := []int64{ids[0], ids[3]}; !slices.Equal(got, want) {
		t.Fatalf("renewed queues %v, want %v (not the one taken over, not the one released)", got, want)
	}
	// The renewal holds: b cannot take the first queue; the released one
	// stays free, and b's lease stays b's.
	if _, ok, err := b.AcquireLease(ctx, ids[0], "replica-b", later.Add(time.Second), ttl); err != nil || ok {
		t.Errorf("b took a renewed lease: %v, %v", ok, err)
	}
	if l, ok, err := b.AcquireLease(ctx, ids[2], "replica-b", later.Add(time.Second), ttl); err != nil || !ok || l.Token != 2 {
		t.Errorf("b acquires the released lease = %+v, %v, %v; want token 2", l, ok, err)
	}
	if _, ok, err := a.AcquireLease(ctx, ids[1], "replica-a", later.Add(time.Second), ttl); err != nil || ok {
		t.Errorf("a took back the lease b holds: %v, %v", ok, err)
	}
	if got, err := a.RenewLeases(ctx, "replica-a", nil, later, ttl); err != nil || len(got) != 0 {
		t.Errorf("renewing no lease = %v, %v", got, err)
	}
}

// Heartbeat records a replica alive and returns, in one statement, the
// replicas seen within the TTL: one that stopped beating drops out.
func TestHeartbeatListsTheLiveReplicas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, _, _ := replicas(t)
	const ttl = 15 * time.Second
	if _, err := b.Heartbeat(ctx, "replica-b", epoch, ttl); err != nil {
		t.Fatal(err)
	}
	before := a.Statements()
	live, err := a.Heartbeat(ctx, "replica-a", epoch.Add(time.Second), ttl)
	if err != nil || !slices.Equal(live, []string{"replica-a", "replica-b"}) {
		t.Fatalf("live replicas = %v, %v; want both", live, err)
	}
	if n := a.Statements() - before; n != 1 {
		t.Errorf("a heartbeat took %d statements, want 1", n)
	}
	live, err = a.Heartbeat(ctx, "replica-a", epoch.Add(ttl), ttl)
	if err != nil || !slices.Equal(live, []string{"replica-a"}) {
		t.Fatalf("after b stopped beating for the TTL, live replicas = %v, %v; want a alone", live, err)
	}
	live, err = b.Heartbeat(ctx, "replica-b", epoch.Add(ttl+time.Second), ttl)
	if err != nil || !slices.Equal(live, []string{"replica-a", "replica-b"}) {
		t.Fatalf("b beats again: live replicas = %v, %v; want both", live, err)
	}
	if _, err := a.Heartbeat(ctx, "", epoch, ttl); err == nil {
		t.Error("a heartbeat without a name was accepted")
	}
}
