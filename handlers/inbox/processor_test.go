package inbox

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rs/zerolog"
)

// recordingHandler records the deliveries it sees and fails as told.
type recordingHandler struct {
	events []string
	fail   func(id string) error

	mu   sync.Mutex
	seen []string
}

func (h *recordingHandler) Handles() []string { return h.events }

func (h *recordingHandler) Handle(ctx context.Context, eventType, deliveryID string, _ []byte) error {
	h.mu.Lock()
	h.seen = append(h.seen, deliveryID)
	h.mu.Unlock()
	zerolog.Ctx(ctx).Info().Msg("handled")
	if h.fail != nil {
		return h.fail(deliveryID)
	}
	return nil
}

func (h *recordingHandler) ids() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.seen...)
}

// fakeClock is a settable clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func put(t *testing.T, inbox *fakeInbox, id, event string) {
	t.Helper()
	if _, err := inbox.PutDelivery(context.Background(), Delivery{ID: id, Event: event, Payload: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
}

func TestProcessorDispatchesInOrder(t *testing.T) {
	t.Parallel()
	inbox := newFakeInbox()
	for _, d := range []struct{ id, event string }{{"1", "push"}, {"2", "status"}, {"3", "push"}, {"4", "unknown"}} {
		put(t, inbox, d.id, d.event)
	}
	all := &recordingHandler{events: []string{"push", "status"}}
	shadowed := &recordingHandler{events: []string{"push"}}
	p := NewProcessor(inbox, []githubapp.EventHandler{all, shadowed}, zerolog.Nop())

	n, err := p.ProcessPending(context.Background())
	if err != nil || n != 4 {
		t.Fatalf("ProcessPending = %d, %v; want 4, nil", n, err)
	}
	if got := strings.Join(all.ids(), ","); got != "1,2,3" {
		t.Fatalf("handled %s, want 1,2,3", got)
	}
	if len(shadowed.ids()) != 0 {
		t.Fatal("the second handler of an event was called")
	}
	for _, id := range []string{"1", "2", "3", "4"} {
		if d, _ := inbox.get(id); !d.Done || d.Error != "" || d.Attempts != 1 {
			t.Fatalf("delivery %s = %+v, want done once without error", id, d)
		}
	}
	if n, _ := p.ProcessPending(context.Background()); n != 0 {
		t.Fatalf("second ProcessPending = %d, want 0", n)
	}
}

func TestProcessorRetriesWithBackoffThenGivesUp(t *testing.T) {
	t.Parallel()
	inbox := newFakeInbox()
	put(t, inbox, "bad", "push")
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	h := &recordingHandler{events: []string{"push"}, fail: func(string) error { return errors.New("github is down") }}
	p := NewProcessor(inbox, []githubapp.EventHandler{h}, zerolog.Nop(),
		WithMaxAttempts(3), WithRetryBackoff(time.Second, 10*time.Second), WithProcessorClock(clock.Now))
	ctx := context.Background()

	steps := []struct {
		advance  time.Duration
		wantRuns int
		wantDone bool
	}{
		{0, 1, false},                      // attempt 1 fails
		{0, 0, false},                      // backing off (1s)
		{999 * time.Millisecond, 0, false}, // still backing off
		{time.Millisecond, 1, false},       // attempt 2 fails; next in 2s
		{time.Second, 0, false},
		{time.Second, 1, true}, // attempt 3 fails: given up
		{time.Hour, 0, true},
	}
	for i, s := range steps {
		clock.Advance(s.advance)
		n, err := p.ProcessPending(ctx)
		if err != nil || n != s.wantRuns {
			t.Fatalf("step %d: ProcessPending = %d, %v; want %d", i, n, err, s.wantRuns)
		}
		if d, _ := inbox.get("bad"); d.Done != s.wantDone || d.Error != "github is down" {
			t.Fatalf("step %d: delivery %+v, want done=%v with the error recorded", i, d, s.wantDone)
		}
	}
	if len(h.ids()) != 3 {
		t.Fatalf("handled %d times, want 3", len(h.ids()))
	}
}

func TestProcessorRetryThenSuccess(t *testing.T) {
	t.Parallel()
	inbox := newFakeInbox()
	put(t, inbox, "flaky", "push")
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	fails := 1
	h := &recordingHandler{events: []string{"push"}, fail: func(string) error {
		if fails > 0 {
			fails--
			return errors.New("transient")
		}
		return nil
	}}
	p := NewProcessor(inbox, []githubapp.EventHandler{h}, zerolog.Nop(), WithProcessorClock(clock.Now))
	if _, err := p.ProcessPending(context.Background()); err != nil {
		t.Fatal(err)
	}
	clock.Advance(DefaultRetryBase)
	if _, err := p.ProcessPending(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d, _ := inbox.get("flaky"); !d.Done || d.Error != "" || d.Attempts != 2 {
		t.Fatalf("delivery %+v, want done after 2 attempts with no error", d)
	}
}

func TestProcessorFailingDeliveryDoesNotBlockLaterOnes(t *testing.T) {
	t.Parallel()
	inbox := newFakeInbox()
	put(t, inbox, "bad", "push")
	h := &recordingHandler{events: []string{"push"}, fail: func(id string) error {
		if id == "bad" {
			return errors.New("boom")
		}
		return nil
	}}
	p := NewProcessor(inbox, []githubapp.EventHandler{h}, zerolog.Nop())
	if _, err := p.ProcessPending(context.Background()); err != nil {
		t.Fatal(err)
	}
	put(t, inbox, "good", "push")
	if n, err := p.ProcessPending(context.Background()); err != nil || n != 1 {
		t.Fatalf("ProcessPending = %d, %v; want 1", n, err)
	}
	if d, _ := inbox.get("good"); !d.Done {
		t.Fatal("a later delivery waited behind a failing one")
	}
}

func TestProcessorPermanentAndPanic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		fail     func(string) error
		wantDone bool
		wantErr  string
	}{
		{"permanent error ends at once", func(string) error { return Permanent(errors.New("bad json")) }, true, "bad json"},
		{"panic is an ordinary failure", func(string) error { panic("nil map") }, false, "panicked: nil map"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			inbox := newFakeInbox()
			put(t, inbox, "d", "push")
			h := &recordingHandler{events: []string{"push"}, fail: tt.fail}
			p := NewProcessor(inbox, []githubapp.EventHandler{h}, zerolog.Nop())
			if _, err := p.ProcessPending(context.Background()); err != nil {
				t.Fatal(err)
			}
			d, _ := inbox.get("d")
			if d.Done != tt.wantDone || !strings.Contains(d.Error, tt.wantErr) {
				t.Fatalf("delivery %+v, want done=%v error containing %q", d, tt.wantDone, tt.wantErr)
			}
		})
	}
}

func TestProcessorLoggerCarriesDelivery(t *testing.T) {
	t.Parallel()
	inbox := newFakeInbox()
	put(t, inbox, "abc-123", "push")
	var buf syncBuffer
	p := NewProcessor(inbox, []githubapp.EventHandler{&recordingHandler{events: []string{"push"}}}, zerolog.New(&buf))
	if _, err := p.ProcessPending(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{`"github_delivery_id":"abc-123"`, `"github_event_type":"push"`, `"message":"handled"`} {
		if !strings.Contains(out, want) {
			t.Fatalf("log %s lacks %s", out, want)
		}
	}
}

func TestProcessorInboxFailure(t *testing.T) {
	t.Parallel()
	inbox := newFakeInbox()
	inbox.readErr = errors.New("db locked")
	p := NewProcessor(inbox, nil, zerolog.Nop())
	if _, err := p.ProcessPending(context.Background()); err == nil || !strings.Contains(err.Error(), "db locked") {
		t.Fatalf("ProcessPending error = %v, want the inbox error", err)
	}
}

func TestProcessorRunWakesAndStops(t *testing.T) {
	t.Parallel()
	inbox := newFakeInbox()
	h := &recordingHandler{events: []string{"push"}}
	p := NewProcessor(inbox, []githubapp.EventHandler{h}, zerolog.Nop(), WithPollInterval(time.Hour))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()

	put(t, inbox, "w1", "push")
	p.Wake()
	waitFor(t, func() bool { d, _ := inbox.get("w1"); return d.Done })

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run = %v, want nil", err)
		}
	case <-time.After(waitBound):
		t.Fatalf("Run did not stop within %v", waitBound)
	}
}

func TestProcessorRunPolls(t *testing.T) {
	t.Parallel()
	inbox := newFakeInbox()
	h := &recordingHandler{events: []string{"push"}}
	p := NewProcessor(inbox, []githubapp.EventHandler{h}, zerolog.Nop(), WithPollInterval(time.Millisecond))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = p.Run(ctx) }()
	put(t, inbox, "p1", "push") // no Wake: the poll finds it
	waitFor(t, func() bool { d, _ := inbox.get("p1"); return d.Done })
}

// waitBound bounds each wait in these tests on its own: generous for a busy
// machine running -race, and free when the condition comes quickly.
const waitBound = 60 * time.Second

// waitFor polls cond until it holds or waitBound passes.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitBound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %v", waitBound)
		}
		time.Sleep(time.Millisecond)
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A delivery failing because GitHub is down (a transient failure) is
// retried past MaxAttempts for as long as the transient window since it was
// received, then given up; a delivery failing otherwise still stops at
// MaxAttempts.
func TestProcessorRidesOutAnOutage(t *testing.T) {
	t.Parallel()
	errDown := errors.New("503 from GitHub")
	inbox := newFakeInbox()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, id := range []string{"outage", "broken"} {
		if _, err := inbox.PutDelivery(context.Background(), Delivery{ID: id, Event: "push", Payload: []byte("{}"), ReceivedAt: start}); err != nil {
			t.Fatal(err)
		}
	}
	clock := &fakeClock{now: start}
	h := &recordingHandler{events: []string{"push"}, fail: func(id string) error {
		if id == "outage" {
			return errDown
		}
		return errors.New("bad payload")
	}}
	p := NewProcessor(inbox, []githubapp.EventHandler{h}, zerolog.Nop(), WithMaxAttempts(3),
		WithRetryBackoff(time.Second, time.Minute), WithProcessorClock(clock.Now),
		WithTransient(func(err error) bool { return errors.Is(err, errDown) }, time.Hour))
	ctx := context.Background()
	for clock.Now().Sub(start) < 59*time.Minute {
		if _, err := p.ProcessPending(ctx); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Minute)
	}
	if d, _ := inbox.get("broken"); !d.Done || d.Attempts != 3 {
		t.Fatalf("the broken delivery: %+v, want given up after 3 attempts", d)
	}
	d, _ := inbox.get("outage")
	if d.Done || d.Attempts < 10 {
		t.Fatalf("during the outage: %+v, want still pending after many attempts", d)
	}
	clock.Advance(2 * time.Minute)
	if _, err := p.ProcessPending(ctx); err != nil {
		t.Fatal(err)
	}
	if d, _ := inbox.get("outage"); !d.Done || d.Error != errDown.Error() {
		t.Fatalf("after the window: %+v, want given up with the error", d)
	}
}
