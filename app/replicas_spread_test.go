package app

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/postgres"
	"github.com/mergequeue/mq/queue/postgres/pgtest"
	"github.com/mergequeue/mq/queue/service"
)

// busySyncer finds every queue busy; it records which queues it synced.
type busySyncer struct {
	mu     sync.Mutex
	synced map[int64]int
}

func (b *busySyncer) SyncQueue(_ context.Context, id int64) (service.SyncResult, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.synced[id]++
	return service.SyncResult{}, nil
}

func (b *busySyncer) syncs() map[int64]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[int64]int, len(b.synced))
	for k, v := range b.synced {
		out[k] = v
	}
	return out
}

// Three replicas on one PostgreSQL divide 30 queues with work among them
// (each holds between a fifth and a half), every queue held by the one
// replica preferred for it; a wake-up of a queue held elsewhere costs a
// replica neither a sync nor a statement. A replica that stops says so:
// the others no longer count it at their next heartbeat.
func TestReplicasSpreadTheQueues(t *testing.T) {
	url := pgtest.URL(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type replica struct {
		name  string
		store *postgres.Store
		sync  *busySyncer
		w     *Workers
		stop  context.CancelFunc
	}
	var rs []*replica
	for i := range 3 {
		st, err := postgres.Open(ctx, url, postgres.NoWriterLock())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		r := &replica{name: fmt.Sprintf("replica-%d", i), store: st, sync: &busySyncer{synced: map[int64]int{}}}
		r.w = NewWorkers(r.sync, time.Hour, nil)
		r.w.UseLeases(st, r.name, time.Minute, nil) // no renewal while the test runs
		r.w.SpreadOver(nil)
		rs = append(rs, r)
	}
	var ids []int64
	for i := range 30 {
		q := &queue.Queue{Key: queue.QueueKey{Repo: queue.Repo{Host: queue.DefaultHost, Owner: "acme", Name: "widgets"}, Branch: fmt.Sprintf("b%d", i)},
			State: queue.QueueRunning, Settings: queue.DefaultSettings(), NextSeq: 1, CreatedAt: time.Now(), UpdatedAt: time.Now()}
		if err := rs[0].store.CreateQueue(ctx, q); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, q.ID)
	}
	for _, r := range rs {
		rctx, stop := context.WithCancel(ctx)
		r.stop = stop
		r.w.Start(rctx)
	}
	defer func() {
		cancel()
		for _, r := range rs {
			r.w.Wait()
		}
	}()
	for _, r := range rs { // each learns of the others (the keepers beat every 20 s)
		if _, err := r.w.keeper.beat(ctx); err != nil {
			t.Fatal(err)
		}
		if live := r.w.keeper.liveReplicas(); len(live) != 3 {
			t.Fatalf("%s sees the live replicas %v; want 3", r.name, live)
		}
	}
	for _, r := range rs { // a webhook or a NOTIFY reaches every replica
		for _, id := range ids {
			r.w.Wake(id)
		}
	}
	holder := map[int64]string{}
	waitUntil(t, func() bool {
		for _, r := range rs {
			for id := range r.sync.syncs() {
				holder[id] = r.name
			}
		}
		return len(holder) == len(ids)
	})
	count := map[string]int{}
	for _, r := range rs {
		for id := range r.sync.syncs() {
			count[r.name]++
			if want := preferredReplica([]string{"replica-0", "replica-1", "replica-2"}, id); want != r.name {
				t.Errorf("queue %d synced by %s; %s is preferred for it", id, r.name, want)
			}
		}
	}
	for _, r := range rs {
		if n := count[r.name]; n < 6 || n > 15 {
			t.Errorf("%s decides for %d of the 30 queues; want between 6 and 15 (%v)", r.name, n, count)
		}
		l, ok, err := r.store.AcquireLease(ctx, ids[0], "an-intruder", time.Now(), time.Minute)
		if err != nil || ok {
			t.Fatalf("queue %d's lease was free: %+v, %v, %v", ids[0], l, ok, err)
		}
	}
	// A wake-up of a queue another replica holds: no sync, no statement.
	id := ids[0]
	for _, r := range rs {
		if holder[id] == r.name {
			continue
		}
		before, syncs := r.store.Statements(), r.sync.syncs()[id]
		for range 5 {
			r.w.Wake(id)
		}
		r.w.mu.Lock()
		_, running := r.w.wakes[id]
		r.w.mu.Unlock()
		if running || r.store.Statements() != before || r.sync.syncs()[id] != syncs {
			t.Errorf("%s, which does not hold queue %d, woke a worker (%v), sent %d statements, synced it %d times", r.name, id,
				running, r.store.Statements()-before, r.sync.syncs()[id]-syncs)
		}
	}
	rs[2].stop()
	rs[2].w.Wait()
	live, err := rs[0].store.Heartbeat(ctx, rs[0].name, time.Now(), time.Minute)
	if err != nil || len(live) != 2 || live[0] != "replica-0" || live[1] != "replica-1" {
		t.Errorf("after replica-2 stopped, the live replicas are %v, %v; want replica-0 and replica-1", live, err)
	}
}
