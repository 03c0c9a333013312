package notify

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// blockingEndpoint records every request and holds the first until
// release is closed.
type blockingEndpoint struct {
	endpoint
	once    sync.Once
	started chan struct{}
	release chan struct{}
}

func (e *blockingEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	first := false
	e.once.Do(func() { first = true })
	if first {
		close(e.started)
		<-e.release
	}
	e.endpoint.ServeHTTP(w, r)
}

// Two processes (replicas) sharing the store deliver to one target: while
// the first is delivering, the second leaves the target alone, so every
// event reaches it once.
func TestReplicasDeliverEachEventOnce(t *testing.T) {
	f := newFixture(t)
	ep := &blockingEndpoint{started: make(chan struct{}), release: make(chan struct{})}
	srv := httptest.NewServer(ep)
	defer srv.Close()
	target := Target{URL: srv.URL, Kind: Webhook}
	replica := func(name string) *Notifier {
		return New(sqliteStore{f.store}, Options{Targets: []Target{target}, Now: func() time.Time { return f.now }, Holder: name})
	}
	first, second := replica("replica-1"), replica("replica-2")
	if _, err := first.Step(f.ctx, target); err != nil { // starts the cursor
		t.Fatal(err)
	}
	f.event(t, 3, queue.StateTestsPassed, queue.StateMerged, queue.ReasonMergedByQueue, "single")

	done := make(chan error, 1)
	go func() {
		_, err := first.Step(f.ctx, target)
		done <- err
	}()
	<-ep.started // the first is delivering the event
	wait, err := second.Step(f.ctx, target)
	close(ep.release)
	if err != nil || wait != time.Second {
		t.Fatalf("second replica's step = %s, %v; want to wait the poll interval", wait, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := len(ep.messages(t)); got != 1 {
		t.Fatalf("the target got %d messages; want the event once", got)
	}
	// The first keeps the target while it steps; once it stops (its claim
	// ends), the second takes over where it left off.
	f.event(t, 1, queue.StateTesting, queue.StateFailed, queue.ReasonTestsFailed, "half")
	if _, err := second.Step(f.ctx, target); err != nil || len(ep.messages(t)) != 1 {
		t.Fatalf("second replica delivered while the first holds the target: %v, %d messages", err, len(ep.messages(t)))
	}
	f.now = f.now.Add(cursorHold)
	if _, err := second.Step(f.ctx, target); err != nil {
		t.Fatal(err)
	}
	if got := len(ep.messages(t)); got != 2 {
		t.Fatalf("the target got %d messages; want both events once", got)
	}
}
