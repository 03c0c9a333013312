package service_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/memstore"
	"github.com/mergequeue/mq/queue/service"
)

// budgetedGitHub is a surfaceGitHub whose surface writes wait for a
// budget the test grants (queue.WriteReserver).
type budgetedGitHub struct {
	*surfaceGitHub
	asked   chan struct{} // a reservation is waiting
	grant   chan struct{} // grants it
	refuse  error         // returned instead of a grant
	holding int           // reservations granted and not released
}

func (g *budgetedGitHub) ReserveSurfaceWrite(ctx context.Context, _ queue.Repo) (context.Context, func(), error) {
	if g.refuse != nil {
		return ctx, func() {}, g.refuse
	}
	g.asked <- struct{}{}
	select {
	case <-g.grant:
	case <-ctx.Done():
		return ctx, func() {}, ctx.Err()
	}
	g.mu.Lock()
	g.holding++
	g.mu.Unlock()
	released := false
	return ctx, func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if !released {
			released = true
			g.holding--
		}
	}, nil
}

// budgetedWorld is a service over a budgetedGitHub with one queue (no
// comments) and one entry, whose state set changes as the queue's holder
// would (saved, its surface touched).
type budgetedWorld struct {
	g   *budgetedGitHub
	svc *service.Service
	q   *queue.Queue
	e   *queue.Entry
	set func(queue.EntryState, queue.Reason)
}

// newBudgetedWorld builds a budgetedWorld on mem, the service reading it
// through svcStore (mem itself, or a wrapper of it).
func newBudgetedWorld(t *testing.T, mem *memstore.Store, svcStore queue.Store) *budgetedWorld {
	t.Helper()
	w := &budgetedWorld{g: &budgetedGitHub{surfaceGitHub: newSurfaceGitHub(), asked: make(chan struct{}), grant: make(chan struct{})}}
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	w.svc = service.NewService(svcStore, w.g, service.Options{Now: func() time.Time { return now }, ReconcileEvery: time.Minute})
	ctx := context.Background()
	s := queue.DefaultSettings()
	s.CommentsEnabled = false
	q, err := w.svc.CreateQueue(ctx, opsKey, s)
	if err != nil {
		t.Fatal(err)
	}
	w.q = q
	w.e = &queue.Entry{ID: "entry-1", QueueID: q.ID, PRNumber: 1, SubmittedAt: now, PriorityName: "medium", PriorityValue: 100,
		Source: "comment", PRSHA: "head1"}
	w.set = func(st queue.EntryState, reason queue.Reason) {
		w.e.State, w.e.StateReason = st, reason
		if err := mem.SaveEntry(ctx, w.e); err != nil {
			t.Error(err)
		}
		if err := mem.TouchSurface(ctx, q.ID, w.e.ID); err != nil {
			t.Error(err)
		}
	}
	return w
}

// With writes budgeted, the reconciler waits for the budget before it
// composes a PR's surfaces: the states the entry went through while it
// waited are skipped, the newest is written once, and the reservation is
// released.
func TestReconcilerWaitsForBudgetThenWritesTheNewestState(t *testing.T) {
	t.Parallel()
	store := memstore.New()
	w := newBudgetedWorld(t, store, store)
	g, svc, q, e, set, ctx := w.g, w.svc, w.q, w.e, w.set, context.Background()
	set(queue.StatePending, queue.ReasonAdmitted)
	done := make(chan error, 1)
	go func() { _, err := svc.Reconciler().Pass(ctx); done <- err }()
	select { // the pass waits for budget, nothing composed yet
	case <-g.asked:
	case err := <-done:
		t.Fatalf("the pass ended (%v) without waiting for budget", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the pass never asked for budget")
	}
	set(queue.StateTesting, queue.ReasonTesting)
	set(queue.StateTestsPassed, queue.ReasonTestsPassed)
	set(queue.StateMerged, queue.ReasonMergedByQueue)
	g.grant <- struct{}{}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := g.checkRunsOn("head1")
	if len(got) != 1 || got[0].Conclusion != "success" {
		t.Fatalf("check runs %+v, want one, showing the merge", got)
	}
	if n := g.count("UpsertCheckRun"); n != 1 {
		t.Fatalf("%d check run writes, want 1 (the states in between skipped)", n)
	}
	sf, err := store.GetSurface(ctx, e.ID)
	if err != nil || sf.Due() {
		t.Fatalf("surface %+v, %v; want up to date", sf, err)
	}
	if g.holding != 0 {
		t.Fatalf("%d reservations held after the pass", g.holding)
	}

	// Nothing to write: no budget is asked for.
	if err := store.TouchSurface(ctx, q.ID, e.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Reconciler().Pass(ctx); err != nil {
		t.Fatal(err)
	}
	// A refused reservation is a failed write: backed off, not written.
	set(queue.StateFailed, queue.ReasonTestsFailed)
	g.refuse = errors.New("GitHub App is not installed on the repository")
	if _, err := svc.Reconciler().Pass(ctx); err != nil {
		t.Fatal(err)
	}
	if sf, _ := store.GetSurface(ctx, e.ID); !sf.Due() || sf.Attempts != 1 || !strings.Contains(sf.LastError, "not installed") {
		t.Fatalf("surface after a refused reservation: %+v", sf)
	}
	if n := g.count("UpsertCheckRun"); n != 1 {
		t.Fatalf("%d check run writes, want still 1", n)
	}
}
