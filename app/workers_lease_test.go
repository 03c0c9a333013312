package app

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/record"
)

// fakeLeases is a leaser whose answers the test sets.
type fakeLeases struct {
	mu sync.Mutex
	leaseCounts
}

// leaseCounts is a fakeLeases' state.
type leaseCounts struct {
	grant    bool  // AcquireLease succeeds
	lost     bool  // RenewLease reports the lease lost
	token    int64 // token of the last grant
	oneToken bool  // every grant has token 1 (several queues held at once)
	acquires int
	renewals int
	batches  []int // leases per renewal
	released []record.Lease
}

func (f *fakeLeases) AcquireLease(_ context.Context, queueID int64, holder string, now time.Time, ttl time.Duration) (record.Lease, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.acquires++
	if !f.grant {
		return record.Lease{}, false, nil
	}
	if f.token++; f.oneToken {
		f.token = 1
	}
	return record.Lease{QueueID: queueID, Holder: holder, Token: f.token, ExpiresAt: now.Add(ttl)}, true, nil
}

func (f *fakeLeases) RenewLeases(_ context.Context, _ string, held []record.Lease, now time.Time, ttl time.Duration) ([]record.Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.renewals++
	f.batches = append(f.batches, len(held))
	var out []record.Lease
	for _, l := range held {
		if f.lost || l.Token != f.token {
			continue
		}
		l.ExpiresAt = now.Add(ttl)
		out = append(out, l)
	}
	return out, nil
}

func (f *fakeLeases) ReleaseLease(_ context.Context, l record.Lease) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.released = append(f.released, l)
	return nil
}

func (f *fakeLeases) Heartbeat(_ context.Context, name string, _ time.Time, _ time.Duration) ([]string, error) {
	return []string{name}, nil
}

func (f *fakeLeases) set(fn func(f *fakeLeases)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

func (f *fakeLeases) get() leaseCounts {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.leaseCounts
	c.released = append([]record.Lease(nil), f.released...)
	c.batches = append([]int(nil), f.batches...)
	return c
}

// A worker syncs its queue only while this replica holds the queue's
// lease, each sync carrying the lease as its fence; it is told when it
// takes the queue; it renews the lease; when the lease is lost the running
// sync's context ends at once and no sync follows until the lease is held
// again; on shutdown it releases the lease.
func TestWorkersSyncOnlyUnderTheLease(t *testing.T) {
	leases := &fakeLeases{}
	var syncs atomic.Int32
	var tokens sync.Map // token → syncs under it
	blockSync := make(chan struct{})
	var blocking atomic.Bool
	syncCanceled := make(chan struct{}, 1)
	w := NewWorkers(syncFunc(func(ctx context.Context, id int64) (time.Time, error) {
		f, ok := queue.FenceOf(ctx)
		if !ok || f.QueueID() != id || f.Holder() != "replica-a" || f.HeldUntil().IsZero() {
			t.Errorf("sync of queue %d without its lease's fence: %v %v", id, f, ok)
			return time.Time{}, nil
		}
		syncs.Add(1)
		n, _ := tokens.LoadOrStore(f.Token(), new(atomic.Int32))
		n.(*atomic.Int32).Add(1)
		if blocking.Load() {
			select {
			case <-ctx.Done(): // the lease is lost: the sync ends at once
				syncCanceled <- struct{}{}
				return time.Time{}, ctx.Err()
			case <-blockSync:
			}
		}
		return time.Time{}, nil
	}), time.Hour, nil)
	var takeOvers atomic.Int32
	const ttl = 300 * time.Millisecond
	w.UseLeases(leases, "replica-a", ttl, func(int64) { takeOvers.Add(1) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w.Start(ctx)
	w.Wake(7)

	// Another replica holds it: tries, never syncs.
	waitUntil(t, func() bool { return leases.get().acquires >= 3 })
	if n := syncs.Load(); n != 0 {
		t.Fatalf("%d syncs without the lease", n)
	}
	// Granted: syncs, after being told it takes the queue; renews.
	leases.set(func(f *fakeLeases) { f.grant = true })
	waitUntil(t, func() bool { return syncs.Load() >= 1 && leases.get().renewals >= 2 })
	if takeOvers.Load() != 1 {
		t.Fatalf("takeOver called %d times; want once, before the first sync", takeOvers.Load())
	}

	// A long sync is running when the lease is lost: it is cut off.
	blocking.Store(true)
	leases.set(func(f *fakeLeases) { f.grant = false })
	w.Wake(7)
	waitUntil(t, func() bool { return len(syncCanceled) == 0 && syncs.Load() >= 2 })
	leases.set(func(f *fakeLeases) { f.lost = true })
	select {
	case <-syncCanceled:
	case <-time.After(30 * time.Second):
		t.Fatal("the running sync went on after the lease was lost")
	}
	after := syncs.Load()
	before := leases.get().acquires
	waitUntil(t, func() bool { return leases.get().acquires >= before+2 }) // trying to take it back
	if n := syncs.Load(); n != after {
		t.Fatalf("%d syncs after the lease was lost", n-after)
	}

	// Held again (a new token): syncs resume under it; shutdown releases it.
	blocking.Store(false)
	leases.set(func(f *fakeLeases) { f.grant, f.lost = true, false })
	waitUntil(t, func() bool {
		n, ok := tokens.Load(int64(2))
		return ok && n.(*atomic.Int32).Load() >= 1
	})
	if takeOvers.Load() != 2 {
		t.Fatalf("takeOver called %d times; want once per acquisition", takeOvers.Load())
	}
	cancel()
	w.Wait()
	rel := leases.get().released
	if len(rel) != 1 || rel[0].Token != 2 || rel[0].QueueID != 7 {
		t.Fatalf("released %+v; want the held lease (token 2) once", rel)
	}
}

// fixedFence is a queue.Fence held until a fixed time.
type fixedFence struct{ until time.Time }

func (f fixedFence) QueueID() int64       { return 3 }
func (f fixedFence) Holder() string       { return "replica-a" }
func (f fixedFence) Token() int64         { return 1 }
func (f fixedFence) HeldUntil() time.Time { return f.until }

// No GitHub write leaves a replica that cannot prove it holds the queue's
// lease for the write's time; reads, and requests made for no queue's
// lease (webhooks, the API), are not held back; a write that is let
// through is cut off when the lease may pass on.
func TestLeaseWriteGuard(t *testing.T) {
	var hits atomic.Int32
	var deadline atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	now := time.Now()
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if d, ok := r.Context().Deadline(); ok {
			deadline.Store(d)
		}
		return http.DefaultTransport.RoundTrip(r)
	})
	rt := leaseWriteGuard(func() time.Time { return now })(base)
	send := func(ctx context.Context, method string) error {
		req, err := http.NewRequestWithContext(ctx, method, srv.URL+"/repos/acme/widgets/merges", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := rt.RoundTrip(req)
		if err == nil {
			_ = resp.Body.Close()
		}
		return err
	}
	ctx := context.Background()
	short := queue.WithFence(ctx, fixedFence{until: now.Add(minWriteWindow - time.Millisecond)})
	lost := queue.WithFence(ctx, fixedFence{})
	roleLost := withHold(ctx, &roleHold{})
	for _, c := range []context.Context{short, lost, roleLost} {
		for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			if err := send(c, m); !errors.Is(err, queue.ErrLeaseLost) {
				t.Errorf("%s without the lease for the write = %v; want ErrLeaseLost", m, err)
			}
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("%d writes reached GitHub without the lease", n)
	}
	if err := send(lost, http.MethodGet); err != nil {
		t.Fatalf("GET under a lost lease: %v; reads are not held back", err)
	}
	if err := send(ctx, http.MethodPost); err != nil {
		t.Fatalf("POST for no queue's lease: %v", err)
	}
	until := now.Add(time.Minute)
	if err := send(queue.WithFence(ctx, fixedFence{until: until}), http.MethodPut); err != nil {
		t.Fatalf("PUT under a held lease: %v", err)
	}
	if d, _ := deadline.Load().(time.Time); !d.Equal(until) {
		t.Fatalf("the write's deadline = %v; want the lease's end %v", d, until)
	}
	if n := hits.Load(); n != 3 {
		t.Fatalf("%d requests reached GitHub; want 3", n)
	}
}

// Git pushes (test branches built with git, fast-forwards) do not pass
// through the client's HTTP middleware: leasePushGuard holds them back as
// leaseWriteGuard holds back REST writes, and bounds a push let through by
// the lease's end.
func TestLeasePushGuard(t *testing.T) {
	now := time.Now()
	guard := leasePushGuard(func() time.Time { return now })
	ctx := context.Background()
	for name, c := range map[string]context.Context{
		"a lease ending within the write window": queue.WithFence(ctx, fixedFence{until: now.Add(minWriteWindow - time.Millisecond)}),
		"a lost lease":                           queue.WithFence(ctx, fixedFence{}),
		"a lost role":                            withHold(ctx, &roleHold{}),
	} {
		if _, _, err := guard(c); !errors.Is(err, queue.ErrLeaseLost) {
			t.Errorf("push under %s: %v; want ErrLeaseLost", name, err)
		}
	}
	pctx, cancel, err := guard(ctx)
	if err != nil {
		t.Fatalf("push for no queue's lease: %v", err)
	}
	cancel()
	if _, ok := pctx.Deadline(); ok {
		t.Fatal("a push for no queue's lease got a deadline")
	}
	until := now.Add(time.Minute)
	pctx, cancel, err = guard(queue.WithFence(ctx, fixedFence{until: until}))
	if err != nil {
		t.Fatalf("push under a held lease: %v", err)
	}
	defer cancel()
	if d, _ := pctx.Deadline(); !d.Equal(until) {
		t.Fatalf("the push's deadline = %v; want the lease's end %v", d, until)
	}
}
