package app

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
)

// sharedRoles are the roles of replicas sharing a database: a claim holds
// until its end unless its holder claims again.
type sharedRoles struct {
	mu     sync.Mutex
	holder map[string]string
	until  map[string]time.Time
}

func newSharedRoles() *sharedRoles {
	return &sharedRoles{holder: map[string]string{}, until: map[string]time.Time{}}
}

func (r *sharedRoles) ClaimRole(_ context.Context, role, holder string, now time.Time, hold time.Duration) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if h, ok := r.holder[role]; ok && h != holder && r.until[role].After(now) {
		return false, nil
	}
	r.holder[role], r.until[role] = holder, now.Add(hold)
	return true, nil
}

// sharedEvents is a queue event log that replicas share (alertLog).
type sharedEvents struct {
	mu     sync.Mutex
	events []queue.Event
}

func (l *sharedEvents) ListEvents(_ context.Context, queueID int64, since time.Time) ([]queue.Event, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []queue.Event
	for _, ev := range l.events {
		if ev.QueueID == queueID && !ev.At.Before(since) {
			out = append(out, ev)
		}
	}
	return out, nil
}

func (l *sharedEvents) AddEvent(_ context.Context, ev *queue.Event) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	ev.ID = int64(len(l.events) + 1)
	l.events = append(l.events, *ev)
	return nil
}

// alerts returns the alert events of the log: for each, whether it
// raised its alert.
func (l *sharedEvents) alerts() []bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []bool
	for _, ev := range l.events {
		if _, raised, ok := ev.Alert(); ok {
			out = append(out, raised)
		}
	}
	return out
}

// stallSwitch is one queue, stalled or not as the test says; it counts the
// times it was asked.
type stallSwitch struct {
	mu      sync.Mutex
	q       *queue.Queue
	stalled bool
	asked   int
}

func (s *stallSwitch) ListQueues(context.Context) ([]*queue.Queue, error) {
	return []*queue.Queue{s.q}, nil
}

func (s *stallSwitch) Stalled(_ context.Context, q *queue.Queue) (*readside.Stall, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked++
	if !s.stalled {
		return nil, nil
	}
	return &readside.Stall{Since: time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC), Detail: "PRs wait for CI"}, nil
}

// set stalls the queue or not, and returns how often it was asked so far.
func (s *stallSwitch) set(stalled bool) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stalled = stalled
	return s.asked
}

func (s *stallSwitch) askedSoFar() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asked
}

// Two replicas share the database: a queue that stalls, moves again and
// stalls again has its stall alert raised, cleared and raised once each
// (each is a queue_alert notification), not once per replica. (The stall
// watch ran on every replica, each keeping in memory which alerts it had
// raised.)
func TestStallAlertsAreRaisedOnceAcrossReplicas(t *testing.T) {
	roles, log := newSharedRoles(), &sharedEvents{}
	reads := &stallSwitch{q: &queue.Queue{ID: 7, Key: queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}, Branch: "main"}}}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, name := range []string{"replica-a", "replica-b"} {
		a := &App{now: time.Now, replica: name}
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.runStallWatch(ctx, roles, reads, log, newStallMetrics(), 2*time.Millisecond)
		}()
	}
	defer func() {
		cancel()
		wg.Wait()
	}()
	want := []bool{}
	for _, stalled := range []bool{true, false, true} {
		from := reads.set(stalled)
		want = append(want, stalled)
		// Long enough for every replica watching to see the change
		// many times over.
		waitUntil(t, func() bool { return len(log.alerts()) >= len(want) && reads.askedSoFar() >= from+40 })
	}
	if got := log.alerts(); !slices.Equal(got, want) {
		t.Fatalf("alert events (true: raised) %v, want %v", got, want)
	}
}

// A replica whose stall-watch role passed on (it was frozen past it)
// records no alert: the replica holding the role now does.
func TestStallAlertIsNotRecordedWithoutTheRole(t *testing.T) {
	now := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	log := &sharedEvents{}
	alerts := &stallAlerts{log: log, now: func() time.Time { return now }, open: map[int64]bool{}}
	q := &queue.Queue{ID: 7}
	ctx := withHold(context.Background(), &roleHold{until: now.Add(-time.Second)})
	if err := alerts.set(ctx, q, true, "PRs wait for CI"); !errors.Is(err, queue.ErrLeaseLost) {
		t.Errorf("raising the alert without the role: %v, want queue.ErrLeaseLost", err)
	}
	if got := log.alerts(); len(got) != 0 {
		t.Fatalf("alert events %v recorded without the role", got)
	}
	ctx = withHold(context.Background(), &roleHold{until: now.Add(time.Minute)})
	if err := alerts.set(ctx, q, true, "PRs wait for CI"); err != nil {
		t.Fatal(err)
	}
	if got := log.alerts(); !slices.Equal(got, []bool{true}) {
		t.Fatalf("alert events %v under the role, want the one raise", got)
	}
}
