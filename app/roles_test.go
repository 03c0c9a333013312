package app

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeRoles grants or refuses every claim as the test says.
type fakeRoles struct {
	grant  atomic.Bool
	claims atomic.Int32
}

func (f *fakeRoles) ClaimRole(context.Context, string, string, time.Time, time.Duration) (bool, error) {
	f.claims.Add(1)
	return f.grant.Load(), nil
}

// A role's work runs only while the replica holds the role: when a
// renewal is refused its context ends at once and its hold says lost (its
// GitHub writes are refused); it runs again once the role is claimed again.
func TestRunAsRoleRunsOnlyWhileHeld(t *testing.T) {
	roles := &fakeRoles{}
	a := &App{now: time.Now, replica: "replica-a"}
	var mu sync.Mutex
	var holds []writeHold
	var running atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.runAsRole(ctx, roles, "reconciler", 150*time.Millisecond, func(ctx context.Context) {
			h, ok := holdOf(ctx)
			if !ok {
				t.Error("the role's work runs without its hold")
			}
			mu.Lock()
			holds = append(holds, h)
			mu.Unlock()
			running.Add(1)
			<-ctx.Done()
			running.Add(-1)
		})
	}()
	waitUntil(t, func() bool { return roles.claims.Load() >= 3 })
	if running.Load() != 0 {
		t.Fatal("the work runs without the role")
	}
	roles.grant.Store(true)
	waitUntil(t, func() bool { return running.Load() == 1 })
	roles.grant.Store(false)
	waitUntil(t, func() bool { return running.Load() == 0 })
	mu.Lock()
	if h := holds[0].HeldUntil(); !h.IsZero() {
		t.Errorf("the lost role's hold = %v; want zero (lost)", h)
	}
	mu.Unlock()
	roles.grant.Store(true)
	waitUntil(t, func() bool { return running.Load() == 1 })
	cancel()
	<-done
	if running.Load() != 0 {
		t.Fatal("the work outlived the context")
	}
}
