package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"
)

// A queue woken on one replica is heard by another within a second, and a
// listener starts by waking every queue (what was sent before it listened
// is lost).
func TestWakeUpsReachTheOtherReplicas(t *testing.T) {
	t.Parallel()
	a, b, q, _ := replicas(t)
	var mu sync.Mutex
	var heard []int64
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- a.ListenWakes(ctx, func(id int64) {
			mu.Lock()
			heard = append(heard, id)
			mu.Unlock()
		})
	}()
	got := func() []int64 {
		mu.Lock()
		defer mu.Unlock()
		return append([]int64(nil), heard...)
	}
	waitFor(t, 10*time.Second, func() bool { return len(got()) >= 1 })
	if h := got(); h[0] != 0 {
		t.Fatalf("first wake-up = %d; want 0 (every queue) once listening", h[0])
	}
	sent := time.Now()
	if err := b.WakeQueue(context.Background(), q.ID); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, func() bool { h := got(); return len(h) >= 2 && h[len(h)-1] == q.ID })
	if took := time.Since(sent); took > time.Second {
		t.Errorf("the wake-up took %v; want under a second", took)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("ListenWakes: %v", err)
	}
}

// waitFor polls cond until it holds or bound passes.
func waitFor(t *testing.T, bound time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not reached within %v", bound)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
