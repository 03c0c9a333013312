package inbox

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rs/zerolog"
)

type attempt struct {
	event, outcome string
	sinceReceived  time.Duration
}

type recordingObserver struct {
	mu sync.Mutex
	a  []attempt
}

func (o *recordingObserver) DeliveryProcessed(event, outcome string, handling, sinceReceived time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if handling < 0 {
		panic("negative handling time")
	}
	o.a = append(o.a, attempt{event, outcome, sinceReceived})
}

func TestProcessorReportsEveryAttempt(t *testing.T) {
	t.Parallel()
	inbox := newFakeInbox()
	received := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, d := range []struct{ id, event string }{{"ok", "push"}, {"flaky", "status"}, {"bad", "check_run"}, {"other", "fork"}} {
		if _, err := inbox.PutDelivery(context.Background(), Delivery{ID: d.id, Event: d.event, Payload: []byte(`{}`), ReceivedAt: received}); err != nil {
			t.Fatal(err)
		}
	}
	clock := &fakeClock{now: received.Add(3 * time.Second)}
	flaky := 1
	h := &recordingHandler{events: []string{"push", "status", "check_run"}, fail: func(id string) error {
		switch {
		case id == "bad":
			return Permanent(errors.New("malformed"))
		case id == "flaky" && flaky > 0:
			flaky--
			return errors.New("github is down")
		}
		return nil
	}}
	obs := &recordingObserver{}
	p := NewProcessor(inbox, []githubapp.EventHandler{h}, zerolog.Nop(), WithProcessorClock(clock.Now), WithObserver(obs))
	if _, err := p.ProcessPending(context.Background()); err != nil {
		t.Fatal(err)
	}
	clock.Advance(DefaultRetryBase)
	if _, err := p.ProcessPending(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []attempt{
		{"push", OutcomeDone, 3 * time.Second},
		{"status", OutcomeRetry, 3 * time.Second},
		{"check_run", OutcomeGaveUp, 3 * time.Second},
		{"fork", OutcomeUnhandled, 3 * time.Second},
		{"status", OutcomeDone, 3*time.Second + DefaultRetryBase},
	}
	if !slices.Equal(obs.a, want) {
		t.Errorf("observed %+v\nwant     %+v", obs.a, want)
	}
}
