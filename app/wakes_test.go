package app

import (
	"context"
	"sync"
	"testing"
)

// recordingWakes is a wakeStore that records the wake-ups sent.
type recordingWakes struct {
	mu   sync.Mutex
	sent []int64
}

func (r *recordingWakes) WakeQueue(_ context.Context, id int64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, id)
	return nil
}

func (r *recordingWakes) ListenWakes(ctx context.Context, _ func(int64)) error {
	<-ctx.Done()
	return nil
}

func (r *recordingWakes) has(id int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.sent {
		if s == id {
			return true
		}
	}
	return false
}

// A queue woken here is woken on the other replicas too: each wake-up
// added is sent, without add ever waiting for the database.
func TestWakeBroadcastSendsEveryQueueWoken(t *testing.T) {
	b := newWakeBroadcast()
	store := &recordingWakes{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.run(ctx, store)
	}()
	for _, id := range []int64{3, 4, 3} {
		b.add(id)
	}
	waitUntil(t, func() bool { return store.has(3) && store.has(4) })
	b.add(9)
	waitUntil(t, func() bool { return store.has(9) })
	cancel()
	<-done
}
